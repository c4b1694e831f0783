"""warp_interactive: Python kernels in the style of NVIDIA Warp, compiled to C++ and run on all
CPU cores (and NVIDIA GPUs), built for notebooks.

    import warp_interactive as wp
"""

from . import types
from .config import DeterministicMode, config
from .logger import (LOG_DEBUG, LOG_ERROR, LOG_INFO, LOG_WARNING, Logger, ScopedLogger, ScopedLogLevel,
                     get_logger, set_logger)
from .lang.builtins import core as _builtins_core  # noqa: F401  (declares the builtins)
from .lang.translation import intrinsics_transform as _intrinsics_transform  # noqa: F401  (wp.transformation)
from .lang.builtins.function import intrinsic_doc as _intrinsic_doc
from .lang.builtins.function import intrinsic_names as _intrinsic_names
from .lang.builtins.function import make_builtin as _make_builtin
from .lang.definitions.decorators import constant, func, kernel, struct
from .errors import CodegenError, CompileError, LaunchError, WarpDeterminismError  # noqa: F401
from .lang.definitions.kernel import Kernel, overload
from .lang.translation.static import static
from .types.constants import *  # noqa: F401,F403  (wp.pi, wp.TAU...)
from .lang.builtins.registry import registry as _registry
from .runtime import python_scope as _python_scope  # noqa: F401  (registers wp.sin(1.0) &c.)
from .runtime.device import (Device, ScopedDevice, get_cuda_device_count, get_cuda_devices,
                             get_device, get_devices,
                             get_preferred_device, is_cpu_available, is_cuda_available,
                             is_device_available, set_device)
from .runtime import cuda_backend as _cuda_backend  # noqa: F401  (registers the CUDA probe)
from .runtime.cuda_backend import get_cuda_driver_version
from .runtime import memory as _memory  # noqa: F401  (registers each device's memory backend)
from .runtime.memory_tracker import ScopedMemoryTracker, print_memory_report  # noqa: F401
from .runtime.allocators import (Allocator, CudaManagedAllocator, ScopedAllocator,  # noqa: F401
                                 get_device_allocator, set_cuda_allocator, set_device_allocator)
from .types.memory_kind import MemoryKind  # noqa: F401
from .runtime.profiler import ScopedCudaProfiler, cuda_profiler_start, cuda_profiler_stop  # noqa: F401
from .runtime.launch import Launch, launch, launch_tiled  # noqa: F401
from .runtime.tape import Tape
from .runtime.module import Module, force_load, get_module, get_module_options, load_module, set_module_options
from .lang.definitions.build_options import ModuleBuildOptions  # noqa: F401  (module option extra_build_options)
from .runtime.utils import ScopedTimer, init, synchronize, synchronize_device
from .types import *  # noqa: F401,F403
from .types import (array, array1d, array2d, array3d, array4d, bool_, dtype_from_numpy,
                    bfloat16, dtype_to_numpy, float16, float32, float64, int8, int16, int32, int64,
                    matrix, quaternion, transformation, uint8, uint16, uint32, uint64, vector)
from .types.array import clone, copy, from_numpy
from .types.generic import Float, Int, Scalar  # noqa: F401  (generic annotations)
from .lang.definitions.func import Function  # noqa: F401
from .runtime.device import DeviceLike  # noqa: F401
from .types.indexedarray import indexedarray, indexedarray1d, indexedarray2d, indexedarray3d, indexedarray4d
from .types.reference import ref  # noqa: F401  (wp.ref[T]: @wp.func parameters by reference)
from .types.fixedarray import fixedarray  # noqa: F401  (stack arrays: wp.zeros(shape=..., dtype=...) in kernels)
from .lang.translation.addresses import address_of  # noqa: F401
from .lang.translation.pointer_ops import (address, array_store, index, indexref, load, store,  # noqa: F401
                                           view)
from .types.array_factories import (empty, empty_like, from_ptr, full, full_like, ones, ones_like,  # noqa: F401
                                    zeros, zeros_like)
from .version import __version__
from .compiler.cache import clear_kernel_cache
# CUDA: streams, events, graphs (cuda-bindings is imported only when a CUDA device is used)
from .runtime.cuda.streams import (Event, ScopedStream, Stream, get_event_elapsed_time, get_stream,
                                   record_event, set_stream, synchronize_event, synchronize_stream,
                                   wait_event, wait_stream)
