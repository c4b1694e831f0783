"""Declarations of the operators, array access, thread index and core math builtins."""

from ...types import composite as comp
from ...types import scalars as sc
from ...types.array import array
from ...types.indexedarray import is_indexed
from ...types.fixedarray import is_fixed
from ...types.array_slice import is_slice
from ...types.introspection import type_repr
from ...errors import TypeMismatch
from .registry import Any, Pattern, Array, Bool, Float, Index, Int, Matrix, Quaternion, Scalar, Transformation, Vector, add_builtin, registry, same_as, scalar_type_of

G_OP, G_ARR, G_MATH, G_VEC, G_MAT, G_QUAT, G_TF = (
    "Operators", "Arrays", "Scalar Math", "Vector Math", "Matrix Math", "Quaternion Math",
    "Transformations")

FloatVector = Pattern("FloatVector", lambda t: comp.is_vector(t) and sc.is_float(t._wp_scalar_type_))
IntVector = Pattern("IntVector", lambda t: comp.is_vector(t) and sc.is_int(t._wp_scalar_type_))
IntMatrix = Pattern("IntMatrix", lambda t: comp.is_matrix(t) and sc.is_int(t._wp_scalar_type_))
FloatMatrix = Pattern("FloatMatrix", lambda t: comp.is_matrix(t) and sc.is_float(t._wp_scalar_type_))

# --- arithmetic operators ---------------------------------------------------------------------------
for op, doc in (("add", "a + b"), ("sub", "a - b")):
    for pat in (Scalar, Vector, Matrix, Quaternion, Transformation):
        # transforms add componentwise, as 7-vectors (the reference's rule; `*` composes them)
        add_builtin(op, {"a": pat, "b": pat}, value_func=same_as(0), group=G_OP, doc=doc,
                    differentiable=True)


def _same_shape(ts):
    if ts[0]._shape_ != ts[1]._shape_:
        raise TypeMismatch(f"shapes {ts[0]._shape_} and {ts[1]._shape_} differ")
    return ts[0]


for op in ("add", "sub"):
    for ov in registry[op].overloads:
        if ov.input_types["a"] in (Vector, Matrix):
            ov.value_func = _same_shape


def _mat_vec(ts):
    m, v = ts
    if m._shape_[1] != v._length_:
        raise TypeMismatch(f"a {m._shape_[0]}x{m._shape_[1]} matrix cannot multiply a {v._length_}-vector")
    return comp.vector(m._shape_[0], m._wp_scalar_type_)


def _vec_mat(ts):
    v, m = ts
    if m._shape_[0] != v._length_:
        raise TypeMismatch(f"a {v._length_}-vector cannot multiply a {m._shape_[0]}x{m._shape_[1]} matrix")
    return comp.vector(m._shape_[1], m._wp_scalar_type_)


def _mat_mat(ts):
    a, b = ts
    if a._shape_[1] != b._shape_[0]:
        raise TypeMismatch(f"cannot multiply {a._shape_[0]}x{a._shape_[1]} by {b._shape_[0]}x{b._shape_[1]}")
    return comp.matrix((a._shape_[0], b._shape_[1]), a._wp_scalar_type_)


add_builtin("mul", {"a": Scalar, "b": Scalar}, value_func=same_as(0), group=G_OP, doc="a * b")
for pat in (Vector, Matrix, Quaternion, Transformation):
    add_builtin("mul", {"a": pat, "b": Scalar}, value_func=same_as(0), group=G_OP)
    add_builtin("mul", {"a": Scalar, "b": pat}, value_func=same_as(1), group=G_OP)
add_builtin("mul", {"a": Matrix, "b": Vector}, value_func=_mat_vec, group=G_OP, doc="matrix-vector product")
add_builtin("mul", {"a": Vector, "b": Matrix}, value_func=_vec_mat, group=G_OP, doc="vector-matrix product")
add_builtin("mul", {"a": Matrix, "b": Matrix}, value_func=_mat_mat, group=G_OP, doc="matrix product")
for _a, _b, _rule in ((Matrix, Vector, _mat_vec), (Vector, Matrix, _vec_mat), (Matrix, Matrix, _mat_mat)):
    # `a @ b` in kernels: the matrix product, as `*`
    add_builtin("matmul", {"a": _a, "b": _b}, value_func=_rule, cpp="mul", group=G_OP, hidden=True,
                export=False)
