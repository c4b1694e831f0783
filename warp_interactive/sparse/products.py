"""Products: ``bsr_mv`` (``y := alpha A x + beta y``, or with ``A^T``) and ``bsr_mm``
(``z := alpha x y + beta z``). Both are differentiable on a ``wp.Tape`` (values and vectors)."""

import numpy as np

import warp_interactive as wp

from .kernels import mm_gather, mv_row_chunks, mv_rows, mv_transpose_blocks, scale_values
from .matrix import bsr_zeros, matrix_and_scale, row_counts_arg
from .ops import bsr_assign, bsr_axpy, check_topology
from .segments import (marker_product, marker_topology, merge_applies, merge_product, merge_topology,
                       product_segments, set_topology)


_MV_CHUNK = 256      # rows per CPU thread index of bsr_mv
CPU_PRODUCT = "marker"  # bsr_mm's way on the CPU (_plan); the tests run the others there too


def _element_type(scalar, n, scalar_blocks):
    return scalar if scalar_blocks else wp.types.vector(length=n, dtype=scalar)


def _vec_view(arr, dtype, expected, what):
    """``arr`` (1-d or 2-d, contiguous) as a 1-d array of ``dtype`` (gradient viewed alike)."""
    size = getattr(arr.dtype, "_length_", 1)
    count = arr.size * size
    if count != expected:
        raise ValueError(f"Incompatible '{what}' vector for bsr_mv: invalid array scalar size, "
                         f"expected {expected}, got {count}")
    if arr.ndim == 1 and wp.types.types_equal(arr.dtype, dtype):
        return arr
    scalar = getattr(dtype, "_wp_scalar_type_", dtype)
    if getattr(arr.dtype, "_wp_scalar_type_", arr.dtype) is not scalar:
        raise ValueError(f"Incompatible '{what}' vector for bsr_mv: incompatible scalar types, expected "
                         f"{wp.types.type_repr(scalar)}, got {wp.types.type_repr(arr.dtype)}")
    if arr.ndim > 2:
        raise ValueError(f"Incompatible '{what}' vector for bsr_mv: expected 1 or 2 dimensions, got {arr.ndim}")
    if not arr.is_contiguous:
        raise ValueError(f"Incompatible '{what}' vector for bsr_mv: array must be contiguous")
    n = count // getattr(dtype, "_length_", 1)

    def view(a):
        return wp.array(ptr=a.ptr, dtype=dtype, shape=(n,), device=a.device, capacity=a.capacity,
                        grad=None if a.grad is None else view(a.grad))

    v = view(arr)
    v._ref = arr
    return v