from .runtime import cpu_streams as _cpu_streams  # noqa: F401  (wp.Stream("cpu"), wp.Event("cpu"))
from .runtime.graph import CaptureMode, Graph, ScopedCapture, capture_begin, capture_end, capture_launch
from .runtime.graph_conditional import capture_if, capture_while, is_conditional_graph_supported  # noqa: F401
from .runtime.device import get_cuda_device

# interop, matmul and gradient checks are looked up on first use (see __getattr__),
# so that importing the package stays light
_LAZY = {
    ".utils": ("transform_expand",),
    ".interop": ("from_dlpack", "to_dlpack"),
    ".interop.torch": ("device_from_torch", "device_to_torch", "dtype_from_torch", "dtype_to_torch",
                       "from_torch", "stream_from_torch", "stream_to_torch", "to_torch"),
    ".interop.jax": ("device_from_jax", "device_to_jax", "dtype_from_jax", "dtype_to_jax", "from_jax",
                     "to_jax"),
    ".interop.jax_ffi": ("jax_kernel",),
    ".interop.opengl": ("RegisteredGLBuffer",),
    ".interop.opengl_texture": ("GLTextureResource", "TextureResourceFlags"),
    ".interop.jax_callable": ("jax_callable", "JaxCallableGraphMode", "JaxModulePreloadMode",
                              "clear_jax_callable_graph_cache"),
    ".interop.paddle": ("device_from_paddle", "device_to_paddle", "dtype_from_paddle",
                        "dtype_to_paddle", "from_paddle", "stream_from_paddle", "stream_to_paddle",
                        "to_paddle"),
    ".runtime.matmul": ("matmul",),
    ".mapping": ("map",),
    ".runtime.device_access": ("get_cuda_supported_archs", "is_mempool_access_enabled",
                               "is_mempool_access_supported", "is_mempool_enabled", "is_mempool_supported",
                               "is_peer_access_enabled", "is_peer_access_supported",
                               "set_mempool_access_enabled", "set_mempool_enabled",
                               "set_peer_access_enabled", "can_access"),
    ".runtime.cuda_queries": ("ScopedMempool", "ScopedMempoolAccess", "ScopedPeerAccess",
                              "event_from_ipc_handle", "from_ipc_handle", "get_cuda_kernel_properties",
                              "get_cuda_max_cluster_dim", "get_cuda_toolkit_version",
                              "get_mempool_release_threshold", "get_mempool_used_mem_current",
                              "get_mempool_used_mem_high", "get_suggested_block_size", "map_cuda_device",
                              "set_mempool_release_threshold", "unmap_cuda_device"),
    ".runtime.diagnostics": ("clear_lto_cache", "get_cpu_kernel_cache_key", "print_diagnostics"),
    ".runtime.graph_dot": ("capture_debug_dot_print",),
}
_LAZY_NAMES = {name: mod for mod, names in _LAZY.items() for name in names}

bool = bool_  # noqa: A001  (wp.bool, as in the reference)
handle = uint64   # warp-lang's type for object handles (Mesh, Volume, Bvh ids): uint64 itself here
LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERROR = 10, 20, 30, 40   # wp.config.log_level's levels
# the reference's names for translation errors (ours carry the user's file and line)
WarpCodegenError = WarpCodegenTypeError = WarpCodegenValueError = CodegenError
WarpCodegenAttributeError = WarpCodegenIndexError = WarpCodegenKeyError = CodegenError


def _export_builtins(namespace):
    """``wp.sin``, ``wp.dot``...: one callable per builtin kernels can call."""
    for name, b in _registry.items():
        if any(ov.export for ov in b.overloads) and name not in namespace:
            namespace[name] = _make_builtin(name, b.overloads[0].doc)
    for name in _intrinsic_names():
        namespace[name] = _make_builtin(name, _intrinsic_doc(name))


# --- autodiff: custom adjoints/replays, matmul, gradient checks -------------------------------
from .lang.definitions.custom_grad import adjoint  # noqa: E402
from .lang.definitions.decorators import func_grad, func_native, func_replay  # noqa: E402
from .lang.translation.grad_of import grad  # noqa: E402  (wp.grad(f)(x): f's gradient in forward code)
# geometry: wp.Mesh, wp.Bvh, wp.HashGrid, wp.Volume and their kernel builtins
from .lang.builtins import geometry as _builtins_geometry  # noqa: E402,F401
from .geometry import Bvh, HashGrid, Mesh, Volume, is_cubql_available  # noqa: E402
from .texture import (Texture, Texture1D, Texture2D, Texture3D, TextureAddressMode,  # noqa: E402
                      TextureFilterMode)
from .types.query_types import (BvhQuery, HashGridQuery, MeshQueryAABB, MeshQueryPoint,  # noqa: E402
                                MeshQueryRay, MeshQuerySphere)