add_builtin("mul", {"a": Quaternion, "b": Quaternion}, value_func=same_as(0), group=G_OP,
            doc="quaternion product")
add_builtin("mul", {"a": Transformation, "b": Transformation}, value_func=same_as(0), group=G_OP,
            doc="transform composition")

for op, doc in (("div", "a / b"), ("floordiv", "a // b (floor)"), ("mod", "a % b, the truncated remainder (sign of a, as C's % and fmod)")):
    add_builtin(op, {"a": Scalar, "b": Scalar}, value_func=same_as(0), group=G_OP, doc=doc,
                differentiable=(op != "floordiv"))
add_builtin("mod", {"a": Vector, "b": Vector}, value_func=_same_shape, group=G_OP,
            doc="a % b componentwise")
# vectors and matrices of any scalar type divide by (and into) a scalar component-wise, integers
# as the scalar division does (truncating, x / 0 == 0); quaternions are float only (warp-lang's set)
for pat, s in ((Vector, Scalar), (Matrix, Scalar), (Quaternion, Float)):
    add_builtin("div", {"a": pat, "b": s}, value_func=same_as(0), group=G_OP)
for pat, s in ((Vector, Scalar), (Matrix, Scalar), (Quaternion, Float)):   # scalar / composite
    add_builtin("div", {"a": s, "b": pat}, value_func=same_as(1), group=G_OP)

for pat in (Scalar, Vector, Matrix, Quaternion):
    add_builtin("neg", {"x": pat}, value_func=same_as(0), group=G_OP, doc="-x")
    add_builtin("pos", {"x": pat}, value_func=same_as(0), group=G_OP, doc="+x")

# --- comparisons and logic ------------------------------------------------------------------------------
for op in ("lt", "le", "gt", "ge", "eq", "ne"):
    add_builtin(op, {"a": Scalar, "b": Scalar}, value_type=sc.bool_, group=G_OP, differentiable=False)
for op in ("eq", "ne"):
    add_builtin(op, {"a": Bool, "b": Bool}, value_type=sc.bool_, group=G_OP, differentiable=False)
    for pat in (Vector, Matrix, Quaternion, Transformation):
        add_builtin(op, {"a": pat, "b": pat}, value_type=sc.bool_, group=G_OP, differentiable=False)
for op in ("bit_and", "bit_or", "bit_xor", "lshift", "rshift"):
    add_builtin(op, {"a": Int, "b": Int}, value_func=same_as(0), group=G_OP, differentiable=False)
    # component-wise on integer vectors, as in warp-lang (wp.tile_map(wp.bit_and, a, b) on vec3i)
    add_builtin(op, {"a": IntVector, "b": IntVector}, value_func=same_as(0), group=G_OP, differentiable=False)
    add_builtin(op, {"a": IntMatrix, "b": IntMatrix}, value_func=same_as(0), group=G_OP, differentiable=False)
add_builtin("invert", {"a": Int}, value_func=same_as(0), group=G_OP, differentiable=False, doc="~a")
add_builtin("invert", {"a": IntVector}, value_func=same_as(0), group=G_OP, differentiable=False, doc="~a")
add_builtin("invert", {"a": IntMatrix}, value_func=same_as(0), group=G_OP, differentiable=False, doc="~a")
add_builtin("bool_not", {"a": Any}, value_type=sc.bool_, group=G_OP, differentiable=False,
            hidden=True, export=False)
add_builtin("bool_and", {"a": Bool, "b": Bool}, value_type=sc.bool_, group=G_OP,
            differentiable=False, hidden=True, export=False)
add_builtin("nonzero_bool", {"a": Scalar}, value_type=sc.bool_, group=G_OP, differentiable=False,
            hidden=True, export=False)

# --- thread index ---------------------------------------------------------------------------------------
add_builtin("tid", {}, value_type=sc.int32, group="Utility", context=True, differentiable=False,
            doc="The thread index; `i, j = wp.tid()` for multi-dimensional launches.")
