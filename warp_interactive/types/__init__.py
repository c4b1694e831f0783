"""``wp.types``: scalar, composite, array and struct types."""

from .array import array, array1d, array2d, array3d, array4d  # noqa: F401
from .indexedarray import indexedarray, indexedarray1d, indexedarray2d, indexedarray3d, indexedarray4d  # noqa: F401
from .fixedarray import fixedarray  # noqa: F401
from .builtin_types import *  # noqa: F401,F403
from .builtin_types import named_types
from .composite import Composite, matrix, quaternion, transformation, vector  # noqa: F401
from .dtypes import dtype_from_numpy, dtype_to_numpy  # noqa: F401
from .introspection import *  # noqa: F401,F403  (type_repr, type_size, types_equal, is_vector...)
from .introspection import type_size_in_bytes  # noqa: F401
from .scalars import (Scalar, bfloat16, bool_, float16, float32, float64, float_types, int8, int16,  # noqa: F401
                      int32, int64, int_types, scalar_types, uint8, uint16, uint32, uint64)
from .struct import struct  # noqa: F401
from . import scalar_ops  # noqa: F401  (Python-scope arithmetic on scalars)

globals()["bool"] = bool_
from .generic import Any, Float, GenericComposite, Int, Scalar  # noqa: E402,F401  (typing.Any, type variables)

__all__ = list(named_types)
