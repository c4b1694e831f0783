"""Shared by the renderer tests: an independent pinhole camera (NumPy) that says where a point
lands in the picture, and a headless renderer with a plain black background."""

import os

import numpy as np
import pytest

# scripts/test.sh installs the [render] extra and sets this: there, a missing package fails
REQUIRED = os.environ.get("WARP_INTERACTIVE_RENDER_TEST") == "require"


def need(module):
    if REQUIRED:
        return __import__(module)
    return pytest.importorskip(module, reason=f"{module} is not installed (pip install 'warp_interactive[render]')")


W, H, FOV, CAM_Z = 160, 120, 45.0, 10.0


def make_renderer(**kw):
    need("pyglet")
    import warp_interactive.render as wr
    opts = dict(screen_width=W, screen_height=H, headless=True, draw_grid=False, draw_sky=False,
                draw_axis=False, background_color=(0.0, 0.0, 0.0), camera_pos=(0.0, 0.0, CAM_Z),
                camera_fov=FOV, near_plane=1.0, far_plane=100.0)
    opts.update(kw)
    return wr.OpenGLRenderer(**opts)


def project(points, cam_z=CAM_Z, width=W, height=H, fov=FOV):
    """Pixel (column, row from the top) of world points seen by a camera at (0, 0, cam_z)
    looking down -Z with +Y up: continuous coordinates, pixel centres at +0.5."""
    p = np.atleast_2d(np.asarray(points, float))
    depth = cam_z - p[:, 2]
    f = 1.0 / np.tan(np.radians(fov) / 2.0)
    x_ndc = p[:, 0] / depth * f / (width / height)
    y_ndc = p[:, 1] / depth * f
    return np.stack([(x_ndc + 1) / 2 * width, (1 - y_ndc) / 2 * height], axis=1)


def frame(renderer, mode="rgb", **kw):
    import warp_interactive as wp
    channels = 3 if mode == "rgb" else 1
    out = wp.zeros((renderer.screen_height, renderer.screen_width, channels), dtype=float)
    assert renderer.get_pixels(out, split_up_tiles=False, mode=mode, **kw)
    return out.numpy()


def lit(image, threshold=0.05):
    return image.sum(axis=-1) > threshold


def centroid(mask):
    rows, cols = np.nonzero(mask)
    return np.array([cols.mean() + 0.5, rows.mean() + 0.5])