add_builtin("tid_nd", {"k": Index, "count": Index}, value_type=sc.int32, context=True,
            differentiable=False, hidden=True, export=False)


# --- arrays -------------------------------------------------------------------------------------------------
def _elem(ts):
    return ts[0].dtype


def _view(ts):
    """``a[i]`` / ``a[i:j, k]``: each integer index drops an axis, each slice keeps one."""
    a = ts[0]
    if is_indexed(a) and any(is_slice(t) for t in ts[1:]):
        raise TypeMismatch("an indexed array cannot be sliced in a kernel (as in warp-lang): index "
                           "it with integers, or slice its data array")
    kind = array if is_fixed(a) else type(a)      # a view of a stack array is a plain array
    return kind(dtype=a.dtype, ndim=a.ndim - sum(1 for t in ts[1:] if not is_slice(t)))


IndexOrSlice = Pattern("Int or slice", lambda t: sc.is_int(t) or is_slice(t), share=False)


def _store_rule(ts):
    a, v = ts[0], ts[-1]
    if v is not a.dtype and getattr(v, "_cpp", 1) != getattr(a.dtype, "_cpp", 2):
        raise TypeMismatch(f"cannot store a {getattr(v, '__name__', v)} in an array of "
                           f"{getattr(a.dtype, '__name__', a.dtype)}")
    return None


# The element scalar types each atomic accepts, as the reference (the GPU's native atomics; a
# `+=` into an array of another type is a plain load and store, see Translator.store)
_ATOMIC_INTS = (sc.int32, sc.uint32, sc.int64, sc.uint64)
_ATOMIC_TYPES = {
    "add": (_ATOMIC_INTS + (sc.float16, sc.bfloat16, sc.float32, sc.float64),
            "[u]int32, [u]int64, float16, bfloat16, float32, or float64"),
    "min": (_ATOMIC_INTS + (sc.bfloat16, sc.float32, sc.float64), "[u]int32, [u]int64, bfloat16, float32, or float64"),
    "exch": (_ATOMIC_INTS + (sc.float32, sc.float64), "[u]int32, [u]int64, float32, or float64"),
    "and": (_ATOMIC_INTS, "[u]int32 or [u]int64"),
}
_ATOMIC_KIND = {"add": "add", "sub": "add", "min": "min", "max": "min", "exch": "exch", "cas": "exch",
                "and": "and", "or": "and", "xor": "and"}


def has_atomic(op, dtype):
    """Whether ``atomic_<op>`` works on arrays of ``dtype`` (its scalar type decides)."""
    return _elem_scalar_of(dtype) in _ATOMIC_TYPES[_ATOMIC_KIND[op]][0]


def _check_atomic_type(op, a):
    if not has_atomic(op, a.dtype):
        s, names = _elem_scalar(a), _ATOMIC_TYPES[_ATOMIC_KIND[op]][1]
        raise TypeMismatch(f"atomic_{op}() operations only work on arrays with {names} as the underlying "
                           f"scalar types, but got {type_repr(a.dtype)} (with scalar type {type_repr(s)})")


def _atomic_rule_for(op):
    def rule(ts):
        _store_rule(ts)
        _check_atomic_type(op, ts[0])
        return ts[0].dtype
    return rule


def _elem_scalar_of(d):
    return d._wp_scalar_type_ if comp.is_composite(d) else d


def _elem_scalar(a):
    return _elem_scalar_of(a.dtype)


def _cas_rule(ts):
    a, compare, value = ts[0], ts[-2], ts[-1]
    if not sc.is_scalar(a.dtype) or a.dtype is sc.bool_:
        raise TypeMismatch(f"atomic_cas needs an array of a numeric scalar type, got "
                           f"{getattr(a.dtype, '__name__', a.dtype)}")
    _store_rule([a, compare])
    _store_rule([a, value])
    _check_atomic_type("cas", a)
    return a.dtype


