"""Host-side topology of sparse operations (NumPy): which blocks a result has, and for each the
list of source entries that the value kernels sum.

Structure is integer work with data-dependent sizes, so it is computed on the host; a CUDA
matrix makes one round trip of its index arrays (values stay on the device). The results are
"segments": a compact row layout (``offsets``, ``columns``) and, per result block, the range
``seg[b]:seg[b+1]`` of a permutation ``order`` of the source entries, sorted by (row, column,
source position), so duplicate sums have a fixed order."""

import numpy as np

import warp_interactive as wp

from .matrix import BSR_STATUS_ROW_CAPACITY_EXCEEDED, ensure_fits


def host(a, count=None):
    """The first ``count`` elements of a 1-d array, as NumPy (a copy for device arrays)."""
    n = a.shape[0] if count is None else count
    return a[:n].numpy() if n else np.zeros(0, dtype=a.numpy().dtype if a.size else np.int32)


def active_entries(A):
    """(rows, columns, block indices) of the active stored blocks of ``A`` whose column lies in
    [0, ncol), in storage order."""
    nrow = A.nrow
    off = host(A.offsets, nrow + 1).astype(np.int64)
    starts = off[:-1]
    counts = np.diff(off)
    if A.row_counts is not None:
        counts = np.minimum(host(A.row_counts, nrow).astype(np.int64), counts)
    ends = np.minimum(starts + np.maximum(counts, 0), A.nnz)
    counts = np.maximum(ends - starts, 0)
    total = int(counts.sum())
    rows = np.repeat(np.arange(nrow, dtype=np.int64), counts)
    first = np.cumsum(counts) - counts
    idx = np.arange(total, dtype=np.int64) - np.repeat(first - starts, counts)
    cols = host(A.columns, int(idx.max()) + 1 if total else 0).astype(np.int64)[idx] if total else idx
    keep = (cols >= 0) & (cols < A.ncol)
    if not keep.all():
        rows, cols, idx = rows[keep], cols[keep], idx[keep]
    return rows, cols, idx


def segments(rows, cols, nrow, ncol):
    """Group entries by (row, column): ``(offsets, columns, seg, order)`` with ``order`` the
    stable sort of the entries by (row, column)."""
    n = rows.shape[0]
    if n and ncol * max(nrow, 1) < 2**62:
        key = rows.astype(np.int64) * ncol + cols
        order = np.argsort(key, kind="stable")
        skey = key[order]
        new = np.empty(n, dtype=bool)
        new[0] = True
        np.not_equal(skey[1:], skey[:-1], out=new[1:])
        heads = np.flatnonzero(new)
        block_rows = skey[heads] // ncol
        block_cols = skey[heads] - block_rows * ncol
    else:
        order = np.zeros(0, dtype=np.int64)
        heads = np.zeros(0, dtype=np.int64)
        block_rows = block_cols = heads
    seg = np.empty(heads.shape[0] + 1, dtype=np.int32)
    seg[:-1] = heads
    seg[-1] = n
    offsets = np.zeros(nrow + 1, dtype=np.int32)
    np.cumsum(np.bincount(block_rows, minlength=nrow), out=offsets[1:])
    return offsets, block_cols.astype(np.int32), seg, order.astype(np.int32)


def to_device(a, device, dtype=int):
    return wp.array(np.ascontiguousarray(a, dtype=np.int32 if dtype is int else None), dtype=dtype, device=device)


def set_topology(dest, offsets, columns, nnz_bound=None):
    """Write a compact topology into ``dest`` (grows its storage; ``row_counts`` cleared).
    ``nnz_bound``: a host-side block count bound larger than the blocks (warp-lang keeps the
    triplet count there until ``nnz_sync()``)."""
    nnz = int(offsets[-1])
    if nnz_bound is not None:
        nnz = max(nnz, int(nnz_bound))
    if dest.offsets.size < dest.nrow + 1:
        dest.offsets = wp.empty(dest.nrow + 1, dtype=int, device=dest.device)
    dest.offsets[: dest.nrow + 1].assign(offsets)
    dest.row_counts = None
    ensure_fits(dest, nnz=nnz)
    if len(columns):
        dest.columns[: len(columns)].assign(columns)


