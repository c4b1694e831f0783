"""Block-Jacobi preconditioners: the inverse of each diagonal block of a square BSR matrix with
square blocks, applied as a block-diagonal product. The three warp-lang names differ in how the
block is factorized; here "block_jacobi_direct" inverts it (wp.inverse) and
"block_jacobi_sequential"/"block_jacobi_tile" use its LDL^T / Cholesky solve, which for the
symmetric positive definite blocks they require give the same inverse. A block that cannot be
inverted (zero or non-finite determinant; for the SPD variants also a nonsymmetric block) acts
as the identity, as in warp-lang."""

from typing import Any

import warp_interactive as wp
import warp_interactive.sparse as sparse

from .operators import LinearOperator, as_scalar_array


@wp.kernel
def _invert_blocks(diag: wp.array(dtype=Any), require_symmetric: int, rel_tol: Any, eye: Any,
                   out: wp.array(dtype=Any)):
    """out = inverse of each diagonal block, or the identity where the block is numerically
    singular (Frobenius condition estimate above 1 / rel_tol, or not finite)."""
    i = wp.tid()
    d = diag[i]
    inv = wp.inverse(d)
    cond = wp.sqrt(wp.ddot(d, d) * wp.ddot(inv, inv))
    # an inverse of a singular block comes back as zeros or non-finite: cond is then not in [1, 1/tol)
    ok = wp.isfinite(cond) and cond >= type(rel_tol)(1.0) and cond * rel_tol < type(rel_tol)(1.0)
    if require_symmetric != 0:
        skew = d - wp.transpose(d)
        ok = ok and wp.ddot(skew, skew) <= rel_tol * rel_tol * wp.ddot(d, d)
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
    if A.nrow != A.ncol:
        raise ValueError(f"Preconditioner '{ptype}' requires a square matrix, got {A.nrow}x{A.ncol} blocks")
    r, c = A.block_shape
    if r != c:
        raise ValueError(f"Preconditioner '{ptype}' requires square blocks, got {A.block_shape}")
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
