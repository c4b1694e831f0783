"""Scalar types of the kernel language.

Each scalar type is a class: in annotations it names the type, in Python scope calling it
builds a value (``wp.float32(1.5)``), and in kernels calling it is an explicit cast.
The class carries what every later stage needs: the ctypes storage type, the NumPy dtype and
the C++ spelling.
"""

import ctypes

import numpy as np


class Scalar:
    """Base of all scalar types. Instances hold a Python number in ``value``."""

    _ctype = None
    _np_dtype = None
    _cpp = None
    _kind = None  # "int", "uint", "float", "bool"
    size = 0

    def __init__(self, x=0):
        self.value = self._convert(x)

    @classmethod
    def _convert(cls, x):
        if isinstance(x, Scalar):
            x = x.value
        return cls._np_dtype.type(x).item()

    def __float__(self):
        return float(self.value)

    def __int__(self):
        return int(self.value)

    def __index__(self):
        return int(self.value)

    def __bool__(self):
        return bool(self.value)

    def __eq__(self, other):
        return self.value == (other.value if isinstance(other, Scalar) else other)

    def __hash__(self):
        return hash(self.value)

    def __str__(self):
        return str(self.value)

    def __repr__(self):
        return f"{type(self).__name__}({self.value})"


def _scalar(name, ctype, np_dtype, cpp, kind):
    cls = type(name, (Scalar,), {
        "_ctype": ctype, "_np_dtype": np.dtype(np_dtype), "_cpp": cpp, "_kind": kind,
        "size": np.dtype(np_dtype).itemsize, "__module__": "warp_interactive.types",
    })
    return cls


int8 = _scalar("int8", ctypes.c_int8, np.int8, "wp::int8", "int")
uint8 = _scalar("uint8", ctypes.c_uint8, np.uint8, "wp::uint8", "uint")
int16 = _scalar("int16", ctypes.c_int16, np.int16, "wp::int16", "int")
uint16 = _scalar("uint16", ctypes.c_uint16, np.uint16, "wp::uint16", "uint")
int32 = _scalar("int32", ctypes.c_int32, np.int32, "wp::int32", "int")
uint32 = _scalar("uint32", ctypes.c_uint32, np.uint32, "wp::uint32", "uint")
int64 = _scalar("int64", ctypes.c_int64, np.int64, "wp::int64", "int")
uint64 = _scalar("uint64", ctypes.c_uint64, np.uint64, "wp::uint64", "uint")
float16 = _scalar("float16", ctypes.c_uint16, np.float16, "wp::half", "float")
float32 = _scalar("float32", ctypes.c_float, np.float32, "wp::float32", "float")
float64 = _scalar("float64", ctypes.c_double, np.float64, "wp::float64", "float")
bool_ = _scalar("bool", ctypes.c_bool, np.bool_, "bool", "bool")

# The public name of the boolean type is ``wp.bool``; inside this package ``bool_``.
bool_.__name__ = "bool"

int_types = (int8, uint8, int16, uint16, int32, uint32, int64, uint64)
float_types = (float16, float32, float64)
scalar_types = int_types + float_types + (bool_,)

# Python builtins used as annotations or casts mean these.
_PY_ALIASES = {float: float32, int: int32, bool: bool_}


def canonical_scalar(t):
    """Map Python's ``float``/``int``/``bool`` to our scalar classes; others unchanged."""
    return _PY_ALIASES.get(t, t)


def is_scalar(t):
    return isinstance(t, type) and issubclass(t, Scalar) and t is not Scalar


def is_int(t):
    return is_scalar(t) and t._kind in ("int", "uint")


def is_float(t):
    return is_scalar(t) and t._kind == "float"


_FROM_NUMPY = {t._np_dtype: t for t in scalar_types}


def dtype_from_numpy(np_dtype):
    """The scalar type of a NumPy dtype (``np.float32`` -> ``wp.float32``)."""
    try:
        return _FROM_NUMPY[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(f"NumPy dtype {np.dtype(np_dtype)} has no warp_interactive equivalent") from None