def place(dest, rows, cols, topology, nnz_bound=None):
    """Give ``dest`` the blocks of the entries (rows[i], cols[i]) as ``topology`` says and return
    (slot of each entry in ``dest``'s storage or -1 when dropped, number of slots):
    "compact": exactly the distinct (row, col) pairs; "masked": ``dest``'s blocks stay and
    entries elsewhere are dropped; "padded": the pairs go into each row's existing capacity
    (a row that does not fit is cut and the status says so)."""
    if topology == "masked":
        keys, blocks = _dest_keys(dest)
        tkey = rows * dest.ncol + cols
        if not keys.size:
            return np.full(tkey.shape, -1, dtype=np.int64), dest.nnz
        pos = np.minimum(np.searchsorted(keys, tkey), keys.size - 1)
        return np.where(keys[pos] == tkey, blocks[pos], -1), dest.nnz
    offsets, bcols, seg, order = segments(rows, cols, dest.nrow, dest.ncol)
    block_of = np.empty(rows.shape[0], dtype=np.int64)
    block_of[order] = np.repeat(np.arange(seg.shape[0] - 1, dtype=np.int64), np.diff(seg))
    if topology == "compact":
        set_topology(dest, offsets, bcols, nnz_bound)
        return _Slots(block_of, (seg[:-1], seg[1:], order)), int(offsets[-1])
    slot_of_block, nslots = _place_padded(dest, offsets, bcols)
    return slot_of_block[block_of] if block_of.size else block_of, nslots


def _dest_keys(dest):
    """Sorted (row * ncol + col) keys of ``dest``'s active blocks, with their storage slots."""
    rows, cols, blocks = active_entries(dest)
    key = rows * dest.ncol + cols
    order = np.argsort(key, kind="stable")
    return key[order], blocks[order]


def _place_padded(dest, offsets, cols):
    """Put compact rows into ``dest``'s row capacity: (slot of each compact block or -1, slots)."""
    status = dest.ensure_status()
    if dest.row_counts is None or dest.row_counts.size < dest.nrow:
        dest.row_counts = wp.zeros(dest.nrow, dtype=int, device=dest.device)
    cap_off = host(dest.offsets, dest.nrow + 1).astype(np.int64)
    want = np.diff(offsets.astype(np.int64))
    got = np.minimum(want, np.diff(cap_off))
    if (want > got).any():
        status.fill_(BSR_STATUS_ROW_CAPACITY_EXCEEDED)
    rows = np.repeat(np.arange(dest.nrow, dtype=np.int64), want)
    rank = np.arange(rows.size, dtype=np.int64) - np.repeat(offsets[:-1].astype(np.int64), want)
    fits = rank < got[rows]
    slot = np.where(fits, cap_off[rows] + rank, -1)
    dest.row_counts[: dest.nrow].assign(got.astype(np.int32))
    nslots = int(cap_off[-1])
    ensure_fits(dest, nnz=max(dest.nnz, nslots))
    if fits.any():
        host_cols = host(dest.columns, nslots).copy()
        host_cols[slot[fits]] = cols[fits]
        dest.columns[:nslots].assign(host_cols)
    return slot, nslots


class _Slots(np.ndarray):
    """Slots of the entries that also carry their grouping (compact placement has it already)."""

    def __new__(cls, slots, groups):
        obj = np.asarray(slots).view(cls)
        obj.groups = groups
        return obj


def group(slots, nslots):
    """Entries grouped by slot: (starts, ends, order) with ``order`` listing the entries of slot
    s (in input order) at starts[s]:ends[s]; dropped entries (slot -1) are left out."""
    known = getattr(slots, "groups", None)
    if known is not None:
        return known
    order = np.argsort(slots, kind="stable")
    order = order[np.searchsorted(slots[order], 0):] if order.size else order
    bounds = np.searchsorted(slots[order], np.arange(nslots + 1)).astype(np.int32)
    return bounds[:-1], bounds[1:], order.astype(np.int32)


def device_groups(slots, nslots, device, entry_ids=None):
    """``group`` on the device: (starts, ends, order) arrays, order mapped through ``entry_ids``."""
    starts, ends, order = group(slots, nslots)
    if entry_ids is not None:
        order = entry_ids[order]
    return to_device(starts, device), to_device(ends, device), to_device(order, device)
