"""Calls from a lower layer up to a higher one, registered by the higher layer at import.

Layers point one way (docs/internals.md): the bottom layer imports nothing above it, yet a
``wp.array`` must resolve a device, record a copy on the active tape, defer work inside a graph
capture, multiply by ``@``, export DLPack and show itself in a notebook. The layer that
implements each of these sets the matching attribute here when it is imported:

- runtime/device.py: ``get_device``;
- build/driver.py: ``module_build`` (a lang.Module's build record);
- runtime/memory.py: ``from_cuda_interface`` (arrays of other libraries on a GPU);
- warp_interactive/__init__.py for runtime/args.py: ``foreign_array`` (a torch tensor, a
  ``__dlpack__`` or ``__array__`` object passed to a kernel: interop/launch_args.py);
- runtime/tape_hooks.py: ``record_copy``, ``before_write``;  runtime/graph.py: ``defer``, ``check_readable``,
  ``note_write``;
- warp_interactive/__init__.py (the top, which may import anything, lazily):
  ``matmul``, ``array_op`` (``a + b`` on arrays), ``dlpack``, ``dlpack_device`` and the
  notebook's HTML views (``html_views``).

Each default raises: reaching one means the package was imported without its runtime.
"""


def _missing(what):
    def call(*args, **kwargs):
        raise RuntimeError(f"{what} needs the runtime: import warp_interactive first")
    return call


get_device = _missing("resolving a device")
from_cuda_interface = _missing("an array from __cuda_array_interface__")
record_copy = _missing("wp.copy")
before_write = _missing("an array write on a tape")
defer = _missing("graph capture")
check_readable = _missing("graph capture")
note_write = _missing("graph capture")
matmul = _missing("a @ b")
array_op = _missing("arithmetic on arrays")
dlpack = _missing("__dlpack__")
dlpack_device = _missing("__dlpack_device__")
foreign_array = _missing("a kernel argument from another framework")
module_build = _missing("a module")

# kind ("array", "timing", "scoped_timer") -> function(obj) -> HTML text
html_views = {}


def html_view(kind, obj):
    """The notebook's HTML for ``obj`` (registered by the top package; imported on first use)."""
    view = html_views.get(kind)
    if view is None:
        raise RuntimeError(f"no HTML view for {kind!r} is registered: import warp_interactive")
    return view(obj)
