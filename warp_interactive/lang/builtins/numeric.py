"""Scalar and vector builtins beyond the basic library (C++ in native/include/warp_interactive/
math/special.h): copysign, erfinv, erfcinv, bit_count, unot, div_approx, the vector norms,
smooth_normalize, inverse_approx, svd2, and the tuple-returning forms of the decompositions
(``U, sigma, V = wp.svd3(A)``).
"""

from ...types import composite as comp
from ...types import scalars as sc
from .. import ir
from .function import INTRINSICS
from ...errors import TypeMismatch
from .registry import Array, Bool, Float, Int, Matrix, Pattern, Quaternion, Vector, add_builtin, resolve, same_as, scalar_type_of

G_MATH, G_VEC, G_MAT, G_OP = "Scalar Math", "Vector Math", "Matrix Math", "Operators"

FloatVector = Pattern("FloatVector", lambda t: comp.is_vector(t) and sc.is_float(t._wp_scalar_type_))
FloatMatrix = Pattern("FloatMatrix", lambda t: comp.is_matrix(t) and sc.is_float(t._wp_scalar_type_))

# --- scalars ---------------------------------------------------------------------------------------
add_builtin("copysign", {"x": Float, "y": Float}, value_func=same_as(0), group=G_MATH,
            doc="`x` with the sign of `y`: `copysign(3.0, -1.0) == -3.0` (the sign bit, so -0.0 "
                "counts as negative).")
add_builtin("erfinv", {"x": Float}, value_func=same_as(0), group=G_MATH,
            doc="The inverse error function: `erf(erfinv(x)) == x` for `x` in (-1, 1); +-inf at "
                "+-1, NaN outside.")
add_builtin("erfcinv", {"x": Float}, value_func=same_as(0), group=G_MATH,
            doc="The inverse complementary error function: `erfc(erfcinv(x)) == x` for `x` in "
                "(0, 2); accurate for tiny `x` too.")
add_builtin("bit_count", {"x": Int}, value_type=sc.int32, group=G_MATH, differentiable=False,
            doc="The number of set bits of `x`'s fixed-width two's-complement pattern "
                "(`bit_count(int8(-1)) == 8`).")
for _pat in (Bool, Int, Array):
    add_builtin("unot", {"a": _pat}, value_type=sc.bool_, group=G_OP, differentiable=False,
                doc="Logical not: True if `a` is False, zero, or a null array.")

_DIV = "Division `a / b` (exact on every target; the reference uses approximate GPU intrinsics)"
for _a, _b, _ret, _what in ((Float, Float, 0, ""), (FloatVector, Float, 0, " of a vector by a scalar"),
                            (Float, FloatVector, 1, " of a scalar by each component"),
                            (FloatMatrix, Float, 0, " of a matrix by a scalar"),
                            (Float, FloatMatrix, 1, " of a scalar by each element"),
                            (Quaternion, Float, 0, " of a quaternion by a scalar"),
                            (Float, Quaternion, 1, " of a scalar by each component")):
    add_builtin("div_approx", {"a": _a, "b": _b}, value_func=same_as(_ret), group=G_OP,
                doc=_DIV + _what + ".")

# --- vector norms ----------------------------------------------------------------------------------
add_builtin("norm_l1", {"v": FloatVector}, value_func=scalar_type_of(0), group=G_VEC,
            doc="The L1 norm `sum |v_i|`.")
add_builtin("norm_l2", {"v": FloatVector}, value_func=scalar_type_of(0), group=G_VEC,
            doc="The L2 (Euclidean) norm of `v`.")
_HUBER = ("The Huber norm: `|v|^2 / 2` where `|v| <= delta`, else `delta (|v| - delta / 2)`",
          "The pseudo-Huber norm `delta sqrt(1 + |v|^2 / delta^2)`",
          "`v` divided by its pseudo-Huber norm: a normalization that is smooth at zero")
for _name, _doc, _ret in (("norm_huber", _HUBER[0], scalar_type_of(0)),
                          ("norm_pseudo_huber", _HUBER[1], scalar_type_of(0)),
                          ("smooth_normalize", _HUBER[2], same_as(0))):
    add_builtin(_name, {"v": FloatVector}, value_func=_ret, group=G_VEC, doc=_doc + " (delta = 1).")
    add_builtin(_name, {"v": FloatVector, "delta": Float}, value_func=_ret, group=G_VEC, doc=_doc + ".")


# --- matrices ----------------------------------------------------------------------------------------
def _square(sizes):
    def rule(ts):
        shape = ts[0]._shape_
        if shape[0] != shape[1] or shape[0] not in sizes:
            raise TypeMismatch(f"defined for {', '.join(f'{n}x{n}' for n in sizes)} matrices, "
                               f"got {shape[0]}x{shape[1]}")
        return ts[0]
    return rule


