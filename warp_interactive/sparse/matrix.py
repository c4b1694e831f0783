"""``BsrMatrix``: block sparse row matrices as a kernel struct (``bsr_matrix_t``), their
allocation (``bsr_zeros``, ``bsr_set_zero``) and the lazily scaled expression ``s * A``.

Storage, as warp-lang's: ``offsets`` (nrow + 1), ``columns`` and ``values`` (at least nnz),
optional ``row_counts`` (padded matrices: row ``r`` holds the active blocks
``offsets[r]:offsets[r] + row_counts[r]``; compact ones: None). ``nnz`` is a host-side upper
bound of the stored block slots; ``nnz_sync()`` reads ``offsets[nrow]``.
The arithmetic operators are attached by ``operators.py`` (they call the operations, which
import this module)."""

import warp_interactive as wp

from ..hooks import html_view

from .funcs import bsr_row_index

BSR_STATUS_SUCCESS = 0
BSR_STATUS_ROW_CAPACITY_EXCEEDED = 1

_TOPOLOGIES = ("compact", "padded")


def scalar_type(dtype):
    """The scalar type of a block type (itself for a scalar)."""
    return getattr(dtype, "_wp_scalar_type_", dtype)


def block_shape_of(dtype):
    return tuple(getattr(dtype, "_shape_", (1, 1)))


_no_row_counts = {}


def row_counts_arg(A):
    """``A.row_counts`` for a kernel argument: an empty array for a compact matrix (the
    functions read ``row_counts.shape[0] > 0`` as "padded")."""
    if A.row_counts is not None:
        return A.row_counts
    empty = _no_row_counts.get(A.device)
    if empty is None:
        empty = _no_row_counts[A.device] = wp.empty(0, dtype=int, device=A.device)
    return empty


def status_message(status):
    if status == BSR_STATUS_SUCCESS:
        return "success"
    if status == BSR_STATUS_ROW_CAPACITY_EXCEEDED:
        return "row capacity exceeded"
    return f"unknown status {status}"


class BsrMatrix:
    """Base class of BSR (and CSR: scalar blocks) matrices; build them with ``bsr_zeros``,
    ``bsr_from_triplets``... Instances are ``bsr_matrix_t(block_type)`` structs, which kernels
    take as arguments."""

    @property
    def scalar_type(self):
        """Scalar type of the block coefficients."""
        return scalar_type(self.values.dtype)

    @property
    def block_shape(self):
        """Shape of the individual blocks."""
        return block_shape_of(self.values.dtype)

    @property
    def block_size(self):
        """Number of coefficients of a block."""
        r, c = self.block_shape
        return r * c

    @property
    def shape(self):
        """(rows, columns) of the matrix in scalars."""
        r, c = self.block_shape
        return (self.nrow * r, self.ncol * c)

    @property
    def dtype(self):
        """Data type of the blocks."""
        return self.values.dtype

    @property
    def device(self):
        return self.offsets.device

    @property
    def requires_grad(self):
        return self.values.requires_grad

    @property
    def scalar_values(self):
        """The ``values`` array viewed as a (nnz, block rows, block cols) scalar array."""
        return as_3d_array(self.values, self.block_shape)

    def uncompress_rows(self, out=None):
        """The row of each stored block slot (-1 outside the active row ranges)."""
        if out is None:
            out = wp.empty(self.nnz, dtype=int, device=self.device)
        if self.nnz:
            wp.launch(uncompress_rows_kernel, dim=self.nnz, device=self.device,
                      inputs=[self.nrow, self.offsets, row_counts_arg(self), out], record_tape=False)
        return out

    def nnz_sync(self):
        """Read ``offsets[nrow]`` into the host-side ``nnz`` and return it."""
        if getattr(self.device, "is_capturing", False) and not self.device.is_cpu:
            raise RuntimeError("BsrMatrix.nnz_sync() cannot read the block count during a live CUDA graph "
                               "capture because it requires a device-to-host readback")
        self.nnz = int(self.offsets[self.nrow: self.nrow + 1].numpy()[0])
        return self.nnz

    def copy_nnz_async(self):
        """Deprecated in warp-lang: ``nnz_sync()`` reads the count when it is needed."""
        import warnings
        warnings.warn("The `copy_nnz_async` method is deprecated and will be removed in a future version; "
                      "call `nnz_sync` to synchronously update the host-side block count.",
                      DeprecationWarning, stacklevel=2)

    def status_sync(self):
        """The sticky status code of padded operations (``BSR_STATUS_*``)."""
        status = getattr(self, "_status", None)
        if status is None:
            return BSR_STATUS_SUCCESS
        if getattr(self.device, "is_capturing", False) and not self.device.is_cpu:
            raise RuntimeError("BsrMatrix.status_sync() cannot read sparse status during a live CUDA graph "
                               "capture because it requires a device-to-host readback")
        return int(status.numpy()[0])

    def status_message(self):
        return status_message(self.status_sync())

    def clear_status(self):
        status = getattr(self, "_status", None)
        if status is not None:
            status.zero_()

    def ensure_status(self):
        status = getattr(self, "_status", None)
        if status is None or status.device != self.device:
            status = wp.zeros(1, dtype=int, device=self.device)
            object.__setattr__(self, "_status", status)
        return status

    def notify_nnz_changed(self, nnz=None, nnz_capacity=None):
        """Say that ``offsets`` or ``nnz`` changed outside ``warp.sparse``: reads the count from
        ``offsets[nrow]`` unless given, and grows ``columns``/``values`` to fit."""
        if nnz is None:
            if nnz_capacity is None:
                self.nnz_sync()
            else:
                self.nnz = nnz_capacity
        ensure_fits(self, nnz=nnz, capacity=nnz_capacity)

    def __repr__(self):
        return (f"BsrMatrix(shape={self.shape}, block_shape={self.block_shape}, nnz={self.nnz}, "
                f"dtype={wp.types.type_repr(self.dtype)}, device={self.device})")

    def _repr_html_(self):
        """The notebook's view (registered by the notebook layer): sizes and a sparsity picture."""
        return html_view("bsr_matrix", self)