from .lang.tiles.more import BVH_QUERY as BvhQueryTiled, MESH_QUERY as MeshQueryAABBTiled  # noqa: E402
# warp-lang's erased parent of the mesh queries that mesh_query_next advances: as an annotation
# (`def f(q: wp.MeshQuery)`) it admits an AABB or a sphere query (the function is specialised)
MeshQuery = __import__("typing").TypeVar("MeshQuery", MeshQueryAABB, MeshQuerySphere)

_export_builtins(globals())
# types that are also constructors in kernels keep their class (wp.vector above is the
# anonymous constructor; wp.types.vector is the type factory)


# --- notebook: launch timings, the IPython extension (loaded only inside IPython) -------------
from .runtime import timing  # noqa: E402
from .runtime.timing import (TIMING_ALL, TIMING_GRAPH, TIMING_KERNEL, TIMING_KERNEL_BUILTIN,  # noqa: E402,F401
                              TIMING_MEMCPY, TIMING_MEMSET, TimingResult, timing_begin, timing_end,
                              timing_print)


# --- calls from the lower layers up (hooks.py) ----------------------------------------------
# runtime/device.py, runtime/memory.py, runtime/graph.py and runtime/tape_hooks.py register
# theirs when imported (above); the ones below live in modules imported on first use, so that
# `import warp_interactive` stays light: each hook imports its module on its first call.
from . import hooks as _hooks  # noqa: E402


def _hook_on_first_call(attr, module, name, table=None):
    def first_call(*args, **kwargs):
        import importlib
        fn = getattr(importlib.import_module(module, __name__), name)
        if table is None:
            setattr(_hooks, attr, fn)
        else:
            table[attr] = fn
        return fn(*args, **kwargs)
    if table is None:
        setattr(_hooks, attr, first_call)
    else:
        table[attr] = first_call


_hook_on_first_call("matmul", ".runtime.matmul", "matmul_new")
_hook_on_first_call("array_op", ".runtime.array_ops", "array_op")
_hook_on_first_call("dlpack", ".interop.dlpack", "array_dlpack")
_hook_on_first_call("dlpack_device", ".interop.dlpack", "dlpack_device")
_hook_on_first_call("foreign_array", ".interop.launch_args", "as_foreign_array")
_hook_on_first_call("array", ".notebook.widgets.array_view", "array_html", _hooks.html_views)
_hook_on_first_call("timing", ".notebook.widgets.timing_view", "timing_html", _hooks.html_views)
_hook_on_first_call("scoped_timer", ".notebook.widgets.timing_view", "scoped_timer_html",
                    _hooks.html_views)
_hook_on_first_call("tape_dot", ".notebook.display", "dot_text_html", _hooks.html_views)
_hook_on_first_call("bsr_matrix", ".notebook.sparse_view", "bsr_matrix_html", _hooks.html_views)


def load_ipython_extension(ipython):
    """``%load_ext warp_interactive``: the %%wp.kernel magic, per-cell modules, displays."""
    from .notebook import load_ipython_extension as load
    load(ipython)


def unload_ipython_extension(ipython):
    from .notebook import unload_ipython_extension as unload
    unload(ipython)


def __getattr__(name):
    import importlib
    if name in ("notebook", "autograd", "examples", "sparse", "optim", "utils"):   # sub-packages imported on first use
        return importlib.import_module("." + name, __name__)
    if name == "MarchingCubes":   # deprecated alias: the class itself, so isinstance agrees both ways
        from .logger import log_warning
        log_warning("wp.MarchingCubes is deprecated and will be removed in a future version of Warp. "
                    "Use wp.geometry.IsoSurfaceMarchingCubes instead.", DeprecationWarning, stacklevel=2)
        return importlib.import_module(".geometry", __name__).IsoSurfaceMarchingCubes
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module(_LAZY_NAMES[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'warp_interactive' has no attribute '{name}'")


def _register_in_ipython():
    """Inside IPython, importing the package registers the extension (set
    WARP_INTERACTIVE_NO_EXTENSION=1 to opt out)."""
    import os
    import sys
    if "IPython" not in sys.modules or os.environ.get("WARP_INTERACTIVE_NO_EXTENSION") == "1":
        return
    try:
        shell = sys.modules["IPython"].get_ipython()
    except Exception:     # IPython half-imported or not running a shell: nothing to register
        return
    if shell is not None and hasattr(shell, "register_magic_function"):
        load_ipython_extension(shell)


_register_in_ipython()
