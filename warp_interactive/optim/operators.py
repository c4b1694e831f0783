"""``LinearOperator`` (what the Krylov solvers multiply by), ``aslinearoperator`` for BSR
matrices, dense 2-d arrays and diagonals (1-d arrays), and ``preconditioner``."""

from typing import Any

import warp_interactive as wp
import warp_interactive.sparse as sparse


class LinearOperator:
    """The left-hand side of a linear solve: ``matvec(x, y, z, alpha, beta)`` stores
    ``alpha * (A @ x) + beta * y`` in ``z``. ``batch_offsets`` (B + 1 offsets in scalar degrees
    of freedom) splits the system into B independent ones, solved together."""

    def __init__(self, shape, dtype, device, matvec, batch_offsets=None, max_batch_length=None):
        if max_batch_length is not None:
            if batch_offsets is None:
                raise ValueError("max_batch_length requires batch_offsets")
            if max_batch_length < 0:
                raise ValueError("max_batch_length must be non-negative")
        self._shape = shape
        self._dtype = dtype
        self._device = device
        self._matvec = matvec
        self._batch_offsets = batch_offsets
        self._max_batch_length = max_batch_length

    shape = property(lambda self: self._shape, doc="(rows, columns) of the operator")
    dtype = property(lambda self: self._dtype, doc="type of the operator's elements")
    device = property(lambda self: self._device)
    matvec = property(lambda self: self._matvec, doc="matvec(x, y, z, alpha, beta): z = alpha A x + beta y")
    batch_offsets = property(lambda self: self._batch_offsets)
    max_batch_length = property(lambda self: self._max_batch_length)

    @property
    def scalar_type(self):
        return getattr(self._dtype, "_wp_scalar_type_", self._dtype)

    @property
    def batch_count(self):
        return 1 if self._batch_offsets is None else self._batch_offsets.shape[0] - 1


@wp.kernel
def _dense_mv(A: wp.array2d(dtype=Any), x: wp.array(dtype=Any), y: wp.array(dtype=Any), z: wp.array(dtype=Any),
              alpha: Any, beta: Any):
    row = wp.tid()
    s = z.dtype(0.0)
    if alpha != type(alpha)(0.0):
        for col in range(A.shape[1]):
            s += A[row, col] * x[col]
        s = alpha * s
    if beta != type(beta)(0.0):
        s += beta * y[row]
    z[row] = s


@wp.kernel
def _diag_mv(A: wp.array(dtype=Any), x: wp.array(dtype=Any), y: wp.array(dtype=Any), z: wp.array(dtype=Any),
             alpha: Any, beta: Any):
    i = wp.tid()
    s = z.dtype(0.0)
    if alpha != type(alpha)(0.0):
        s += alpha * (A[i] * x[i])
    if beta != type(beta)(0.0):
        s += beta * y[i]
    z[i] = s


def as_scalar_array(a):
    """A flat scalar view of a contiguous 1-d array of vectors (itself for scalars)."""
    if not wp.types.type_is_vector(a.dtype) or a.ndim != 1:
        return a
    length = a.dtype._length_
    scalar = a.dtype._wp_scalar_type_
    view = wp.array(ptr=a.ptr, dtype=scalar, shape=(a.shape[0] * length,), device=a.device,
                    capacity=a.capacity)
    view._ref = a
    return view


def aslinearoperator(A, batch_offsets=None, max_batch_length=None):
    """``A`` as a ``LinearOperator``: a ``BsrMatrix``, a 2-d array (dense), a 1-d array (a
    diagonal) or a ``LinearOperator`` (returned as is)."""
    if A is None or isinstance(A, LinearOperator):
        return A

    def bsr_mv(x, y, z, alpha, beta):
        if z.ptr != y.ptr and beta != 0.0:
            wp.copy(src=y, dest=z)
        sparse.bsr_mv(A, x, z, alpha, beta)

    def dense_mv(x, y, z, alpha, beta):
        wp.launch(_dense_mv, dim=A.shape[0], device=A.device, inputs=[A, x, y, z, A.dtype(alpha), A.dtype(beta)])

    def diag_mv(x, y, z, alpha, beta):
        D, xs, ys, zs = (as_scalar_array(v) for v in (A, x, y, z))
        s = D.dtype
        wp.launch(_diag_mv, dim=D.shape[0], device=A.device, inputs=[D, xs, ys, zs, s(alpha), s(beta)])

    if isinstance(A, wp.array) and A.ndim in (1, 2):
        return LinearOperator(A.shape, A.dtype, A.device, matvec=dense_mv if A.ndim == 2 else diag_mv,
                              batch_offsets=batch_offsets, max_batch_length=max_batch_length)
    if isinstance(A, sparse.BsrMatrix):
        return LinearOperator(A.shape, A.dtype, A.device, matvec=bsr_mv, batch_offsets=batch_offsets,
                              max_batch_length=max_batch_length)
    raise ValueError(f"Unable to create LinearOperator from {A}")