@wp.kernel(enable_backward=False)    # integers only: no adjoint, not taped
def uncompress_rows_kernel(nrow: int, offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int),
                           out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = bsr_row_index(offsets, nrow, i, row_counts)


_typed = {}


def bsr_matrix_t(dtype):
    """The struct type of BSR matrices with blocks of ``dtype`` (a Warp matrix or scalar type),
    for kernel arguments: fields ``nrow, ncol, nnz, offsets, row_counts, columns, values``."""
    dtype = {float: wp.float32, int: wp.int32, bool: wp.bool}.get(dtype, dtype)
    if not (wp.types.type_is_matrix(dtype) or dtype in wp.types.scalar_types):
        raise ValueError(f"BsrMatrix block type must be either warp matrix or scalar; got {wp.types.type_repr(dtype)}")
    t = _typed.get(dtype)
    if t is None:
        t = _typed[dtype] = _make_struct(dtype)
    return t


def _make_struct(dtype):
    scalar = scalar_type(dtype)
    r, c = block_shape_of(dtype)
    name = scalar.__name__ if not wp.types.type_is_matrix(dtype) else f"{scalar.__name__}_{r}_{c}"

    class BsrMatrixTyped:
        nrow: int
        ncol: int
        nnz: int
        offsets: wp.array(dtype=int)
        row_counts: wp.array(dtype=int)
        columns: wp.array(dtype=int)
        values: wp.array(dtype=dtype)

    BsrMatrixTyped.__name__ = BsrMatrixTyped.__qualname__ = f"BsrMatrix_{name}"
    st = wp.struct(BsrMatrixTyped)
    # the struct's instance class with the matrix methods; kernels accept its instances
    return type(st.__name__, (st, BsrMatrix), {"__module__": __name__, "__doc__": BsrMatrix.__doc__})


def as_3d_array(arr, block_shape):
    """A (n, rows, cols) scalar view of a 1-d array of blocks (gradient viewed alike)."""
    view = wp.array(ptr=arr.ptr, capacity=arr.capacity, device=arr.device, dtype=scalar_type(arr.dtype),
                    shape=(arr.shape[0], *block_shape),
                    grad=None if arr.grad is None else as_3d_array(arr.grad, block_shape))
    view._ref = arr
    return view


