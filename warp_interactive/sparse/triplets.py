"""Matrices from coordinate (COO) triplets: ``bsr_set_from_triplets`` (duplicates summed, zero
blocks pruned or kept, "compact", "masked" or "padded" destinations), ``bsr_from_triplets``,
and ``BsrTripletMap`` / ``bsr_set_from_mapped_values`` to redo only the values."""

import numpy as np

import warp_interactive as wp

from .kernels import gather_sum, gather_sum_ends, scatter_add
from .matrix import as_block_array, bsr_zeros, scalar_type
from .segments import entry_segments, set_topology as set_device_topology
from .topology import group, host, place, to_device

_TOPOLOGIES = ("compact", "masked", "padded")


class BsrTripletMap:
    """A reusable map from COO triplets to the blocks of a matrix built from them: pass it (or
    ``True``) as ``build_mapping`` to ``bsr_set_from_triplets``, then refresh the values with
    ``bsr_set_from_mapped_values`` while the topology stays. Its storage (``capacity``
    triplets) is reused when rebuilt for as many triplets or fewer."""

    def __init__(self, capacity=0, device=None):
        self.triplet_count = 0
        self._nblocks = 0
        self._storage = self._allocate(int(capacity), wp.get_device(device))
        self._dest = None

    @staticmethod
    def _allocate(capacity, device):
        return tuple(wp.empty(capacity, dtype=int, device=device) for _ in range(3))

    @property
    def device(self):
        return self._storage[0].device

    @property
    def capacity(self):
        return self._storage[0].shape[0]

    def _view(self, k):
        return self._storage[k][: self.triplet_count]

    # block b's triplets are _triplet_indices[_block_ends[b-1]:_block_ends[b]]; a dropped
    # triplet's block is -1
    _block_ends = property(lambda self: self._view(0))
    _triplet_indices = property(lambda self: self._view(1))
    _triplet_blocks = property(lambda self: self._view(2))

    def _bind(self, dest, count, ends, order, blocks):
        if count > self.capacity:
            self._storage = self._allocate(count, self.device)
        for k, data in enumerate((ends, order, blocks)):
            if len(data):
                self._storage[k][: len(data)].assign(np.asarray(data, dtype=np.int32))
        self.triplet_count = count
        self._nblocks = len(ends)
        self._dest = (dest.nrow, dest.ncol, dest.offsets.ptr, dest.columns.ptr,
                      0 if dest.row_counts is None else dest.row_counts.ptr)

    def validate(self, dest):
        """Raise when ``dest``'s dimensions or topology arrays are not those the map was built for."""
        if self._dest is None:
            raise ValueError("The triplet map has not been built; pass it to bsr_set_from_triplets() first")
        now = (dest.nrow, dest.ncol, dest.offsets.ptr, dest.columns.ptr,
               0 if dest.row_counts is None else dest.row_counts.ptr)
        if now != self._dest:
            raise ValueError("Destination BSR topology storage differs from that used to build the triplet map")


def _check_values(dest, values, n, what="Values and rows"):
    if values.device != dest.device:
        raise ValueError(f"{what} must reside on the same device, got {values.device} and {dest.device}")
    if values.shape[0] != n:
        raise ValueError(f"Values and rows arrays must have the same length, got {values.shape[0]} and {n}")
    if values.ndim == 3:
        if tuple(values.shape[1:]) != dest.block_shape:
            raise ValueError(f"Last two dimensions in values array ({tuple(values.shape[1:])}) should correspond "
                             f"to matrix block shape {dest.block_shape})")
        if scalar_type(values.dtype) is not dest.scalar_type:
            raise ValueError(f"Scalar type of values array ({wp.types.type_repr(values.dtype)}) should correspond "
                             f"to that of matrix ({wp.types.type_repr(dest.scalar_type)})")
    elif values.ndim == 1:
        if not wp.types.types_equal(values.dtype, dest.values.dtype):
            raise ValueError("Values array type must correspond to that of the dest matrix, got "
                             f"{wp.types.type_repr(values.dtype)} and {wp.types.type_repr(dest.values.dtype)}")
    else:
        raise ValueError(f"Number of dimension for values array should be 1 or 3, got {values.ndim}")
    if not values.is_contiguous:
        raise ValueError("Values array must be contiguous")
    return as_block_array(values, dest.values.dtype)


