"""Vector, matrix, quaternion and transform types.

Each concrete type is a ctypes array subclass, so a value's bytes are exactly what a kernel
argument or an array element holds (``bytes(v)``), and the Python-scope arithmetic goes
through NumPy views of the same memory. Types are cached by (kind, shape, dtype): asking for
``vector(3, float32)`` twice gives the same class, so types compare with ``is``.
"""

import ctypes

import numpy as np

from ..errors import OperandTypeError
from . import scalars
from .generic import Any, GenericComposite, is_any
from .matrix_rows import MatrixMethods
from .scalars import canonical_scalar, is_scalar
from .transform_init import transform_flat

_cache = {}

_KIND_CPP = {
    "vector": lambda t: f"wp::vec_t<{t._shape_[0]}, {t._wp_scalar_type_._cpp}>",
    "matrix": lambda t: f"wp::mat_t<{t._shape_[0]}, {t._shape_[1]}, {t._wp_scalar_type_._cpp}>",
    "quaternion": lambda t: f"wp::quat_t<{t._wp_scalar_type_._cpp}>",
    "transform": lambda t: f"wp::transform_t<{t._wp_scalar_type_._cpp}>",
}

_GENERIC_NAMES = {"vector": "vec_t", "matrix": "mat_t", "quaternion": "quat_t",
                  "transform": "transform_t"}

_COMPONENT_NAMES = {
    "vector": "xyzw",
    "quaternion": "xyzw",
    "transform": "",
}