for n in (1, 2, 3, 4):
    idx = {f"i{k}": Index for k in range(n)}
    add_builtin("load", {"a": Array, **idx}, value_func=_elem, group=G_ARR, hidden=True, export=False)
    add_builtin("view", {"a": Array, **{k: IndexOrSlice for k in idx}}, value_func=_view, group=G_ARR, hidden=True, export=False)
    add_builtin("address", {"a": Array, **idx}, value_func=_elem, group=G_ARR, hidden=True,
                export=False, differentiable=False)
    add_builtin("array_store", {"a": Array, **idx, "value": Any}, value_func=_store_rule,
                group=G_ARR, hidden=True, export=False, replay="array_store_local")
    for op in ("atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_exch"):
        add_builtin(op, {"a": Array, **idx, "value": Any}, value_func=_atomic_rule_for(op[7:]), group="Atomics",
                    replay=f"{op}_local", differentiable=op != "atomic_exch",
                    doc=f"{op.split('_')[1]} `value` into `a[i...]` atomically; returns the old value.")
    for op in ("atomic_and", "atomic_or", "atomic_xor"):
        add_builtin(op, {"a": Array, **idx, "value": Any}, value_func=_atomic_rule_for(op[7:]), group="Atomics",
                    replay=f"{op}_local", differentiable=False,
                    doc=f"Bitwise {op.split('_')[1]} of `value` into `a[i...]` atomically (integers); "
                        "returns the old value.")
    add_builtin("atomic_cas", {"a": Array, **idx, "compare": Any, "value": Any}, value_func=_cas_rule,
                group="Atomics", replay="atomic_cas_local", differentiable=False,
                doc="If `a[i...] == compare`, store `value` there, atomically; returns the old value.")
add_builtin("array_shape", {"a": Array, "k": Index}, value_type=sc.int32, group=G_ARR,
            differentiable=False, hidden=True, export=False)
add_builtin("array_grad", {"a": Array}, value_func=same_as(0), group=G_ARR,   # wp.adjoint[a] (custom_grad.py)
            differentiable=False, hidden=True, export=False)
add_builtin("array_nonnull", {"a": Array}, value_type=sc.bool_, group=G_ARR,
            differentiable=False, hidden=True, export=False)   # `if a:` / `not a`
add_builtin("len", {"a": Array}, value_type=sc.int32, group="Utility", differentiable=False,
            doc="The length of the first dimension of an array, or of a vector.")
add_builtin("len", {"a": Vector}, value_type=sc.int32, group="Utility", differentiable=False,
            doc="The number of components of a vector.")


# --- components -----------------------------------------------------------------------------------------
def _row(ts):
    m = ts[0]
    return comp.vector(m._shape_[1], m._wp_scalar_type_)


def _assign_rule(expected):
    def rule(ts):
        target, value = ts[0], ts[-1]
        want = expected(ts[:-1])
        if value is not want and getattr(value, "_cpp", 1) != getattr(want, "_cpp", 2):
            raise TypeMismatch(f"cannot assign a {getattr(value, '__name__', value)} to a component "
                               f"of type {getattr(want, '__name__', want)}")
        return target
    return rule


_scal = scalar_type_of(0)
for pat in (Vector, Quaternion, Transformation):
    add_builtin("extract", {"a": pat, "i": Index}, value_func=_scal, group=G_VEC, hidden=True, export=False)
    add_builtin("assign", {"a": pat, "i": Index, "value": Any}, value_func=_assign_rule(_scal),
                hidden=True, export=False)
add_builtin("extract", {"a": Matrix, "i": Index}, value_func=_row, hidden=True, export=False)
add_builtin("extract", {"a": Matrix, "i": Index, "j": Index}, value_func=_scal, hidden=True, export=False)
add_builtin("assign", {"a": Matrix, "i": Index, "j": Index, "value": Any},
            value_func=_assign_rule(_scal), hidden=True, export=False)
add_builtin("assign", {"a": Matrix, "i": Index, "value": Any}, value_func=_assign_rule(_row),
            hidden=True, export=False)

# --- the builtin groups, one module each --------------------------------------------------------------
from . import math as builtins_math, linalg as builtins_linalg, quat as builtins_quat, random as builtins_random, utility as builtins_utility  # noqa: E402,F401
from . import numeric as builtins_numeric, frames as builtins_frames, intersect as builtins_intersect, debug as builtins_debug  # noqa: E402,F401
from . import dense as builtins_dense  # noqa: E402,F401
