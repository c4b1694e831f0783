"""Array helpers of ``fem.linalg``."""

from typing import Any

from . import _api as wp
from ..types import Scalar


@wp.kernel
def _axpy(x: wp.array(dtype=Any), y: wp.array(dtype=Any), alpha: Any, beta: Any):
    i = wp.tid()
    y[i] = beta * y[i] + alpha * type(y[i])(x[i])


def array_axpy(x, y, alpha=1.0, beta=1.0):
    """``y <- alpha x + beta y`` (element-wise, any element type)."""
    if x.shape != y.shape:
        raise ValueError(f"array_axpy: shapes differ, {x.shape} and {y.shape}")
    s = getattr(y.dtype, "_wp_scalar_type_", y.dtype)
    wp.launch(_axpy, dim=y.shape[0], inputs=[x, y, s(alpha), s(beta)], device=y.device)


@wp.func
def symmetric_part(x: Any):
    """(x + x^T) / 2"""
    return x.dtype(0.5) * (x + wp.transpose(x))


@wp.func
def skew_part(x: wp.mat22):
    """The skew part of a 2x2 tensor as its rotation angle: (x10 - x01) / 2."""
    return 0.5 * (x[1, 0] - x[0, 1])


@wp.func
def skew_part(x: wp.mat33):  # noqa: F811
    """The skew part of a 3x3 tensor as its rotation vector: wp.cross(skew_part(x), v) = (x - x^T) v / 2."""
    return wp.vec3(0.5 * (x[2, 1] - x[1, 2]), 0.5 * (x[0, 2] - x[2, 0]), 0.5 * (x[1, 0] - x[0, 1]))


@wp.func
def skew_part(x: wp.mat22d):  # noqa: F811
    return wp.float64(0.5) * (x[1, 0] - x[0, 1])


@wp.func
def skew_part(x: wp.mat33d):  # noqa: F811
    h = wp.float64(0.5)
    return wp.vec3d(h * (x[2, 1] - x[1, 2]), h * (x[0, 2] - x[2, 0]), h * (x[1, 0] - x[0, 1]))


@wp.func
def spherical_part(x: Any):
    """The trace part of x: trace(x) / n times the identity."""
    n = len(x)
    return (wp.trace(x) / x.dtype(float(n))) * _identity_like(x)


@wp.func
def _identity_like(x: Any):
    r = type(x)(x.dtype(0.0))
    for i in range(len(x)):
        r[i, i] = x.dtype(1.0)
    return r


@wp.func
def symmetric_eigenvalues_qr(A: Any, tol: Any):
    """Eigenvalues ``D`` and eigenvectors ``P`` (as rows) of the symmetric ``A``:
    ``A = P^T diag(D) P``. Cyclic Jacobi rotations (computed in the matrix's precision) until
    the off-diagonal squared norm is below ``tol`` (or no rotation changes anything)."""
    n = len(A)
    zero = A.dtype(0.0)
    one = A.dtype(1.0)
    scale = _max_abs(A)
    if scale == zero:
        scale = one
    M = A / scale           # normalised: rotations of tiny entries would underflow
    tol_scaled = A.dtype(tol) / (scale * scale)
    P = _identity_like(A)
    for _sweep in range(64):
        off = zero         # the largest off-diagonal entry (a sum of squares could underflow)
        for p in range(n):
            for q in range(p + 1, n):
                off = wp.max(off, wp.abs(M[p, q]))
        if off == zero or (tol_scaled > zero and off * off <= tol_scaled):
            break
        changed = int(0)
        for p in range(n):
            for q in range(p + 1, n):
                apq = M[p, q]
                if apq != zero:
                    theta = (M[q, q] - M[p, p]) / (A.dtype(2.0) * apq)
                    t = one / (wp.abs(theta) + wp.sqrt(theta * theta + one))
                    if theta < zero:
                        t = -t
                    c = one / wp.sqrt(t * t + one)
                    s = t * c
                    for k in range(n):      # M <- M J   (columns p, q)
                        mkp = M[k, p]
                        mkq = M[k, q]
                        M[k, p] = c * mkp - s * mkq
                        M[k, q] = s * mkp + c * mkq
                    for k in range(n):      # M <- J^T M (rows p, q); P's rows rotate alike
                        mpk = M[p, k]
                        mqk = M[q, k]
                        M[p, k] = c * mpk - s * mqk
                        M[q, k] = s * mpk + c * mqk
                        ppk = P[p, k]
                        pqk = P[q, k]
                        P[p, k] = c * ppk - s * pqk
                        P[q, k] = s * ppk + c * pqk
                    changed = 1
        if changed == 0:
            break
    D = _diagonal(M) * scale
    return D, P


@wp.func
def _max_abs(A: Any):
    m = A.dtype(0.0)
    for i in range(len(A)):
        for j in range(len(A)):
            m = wp.max(m, wp.abs(A[i, j]))
    return m


@wp.func
def _diagonal(M: Any):
    d = wp.get_diag(M)
    return d


@wp.func
def inverse_qr(A: Any):
    """The inverse of ``A`` by Gauss-Jordan elimination with partial pivoting."""
    n = len(A)
    scale = _max_abs(A)
    if scale == A.dtype(0.0):
        scale = A.dtype(1.0)
    M = A / scale
    R = _identity_like(A)
    for col in range(n):
        piv = col
        best = wp.abs(M[col, col])
        for r in range(col + 1, n):
            if wp.abs(M[r, col]) > best:
                best = wp.abs(M[r, col])
                piv = r
        if piv != col:
            for k in range(n):
                tmp = M[col, k]
                M[col, k] = M[piv, k]
                M[piv, k] = tmp
                tmp2 = R[col, k]
                R[col, k] = R[piv, k]
                R[piv, k] = tmp2
        inv = A.dtype(1.0) / M[col, col]
        for k in range(n):
            M[col, k] = M[col, k] * inv
            R[col, k] = R[col, k] * inv
        for r in range(n):
            if r != col:
                f = M[r, col]
                if f != A.dtype(0.0):
                    for k in range(n):
                        M[r, k] = M[r, k] - f * M[col, k]
                        R[r, k] = R[r, k] - f * R[col, k]
    return R / scale


@wp.func
def generalized_inner(x: wp.types.vector(Any, Scalar), y: wp.types.vector(Any, Scalar)):
    """``dot(x, y)`` of vectors (mass forms written once for scalar and vector fields)."""
    return wp.dot(x, y)


@wp.func
def generalized_inner(x: Scalar, y: Scalar):  # noqa: F811
    """``x * y`` of scalars."""
    return x * y


@wp.func
def generalized_inner(x: wp.types.matrix((Any, Any), Scalar), y: wp.types.vector(Any, Scalar)):  # noqa: F811
    """``y^T x`` of a matrix and a vector."""
    return y @ x


@wp.func
def generalized_outer(x: wp.types.vector(Any, Scalar), y: wp.types.vector(Any, Scalar)):
    """``x y^T`` of vectors."""
    return wp.outer(x, y)


@wp.func
def generalized_outer(x: Scalar, y: wp.types.vector(Any, Scalar)):  # noqa: F811
    """``x y`` of a scalar and a vector."""
    return x * y


@wp.func
def generalized_outer(x: wp.types.vector(Any, Scalar), y: Scalar):  # noqa: F811
    """``x y`` of a vector and a scalar."""
    return x * y
