"""The optional dependencies of the renderers, imported on first use with a message that says
what to install. ``import warp_interactive.render`` itself needs none of them."""

import os
import sys

PIP_HINT = "pip install 'warp_interactive[render]'"
EGL_HINT = ("apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri libgles2 "
            "(Debian/Ubuntu: the EGL loader and Mesa's drivers, for rendering without a display)")


class MissingDependency(ImportError):
    """A renderer's optional package is not installed (the message names what to install)."""


def _display_available():
    if sys.platform != "linux":
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def import_pyglet(headless):
    """Import pyglet for an off-screen context (``headless``) or a window. Whether pyglet runs
    headless is fixed when ``pyglet.gl`` is first imported, so the first renderer decides; a
    process without a display always runs headless. Returns (pyglet, headless)."""
    try:
        import pyglet
    except ImportError as e:
        raise MissingDependency(
            "OpenGLRenderer needs pyglet (>= 2.0), which is not installed: "
            f"{PIP_HINT} (or: pip install pyglet). Without a display it renders off-screen "
            f"through EGL, which needs the system's EGL/Mesa libraries: {EGL_HINT}") from e
    if int(pyglet.version.split(".")[0]) < 2:
        raise MissingDependency(f"OpenGLRenderer needs pyglet >= 2.0, found {pyglet.version}: "
                                "pip install -U pyglet")
    if "pyglet.gl" in sys.modules:
        # already imported: its mode is the one in force
        headless = bool(pyglet.options.get("headless", False)) or headless
    else:
        if headless is None:
            headless = bool(pyglet.options.get("headless", False))
        if not _display_available():
            headless = True
        if headless:
            pyglet.options["headless"] = True
        # pyglet's per-call glGetError checks cost more than the drawing on a software rasterizer
        pyglet.options["debug_gl"] = False
    if bool(pyglet.options.get("headless", False)):
        headless = True
    try:
        import pyglet.gl  # noqa: F401  (creates pyglet's shadow context)
        import pyglet.window  # noqa: F401
    except Exception as e:
        raise MissingDependency(
            f"OpenGLRenderer could not create an OpenGL context ({type(e).__name__}: {e}). "
            f"Off-screen rendering needs the system's EGL/Mesa libraries: {EGL_HINT}") from e
    return pyglet, bool(headless)


def import_pxr():
    try:
        from pxr import Gf, Sdf, Usd, UsdGeom, UsdLux, Vt
    except ImportError as e:
        raise MissingDependency(
            f"UsdRenderer needs USD's Python modules (pxr), which are not installed: {PIP_HINT} "
            "(or: pip install usd-core)") from e
    return Gf, Sdf, Usd, UsdGeom, UsdLux, Vt