add_builtin("inverse_approx", {"a": FloatMatrix}, value_func=_square((2, 3, 4)), group=G_MAT,
            doc="The inverse of a 2x2, 3x3 or 4x4 matrix, as `inverse` (exact on every target; the "
                "reference trades accuracy for speed on GPUs).")


def _svd2_rule(ts):
    _square((2,))(ts)
    s = ts[0]._wp_scalar_type_
    if not sc.is_float(s):   # float16 is computed in float32 (math/special.h)
        raise TypeMismatch("defined for float16, float32 and float64 matrices")
    for t in ts[1:]:
        if t._wp_scalar_type_ is not s:
            raise TypeMismatch("all arguments must have one scalar type")
        if comp.is_matrix(t) and t._shape_ != (2, 2) or comp.is_vector(t) and t._length_ != 2:
            raise TypeMismatch("needs 2x2 matrices and a 2-vector")
    return None


add_builtin("svd2", {"A": Matrix, "U": Matrix, "sigma": Vector, "V": Matrix}, value_func=_svd2_rule,
            group=G_MAT,
            doc="Singular value decomposition `A = U diag(sigma) V^T` of a 2x2 matrix, written to "
                "`U`, `sigma` (non-negative, descending) and `V`.")


# --- tuple-returning forms: U, sigma, V = wp.svd3(A) --------------------------------------------------
def _outputs(name):
    """(A's type) -> the types of the out-parameters of the decomposition ``name``."""
    if name == "transform_decompose":
        return _decompose_outputs
    if name == "quat_to_axis_angle":
        return _axis_angle_outputs
    def rule(ts):
        m = ts[0]
        n, s = m._shape_[0], m._wp_scalar_type_
        mat, vec = comp.matrix((n, n), s), comp.vector(n, s)
        outs = {"svd2": (mat, vec, mat), "svd3": (mat, vec, mat), "qr3": (mat, mat),
                "eig3": (mat, vec)}[name]
        registry_full = [m] + list(outs)
        resolve(name, registry_full)   # the out-parameter form accepts A (raises TypeMismatch)
        return outs
    return rule


_TUPLE_DOC = {"svd2": "`U, sigma, V = svd2(A)`: the decomposition as a tuple.",
              "svd3": "`U, sigma, V = svd3(A)`: the decomposition as a tuple.",
              "qr3": "`Q, R = qr3(A)`: the decomposition as a tuple.",
              "eig3": "`Q, d = eig3(A)`: the decomposition as a tuple."}


def _decompose_outputs(ts):
    m = ts[0]
    if m._shape_ != (4, 4) or not sc.is_float(m._wp_scalar_type_):
        raise TypeMismatch(f"needs a floating-point 4x4 matrix, got {m.__name__}")
    s = m._wp_scalar_type_
    return comp.vector(3, s), comp.quaternion(s), comp.vector(3, s)


def _axis_angle_outputs(ts):
    q = ts[0]
    if not (comp.is_composite(q) and q._kind_ == "quaternion"):
        raise TypeMismatch(f"needs a quaternion, got {getattr(q, '__name__', q)}")
    s = q._wp_scalar_type_
    return comp.vector(3, s), s


def _zero_scalar(tr, t):
    """A zeroed scalar local an out-parameter writes (not a folded constant: it changes)."""
    v = tr.scope.new_var(t)
    tr.scope.emit(ir.Const(out=v, value=0))
    return v


def tuple_form(name):
    """The intrinsic: with only ``A``, zero locals are made for the outputs, the out-parameter
    form fills them (its adjoint is the one of that form), and they come back as a tuple."""
    def handler(tr, obj, node, kwargs):
        args = tr.args_of(node)
        if kwargs or len(args) != 1:
            return tr.call_registered(obj, node, kwargs, args)
        try:
            _, outs = resolve(name, [args[0].type])
        except TypeMismatch as e:
            raise tr.scope.error(str(e)) from None
        locals_ = [tr.construct(t, []) if comp.is_composite(t) else _zero_scalar(tr, t) for t in outs]
        tr.call_builtin(name, args + locals_)
        return tuple(locals_)
    return handler


for _name, _doc in _TUPLE_DOC.items():
    add_builtin(_name, {"A": Matrix}, value_func=_outputs(_name), group=G_MAT, doc=_doc)
    INTRINSICS[_name] = tuple_form(_name)
add_builtin("quat_to_axis_angle", {"q": Quaternion}, value_func=_outputs("quat_to_axis_angle"),
            group="Quaternion Math", doc="`axis, angle = quat_to_axis_angle(q)`: the rotation axis "
                                         "and angle of `q` as a tuple.")
INTRINSICS["quat_to_axis_angle"] = tuple_form("quat_to_axis_angle")