def as_block_array(arr, block_type):
    """``arr`` as a 1-d array of ``block_type``: itself, or a view of a contiguous (n, r, c)
    scalar array."""
    shape = block_shape_of(block_type)
    if arr.ndim == 1:
        if not wp.types.types_equal(arr.dtype, block_type):
            raise ValueError("Values array type must correspond to that of the destination matrix, got "
                             f"{wp.types.type_repr(arr.dtype)} and {wp.types.type_repr(block_type)}")
        return arr
    if arr.ndim != 3:
        raise ValueError(f"Number of dimensions for values array should be 1 or 3, got {arr.ndim}")
    if tuple(arr.shape[1:]) != shape:
        raise ValueError(f"Last two dimensions in values array ({tuple(arr.shape[1:])}) should match block shape {shape}")
    if scalar_type(arr.dtype) is not scalar_type(block_type):
        raise ValueError(f"Scalar type of values array ({wp.types.type_repr(arr.dtype)}) should match destination "
                         f"matrix scalar type ({wp.types.type_repr(scalar_type(block_type))})")
    if not arr.is_contiguous:
        raise ValueError("Values array should be contiguous")
    view = wp.array(ptr=arr.ptr, capacity=arr.capacity, device=arr.device, dtype=block_type, shape=(arr.shape[0],),
                    grad=None if arr.grad is None else as_block_array(arr.grad, block_type))
    view._ref = arr
    return view


def ensure_fits(bsr, nnz=None, capacity=None):
    """Set the nnz bound (when given) and grow ``columns``/``values`` to hold ``capacity``
    (default nnz) blocks."""
    if nnz is None:
        nnz = bsr.nnz
    else:
        bsr.nnz = int(nnz)
    if capacity is None:
        capacity = nnz
    elif capacity < nnz:
        raise ValueError(f"capacity must be at least nnz, got {capacity} and {nnz}")
    if bsr.columns is None or bsr.columns.size < capacity:
        bsr.columns = wp.empty(capacity, dtype=int, device=bsr.offsets.device)
    if bsr.values is None or bsr.values.size < capacity:
        grad = bsr.values is not None and bsr.values.requires_grad
        bsr.values = wp.empty(capacity, dtype=bsr.values.dtype, device=bsr.offsets.device, requires_grad=grad)


def _check_row_capacity(bsr, row_capacity):
    if wp.types.is_array(row_capacity):
        if row_capacity.ndim != 1 or row_capacity.shape[0] != bsr.nrow:
            raise ValueError(f"row_capacity array must have shape ({bsr.nrow},), got {row_capacity.shape}")
        if row_capacity.dtype is not wp.int32:
            raise TypeError("row_capacity array must have dtype int32")
        if row_capacity.device != bsr.device:
            raise ValueError("row_capacity array must reside on the destination matrix device, got "
                             f"{row_capacity.device} and {bsr.device}")
        return row_capacity
    row_capacity = int(row_capacity)
    if row_capacity < 0:
        raise ValueError("row_capacity must be nonnegative")
    return row_capacity


def set_zero_topology(bsr, topology, row_capacity, nnz_capacity, preserve_row_capacity=False):
    """Empty rows: compact (no storage) or padded (each row keeps or gets a capacity)."""
    import numpy as np
    if nnz_capacity is not None:
        nnz_capacity = int(nnz_capacity)
        if nnz_capacity < 0:
            raise ValueError("nnz_capacity must be nonnegative")
    if row_capacity is not None:
        if topology != "padded":
            raise ValueError("row_capacity requires topology='padded'")
        row_capacity = _check_row_capacity(bsr, row_capacity)
    nnz = 0
    if topology == "padded":
        if row_capacity is not None:
            per_row = wp.types.is_array(row_capacity)
            caps = (row_capacity.numpy().astype(np.int64) if per_row
                    else np.full(bsr.nrow, row_capacity, dtype=np.int64))
            offsets = np.zeros(bsr.nrow + 1, dtype=np.int32)
            np.cumsum(caps, out=offsets[1:])
            bsr.offsets[: bsr.nrow + 1].assign(offsets)
            # per-row capacities with an nnz_capacity: that bound is the slot count, as warp-lang's
            nnz = nnz_capacity if per_row and nnz_capacity is not None else int(offsets[-1])
        elif preserve_row_capacity:
            nnz = bsr.nnz
        else:
            bsr.offsets.zero_()
        if bsr.row_counts is None or bsr.row_counts.size < bsr.nrow:
            bsr.row_counts = wp.zeros(bsr.nrow, dtype=int, device=bsr.device)
        else:
            bsr.row_counts.zero_()
        bsr.ensure_status()
    else:
        bsr.offsets.zero_()
        bsr.row_counts = None
    ensure_fits(bsr, nnz=nnz, capacity=nnz_capacity)