class Composite(ctypes.Array):
    """Base of every vector-like type (vector, matrix, quaternion, transform)."""

    _length_ = 0
    _type_ = ctypes.c_float
    _shape_ = ()
    _kind_ = ""
    _wp_scalar_type_ = None
    # NumPy scalars (np.float32(2) * v) defer to our reflected operators, which keep the warp type;
    # NumPy's own would work on __array__, which for half types is the raw bits
    __array_priority__ = 1000

    def __init__(self, *args, **kwargs):
        super().__init__()
        if self._kind_ == "transform":
            flat = transform_flat(args, kwargs, _scalar_value)
            if flat is not None:
                self._set_flat(flat)
                return
        elif kwargs:
            raise TypeError(f"{type(self).__name__}() got unexpected keyword arguments {sorted(kwargs)}")
        if not args:
            return  # zero, as a default-constructed value in a kernel
        self._set_flat(self._flat_from_args(args))

    # --- construction ---------------------------------------------------------------------
    @classmethod
    def _flat_from_args(cls, args):
        n = cls._length_
        if len(args) == 1:
            a = args[0]
            if np.isscalar(a) or isinstance(a, scalars.Scalar):
                return np.full(n, float(a) if not isinstance(a, scalars.Scalar) else a.value)
            flat = np.asarray(a, dtype=np.float64 if cls._wp_scalar_type_._kind == "float" else None)
            flat = flat.reshape(-1)
        else:
            flat = np.concatenate([np.asarray(_unwrap(a)).reshape(-1) for a in args])
        if flat.size != n:
            raise ValueError(
                f"{cls.__name__} needs {n} components, got {flat.size} from {args!r}")
        return flat

    def _set_flat(self, flat):
        self._store(..., np.asarray(flat).reshape(self._shape_))

    def _store(self, key, value):
        if self._wp_scalar_type_ is scalars.bfloat16:   # stored as bits: decode, set, encode
            values = self.numpy_view()
            values[key] = value
            self._raw()[...] = scalars.float32_to_bfloat16_bits(values)
        else:
            self.numpy_view()[key] = value

    # --- NumPy views ----------------------------------------------------------------------
    def _raw(self):
        np_dtype = self._wp_scalar_type_._np_dtype
        return np.frombuffer(self, dtype=np_dtype, count=self._length_).reshape(self._shape_)

    def numpy_view(self):
        """A NumPy array sharing this value's memory, shaped like the type (for bfloat16, which
        NumPy lacks, a float32 copy of the values)."""
        if self._wp_scalar_type_ is scalars.bfloat16:
            return scalars.bfloat16_bits_to_float32(self._raw())
        return self._raw()

    def __array__(self, dtype=None, copy=None):
        a = self.numpy_view().copy()
        return a if dtype is None else a.astype(dtype)

    def _new(self, values):
        return type(self)(np.asarray(values).reshape(-1))

    # --- indexing -------------------------------------------------------------------------
    def __getitem__(self, key):
        """A component; a row of a matrix, or a slice: a vector or matrix value of the same scalar
        type, as the reference (``q[1:]`` is a vec3, ``m[1:, :2]`` a 2x2 matrix, an empty slice a
        0-vector or the 0x0 matrix)."""
        v = self.numpy_view()[key]
        if np.ndim(v) == 0:
            return v.item()
        if v.size == 0:
            return (vector(0, self._wp_scalar_type_) if np.ndim(v) == 1 else matrix((0, 0), self._wp_scalar_type_))()
        return (vector(v.shape[0], self._wp_scalar_type_) if np.ndim(v) == 1 else
                matrix(v.shape, self._wp_scalar_type_))(v)

    def __setitem__(self, key, value):
        self._store(key, _unwrap(value))

    def __len__(self):
        return self._shape_[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __getattr__(self, name):
        names = _COMPONENT_NAMES.get(self._kind_, "")
        if len(name) == 1 and name in names and names.index(name) < self._length_:
            return self[names.index(name)]
        if self._kind_ == "transform" and name in ("p", "q"):
            flat = self.numpy_view()
            return vector(3, self._wp_scalar_type_)(flat[:3]) if name == "p" else \
                quaternion(self._wp_scalar_type_)(flat[3:])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute {name!r}")

    def __setattr__(self, name, value):
        names = _COMPONENT_NAMES.get(self._kind_, "")
        if len(name) == 1 and name in names and names.index(name) < self._length_:
            self[names.index(name)] = value
        elif names and name and set(name) <= set(names):
            # a swizzle (v.xy) or a component past the length (vec2.z): warp-lang refuses it,
            # setting it as a plain attribute would silently leave the components unchanged
            raise AttributeError(f"'{type(self).__name__}' object has no attribute {name!r}")
        elif self._kind_ == "transform" and name in ("p", "q"):
            part = slice(0, 3) if name == "p" else slice(3, 7)
            value = np.asarray(_unwrap(value)).reshape(-1)
            if value.size != part.stop - part.start:
                raise ValueError(f"{type(self).__name__}.{name} needs {part.stop - part.start} "
                                 f"components, got {value.size}")
            self.numpy_view()[part] = value
        else:
            super().__setattr__(name, value)

    # --- arithmetic (Python scope) ----------------------------------------------------------
    def __eq__(self, other):
        try:
            return bool(np.array_equal(self.numpy_view(), np.asarray(_unwrap(other))))
        except Exception:
            return False

    def __hash__(self):
        return hash(bytes(self))

    def __neg__(self):
        return self._new(-self.numpy_view())

    def __pos__(self):
        return self

    def __add__(self, other):
        _check_operands("add", self, other)
        return self._new(self.numpy_view() + _unwrap(other))

    def __radd__(self, other):
        if _is_nd(other):
            return other + self.numpy_view()
        _check_operands("add", other, self)
        return self._new(_unwrap(other) + self.numpy_view())

    def __sub__(self, other):
        _check_operands("sub", self, other)
        return self._new(self.numpy_view() - _unwrap(other))

    def __rsub__(self, other):
        if _is_nd(other):
            return other - self.numpy_view()
        _check_operands("sub", other, self)
        return self._new(_unwrap(other) - self.numpy_view())

    def __mul__(self, other):
        _check_operands("mul", self, other)
        if isinstance(other, Composite) and "matrix" in (self._kind_, other._kind_):
            return _matmul(self, other)   # matrix products; a vector times a matrix is v^T M
        if isinstance(other, Composite) and self._kind_ == "quaternion" == other._kind_:
            return self._new(_quat_mul(self.numpy_view(), other.numpy_view()))
        if isinstance(other, Composite) and self._kind_ == "transform" == other._kind_:
            return self._new(_transform_mul(self.numpy_view(), other.numpy_view()))
        return self._new(self.numpy_view() * _unwrap(other))

    def __rmul__(self, other):
        if _is_nd(other):
            return other * self.numpy_view()
        _check_operands("mul", other, self)
        if isinstance(other, Composite):
            return _matmul(other, self)
        return self._new(_unwrap(other) * self.numpy_view())

    def __matmul__(self, other):
        _check_operands("mul", self, other)
        return _matmul(self, other)

    def __truediv__(self, other):
        _check_operands("div", self, other)
        return self._new(self.numpy_view() / _unwrap(other))

    def __rtruediv__(self, other):
        if _is_nd(other):
            return other / self.numpy_view()
        _check_operands("div", other, self)
        return self._new(_unwrap(other) / self.numpy_view())

    def __str__(self):
        """As the reference prints values: ``[1.0, 2.0, 3.0]``; a matrix row by row."""
        rows = self.numpy_view().tolist()
        if self._kind_ == "matrix":
            return "[" + ",\n ".join(f"[{', '.join(map(str, r))}]" for r in rows) + "]"
        return f"[{', '.join(map(str, rows))}]"

    def __repr__(self):
        rows = self.numpy_view().tolist()
        if self._kind_ == "matrix":
            rows = ["[" + ", ".join(map(repr, r)) + "]" for r in rows]
            return f"{type(self).__name__}([{', '.join(rows)}])"
        return f"{type(self).__name__}([{', '.join(map(repr, rows))}])"

    def __reduce__(self):
        return (_rebuild, (self._kind_, self._shape_, self._wp_scalar_type_.__name__,
                           self.numpy_view().reshape(-1).tolist()))


def _rebuild(kind, shape, scalar_name, flat):
    return _make(kind, shape, getattr(scalars, scalar_name if scalar_name != "bool" else "bool_"))(flat)


def _scalar_value(x):
    return x.value if isinstance(x, scalars.Scalar) else None


def _unwrap(x):
    if isinstance(x, Composite):
        return x.numpy_view()
    if isinstance(x, scalars.Scalar):
        return x.value
    return x


def _matmul(a, b):
    av, bv = np.asarray(_unwrap(a)), np.asarray(_unwrap(b))
    if getattr(a, "_kind_", "") == "matrix" and getattr(b, "_kind_", "") == "matrix":
        out = av @ bv
        return matrix(out.shape, a._wp_scalar_type_)(out.reshape(-1))
    if getattr(a, "_kind_", "") == "matrix":
        return vector(av.shape[0], a._wp_scalar_type_)(av @ bv)
    if getattr(b, "_kind_", "") == "matrix":
        return vector(bv.shape[1], b._wp_scalar_type_)(av @ bv)
    raise TypeError(f"cannot multiply {type(a).__name__} by {type(b).__name__}")


def _is_nd(x):
    """A NumPy array (not a 0-d value) on the left of an operator: the result is an array, as
    NumPy broadcasting gives it (the __array_priority__ above sends these here too)."""
    return isinstance(x, np.ndarray) and x.ndim > 0


def _check_operands(op, a, b):
    """Two warp values of different scalar types are refused, as kernels refuse them (Python
    numbers and NumPy values adapt to the warp value's type)."""
    ta, tb = _warp_scalar_of(a), _warp_scalar_of(b)
    if ta is not None and tb is not None and ta is not tb:
        raise OperandTypeError(f"Couldn't find a function '{op}' compatible with the arguments "
                               f"'{type(a).__name__}, {type(b).__name__}'")


def _warp_scalar_of(x):
    if isinstance(x, Composite):
        return x._wp_scalar_type_
    if isinstance(x, scalars.Scalar):
        return type(x)
    return None


def _transform_mul(a, b):
    """``transform_multiply(a, b)``: (p_a + rotate(q_a, p_b), q_a q_b), with warp-lang's
    rotation formula, which is also what it computes for quaternions off the unit sphere."""
    u, w, v = a[3:6], a[6], b[:3]
    p = a[:3] + v * (2.0 * w * w - 1.0) + 2.0 * u * np.dot(u, v) + 2.0 * w * np.cross(u, v)
    return np.concatenate([p, _quat_mul(a[3:], b[3:])])


def _quat_mul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ])


