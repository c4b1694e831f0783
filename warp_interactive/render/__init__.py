"""``warp.render``: renderers for Warp simulations.

``OpenGLRenderer`` draws in real time with OpenGL (pyglet), in a window or off-screen: on a
machine without a display it renders headless through EGL, and without a GPU through Mesa's
software rasterizer, so frames can be made on a laptop, a CI runner or a CPU notebook.
``UsdRenderer`` writes the scene, frame by frame, to a USD stage (usd-core).

Both need optional packages (``pip install 'warp_interactive[render]'``: pyglet, usd-core);
importing this module needs neither, and the first renderer created says what is missing.
"""

from ._deps import MissingDependency
from .opengl import OpenGLRenderer
from .scene import tab10_color
from .usd import UsdRenderer

__all__ = ["OpenGLRenderer", "UsdRenderer", "MissingDependency", "tab10_color"]