def bsr_mv(A, x, y=None, alpha=1.0, beta=0.0, transpose=False, work_buffer=None, tile_size=0):
    """``y := alpha * A x + beta * y`` (``A^T`` when ``transpose``; then the sum order, and so
    the rounding, is not deterministic); ``y`` None: a new vector. ``x`` and ``y`` may alias
    (``work_buffer`` then holds a copy of ``x``). Returns ``y``."""
    A, scale = matrix_and_scale(A)
    alpha = alpha * scale
    rows, cols = A.block_shape
    nrow, ncol = A.nrow, A.ncol
    if transpose:
        rows, cols, nrow, ncol = cols, rows, ncol, nrow
    scalar = A.scalar_type
    scalar_blocks = not wp.types.type_is_matrix(A.values.dtype)
    if y is None:
        y_dtype = scalar if rows == 1 else wp.types.vector(length=rows, dtype=scalar)
        y = wp.empty(nrow, dtype=y_dtype, device=A.device, requires_grad=x.requires_grad)
        beta = 0.0
    if A.device != x.device or A.device != y.device:
        raise ValueError(f"A, x, and y must reside on the same device, got {A.device}, {x.device} and {y.device}")
    if x.ptr == y.ptr and x.ptr is not None and x.size:
        if work_buffer is None:
            work_buffer = wp.empty_like(y)
        elif work_buffer.size < y.size:
            raise ValueError(f"Work buffer size is insufficient, needs to be at least {y.size}, got {work_buffer.size}")
        elif not wp.types.types_equal(work_buffer.dtype, y.dtype):
            raise ValueError(f"Work buffer must have same data type as y, {wp.types.type_repr(y.dtype)} vs "
                             f"{wp.types.type_repr(work_buffer.dtype)}")
        wp.copy(dest=work_buffer, src=y, count=y.size)
        x = work_buffer
    xv = _vec_view(x, _element_type(scalar, cols, scalar_blocks), ncol * cols, "x")
    yv = _vec_view(y, _element_type(scalar, rows, scalar_blocks), nrow * rows, "y")
    alpha, beta = scalar(alpha), scalar(beta)
    if transpose:
        _mv_transpose(A, xv, yv, alpha, beta)
    elif nrow and A.device.is_cpu and not (A.values.requires_grad or x.requires_grad or y.requires_grad):
        chunks = -(-nrow // _MV_CHUNK)
        wp.launch(mv_row_chunks, dim=chunks, device=A.device,
                  inputs=[alpha, A.offsets, row_counts_arg(A), A.columns, A.values, xv, beta, yv, nrow, _MV_CHUNK],
                  record_tape=False)
    elif nrow:   # one thread per row: CUDA, and the differentiable launch a tape records
        wp.launch(mv_rows, dim=nrow, device=A.device,
                  inputs=[alpha, A.offsets, row_counts_arg(A), A.columns, A.values, xv, beta, yv])
    return y


def _mv_transpose(A, xv, yv, alpha, beta):
    if beta.value == 0.0:
        yv.zero_()
    elif beta.value != 1.0:
        wp.launch(scale_values, dim=yv.shape[0], device=A.device, inputs=[beta, yv])
    if alpha.value != 0.0 and A.nnz:
        wp.launch(mv_transpose_blocks, dim=A.nnz, device=A.device,
                  inputs=[alpha, A.nrow, A.offsets, row_counts_arg(A), A.columns, A.values, xv, yv])


class bsr_mm_work_arrays:
    """Temporary storage of ``bsr_mm``; with ``reuse_topology=True`` it also keeps the product
    topology of the previous call."""

    def __init__(self):
        self._plan = None

    def _reset(self, device=None):
        self._plan = None


def bsr_mm(x, y, z=None, alpha=1.0, beta=0.0, work_arrays=None, reuse_topology=False, tile_size=0,
           max_new_nnz=None, topology=None):
    """``z := alpha * x @ y + beta * z`` (``z`` None: a new matrix, taken as zero); the three may
    alias. ``reuse_topology``: keep the product topology ``work_arrays`` holds from a previous
    call with the same structures. Returns ``z``."""
    topology = check_topology(topology)
    x, xs = matrix_and_scale(x)
    y, ys = matrix_and_scale(y)
    alpha = alpha * xs * ys
    if x.scalar_type is not y.scalar_type:
        raise ValueError(f"x and y must have the same scalar type, got {wp.types.type_repr(x.scalar_type)} "
                         f"and {wp.types.type_repr(y.scalar_type)}")
    if x.block_shape[1] != y.block_shape[0]:
        raise ValueError(f"Incompatible block sizes for matrix multiplication, got {x.block_shape} and {y.block_shape}")
    if x.ncol != y.nrow:
        raise ValueError(f"Incompatible number of rows/columns for matrix multiplication, got {x.ncol} and {y.nrow}")
    if x.device != y.device:
        raise ValueError(f"x and y must reside on the same device, got {x.device} and {y.device}")
    block_shape = (x.block_shape[0], y.block_shape[1])
    if z is None:
        block_type = x.scalar_type if block_shape == (1, 1) and not wp.types.type_is_matrix(x.values.dtype) \
            else wp.types.matrix(shape=block_shape, dtype=x.scalar_type)
        z = bsr_zeros(x.nrow, y.ncol, block_type, device=x.device)
        z.values.requires_grad = x.requires_grad or y.requires_grad
        beta = 0.0
    if z.block_shape != block_shape:
        raise ValueError(f"Incompatible result block shape, expected {block_shape}, got {z.block_shape}")
    if (z.nrow, z.ncol) != (x.nrow, y.ncol):
        raise ValueError(f"Incompatible result shape, expected ({x.nrow}, {y.ncol}), got ({z.nrow}, {z.ncol})")
    product = _product(x, y, z, alpha, work_arrays, reuse_topology, max_new_nnz)
    if beta == 0.0 and topology == "compact" and z is not x and z is not y:
        _adopt(z, product)
    elif beta == 0.0 and topology == "compact":
        bsr_assign(z, product)
    else:
        bsr_axpy(product, z, alpha=1.0, beta=beta, topology=topology)
    return z


def _adopt(z, product):
    """z takes the product's storage (a new matrix: nothing else holds it)."""
    z.offsets, z.columns, z.values = product.offsets, product.columns, product.values
    z.row_counts = None
    z.nnz = product.nnz


def _warn_truncated(nblocks, max_new_nnz):
    print(f"Warning: bsr_mm: the product has {nblocks} blocks, max_new_nnz ({max_new_nnz}) exceeded; "
          "the blocks past it are dropped")


def _clamped(offsets, nblocks, device):
    return wp.array(np.minimum(offsets.numpy(), nblocks), dtype=int, device=device)


def _plan(x, y, max_new_nnz, differentiable):
    """The product's compact topology. CPU: Gustavson's product with a marker per thread
    ("marker", offsets, nblocks, state); CUDA with sorted rows of y (segments.merge_applies):
    ("merge", ...), the merge of y's rows; otherwise, and for the differentiable launch a tape
    records: ("pairs", offsets, columns, first, last, order, pair_x, pair_y, nblocks), every
    product listed and sorted."""
    xc, yc = row_counts_arg(x), row_counts_arg(y)
    way = None
    if not differentiable:
        way = CPU_PRODUCT if x.device.is_cpu else "merge"
        if way == "merge" and not merge_applies(x, y, xc, yc):
            way = None
        elif way == "pairs":
            way = None
    if way is not None:
        offsets, nblocks, state = (marker_topology if way == "marker" else merge_topology)(x, y, xc, yc)
        if max_new_nnz is not None and nblocks > max_new_nnz:
            _warn_truncated(nblocks, max_new_nnz)
            nblocks = int(max_new_nnz)
            offsets = _clamped(offsets, nblocks, x.device)
        return (way, offsets, nblocks, state)
    offsets, columns, first, last, order, nblocks, pair_x, pair_y = product_segments(x, y, xc, yc)
    if max_new_nnz is not None and nblocks > max_new_nnz:
        _warn_truncated(nblocks, max_new_nnz)
        nblocks = int(max_new_nnz)
        offsets = _clamped(offsets, nblocks, x.device)
    return ("pairs", offsets, columns, first, last, order, pair_x, pair_y, nblocks)


def _product(x, y, z, alpha, work_arrays, reuse_topology, max_new_nnz):
    """alpha * x @ y as a new compact matrix."""
    differentiable = x.values.requires_grad or y.values.requires_grad or z.values.requires_grad
    plan = work_arrays._plan if (reuse_topology and work_arrays is not None) else None
    if plan is None or (plan[0] != "pairs" and differentiable):
        plan = _plan(x, y, max_new_nnz, differentiable)
        if work_arrays is not None:
            work_arrays._plan = plan
    P = bsr_zeros(x.nrow, y.ncol, z.values.dtype, device=z.device)
    P.values.requires_grad = z.requires_grad
    if plan[0] != "pairs":
        way, offsets, nblocks, state = plan
        set_topology(P, offsets, None, nblocks)
        (marker_product if way == "marker" else merge_product)(
            x, y, row_counts_arg(x), row_counts_arg(y), x.scalar_type(alpha), (offsets, nblocks, state), P)
        return P
    _, offsets, columns, first, last, order, pair_x, pair_y, nblocks = plan
    set_topology(P, offsets, columns, nblocks)
    if nblocks:
        wp.launch(mm_gather, dim=nblocks, device=z.device,
                  inputs=[first, last, order, pair_x, pair_y, x.scalar_type(alpha), x.values, y.values, P.values])
    return P