def _check_indices(dest, rows, columns, count):
    if rows.device != columns.device or rows.device != dest.device:
        raise ValueError("Rows and columns must reside on the destination matrix device, got "
                         f"{rows.device}, {columns.device} and {dest.device}")
    if rows.shape[0] != columns.shape[0]:
        raise ValueError(f"Rows and columns arrays must have the same length, got {rows.shape[0]} and {columns.shape[0]}")
    if rows.dtype is not wp.int32 or columns.dtype is not wp.int32:
        raise TypeError("Rows and columns arrays must be of type int32")
    if count is not None:
        if count.device != rows.device:
            raise ValueError(f"Count and rows must reside on the same device, got {count.device} and {rows.device}")
        if tuple(count.shape) != (1,):
            raise ValueError(f"Count array must be a single-element array, got {tuple(count.shape)}")
        if count.dtype is not wp.int32:
            raise TypeError("Count array must be of type int32")


def _kept_triplets(dest, rows, columns, values, n, prune):
    """Indices of the triplets inside the matrix (and with a nonzero block when pruning)."""
    r = host(rows, n).astype(np.int64)
    c = host(columns, n).astype(np.int64)
    keep = (r >= 0) & (r < dest.nrow) & (c >= 0) & (c < dest.ncol)
    if prune and values is not None and n:
        v = values[:n].numpy().reshape(n, -1)
        keep &= np.any(v != 0, axis=1)
    idx = np.flatnonzero(keep)
    return r[idx], c[idx], idx


def _parse_mapping(build_mapping, dest, topology, prune):
    if build_mapping is None or build_mapping is False:
        return None
    if build_mapping is True:
        mapping = BsrTripletMap(device=dest.device)
    elif isinstance(build_mapping, BsrTripletMap):
        mapping = build_mapping
        if mapping.device != dest.device:
            raise ValueError(f"Mapping and destination must reside on the same device, got {mapping.device} "
                             f"and {dest.device}")
    else:
        raise TypeError(f"build_mapping must be None, a bool or a BsrTripletMap, got {type(build_mapping)}")
    if topology != "compact":
        raise ValueError('build_mapping requires topology="compact"')
    if prune:
        raise ValueError("build_mapping requires prune_numerical_zeros=False")
    return mapping


def bsr_set_from_triplets(dest, rows, columns, values=None, count=None, prune_numerical_zeros=True, topology=None,
                          build_mapping=None):
    """Fill ``dest`` from COO triplets (block ``values[i]`` at block ``(rows[i], columns[i])``):
    duplicates are summed in input order, triplets outside the matrix are dropped, zero blocks
    too when ``prune_numerical_zeros``. ``topology``: "compact" (rebuild), "masked" (only the
    blocks ``dest`` has), "padded" (into ``dest``'s row capacity; overflow sets the status).
    Returns the ``BsrTripletMap`` when ``build_mapping`` asks for one."""
    topology = "compact" if topology is None else topology
    if topology not in _TOPOLOGIES:
        raise ValueError(f"Unsupported topology policy: {topology}")
    mapping = _parse_mapping(build_mapping, dest, topology, prune_numerical_zeros)
    _check_indices(dest, rows, columns, count)
    n = rows.shape[0]
    if values is not None:
        values = _check_values(dest, values, n)
    if count is not None:
        n = max(0, min(n, int(count.numpy()[0])))
    if topology == "compact" and mapping is None:
        _set_compact(dest, rows, columns, values, n, prune_numerical_zeros, rows.shape[0])
        return None
    r, c, idx = _kept_triplets(dest, rows, columns, values, n, prune_numerical_zeros)
    if topology == "masked":
        dest.values.zero_()
    slots, nslots = place(dest, r, c, topology, nnz_bound=rows.shape[0])
    starts, ends, order = group(slots, nslots)
    order = idx[order]
    if values is not None and nslots:
        wp.launch(gather_sum, dim=nslots, device=dest.device,
                  inputs=[to_device(starts, dest.device), to_device(ends, dest.device), to_device(order, dest.device),
                          values, dest.values])
    if mapping is not None:
        blocks = np.full(n, -1, dtype=np.int32)
        blocks[idx] = slots
        mapping._bind(dest, n, ends, order, blocks)
    return mapping


