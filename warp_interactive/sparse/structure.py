"""Transposes, block diagonals and identities."""

import numpy as np

import warp_interactive as wp

from .kernels import fill_value, gather_sum, get_diag, transpose_gather
from .matrix import bsr_zeros, matrix_and_scale, row_counts_arg, resize
from .ops import bsr_scale, check_topology
from .topology import active_entries, device_groups, place, set_topology


def bsr_set_transpose(dest, src, topology=None):
    """``dest := src^T`` (``dest``'s blocks: the transposed block shape of ``src``'s)."""
    topology = check_topology(topology)
    src, scale = matrix_and_scale(src)
    if src.scalar_type is not dest.scalar_type:
        raise ValueError(f"All arguments must have the same scalar type, got {wp.types.type_repr(src.scalar_type)} "
                         f"and {wp.types.type_repr(dest.scalar_type)}")
    r, c = src.block_shape
    if dest.block_shape != (c, r):
        raise ValueError(f"Destination block shape must be {(c, r)}, got {dest.block_shape}")
    if topology == "compact":
        dest.nrow, dest.ncol = src.ncol, src.nrow
    elif (dest.nrow, dest.ncol) != (src.ncol, src.nrow):
        raise ValueError("Destination matrix must have the transposed shape of the source")
    rows, cols, blocks = active_entries(src)
    src_values = src.values if dest is not src else wp.clone(src.values)
    if topology == "masked":
        dest.values.zero_()
    slots, nslots = place(dest, cols, rows, topology)
    if nslots:
        starts, ends, order = device_groups(slots, nslots, dest.device, blocks)
        kernel = transpose_gather if wp.types.type_is_matrix(dest.values.dtype) else gather_sum
        wp.launch(kernel, dim=nslots, device=dest.device, inputs=[starts, ends, order, src_values, dest.values])
    if scale != 1.0:
        bsr_scale(dest, scale)


def bsr_transposed(A):
    """A new matrix, the transpose of ``A``."""
    mat, _ = matrix_and_scale(A)
    r, c = mat.block_shape
    block_type = mat.values.dtype if not wp.types.type_is_matrix(mat.values.dtype) else \
        wp.types.matrix(shape=(c, r), dtype=mat.scalar_type)
    out = bsr_zeros(mat.ncol, mat.nrow, block_type, device=mat.device)
    out.values.requires_grad = mat.requires_grad
    bsr_set_transpose(out, A)
    return out


def bsr_get_diag(A, out=None):
    """The diagonal blocks of ``A`` (zero where absent) in ``out`` or a new array."""
    A, scale = matrix_and_scale(A)
    dim = min(A.nrow, A.ncol)
    if out is None:
        out = wp.empty(dim, dtype=A.values.dtype, device=A.device, requires_grad=A.requires_grad)
    else:
        if not wp.types.types_equal(out.dtype, A.values.dtype):
            raise ValueError(f"Output array must have type {wp.types.type_repr(A.values.dtype)}, "
                             f"got {wp.types.type_repr(out.dtype)}")
        if out.device != A.device:
            raise ValueError(f"Output array must reside on device {A.device}, got {out.device}")
        if out.shape[0] < dim:
            raise ValueError(f"Output array must be of length at least {dim}, got {out.shape[0]}")
    if dim:
        wp.launch(get_diag, dim=dim, device=A.device, inputs=[A.nrow, A.offsets, row_counts_arg(A), A.columns, A.values, out])
        if scale != 1.0:
            from .kernels import scale_values
            wp.launch(scale_values, dim=dim, device=A.device, inputs=[A.scalar_type(scale), out])
    return out


def _diag_shape(diag, rows_of_blocks, cols_of_blocks, default):
    if rows_of_blocks is None and cols_of_blocks is None:
        if wp.types.is_array(diag):
            return diag.shape[0], diag.shape[0]
        return default
    if rows_of_blocks is None:
        rows_of_blocks = cols_of_blocks
    if cols_of_blocks is None:
        cols_of_blocks = rows_of_blocks
    return int(rows_of_blocks), int(cols_of_blocks)


def bsr_set_diag(A, diag, rows_of_blocks=None, cols_of_blocks=None):
    """Make ``A`` block diagonal: blocks from the array ``diag``, or all equal to the value
    ``diag`` (None: values left uninitialized). Shape: the given counts (one given: square),
    else the length of ``diag``, else ``A``'s."""
    nrow, ncol = _diag_shape(diag, rows_of_blocks, cols_of_blocks, (A.nrow, A.ncol))
    resize(A, nrow, ncol)
    n = min(nrow, ncol)
    offsets = np.zeros(nrow + 1, dtype=np.int32)
    offsets[1: n + 1] = np.arange(1, n + 1)
    offsets[n + 1:] = n
    set_topology(A, offsets, np.arange(n, dtype=np.int32))
    if n == 0 or diag is None:
        return
    if wp.types.is_array(diag):
        if diag.shape[0] < n:
            raise ValueError(f"Diagonal array must have at least {n} blocks, got {diag.shape[0]}")
        wp.copy(A.values, diag, count=n)
    else:
        wp.launch(fill_value, dim=n, device=A.device, inputs=[_block_value(A.values.dtype, diag), A.values])


def _block_value(dtype, value):
    if wp.types.type_is_matrix(dtype):
        return value if isinstance(value, dtype) else dtype(value)
    return dtype(value)


def bsr_diag(diag=None, rows_of_blocks=None, cols_of_blocks=None, block_type=None, device=None):
    """A new block-diagonal matrix (see ``bsr_set_diag``); ``block_type``/``device`` come
    from ``diag`` when it is an array or a value."""
    if wp.types.is_array(diag):
        block_type, device = diag.dtype, diag.device
    elif diag is not None:
        if block_type is None:
            block_type = type(diag)
            if block_type in (int, float):
                block_type = wp.float32 if block_type is float else wp.int32
        if rows_of_blocks is None and cols_of_blocks is None:
            raise ValueError("rows_of_blocks and/or cols_of_blocks must be provided for constructing a "
                             "diagonal matrix with uniform diagonal")
    elif block_type is None:
        raise ValueError("Either `diag` or `block_type` needs to be provided")
    nrow, ncol = _diag_shape(diag, rows_of_blocks, cols_of_blocks, (0, 0))
    A = bsr_zeros(nrow, ncol, block_type, device=device)
    if wp.types.is_array(diag):
        A.values.requires_grad = diag.requires_grad
    bsr_set_diag(A, diag, nrow, ncol)
    return A


def _identity_block(dtype):
    r, c = getattr(dtype, "_shape_", (1, 1))
    if r != c:
        raise ValueError(f"Identity blocks must be square, got block shape {(r, c)}")
    if wp.types.type_is_matrix(dtype):
        return dtype(*np.eye(r).reshape(-1).tolist())
    return dtype(1)


def bsr_set_identity(A, rows_of_blocks=None):
    """Make ``A`` the identity (resized to ``rows_of_blocks`` square when given)."""
    if rows_of_blocks is None:
        rows_of_blocks = A.nrow
    bsr_set_diag(A, _identity_block(A.values.dtype), rows_of_blocks, rows_of_blocks)


def bsr_identity(rows_of_blocks, block_type, device=None):
    """A new identity matrix of ``rows_of_blocks`` square blocks."""
    A = bsr_zeros(rows_of_blocks, rows_of_blocks, block_type, device=device)
    bsr_set_identity(A)
    return A


