"""Whole-matrix operations: ``bsr_assign``/``bsr_copy`` (with scalar casts and re-blocking),
``bsr_scale``, ``bsr_axpy`` and ``bsr_compress``."""

import numpy as np

import warp_interactive as wp

from .kernels import axpy_gather, gather_sum, reblock_add, scale_values
from .matrix import BsrScaled, bsr_zeros, matrix_and_scale
from .topology import active_entries, device_groups, place, to_device

_TOPOLOGIES = ("compact", "masked", "padded")


def check_topology(topology, allowed=_TOPOLOGIES):
    topology = "compact" if topology is None else topology
    if topology not in allowed:
        raise ValueError(f"Unsupported topology policy: {topology}")
    return topology


def _split(n_src, n_dst, what):
    if n_src % n_dst and n_dst % n_src:
        raise ValueError(f"Incompatible dest and src block shapes: {what} {n_dst} and {n_src} "
                         "must be multiples or dividers of one another")
    return min(n_src, n_dst)


def _tiles(rows, cols, blocks, src_shape, dst_shape):
    """Split the source blocks into tiles that each lie in one destination block: per tile the
    destination block (row, col), the offsets inside it and inside the source block."""
    h = _split(src_shape[0], dst_shape[0], "block rows")
    w = _split(src_shape[1], dst_shape[1], "block columns")
    ti, tj = np.meshgrid(np.arange(src_shape[0] // h), np.arange(src_shape[1] // w), indexing="ij")
    ti, tj = ti.reshape(-1), tj.reshape(-1)
    srow = (rows[:, None] * src_shape[0] + ti[None, :] * h).reshape(-1)
    scol = (cols[:, None] * src_shape[1] + tj[None, :] * w).reshape(-1)
    tile = {
        "block": np.repeat(blocks, ti.size),
        "src_r0": np.tile(ti * h, rows.size), "src_c0": np.tile(tj * w, rows.size),
        "dst_r0": srow % dst_shape[0], "dst_c0": scol % dst_shape[1],
    }
    return srow // dst_shape[0], scol // dst_shape[1], tile, (h, w)


def bsr_assign(dest, src, structure_only=False, topology=None):
    """Copy ``src`` (a matrix or scaled expression) into ``dest``, casting scalars and
    re-blocking when ``dest``'s block shape divides or is a multiple of ``src``'s.
    ``structure_only``: topology alone (values left uninitialized). ``topology``: "compact",
    "masked" (keep ``dest``'s blocks), "padded" (into ``dest``'s row capacity)."""
    topology = check_topology(topology)
    src, scale = matrix_and_scale(src)
    if src.device != dest.device:
        raise ValueError(f"Source and destination must reside on the same device, got {src.device} and {dest.device}")
    src_shape, dst_shape = src.block_shape, dest.block_shape
    if src.nrow * src_shape[0] != dest.nrow * dst_shape[0] and topology != "compact":
        raise ValueError("Source and destination matrices must have the same shape")
    if topology == "compact":
        dest.nrow = src.nrow * src_shape[0] // dst_shape[0]
        dest.ncol = src.ncol * src_shape[1] // dst_shape[1]
        if dest.nrow * dst_shape[0] != src.nrow * src_shape[0] or dest.ncol * dst_shape[1] != src.ncol * src_shape[1]:
            raise ValueError(f"The requested block shape {dst_shape} does not evenly divide the source matrix of "
                             f"total size {src.shape}")
    rows, cols, blocks = active_entries(src)
    drow, dcol, tile, (h, w) = _tiles(rows, cols, blocks, src_shape, dst_shape)
    src_values = src.scalar_values       # read before dest's storage may be replaced (aliasing)
    if dest is src and src_shape == dst_shape:
        src_values = wp.clone(src.scalar_values)
    slots, nslots = place(dest, drow, dcol, topology)
    if structure_only:
        return dest
    dest.values.zero_()
    kept = slots >= 0
    if kept.any():
        args = [to_device(slots[kept], dest.device)] + [to_device(tile[k][kept], dest.device)
                                                        for k in ("block", "src_r0", "src_c0", "dst_r0", "dst_c0")]
        wp.launch(reblock_add, dim=(int(kept.sum()), h, w), device=dest.device,
                  inputs=args + [src_values, dest.scalar_values])
    if scale != 1.0:
        bsr_scale(dest, scale)
    return dest


def bsr_copy(A, scalar_type=None, block_shape=None, structure_only=False, topology="compact"):
    """A new matrix with ``A``'s blocks, optionally of another scalar type or block shape."""
    topology = check_topology(topology, ("compact", "padded"))
    mat, _ = matrix_and_scale(A)
    scalar = mat.scalar_type if scalar_type is None else scalar_type
    shape = mat.block_shape if block_shape is None else tuple(block_shape)
    if shape == (1, 1) and not wp.types.type_is_matrix(mat.values.dtype):
        block_type = scalar
    elif shape == (1, 1) and block_shape is None:
        block_type = wp.types.matrix(shape=shape, dtype=scalar)
    else:
        block_type = scalar if shape == (1, 1) else wp.types.matrix(shape=shape, dtype=scalar)
    _split(mat.block_shape[0], shape[0], "block rows")
    _split(mat.block_shape[1], shape[1], "block columns")
    nrow = mat.nrow * mat.block_shape[0] // shape[0]
    ncol = mat.ncol * mat.block_shape[1] // shape[1]
    if nrow * shape[0] != mat.shape[0] or ncol * shape[1] != mat.shape[1]:
        raise ValueError(f"The requested block shape {shape} does not evenly divide the source matrix of total size "
                         f"{mat.shape}")
    if topology == "padded" and mat.row_counts is not None and shape == mat.block_shape:
        caps = wp.array(np.diff(mat.offsets.numpy()[: mat.nrow + 1]).astype(np.int32), dtype=int, device=mat.device)
        copy = bsr_zeros(nrow, ncol, block_type, device=mat.device, row_capacity=caps)
    else:
        copy = bsr_zeros(nrow, ncol, block_type, device=mat.device)
        topology = "compact"
    if (topology == "compact" and shape == mat.block_shape and scalar is mat.scalar_type and mat.row_counts is None
            and not structure_only and isinstance(A, type(mat))):
        return _clone_compact(copy, mat)
    copy.values.requires_grad = mat.requires_grad
    bsr_assign(copy, A, structure_only=structure_only, topology=topology)
    return copy


def _clone_compact(copy, mat):
    """A same-type copy of a compact matrix: its three arrays cloned (sorted rows assumed, as
    every compact matrix of this package has)."""
    nnz = int(mat.offsets[mat.nrow: mat.nrow + 1].numpy()[0])     # the active blocks, not the bound
    copy.offsets = wp.clone(mat.offsets[: mat.nrow + 1])
    copy.columns = wp.clone(mat.columns[:nnz]) if nnz else copy.columns
    grad = mat.requires_grad
    copy.values = wp.clone(mat.values[:nnz], requires_grad=grad) if nnz else copy.values
    copy.nnz = nnz
    return copy


def bsr_scale(x, alpha):
    """``x := alpha * x`` in place; returns ``x``."""
    x, scale = matrix_and_scale(x)
    alpha = alpha * scale
    if alpha != 1.0 and x.nnz > 0:
        if alpha == 0.0:
            x.values.zero_()
        else:
            wp.launch(scale_values, dim=x.nnz, device=x.device, inputs=[x.scalar_type(alpha), x.values])
    return x


class bsr_axpy_work_arrays:
    """Temporary storage of ``bsr_axpy``, reusable across calls."""

    def __init__(self):
        self._sum = None

    def _values(self, device, dtype, n):
        if self._sum is None or self._sum.size < n or self._sum.dtype is not dtype or self._sum.device != device:
            self._sum = wp.empty(max(n, 1), dtype=dtype, device=device)
        return self._sum


def _check_compatible(x, y):
    if x.block_shape != y.block_shape:
        raise ValueError(f"Matrices must have the same block shape, got {x.block_shape} and {y.block_shape}")
    if (x.nrow, x.ncol) != (y.nrow, y.ncol):
        raise ValueError(f"Matrices must have the same number of rows and columns, got ({x.nrow}, {x.ncol}) "
                         f"and ({y.nrow}, {y.ncol})")
    if x.scalar_type is not y.scalar_type:
        raise ValueError(f"Matrices must have the same scalar type, got {wp.types.type_repr(x.scalar_type)} and "
                         f"{wp.types.type_repr(y.scalar_type)}")
    if x.device != y.device:
        raise ValueError(f"Matrices must reside on the same device, got {x.device} and {y.device}")


def bsr_axpy(x, y=None, alpha=1.0, beta=1.0, work_arrays=None, topology=None):
    """``y := alpha * x + beta * y`` (``y`` None: a new matrix, taken as zero); ``x`` and ``y``
    may be the same matrix. Returns ``y``."""
    topology = check_topology(topology)
    x, x_scale = matrix_and_scale(x)
    alpha = alpha * x_scale
    if y is None:
        y = bsr_zeros(x.nrow, x.ncol, block_type=x.values.dtype, device=x.device)
        y.values.requires_grad = x.requires_grad
        beta = 0.0
    _check_compatible(x, y)
    if x is y:
        return bsr_scale(y, alpha + beta) if topology != "padded" else y
    xr, xc, xb = active_entries(x)
    yr, yc, yb = active_entries(y)
    nx = xr.size
    x_values = x.values
    y_values = y.values
    slots, nslots = place(y, np.concatenate([xr, yr]), np.concatenate([xc, yc]), topology)
    ids = np.concatenate([xb, nx + yb])
    starts, ends, order = device_groups(slots, nslots, y.device, ids)
    work = work_arrays if work_arrays is not None else bsr_axpy_work_arrays()
    out = work._values(y.device, y.values.dtype, nslots)
    if nslots:
        s = y.scalar_type
        wp.launch(axpy_gather, dim=nslots, device=y.device,
                  inputs=[starts, ends, order, nx, s(alpha), x_values, s(beta), y_values, out])
        wp.copy(y.values, out, count=nslots)
    return y


def bsr_compress(src, prune_numerical_zeros=True, inplace=False, topology=None, structure_only=False):
    """Sort and merge the active blocks of ``src`` (duplicates summed, columns outside the
    matrix dropped, zero blocks dropped when ``prune_numerical_zeros``) into compact storage
    ("compact") or its own row capacity ("padded"); returns ``src``."""
    topology = check_topology(topology, ("compact", "padded"))
    if inplace and not structure_only and src.scalar_type not in (wp.float32, wp.float64):
        raise ValueError("In-place compression supports float32 and float64 matrices only")
    rows, cols, blocks = active_entries(src)
    values = src.values
    if prune_numerical_zeros and blocks.size and not structure_only:
        nz = np.any(values.numpy()[blocks].reshape(blocks.size, -1) != 0, axis=1)
        rows, cols, blocks = rows[nz], cols[nz], blocks[nz]
    old_values = wp.clone(values) if blocks.size and not structure_only else values
    if topology == "padded" and src.row_counts is None:
        topology = "compact"
    slots, nslots = place(src, rows, cols, topology)
    if not structure_only and nslots:
        starts, ends, order = device_groups(slots, nslots, src.device, blocks)
        wp.launch(gather_sum, dim=nslots, device=src.device, inputs=[starts, ends, order, old_values, src.values])
    return src


def eval_expression(A):
    """A matrix for a matrix or a scaled expression (a scaled copy)."""
    if isinstance(A, BsrScaled):
        return bsr_scale(bsr_copy(A.mat), A.scale)
    return A


