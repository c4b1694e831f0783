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
        self.value = self._given(x)

    @classmethod
    def _given(cls, x):
        """What a scalar built in Python scope holds, as the reference's: an integer type wraps a
        Python integer into its range (``uint8(-1)`` is 255); a float type keeps the number it
        was given (``float16(-1)`` prints -1); it is rounded where it is stored."""
        if isinstance(x, Scalar):
            x = x.value
        if isinstance(x, (bool, np.bool_)) or cls._kind not in ("int", "uint", "float"):
            return cls._convert(x)
        if cls._kind == "float" and isinstance(x, (int, float)):
            return x
        if cls._kind != "float" and isinstance(x, (int, np.integer)):
            return cls._ctype(int(x)).value
        return cls._convert(x)

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
    # ``_type_`` (the ctypes storage) and ``_length_`` (one component) are the reference's
    # spellings, which user code reads on scalar and composite types alike
    cls = type(name, (Scalar,), {
        "_ctype": ctype, "_np_dtype": np.dtype(np_dtype), "_cpp": cpp, "_kind": kind,
        "size": np.dtype(np_dtype).itemsize, "__module__": "warp_interactive.types",
        "_type_": ctype, "_length_": 1,
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
# bfloat16: stored as its bit pattern (``_np_dtype`` is the storage dtype, uint16); NumPy has no
# such type, so arrays convert at their boundaries (see bfloat16_from_numpy / bfloat16_to_numpy).
bfloat16 = _scalar("bfloat16", ctypes.c_uint16, np.uint16, "wp::bfloat16", "float")
# in Python scope a bfloat16 holds the number it was given (rounded where it is stored), as the
# reference's does
bfloat16._convert = classmethod(lambda cls, x: float(x.value if isinstance(x, Scalar) else x))
float32 = _scalar("float32", ctypes.c_float, np.float32, "wp::float32", "float")
float64 = _scalar("float64", ctypes.c_double, np.float64, "wp::float64", "float")
bool_ = _scalar("bool", ctypes.c_bool, np.bool_, "bool", "bool")

# The public name of the boolean type is ``wp.bool``; inside this package ``bool_``.
bool_.__name__ = "bool"

int_types = (int8, uint8, int16, uint16, int32, uint32, int64, uint64)
float_types = (float16, bfloat16, float32, float64)
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


# bfloat16's storage dtype (uint16) means uint16: bfloat16 is ml_dtypes.bfloat16 (when installed)
_FROM_NUMPY = {t._np_dtype: t for t in scalar_types if t is not bfloat16}


def dtype_from_numpy(np_dtype):
    """The scalar type of a NumPy dtype (``np.float32`` -> ``wp.float32``)."""
    try:
        return _FROM_NUMPY[np.dtype(np_dtype)]
    except KeyError:
        if is_ml_bfloat16(np_dtype):
            return bfloat16
        raise TypeError(f"NumPy dtype {np.dtype(np_dtype)} has no warp_interactive equivalent") from None


# --- bfloat16 <-> NumPy ---------------------------------------------------------------------------
_UNSET = object()
_ml_bf16 = _UNSET


def ml_bfloat16():
    """``ml_dtypes.bfloat16`` when that package is installed, else None (imported on first use:
    ``import warp_interactive`` stays light)."""
    global _ml_bf16
    if _ml_bf16 is _UNSET:
        try:
            import ml_dtypes
            _ml_bf16 = np.dtype(ml_dtypes.bfloat16)
        except ImportError:
            _ml_bf16 = None
    return _ml_bf16


def is_ml_bfloat16(np_dtype):
    try:
        return ml_bfloat16() is not None and np.dtype(np_dtype) == ml_bfloat16()
    except TypeError:
        return False


def float32_to_bfloat16_bits(values):
    """bfloat16 bit patterns (uint16) of ``values``: rounded to nearest, ties to even; infinities
    kept; every NaN stays a NaN (its quiet bit set, so truncating the payload never gives inf)."""
    f = np.asarray(values, dtype=np.float32)
    bits = f.view(np.uint32).astype(np.uint64)   # 64-bit: the rounding carry cannot overflow
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    nan = ((bits | 0x00400000) >> 16)
    return np.where(np.isnan(f), nan, rounded).astype(np.uint16)


def bfloat16_bits_to_float32(bits):
    """The float32 values of bfloat16 bit patterns (exact: bfloat16 is float32's top half)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def bfloat16_from_numpy(src):
    """bfloat16 storage (uint16 bits) from a NumPy array: uint16 data are taken as bits already
    (as the reference does), ml_dtypes.bfloat16 data by their bits, anything else by value."""
    src = np.asarray(src)
    if src.dtype == np.uint16:
        return src
    if is_ml_bfloat16(src.dtype):
        return src.view(np.uint16)
    return float32_to_bfloat16_bits(src.astype(np.float32))


def bfloat16_to_numpy(bits):
    """What ``array.numpy()`` gives for bfloat16 storage: an ml_dtypes.bfloat16 view when that
    package is installed, else the raw uint16 bits (warning once), as the reference does."""
    if ml_bfloat16() is not None:
        return bits.view(ml_bfloat16())
    global _warned_bits
    if not _warned_bits:
        _warned_bits = True
        import warnings
        warnings.warn("bfloat16 arrays are returned as np.uint16 (raw bit representation) because "
                      "NumPy does not natively support bfloat16: install ml-dtypes for a NumPy "
                      "bfloat16 dtype", UserWarning, stacklevel=3)
    return bits


_warned_bits = False


def to_storage(t, value):
    """The value a ctypes field of scalar type ``t`` holds for Python number ``value`` (16-bit
    floats hold their bit pattern)."""
    if t is float16:
        return int(np.float16(value).view(np.uint16))
    if t is bfloat16:
        return int(float32_to_bfloat16_bits(float(value)))
    return value
