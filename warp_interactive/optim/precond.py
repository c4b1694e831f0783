"""``preconditioner(A, ptype)``: Jacobi ("diag", "diag_abs"), block Jacobi, FSAI or none."""

from typing import Any

import warp_interactive as wp
import warp_interactive.sparse as sparse

from .block_jacobi import block_jacobi
from .operators import aslinearoperator


@wp.func
def _inverse(c: Any, use_abs: int):
    if c == type(c)(0.0):
        return type(c)(1.0)
    if use_abs != 0:
        return type(c)(1.0) / wp.abs(c)
    return type(c)(1.0) / c


@wp.kernel
def _inverse_diag_scalar(d: wp.array(dtype=Any), out: wp.array(dtype=Any), use_abs: int):
    i = wp.tid()
    out[i] = _inverse(d[i], use_abs)


@wp.kernel
def _inverse_diag_blocks(d: wp.array(dtype=Any), out: wp.array(dtype=Any), use_abs: int):
    i = wp.tid()
    v = wp.get_diag(d[i])
    for k in range(len(v)):
        v[k] = _inverse(v[k], use_abs)
    out[i] = v


@wp.kernel
def _inverse_diag_dense(A: wp.array2d(dtype=Any), out: wp.array(dtype=Any), use_abs: int):
    i = wp.tid()
    out[i] = _inverse(A[i, i], use_abs)


def _jacobi(A, use_abs):
    flag = 1 if use_abs else 0
    if isinstance(A, sparse.BsrMatrix):
        diag = sparse.bsr_get_diag(A)
        if wp.types.type_is_matrix(A.dtype):
            r, _ = A.block_shape
            inv = wp.empty(diag.shape[0], dtype=wp.types.vector(length=r, dtype=A.scalar_type), device=A.device)
            wp.launch(_inverse_diag_blocks, dim=diag.shape[0], device=A.device, inputs=[diag, inv, flag])
        else:
            inv = wp.empty(diag.shape[0], dtype=A.scalar_type, device=A.device)
            wp.launch(_inverse_diag_scalar, dim=diag.shape[0], device=A.device, inputs=[diag, inv, flag])
    elif isinstance(A, wp.array) and A.ndim == 2:
        inv = wp.empty(A.shape[0], dtype=A.dtype, device=A.device)
        wp.launch(_inverse_diag_dense, dim=A.shape[0], device=A.device, inputs=[A, inv, flag])
    else:
        raise ValueError("Unsupported source matrix type for building diagonal preconditioner")
    return aslinearoperator(inv)


def preconditioner(A, ptype="diag"):
    """A preconditioner for ``A``: "diag" (Jacobi), "diag_abs" (absolute diagonal),
    "block_jacobi_direct"/"block_jacobi_sequential"/"block_jacobi_tile" (inverse diagonal
    blocks), "fsai" (an FSAI with its default options) or "id" (None)."""
    if ptype == "fsai":
        from .fsai import FSAI
        return FSAI(A)
    if ptype == "id":
        return None
    if ptype in ("diag", "diag_abs"):
        return _jacobi(A, ptype == "diag_abs")
    if ptype in ("block_jacobi_direct", "block_jacobi_sequential", "block_jacobi_tile"):
        if isinstance(A, sparse.BsrMatrix) and A.block_shape == (1, 1) and A.nrow == A.ncol:
            return _jacobi(A, False)        # CSR: block Jacobi is Jacobi
        return block_jacobi(A, ptype)
    raise ValueError(f"Unsupported preconditioner type '{ptype}'")