_NAMES = {"float32": "f", "float64": "d", "float16": "h", "bfloat16": "bf", "uint8": "ub", "int32": "i",
          "int8": "b", "int16": "s", "uint16": "us", "uint32": "ui", "int64": "l", "uint64": "ul"}


_SPATIAL = {(6,): "spatial_vector", (6, 6): "spatial_matrix"}


def _type_name(kind, shape, dtype):
    suffix = _NAMES.get(dtype.__name__, dtype.__name__)
    if tuple(shape) in _SPATIAL and suffix in ("f", "d", "h"):   # warp-lang's names of these types
        return _SPATIAL[tuple(shape)] + suffix
    if kind == "vector":
        return f"vec{shape[0]}{suffix}"
    if kind == "matrix":
        return f"mat{shape[0]}{shape[1]}{suffix}"
    return {"quaternion": "quat", "transform": "transform"}[kind] + suffix


def _make(kind, shape, dtype):
    dtype = canonical_scalar(dtype)
    if not is_scalar(dtype):
        raise TypeError(f"the dtype of a {kind} must be a scalar type, got {dtype!r}")
    key = (kind, tuple(shape), dtype)
    cls = _cache.get(key)
    if cls is None:
        length = int(np.prod(shape))
        bases = (MatrixMethods, Composite) if kind == "matrix" else (Composite,)
        cls = type(_type_name(kind, shape, dtype), bases, {
            "_length_": length, "_type_": dtype._ctype, "_shape_": tuple(shape), "_kind_": kind,
            "_wp_scalar_type_": dtype, "__module__": "warp_interactive.types",
        })
        cls._cpp = _KIND_CPP[kind](cls)
        cls._wp_generic_type_str_ = _GENERIC_NAMES[kind]     # the reference's name of the kind
        cls.dtype = dtype
        cls.length = length
        _cache[key] = cls
    return cls


