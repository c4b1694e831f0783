"""Block-Jacobi preconditioners: the inverse of each diagonal block of a square BSR matrix with
square blocks (any block size), applied as a block-diagonal product. The three warp-lang names
differ in how the block is factorized; here each block is inverted by Gauss-Jordan elimination
with partial pivoting, and "block_jacobi_sequential"/"block_jacobi_tile" (LDL^T / Cholesky
solves in warp-lang, which require symmetric positive definite blocks) accept a block only when
it is symmetric and its Cholesky pivots are positive. A block that cannot be inverted (a zero
pivot, a condition estimate past the precision, non-finite values) or that the variant does
not accept acts as the identity, as in warp-lang.

The kernels work on flat scalar views with run-time loops over the block size: one small module
for every block size (a version over matrix types unrolled its nested loops per size, and its
CUDA build ran for minutes)."""

from typing import Any

import warp_interactive as wp
import warp_interactive.sparse as sparse

from .operators import LinearOperator


# set-up and application only, never differentiated (as warp-lang's optim.linear): no adjoint
# code, which would be most of the module's CUDA build
wp.set_module_options({"enable_backward": False})


@wp.func
def _gauss_jordan(a: wp.array(dtype=Any), inv: wp.array(dtype=Any), o: int, n: int):
    """inv[o:o+n*n] := the inverse of the row-major block a[o:o+n*n] (destroyed), by
    Gauss-Jordan elimination with partial pivoting; False on a zero pivot."""
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if wp.abs(a[o + i * n + k]) > wp.abs(a[o + p * n + k]):
                p = i
        piv = a[o + p * n + k]
        if piv == type(piv)(0.0):
            return False
        if p != k:
            for j in range(n):
                t = a[o + k * n + j]
                a[o + k * n + j] = a[o + p * n + j]
                a[o + p * n + j] = t
                t = inv[o + k * n + j]
                inv[o + k * n + j] = inv[o + p * n + j]
                inv[o + p * n + j] = t
        s = type(piv)(1.0) / piv
        for j in range(n):
            a[o + k * n + j] = a[o + k * n + j] * s
            inv[o + k * n + j] = inv[o + k * n + j] * s
        for i in range(n):
            if i != k:
                f = a[o + i * n + k]
                for j in range(n):
                    a[o + i * n + j] = a[o + i * n + j] - f * a[o + k * n + j]
                    inv[o + i * n + j] = inv[o + i * n + j] - f * inv[o + k * n + j]
    return True


@wp.func
def _cholesky_pivots_positive(a: wp.array(dtype=Any), o: int, n: int):
    """Whether the symmetric block a[o:o+n*n] (destroyed) is positive definite: every pivot of
    its elimination without pivoting is positive."""
    for k in range(n):
        piv = a[o + k * n + k]
        if not (piv > type(piv)(0.0)):
            return False
        for i in range(k + 1, n):
            f = a[o + i * n + k] / piv
            for j in range(k + 1, n):
                a[o + i * n + j] = a[o + i * n + j] - f * a[o + k * n + j]
    return True


@wp.kernel
def _invert_blocks(d: wp.array(dtype=Any), n: int, require_spd: int, rel_tol: Any,
                   work: wp.array(dtype=Any), inv: wp.array(dtype=Any)):
    """inv = inverse of each row-major n x n block of d, or the identity where the block is
    numerically singular (Frobenius condition estimate above 1 / rel_tol, or not finite) or,
    with ``require_spd``, not symmetric positive definite. ``work``: scratch, d's size."""
    o = wp.tid() * n * n
    zero = rel_tol - rel_tol
    dd = zero
    skew = zero
    for e in range(n * n):
        work[o + e] = d[o + e]
        dd += d[o + e] * d[o + e]
        inv[o + e] = zero
    for i in range(n):
        inv[o + i * n + i] = type(rel_tol)(1.0)
        for j in range(n):
            s = d[o + i * n + j] - d[o + j * n + i]
            skew += s * s
    ok = _gauss_jordan(work, inv, o, n)
    if ok:
        ii = zero
        for e in range(n * n):
            ii += inv[o + e] * inv[o + e]
        cond = wp.sqrt(dd * ii)
        ok = wp.isfinite(cond) and cond >= type(rel_tol)(1.0) and cond * rel_tol < type(rel_tol)(1.0)
    if ok and require_spd != 0:
        ok = skew <= rel_tol * rel_tol * dd
        if ok:
            for e in range(n * n):
                work[o + e] = d[o + e]
            ok = _cholesky_pivots_positive(work, o, n)
    if not ok:
        for i in range(n):
            for j in range(n):
                inv[o + i * n + j] = type(rel_tol)(float(i == j))


@wp.kernel
def _apply_blocks(inv: wp.array(dtype=Any), n: int, x: wp.array(dtype=Any), y: wp.array(dtype=Any),
                  z: wp.array(dtype=Any), alpha: Any, beta: Any):
    """z = alpha * blockdiag(inv) x + beta * y, one thread per entry (x must not alias z)."""
    t = wp.tid()
    b = t // n
    row = t - b * n
    o = b * n * n + row * n
    v = alpha - alpha
    for j in range(n):
        v += inv[o + j] * x[b * n + j]
    v = alpha * v
    if beta != type(beta)(0.0):
        v += beta * y[t]
    z[t] = v


_REL_TOL = {wp.float16: 1.0e-3, wp.float32: 1.0e-6, wp.float64: 1.0e-12}


def block_jacobi(A, ptype):
    """The block-Jacobi preconditioner of ``A`` (see the module's docstring)."""
    if not isinstance(A, sparse.BsrMatrix):
        raise ValueError(f"Preconditioner '{ptype}' requires a BsrMatrix")
    r, c = A.block_shape
    if r != c:     # first: a grid of non-square blocks may still make a square matrix
        raise ValueError(f"Preconditioner '{ptype}' requires square matrix blocks, got {A.block_shape}")
    if A.nrow != A.ncol:
        raise ValueError(f"Preconditioner '{ptype}' requires a square matrix, got {A.nrow}x{A.ncol} blocks")
    scalar = A.scalar_type
    if ptype == "block_jacobi_tile" and scalar not in (wp.float32, wp.float64):
        raise ValueError(f"Preconditioner 'block_jacobi_tile' requires float32 or float64 matrices, got "
                         f"{wp.types.type_repr(scalar)}")
    diag = _flat(sparse.bsr_get_diag(A), scalar)
    inv = wp.empty_like(diag)
    if A.nrow:
        wp.launch(_invert_blocks, dim=A.nrow, device=A.device,
                  inputs=[diag, r, int(ptype != "block_jacobi_direct"), scalar(_REL_TOL.get(scalar, 1e-6)),
                          wp.empty_like(diag), inv])

    def matvec(x, y, z, alpha, beta):
        xs, ys, zs = (_flat(a, scalar) for a in (x, y, z))
        if zs.shape[0]:
            wp.launch(_apply_blocks, dim=zs.shape[0], device=A.device,
                      inputs=[inv, r, xs, ys, zs, scalar(alpha), scalar(beta)])

    return LinearOperator(A.shape, A.dtype, A.device, matvec)


def _flat(a, scalar):
    """A flat scalar view of a contiguous 1-d array of scalars, vectors or matrices."""
    if a.dtype is scalar:
        return a
    length = getattr(a.dtype, "_length_", 1)
    view = wp.array(ptr=a.ptr, dtype=scalar, shape=(a.shape[0] * length,), device=a.device, capacity=a.capacity)
    view._ref = a
    return view