def bsr_zeros(rows_of_blocks, cols_of_blocks, block_type, device=None, *, topology=None, row_capacity=None,
              nnz_capacity=None):
    """An empty ``rows_of_blocks`` x ``cols_of_blocks`` matrix of ``block_type`` blocks
    (a scalar type: CSR). ``row_capacity`` (int or per-row int array) makes it padded."""
    if topology is None:
        topology = "padded" if row_capacity is not None else "compact"
    elif topology not in _TOPOLOGIES:
        raise ValueError(f"Unsupported topology policy: {topology}")
    block_type = {float: wp.float32, int: wp.int32}.get(block_type, block_type)
    bsr = bsr_matrix_t(block_type)()
    bsr.nrow = int(rows_of_blocks)
    bsr.ncol = int(cols_of_blocks)
    bsr.nnz = 0
    bsr.offsets = wp.empty(bsr.nrow + 1, dtype=int, device=device)
    bsr.columns = wp.empty(0, dtype=int, device=device)
    bsr.values = wp.empty(0, dtype=block_type, device=device)
    set_zero_topology(bsr, topology, row_capacity, nnz_capacity)
    return bsr


def resize(bsr, rows_of_blocks=None, cols_of_blocks=None, preserve_offsets=False):
    old_nrow, old_offsets = bsr.nrow, bsr.offsets
    if rows_of_blocks is not None:
        bsr.nrow = int(rows_of_blocks)
    if cols_of_blocks is not None:
        bsr.ncol = int(cols_of_blocks)
    if bsr.offsets.size < bsr.nrow + 1:
        bsr.offsets = wp.empty(bsr.nrow + 1, dtype=int, device=old_offsets.device)
    if preserve_offsets and bsr.nrow > old_nrow:
        host = old_offsets.numpy()[: old_nrow + 1].copy()
        new = list(host) + [host[-1]] * (bsr.nrow - old_nrow)
        bsr.offsets[: bsr.nrow + 1].assign(wp.array(new, dtype=int, device=bsr.device))
        if bsr.row_counts is not None and bsr.row_counts.size < bsr.nrow:
            counts = wp.zeros(bsr.nrow, dtype=int, device=bsr.device)
            wp.copy(counts, bsr.row_counts, count=old_nrow)
            bsr.row_counts = counts


def bsr_set_zero(bsr, rows_of_blocks=None, cols_of_blocks=None, *, topology="compact", row_capacity=None,
                 nnz_capacity=None):
    """Set ``bsr`` to zero, possibly resizing it: ``topology`` "compact" drops all blocks,
    "padded" keeps (or sets) each row's capacity with no active block, "masked" keeps the
    blocks and zeroes their values."""
    if topology not in ("compact", "padded", "masked"):
        raise ValueError(f"Unsupported topology policy: {topology}")
    if row_capacity is not None and topology != "padded":
        raise ValueError("row_capacity requires topology='padded'")
    if topology == "masked":
        if rows_of_blocks is not None or cols_of_blocks is not None:
            raise ValueError("Cannot resize a matrix with topology='masked'")
        bsr.values.zero_()
        return
    preserve = topology == "padded" and row_capacity is None and bsr.row_counts is not None
    resize(bsr, rows_of_blocks, cols_of_blocks, preserve_offsets=preserve)
    set_zero_topology(bsr, topology, row_capacity, nnz_capacity, preserve_row_capacity=preserve)


class BsrScaled:
    """``scale * A`` kept unevaluated until an operation consumes it (``eval()`` makes a
    scaled copy)."""

    def __init__(self, mat, scale):
        self.mat = mat
        self.scale = scale

    def __getattr__(self, name):
        if name in ("nrow", "ncol", "nnz", "offsets", "row_counts", "columns", "scalar_type", "block_shape",
                    "block_size", "shape", "dtype", "requires_grad", "device"):
            return getattr(self.mat, name)
        raise AttributeError(name)


def matrix_and_scale(A):
    """(matrix, scale) of a matrix or a scaled expression."""
    if isinstance(A, BsrScaled):
        return A.mat, A.scale
    if not isinstance(A, BsrMatrix):
        raise ValueError(f"Expected a BsrMatrix, got {type(A).__name__}")
    return A, 1.0
