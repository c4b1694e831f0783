"""Block-Jacobi preconditioners: the inverse of each diagonal block of a square BSR matrix with
square blocks, applied as a block-diagonal product. The three warp-lang names differ in how the
block is factorized; here "block_jacobi_direct" inverts it (Gauss-Jordan, any block size) and
"block_jacobi_sequential"/"block_jacobi_tile" use its LDL^T / Cholesky solve, which for the
symmetric positive definite blocks they require give the same inverse. A block that cannot be
inverted (zero or non-finite determinant; for the SPD variants also a nonsymmetric block) acts
as the identity, as in warp-lang."""

from typing import Any

import warp_interactive as wp
import warp_interactive.sparse as sparse

from .operators import LinearOperator, as_scalar_array


@wp.func
def _gauss_jordan(d: Any, eye: Any):
    """The inverse of the square block ``d`` by Gauss-Jordan elimination with partial pivoting
    (any block size; wp.inverse stops at 4x4). A zero pivot leaves a zero inverse, which the
    caller's condition estimate rejects."""
    a = d
    inv = eye
    n = int(type(eye)._shape_[0])
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if wp.abs(a[i, k]) > wp.abs(a[p, k]):
                p = i
        if a[p, k] == type(a[p, k])(0.0):
            return inv - inv
        for j in range(n):
            t = a[k, j]
            a[k, j] = a[p, j]
            a[p, j] = t
            t = inv[k, j]
            inv[k, j] = inv[p, j]
            inv[p, j] = t
        s = type(a[k, k])(1.0) / a[k, k]
        for j in range(n):
            a[k, j] = a[k, j] * s
            inv[k, j] = inv[k, j] * s
        for i in range(n):
            if i != k:
                f = a[i, k]
                for j in range(n):
                    a[i, j] = a[i, j] - f * a[k, j]
                    inv[i, j] = inv[i, j] - f * inv[k, j]
    return inv


@wp.func
def _positive_definite(d: Any):
    """Whether the symmetric block ``d`` has a Cholesky factorization (every pivot positive)."""
    a = d
    n = int(type(d)._shape_[0])
    for k in range(n):
        piv = a[k, k]
        if not (piv > type(piv)(0.0)):
            return False
        for i in range(k + 1, n):
            f = a[i, k] / piv
            for j in range(k + 1, n):
                a[i, j] = a[i, j] - f * a[k, j]
    return True


@wp.kernel
def _invert_blocks(diag: wp.array(dtype=Any), require_spd: int, rel_tol: Any, eye: Any,
                   out: wp.array(dtype=Any)):
    """out = inverse of each diagonal block, or the identity where the block is numerically
    singular (Frobenius condition estimate above 1 / rel_tol, or not finite), or for the SPD
    variants not symmetric positive definite."""
    i = wp.tid()
    d = diag[i]
    inv = _gauss_jordan(d, eye)
    cond = wp.sqrt(wp.ddot(d, d) * wp.ddot(inv, inv))
    # an inverse of a singular block comes back as zeros or non-finite: cond is then not in [1, 1/tol)
    ok = wp.isfinite(cond) and cond >= type(rel_tol)(1.0) and cond * rel_tol < type(rel_tol)(1.0)
    if require_spd != 0:
        skew = d - wp.transpose(d)
        ok = ok and wp.ddot(skew, skew) <= rel_tol * rel_tol * wp.ddot(d, d) and _positive_definite(d)
    if ok:
        out[i] = inv
    else:
        out[i] = eye


@wp.kernel
def _apply_blocks(inv: wp.array(dtype=Any), x: wp.array(dtype=Any), y: wp.array(dtype=Any), z: wp.array(dtype=Any),
                  alpha: Any, beta: Any):
    i = wp.tid()
    v = alpha * (inv[i] * x[i])
    if beta != type(beta)(0.0):
        v += beta * y[i]
    z[i] = v


_REL_TOL = {wp.float16: 1.0e-3, wp.float32: 1.0e-6, wp.float64: 1.0e-12}


def block_jacobi(A, ptype):
    """The block-Jacobi preconditioner of ``A`` (see the module's docstring)."""
    if not isinstance(A, sparse.BsrMatrix):
        raise ValueError(f"Preconditioner '{ptype}' requires a BsrMatrix")
    r, c = A.block_shape
    if r != c:
        raise ValueError(f"Preconditioner '{ptype}' requires square matrix blocks, got {A.block_shape}")
    if A.nrow != A.ncol:
        raise ValueError(f"Preconditioner '{ptype}' requires a square matrix, got {A.nrow}x{A.ncol} blocks")
    scalar = A.scalar_type
    if ptype == "block_jacobi_tile" and scalar not in (wp.float32, wp.float64):
        raise ValueError(f"Preconditioner 'block_jacobi_tile' requires float32 or float64 matrices, got "
                         f"{wp.types.type_repr(scalar)}")
    diag = sparse.bsr_get_diag(A)
    inv = wp.empty_like(diag)
    wp.launch(_invert_blocks, dim=diag.shape[0], device=A.device,
              inputs=[diag, int(ptype != "block_jacobi_direct"), scalar(_REL_TOL.get(scalar, 1e-6)),
                      A.values.dtype(*[float(i == j) for i in range(r) for j in range(r)]), inv])
    vec = wp.types.vector(r, scalar)

    def matvec(x, y, z, alpha, beta):
        xv, yv, zv = (_as_blocks(a, vec) for a in (x, y, z))
        wp.launch(_apply_blocks, dim=inv.shape[0], device=A.device, inputs=[inv, xv, yv, zv, scalar(alpha), scalar(beta)])

    return LinearOperator(A.shape, A.dtype, A.device, matvec)


def _as_blocks(a, vec):
    if wp.types.types_equal(a.dtype, vec):
        return a
    s = as_scalar_array(a)
    view = wp.array(ptr=s.ptr, dtype=vec, shape=(s.shape[0] // vec._length_,), device=s.device, capacity=s.capacity)
    view._ref = a
    return view
