"""Vector and matrix builtins: products, norms, structure, decompositions."""

from ...types import composite as comp
from ...types import scalars as sc
from ...errors import TypeMismatch
from .registry import Matrix, Pattern, Vector, add_builtin, same_as, scalar_type_of

G_VEC, G_MAT = "Vector Math", "Matrix Math"

# vectors / matrices of floating-point numbers (where integer components make no sense)
FloatVector = Pattern("FloatVector", lambda t: comp.is_vector(t) and sc.is_float(t._wp_scalar_type_))
FloatMatrix = Pattern("FloatMatrix", lambda t: comp.is_matrix(t) and sc.is_float(t._wp_scalar_type_))


def _shape(t):
    return "x".join(str(n) for n in t._shape_)


def _vec3(ts):
    for t in ts:
        if comp.is_vector(t) and t._length_ != 3:
            raise TypeMismatch(f"needs 3-vectors, got a {t._length_}-vector")
    return ts[0]


def _same_length(ts):
    if ts[0]._length_ != ts[1]._length_:
        raise TypeMismatch(f"vector lengths {ts[0]._length_} and {ts[1]._length_} differ")
    return ts[0]


def _same_shape(ts):
    if ts[0]._shape_ != ts[1]._shape_:
        raise TypeMismatch(f"shapes {_shape(ts[0])} and {_shape(ts[1])} differ")
    return ts[0]


def _square(ts, sizes=None):
    r, c = ts[0]._shape_
    if r != c:
        raise TypeMismatch(f"needs a square matrix, got {r}x{c}")
    if sizes and r not in sizes:
        raise TypeMismatch(f"defined for {', '.join(f'{n}x{n}' for n in sizes)} matrices, got {r}x{c}")
    return ts[0]


def _mat33(ts):
    for t in ts:
        if comp.is_matrix(t) and t._shape_ != (3, 3):
            raise TypeMismatch(f"needs 3x3 matrices, got {_shape(t)}")
        if comp.is_vector(t) and t._length_ != 3:
            raise TypeMismatch(f"needs a 3-vector, got a {t._length_}-vector")
    if not sc.is_float(ts[0]._wp_scalar_type_):   # float16 is computed in float32 (mat.h)
        raise TypeMismatch("defined for float16, float32 and float64 matrices")


# --- vectors -------------------------------------------------------------------------------------
add_builtin("dot", {"a": Vector, "b": Vector}, value_func=lambda ts: _same_length(ts)._wp_scalar_type_,
            group=G_VEC, doc="The dot product of `a` and `b`.")
add_builtin("cross", {"a": Vector, "b": Vector}, value_func=_vec3, group=G_VEC,
            doc="The cross product of two 3-vectors.")
add_builtin("outer", {"a": Vector, "b": Vector},
            value_func=lambda ts: comp.matrix((ts[0]._length_, ts[1]._length_), ts[0]._wp_scalar_type_),
            group=G_VEC, doc="The outer product `a b^T`: an `len(a) x len(b)` matrix.")
for _name, _doc in (("length", "The Euclidean length of `a`."),
                    ("length_sq", "The squared Euclidean length of `a`.")):
    add_builtin(_name, {"a": FloatVector if _name == "length" else Vector},
                value_func=scalar_type_of(0), group=G_VEC, doc=_doc)
add_builtin("normalize", {"a": FloatVector}, value_func=same_as(0), group=G_VEC,
            doc="`a / length(a)`; the zero vector stays zero.")
for _pat, _rule, _g in ((Vector, _same_length, G_VEC), (Matrix, _same_shape, G_MAT)):
    add_builtin("cw_mul", {"a": _pat, "b": _pat}, value_func=_rule, group=_g,
                doc="Component-wise product of `a` and `b`.")
    add_builtin("cw_div", {"a": _pat, "b": _pat}, value_func=_rule, group=_g,
                doc="Component-wise quotient of `a` and `b` (integers: truncating, x / 0 == 0).")
for _name in ("argmin", "argmax"):
    add_builtin(_name, {"a": Vector}, value_type=sc.uint32, group=G_VEC, differentiable=False,
                doc=f"The index of the first {_name[3:]}imum component of `a`.")