def vector(length, dtype):
    """A vector type of ``length`` components of scalar type ``dtype`` (either may be
    ``typing.Any`` in a generic annotation)."""
    if is_any(length) or is_any(dtype):
        return GenericComposite("vector", (length,), canonical_scalar(dtype))
    return _make("vector", (int(length),), dtype)


def matrix(shape, dtype):
    """A row-major matrix type of ``shape`` (rows, cols) of scalar type ``dtype`` (``Any``
    anywhere makes a generic annotation)."""
    if is_any(shape):
        shape = (Any, Any)
    if any(is_any(s) for s in shape) or is_any(dtype):
        return GenericComposite("matrix", tuple(shape), canonical_scalar(dtype))
    return _make("matrix", tuple(int(s) for s in shape), dtype)


def quaternion(dtype):
    """A quaternion type (i, j, k, w layout) of scalar type ``dtype``."""
    if is_any(dtype):
        return GenericComposite("quaternion", (4,), dtype)
    return _make("quaternion", (4,), dtype)


def transformation(dtype):
    """A rigid transform type (p: vec3, q: quat; 7 scalars) of scalar type ``dtype``."""
    if is_any(dtype):
        return GenericComposite("transform", (7,), dtype)
    return _make("transform", (7,), dtype)


def is_composite(t):
    return isinstance(t, type) and issubclass(t, Composite) and t is not Composite


def is_vector(t):
    return is_composite(t) and t._kind_ == "vector"


def is_matrix(t):
    return is_composite(t) and t._kind_ == "matrix"


def passes_adjoint_value(t):
    """Whether an adjoint launch hands a parameter of type ``t`` its adjoint by value (the
    backward argument struct's ``adj_`` field, from ``adj_inputs``/``adj_outputs``), as warp-lang
    passes scalar and composite adjoints; arrays pass gradient memory in their descriptor."""
    return is_scalar(t) or is_composite(t)
