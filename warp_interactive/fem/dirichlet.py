"""Dirichlet conditions by projection of a linear system (``fem.project_linear_system``)."""

import numpy as np

from . import _api as wp


def _row_of_blocks(offsets, nrow):
    return np.repeat(np.arange(nrow), np.diff(offsets[: nrow + 1]))


def normalize_dirichlet_projector(projector_matrix, fixed_value=None):
    """Make the (block-diagonal) projector idempotent: each diagonal block becomes the
    orthogonal projector on its eigenvectors of significant eigenvalue, and ``fixed_value`` is
    scaled alike (``v <- sum_k (e_k . v) / lambda_k e_k``)."""
    P = projector_matrix
    if P.ncol != P.nrow:
        raise ValueError("Projector must be a square block-diagonal matrix")
    nnz = int(P.offsets.numpy()[P.nrow])
    offsets = P.offsets.numpy()
    cols = P.columns.numpy()[:nnz]
    rows = _row_of_blocks(offsets, P.nrow)[:nnz]
    shape = tuple(P.block_shape)
    vals = P.values.numpy()[:nnz].reshape((nnz,) + shape).astype(np.float64)
    fixed = None
    if fixed_value is not None:
        if fixed_value.shape[0] != P.nrow:
            raise ValueError("Fixed value array must be of length equal to the number of rows of blocks")
        fixed = fixed_value.numpy().reshape(P.nrow, shape[0]).astype(np.float64)
    for i in np.nonzero(rows == cols)[0]:
        A = vals[i]
        eps = np.trace(A) * 1.0e-6
        lam, vec = np.linalg.eigh(0.5 * (A + A.T))
        keep = lam > eps
        vals[i] = sum((np.outer(vec[:, k], vec[:, k]) for k in np.nonzero(keep)[0]), np.zeros(shape))
        if fixed is not None:
            r = rows[i]
            fixed[r] = sum((vec[:, k] @ fixed[r] / lam[k] * vec[:, k] for k in np.nonzero(keep)[0]),
                           np.zeros(shape[0]))
    host = P.values.numpy()
    host[:nnz] = vals.reshape(host[:nnz].shape).astype(host.dtype)
    P.values.assign(wp.array(host, dtype=P.values.dtype, device=P.values.device))
    if fixed is not None:
        fixed_value.assign(wp.array(fixed.reshape(fixed_value.numpy().shape).astype(fixed_value.numpy().dtype),
                                    dtype=fixed_value.dtype, device=fixed_value.device))


def project_system_rhs(system_matrix, system_rhs, projector_matrix, fixed_value=None):
    """``rhs <- (I - P) (rhs - A P v) + P v``."""
    from ..sparse import bsr_mv
    from .linalg import array_axpy
    tmp = wp.empty_like(system_rhs)
    tmp.assign(system_rhs)
    if fixed_value is None:
        system_rhs.zero_()
    else:
        bsr_mv(A=projector_matrix, x=fixed_value, y=system_rhs, alpha=1.0, beta=0.0)
    bsr_mv(A=system_matrix, x=system_rhs, y=tmp, alpha=-1.0, beta=1.0)
    array_axpy(x=tmp, y=system_rhs, alpha=1.0, beta=1.0)
    bsr_mv(A=projector_matrix, x=tmp, y=system_rhs, alpha=-1.0, beta=1.0)


def project_system_matrix(system_matrix, projector_matrix):
    """``A <- (I - P) A (I - P) + P``."""
    from ..sparse import bsr_assign, bsr_axpy, bsr_copy, bsr_mm
    complement = bsr_copy(system_matrix)
    bsr_mm(x=projector_matrix, y=system_matrix, z=complement, alpha=-1.0, beta=1.0)
    bsr_assign(dest=system_matrix, src=complement)
    bsr_axpy(x=projector_matrix, y=system_matrix)
    bsr_mm(x=complement, y=projector_matrix, z=system_matrix, alpha=-1.0, beta=1.0)


def project_linear_system(system_matrix, system_rhs, projector_matrix, fixed_value=None, normalize_projector=True):
    """Impose ``P x = P v`` on ``A x = b`` (hard Dirichlet conditions), keeping A symmetric."""
    if normalize_projector:
        normalize_dirichlet_projector(projector_matrix, fixed_value)
    project_system_rhs(system_matrix, system_rhs, projector_matrix, fixed_value)
    project_system_matrix(system_matrix, projector_matrix)