def _set_compact(dest, rows, columns, values, n, prune, nnz_bound):
    """The compact topology and summed values of the first ``n`` triplets, on the device."""
    device = dest.device
    zeros_of = values[:n] if prune and values is not None else None
    # without a gradient to carry back to the triplets, the values travel with the sorted
    # entries (contiguous sums); else a gather the tape can differentiate
    carry = values[:n] if values is not None and not values.requires_grad else None
    offsets, nnz, write = entry_segments(rows[:n], columns[:n], dest.nrow, dest.ncol, device, zeros_of, carry)
    set_device_topology(dest, offsets, None, nnz, nnz_bound=nnz_bound)
    blocks = write(dest.columns, dest.values)
    if blocks is not None and values is not None and nnz:
        ends, order = blocks
        wp.launch(gather_sum_ends, dim=nnz, device=device, inputs=[ends, order, values, dest.values])


def bsr_from_triplets(rows_of_blocks, cols_of_blocks, rows, columns, values, prune_numerical_zeros=True):
    """A new compact matrix from COO triplets (block type: ``values``' dtype, or a matrix of
    its trailing shape for a 3-d scalar array)."""
    if values.ndim == 3:
        block_type = wp.types.matrix(shape=tuple(values.shape[1:]), dtype=values.dtype)
    else:
        block_type = values.dtype
    A = bsr_zeros(rows_of_blocks, cols_of_blocks, block_type, device=values.device)
    A.values.requires_grad = values.requires_grad
    bsr_set_from_triplets(A, rows, columns, values, prune_numerical_zeros=prune_numerical_zeros)
    return A


def bsr_set_from_mapped_values(dest, mapping, values, reduction="gather"):
    """Recompute ``dest``'s values from new triplet values with a ``BsrTripletMap`` (no
    topology work). "gather": one thread per block, sums in the triplet order; "atomic": the
    same sums by scattering each triplet."""
    if not isinstance(mapping, BsrTripletMap):
        raise TypeError("Mapping must be a BsrTripletMap")
    mapping.validate(dest)
    if values.device != dest.device:
        raise ValueError(f"Values and destination must reside on the same device, got {values.device} and {dest.device}")
    if values.shape[0] != mapping.triplet_count:
        raise ValueError(f"Values must contain {mapping.triplet_count} triplets, got first dimension {values.shape[0]}")
    if reduction not in ("gather", "atomic"):
        raise ValueError(f"Unsupported mapped reduction '{reduction}', expected 'gather' or 'atomic'")
    values = _check_values(dest, values, mapping.triplet_count, "Values and destination")
    if not mapping._nblocks:
        return
    ends = mapping._storage[0][: mapping._nblocks]
    order = mapping._storage[1]
    if reduction == "gather":
        wp.launch(gather_sum_ends, dim=mapping._nblocks, device=dest.device, inputs=[ends, order, values, dest.values])
    else:
        dest.values[: mapping._nblocks].zero_()
        wp.launch(scatter_add, dim=mapping.triplet_count, device=dest.device,
                  inputs=[mapping._storage[2], values, dest.values])
