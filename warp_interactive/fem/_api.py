"""The ``wp.`` names warp.fem uses, from their home modules (importing the package root would
pull in the notebook layer above this one): types, decorators, launches, arrays, and one
callable per builtin for kernel code (``wp.dot``, ``wp.tid``...)."""

from ..lang.builtins import core as _builtins_core  # noqa: F401  (declares the builtins)
from ..lang.builtins.function import intrinsic_doc as _intrinsic_doc
from ..lang.builtins.function import intrinsic_names as _intrinsic_names
from ..lang.builtins.function import make_builtin as _make_builtin
from ..lang.definitions.decorators import constant, func, kernel, struct  # noqa: F401
from ..lang.builtins.registry import registry as _registry
from ..lang.translation.static import static  # noqa: F401
from ..geometry.bvh import Bvh  # noqa: F401
from ..geometry.volume import Volume  # noqa: F401
from ..runtime.device import get_device  # noqa: F401
from ..runtime.launch import launch  # noqa: F401
from ..runtime.utils import synchronize  # noqa: F401
from .. import types  # noqa: F401
from ..types import *  # noqa: F401,F403
from ..types import (array, array2d, dtype_to_numpy, float16, float32, float64, int8, int16, int32, int64,  # noqa: F401
                     matrix, uint8, uint16, uint32, uint64, vector)
from ..types.array import copy  # noqa: F401
from ..types.array_factories import empty, empty_like, zeros, zeros_like  # noqa: F401

# the scalar type of warp.fem's kernel code: float64 in the float64 twins (fem/precision.py)
real = float32


def _export_builtins(namespace):
    for name, b in _registry.items():
        if any(ov.export for ov in b.overloads) and name not in namespace:
            namespace[name] = _make_builtin(name, b.overloads[0].doc)
    for name in _intrinsic_names():
        namespace.setdefault(name, _make_builtin(name, _intrinsic_doc(name)))


_export_builtins(globals())
