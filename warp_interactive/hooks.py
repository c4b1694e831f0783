"""Calls from a lower layer up to a higher one, registered by the higher layer at import: the
package's one mechanism for calls that would otherwise point upward or close an import cycle.

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
- lang/definitions/module.py: ``new_module`` (``state.module(name)`` makes a Module);
  lang/definitions/decorators.py: ``forget_callers`` (drop the translated IR of the callers of a
  changed ``@wp.func``); runtime/launch_state.py's ``invalidate`` is in ``on_invalidate``;
- runtime/python_scope.py: ``python_call`` (a builtin called outside kernels, ``wp.sin(1.0)``);
- types/indexedarray.py: ``index_with_arrays`` (``a[idx_array]``), ``copy_indexed``;
- inside the runtime, where device.py is imported by what it reaches: runtime/cuda_backend.py
  ``cuda_probe``, runtime/allocators.py ``allocators_for``, runtime/memory.py ``cpu_memory``,
  runtime/cpu_streams.py ``new_cpu_stream``, ``is_cpu_stream`` and ``cpu_kinds``;
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
new_module = _missing("a module")
python_call = _missing("a builtin called outside kernels")   # (key, args, kwargs) -> value
forget_callers = _missing("redefining a @wp.func")
index_with_arrays = _missing("indexing an array with index arrays")
copy_indexed = _missing("copying an indexed array")
cuda_probe = _missing("finding the CUDA devices")      # () -> why CUDA is unusable, or None
allocators_for = _missing("a device's allocators")     # (device, "default" | "pinned") -> allocator
cpu_memory = _missing("the CPU's memory")              # () -> the CPU's memory backend
new_cpu_stream = _missing("the CPU's stream")          # (device) -> a new CPU stream
is_cpu_stream = _missing("the CPU's stream")           # (obj) -> bool

# called in order when modules' kernels, options or binaries change (fast launch plans re-validate)
on_invalidate = []
# "stream" / "event" / "elapsed_ms" -> the CPU's kinds, for wp.Stream(...) etc. on the CPU device
cpu_kinds = {}

# kind ("array", "timing", "scoped_timer") -> function(obj) -> HTML text
html_views = {}


def html_view(kind, obj):
    """The notebook's HTML for ``obj`` (registered by the top package; imported on first use)."""
    view = html_views.get(kind)
    if view is None:
        raise RuntimeError(f"no HTML view for {kind!r} is registered: import warp_interactive")
    return view(obj)