# --- matrices ---------------------------------------------------------------------------------------
add_builtin("ddot", {"a": Matrix, "b": Matrix}, value_func=lambda ts: _same_shape(ts)._wp_scalar_type_,
            group=G_MAT, doc="The double contraction `sum_ij a_ij b_ij`.")
add_builtin("transpose", {"m": Matrix},
            value_func=lambda ts: comp.matrix(ts[0]._shape_[::-1], ts[0]._wp_scalar_type_),
            group=G_MAT, doc="The transpose of `m`.")
add_builtin("inverse", {"m": FloatMatrix}, value_func=lambda ts: _square(ts, (2, 3, 4)), group=G_MAT,
            doc="The inverse of a 2x2, 3x3 or 4x4 matrix (the zero matrix if `m` is singular).")
add_builtin("determinant", {"m": Matrix},
            value_func=lambda ts: _square(ts, (2, 3, 4))._wp_scalar_type_, group=G_MAT,
            doc="The determinant of a 2x2, 3x3 or 4x4 matrix.")
add_builtin("trace", {"m": Matrix}, value_func=lambda ts: _square(ts)._wp_scalar_type_, group=G_MAT,
            doc="The sum of the diagonal of a square matrix.")
add_builtin("diag", {"d": Vector},
            value_func=lambda ts: comp.matrix((ts[0]._length_,) * 2, ts[0]._wp_scalar_type_),
            group=G_MAT, doc="The square matrix with `d` on its diagonal.")
add_builtin("get_diag", {"m": Matrix},
            value_func=lambda ts: comp.vector(_square(ts)._shape_[0], ts[0]._wp_scalar_type_),
            group=G_MAT, doc="The diagonal of a square matrix, as a vector.")
add_builtin("skew", {"v": Vector},
            value_func=lambda ts: comp.matrix((3, 3), _vec3(ts)._wp_scalar_type_), group=G_MAT,
            doc="The 3x3 matrix `S` with `S x == cross(v, x)`.")


def _from_vectors(rows):
    def rule(ts):
        n = ts[0]._length_
        for t in ts:
            if t is not ts[0]:
                raise TypeMismatch("all vectors must have one type")
        shape = (len(ts), n) if rows else (n, len(ts))
        return comp.matrix(shape, ts[0]._wp_scalar_type_)
    return rule


add_builtin("matrix_from_rows", {"rows": Vector}, value_func=_from_vectors(True), variadic=True,
            group=G_MAT, doc="The matrix whose rows are the given vectors.")
add_builtin("matrix_from_cols", {"cols": Vector}, value_func=_from_vectors(False), variadic=True,
            group=G_MAT, doc="The matrix whose columns are the given vectors.")


def _decomp(ts):
    _mat33(ts)
    for t in ts[1:]:
        if t._wp_scalar_type_ is not ts[0]._wp_scalar_type_:
            raise TypeMismatch("all arguments must have one scalar type")
    return None


add_builtin("svd3", {"A": Matrix, "U": Matrix, "sigma": Vector, "V": Matrix}, value_func=_decomp,
            group=G_MAT,
            doc="Singular value decomposition `A = U diag(sigma) V^T` of a 3x3 matrix, written to "
                "`U`, `sigma` (non-negative, descending) and `V`.")
add_builtin("qr3", {"A": Matrix, "Q": Matrix, "R": Matrix}, value_func=_decomp, group=G_MAT,
            doc="QR decomposition `A = Q R` of a 3x3 matrix (`R` upper triangular, non-negative "
                "diagonal), written to `Q` and `R`.")
add_builtin("eig3", {"A": Matrix, "Q": Matrix, "d": Vector}, value_func=_decomp, group=G_MAT,
            doc="Eigen-decomposition `A = Q diag(d) Q^T` of a symmetric 3x3 matrix, written to `Q` "
                "(eigenvectors as columns) and `d` (ascending).")

# transform_point / transform_vector with a 4x4 homogeneous matrix
_m44 = (lambda ts: (_square(ts, (4,)), _vec3(ts[1:]))[1])
add_builtin("transform_point", {"m": Matrix, "p": Vector}, value_func=_m44, group="Transformations",
            doc="The point `p` transformed by the 4x4 homogeneous matrix `m` (translation applied).")
add_builtin("transform_vector", {"m": Matrix, "v": Vector}, value_func=_m44, group="Transformations",
            doc="The vector `v` transformed by the upper 3x3 block of the 4x4 matrix `m`.")
