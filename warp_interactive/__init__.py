"""warp_interactive: Python kernels in the style of NVIDIA Warp, compiled to C++ and run on all
CPU cores (and NVIDIA GPUs), built for notebooks.

    import warp_interactive as wp
"""

from . import types
from .config import config
from .lang import builtins_core as _builtins_core  # noqa: F401  (declares the builtins)
from .lang.calls import BuiltinFunction as _BuiltinFunction
from .lang.decorators import constant, func, kernel, struct
from .lang.errors import CodegenError, CompileError, LaunchError
from .lang.intrinsics import INTRINSICS as _INTRINSICS
from .lang.registry import registry as _registry
from .runtime.device import (Device, ScopedDevice, get_cuda_device_count, get_cuda_devices,
                             get_device, get_devices, get_preferred_device, is_cuda_available,
                             set_device)
from .runtime.launch import launch
from .runtime.tape import Tape
from .runtime.module import get_module_options, load_module, set_module_options
from .runtime.utils import ScopedTimer, init, synchronize, synchronize_device
from .types import *  # noqa: F401,F403
from .types import (array, array1d, array2d, array3d, array4d, bool_, dtype_from_numpy,
                    dtype_to_numpy, float16, float32, float64, int8, int16, int32, int64,
                    matrix, quaternion, transformation, uint8, uint16, uint32, uint64, vector)
from .types.array import (clone, copy, empty, empty_like, from_numpy, full, full_like, ones,
                          ones_like, zeros, zeros_like)
from .version import __version__
from .compiler.cache import clear_kernel_cache

bool = bool_  # noqa: A001  (wp.bool, as in the reference)


def _export_builtins(namespace):
    """``wp.sin``, ``wp.dot``...: one callable per builtin kernels can call."""
    for name, b in _registry.items():
        if any(ov.export for ov in b.overloads) and name not in namespace:
            namespace[name] = _BuiltinFunction(name, b.overloads[0].doc)
    for name in _INTRINSICS:
        namespace[name] = _BuiltinFunction(name)


_export_builtins(globals())
# types that are also constructors in kernels keep their class (wp.vector above is the
# anonymous constructor; wp.types.vector is the type factory)

# geometry: wp.Mesh, wp.Bvh, wp.HashGrid, wp.Volume and their kernel builtins
from .lang import builtins_geometry as _builtins_geometry  # noqa: E402,F401
from .geometry import Bvh, HashGrid, Mesh, Volume  # noqa: E402
_export_builtins(globals())
