"""Topology on the device: entries (row, column) grouped into the blocks of a compact matrix,
by kernels (a counting sort by row that moves each entry's (column, id) pair, and the values
too when no gradient is wanted, then a sort of each row's contiguous pairs by (column, id)), so
a CUDA matrix needs no round trip and a CPU one runs compiled loops instead of NumPy passes.

The result: ``offsets`` (nrow + 1) and ``columns`` of the compact matrix, and per block the
range of ``order``, the entry ids sorted by (row, column, id), that it sums (or the sums).
Sums therefore run in entry order whatever the threads did: results are deterministic. The
only host reads are two counts (sizes of the arrays to allocate). On the CPU each thread of
the entry kernels takes a chunk of rows or entries."""

import functools
import threading
from typing import Any

import warp_interactive as wp

from .funcs import row_end
from .kernels import bucket_entry_values, sort_entry_values, sort_pairs, write_entry_values
from .matrix import ensure_fits

# Topology (integers) and the values of products no tape differentiates (products.py takes
# another way when a gradient is wanted): no adjoint code, which was most of this module's
# CUDA build (NVRTC), and launches a tape does not record (an adjoint launch of a kernel
# without one raises).
wp.set_module_options({"enable_backward": False})
launch = functools.partial(wp.launch, record_tape=False)


@wp.func
def _inside(r: int, c: int, nrow: int, ncol: int):
    return r >= 0 and r < nrow and c >= 0 and c < ncol


@wp.kernel
def count_entries(rows: wp.array(dtype=int), cols: wp.array(dtype=int), nrow: int, ncol: int,
                  counts: wp.array(dtype=int), n: int, chunk: int):
    """counts[row] += 1 for each entry inside the matrix (thread t: the entries
    [t * chunk, (t + 1) * chunk))."""
    t = wp.tid()
    for e in range(t * chunk, wp.min(t * chunk + chunk, n)):
        r = rows[e]
        if _inside(r, cols[e], nrow, ncol):
            wp.atomic_add(counts, r, 1)


@wp.kernel
def count_nonzero_entries(rows: wp.array(dtype=int), cols: wp.array(dtype=int), nrow: int, ncol: int,
                          values: wp.array(dtype=Any), kept: wp.array(dtype=int), counts: wp.array(dtype=int),
                          n: int, chunk: int):
    """count_entries for the entries whose value is not zero (every coefficient; NaN is not
    zero); kept[e] := rows[e], or -1 for the entries not counted."""
    t = wp.tid()
    for e in range(t * chunk, wp.min(t * chunk + chunk, n)):
        r = rows[e]
        if _is_zero(values[e]) or not _inside(r, cols[e], nrow, ncol):
            r = -1
        else:
            wp.atomic_add(counts, r, 1)
        kept[e] = r


@wp.kernel
def bucket_entries(rows: wp.array(dtype=int), cols: wp.array(dtype=int), nrow: int, ncol: int,
                   starts: wp.array(dtype=int), cursor: wp.array(dtype=int), keys: wp.array(dtype=int),
                   ids: wp.array(dtype=int), n: int, chunk: int):
    """Each kept entry's (column, id) into its row's range (in any order: rows are sorted next),
    so the sort reads contiguous pairs."""
    t = wp.tid()
    for e in range(t * chunk, wp.min(t * chunk + chunk, n)):
        r = rows[e]
        c = cols[e]
        if _inside(r, c, nrow, ncol):
            p = starts[r] + wp.atomic_add(cursor, r, 1)
            keys[p] = c
            ids[p] = e


@wp.kernel
def sort_entry_rows(starts: wp.array(dtype=int), keys: wp.array(dtype=int), ids: wp.array(dtype=int),
                    row_nnz: wp.array(dtype=int), nrow: int, chunk: int):
    """Sort each row's (column, id) pairs; row_nnz[row] := its number of distinct columns
    (pairs with a negative column, which sort first, are not blocks). Thread t: the rows
    [t * chunk, (t + 1) * chunk)."""
    t = wp.tid()
    for r in range(t * chunk, wp.min(t * chunk + chunk, nrow)):
        lo = starts[r]
        hi = starts[r + 1]
        sort_pairs(keys, ids, lo, hi)
        n = int(0)
        prev = int(-1)
        for j in range(lo, hi):
            c = keys[j]
            if c != prev:
                n += 1
            prev = c
        if hi > lo and keys[lo] < 0:
            n -= 1
        row_nnz[r] = n


@wp.kernel
def write_entry_blocks(starts: wp.array(dtype=int), keys: wp.array(dtype=int), offsets: wp.array(dtype=int),
                       columns: wp.array(dtype=int), ends: wp.array(dtype=int), nrow: int, chunk: int):
    """The blocks of the rows [t * chunk, (t + 1) * chunk): their columns, and the end of each
    block's entries in the sorted pairs (rows' ranges tile the pairs, so a block's entries
    start where the previous block's end)."""
    t = wp.tid()
    for r in range(t * chunk, wp.min(t * chunk + chunk, nrow)):
        u = offsets[r] - 1
        prev = int(-1)
        for j in range(starts[r], starts[r + 1]):
            c = keys[j]
            if c != prev:
                u += 1
                columns[u] = c
            ends[u] = j + 1
            prev = c


@wp.kernel
def write_blocks(starts: wp.array(dtype=int), keys: wp.array(dtype=int), offsets: wp.array(dtype=int),
                 columns: wp.array(dtype=int), first: wp.array(dtype=int), last: wp.array(dtype=int)):
    """The blocks of each row (sorted pairs): their columns and their pairs' range first:last
    (pairs with a negative column are in no block)."""
    r = wp.tid()
    u = offsets[r] - 1
    prev = int(-1)
    for j in range(starts[r], starts[r + 1]):
        c = keys[j]
        if c != prev:
            u += 1
            columns[u] = c
            first[u] = j
        if c >= 0:
            last[u] = j + 1
        prev = c


@wp.func
def _is_zero(v: Any):
    return v == type(v)(0.0)


@wp.func
def _is_zero(v: wp.types.matrix(shape=(Any, Any), dtype=Any)):  # noqa: F811
    z = True
    for i in range(type(v)._shape_[0]):
        for j in range(type(v)._shape_[1]):
            if v[i, j] != type(v[i, j])(0.0):
                z = False
    return z


def set_topology(dest, offsets, columns, nnz, nnz_bound=None):
    """Give ``dest`` the compact topology of device arrays (``nnz`` blocks; the host nnz bound
    ``nnz_bound`` when larger, as warp-lang keeps the triplet count until ``nnz_sync()``)."""
    if dest.offsets.size < dest.nrow + 1:
        dest.offsets = wp.empty(dest.nrow + 1, dtype=int, device=dest.device)
    wp.copy(dest.offsets, offsets, count=dest.nrow + 1)
    dest.row_counts = None
    ensure_fits(dest, nnz=max(nnz, nnz_bound or 0))
    if nnz and columns is not None:
        wp.copy(dest.columns, columns, count=nnz)


@wp.kernel
def count_products(x_offsets: wp.array(dtype=int), x_counts: wp.array(dtype=int), x_columns: wp.array(dtype=int),
                   x_ncol: int, y_offsets: wp.array(dtype=int), y_counts: wp.array(dtype=int),
                   counts: wp.array(dtype=int)):
    """counts[row] := the number of (x block, y block) products of the row of x @ y."""
    r = wp.tid()
    n = int(0)
    for k in range(x_offsets[r], row_end(x_offsets, x_counts, r)):
        c = x_columns[k]
        if c >= 0 and c < x_ncol:
            n += row_end(y_offsets, y_counts, c) - y_offsets[c]
    counts[r] = n


@wp.kernel
def list_products(x_offsets: wp.array(dtype=int), x_counts: wp.array(dtype=int), x_columns: wp.array(dtype=int),
                  x_ncol: int, y_offsets: wp.array(dtype=int), y_counts: wp.array(dtype=int),
                  y_columns: wp.array(dtype=int), y_ncol: int, starts: wp.array(dtype=int),
                  pair_x: wp.array(dtype=int), pair_y: wp.array(dtype=int), pair_col: wp.array(dtype=int),
                  ids: wp.array(dtype=int)):
    """The products of each row, in (x block, y block) order; a y block whose column is outside
    the matrix gets column -1 (dropped when the row is sorted: it sorts first)."""
    r = wp.tid()
    p = starts[r]
    for k in range(x_offsets[r], row_end(x_offsets, x_counts, r)):
        c = x_columns[k]
        if c >= 0 and c < x_ncol:
            for q in range(y_offsets[c], row_end(y_offsets, y_counts, c)):
                col = y_columns[q]
                if col < 0 or col >= y_ncol:
                    col = -1
                pair_x[p] = k
                pair_y[p] = q
                pair_col[p] = col
                ids[p] = p
                p += 1


# Rows (or entries) per thread of the entry kernels on the CPU: each index's set-up (argument
# loads, the interrupt flag) is paid once per chunk. One per thread on a GPU.
CPU_CHUNK = 256


def _chunk(device):
    return CPU_CHUNK if device.is_cpu else 1


# Work arrays kept between calls: {thread id: {(slot, device, dtype): array}}. Fresh memory costs
# the OS's zeroing of each page on first touch, a third of a large assembly's time on the CPU, so
# a thread's arrays are kept for its next call, up to SCRATCH_LIMIT bytes per thread (larger sets
# are not kept: a call that needs more memory pays for fresh pages). A finished thread's arrays
# go at the next call of any thread; release_scratch() lets them all go.
_SCRATCH = {}
SCRATCH_LIMIT = 256 << 20


def _scratch(slot, n, dtype, device):
    """A work array of n elements (only for arrays nothing reads after the call), kept for the
    next call on this device and thread within SCRATCH_LIMIT."""
    _drop_finished_threads()
    kept = _SCRATCH.setdefault(threading.get_ident(), {})
    key = (slot, str(device), wp.types.type_repr(dtype))
    a = kept.pop(key, None)
    if a is None or a.shape[0] < n:
        a = wp.empty(max(n, 1), dtype=dtype, device=device)
    if a.capacity <= SCRATCH_LIMIT:
        if sum(k.capacity for k in kept.values()) + a.capacity > SCRATCH_LIMIT:
            kept.clear()    # the others are re-made as needed (what the callers hold stays valid)
        kept[key] = a
    return a[:n]


def _drop_finished_threads():
    alive = {t.ident for t in threading.enumerate()}
    for ident in [i for i in _SCRATCH if i not in alive]:
        _SCRATCH.pop(ident, None)


def release_scratch():
    """Let every kept work array go (all threads): their memory is freed once no call uses it."""
    _SCRATCH.clear()


def _scan(counts, device):
    """Exclusive scan of ``counts`` (n + 1 entries, the last 0): starts, with starts[n] = total."""
    out = wp.empty(counts.shape[0], dtype=int, device=device)
    wp.utils.array_scan(counts, out, inclusive=False)
    return out


def _last(a):
    return int(a[a.shape[0] - 1:].numpy()[0])


def _blocks(starts, ids, keys, nrow, device):
    """From rows' (unsorted) (key, id) ranges: (offsets, columns, first, last, ids sorted, nnz)."""
    row_nnz = wp.zeros(nrow + 1, dtype=int, device=device)
    if nrow:
        chunk = _chunk(device)
        launch(sort_entry_rows, dim=-(-nrow // chunk), device=device, inputs=[starts, keys, ids, row_nnz, nrow, chunk])
    offsets = _scan(row_nnz, device)
    nnz = _last(offsets)
    columns, first, last = (wp.empty(nnz, dtype=int, device=device) for _ in range(3))
    if nrow:
        launch(write_blocks, dim=nrow, device=device, inputs=[starts, keys, offsets, columns, first, last])
    return offsets, columns, first, last, ids, nnz


def _bucket(rows, cols, nrow, ncol, device, zeros_of):
    """Count the kept entries of each row: (rows, starts, counts), rows with -1 for the entries
    dropped as zero (``zeros_of``: their values, when pruning)."""
    n, chunk = rows.shape[0], _chunk(device)
    counts = _scratch("counts", nrow + 1, int, device)
    counts.zero_()
    if n and zeros_of is not None:
        kept = _scratch("kept", n, int, device)
        launch(count_nonzero_entries, dim=-(-n // chunk), device=device,
               inputs=[rows, cols, nrow, ncol, zeros_of, kept, counts, n, chunk])
        rows = kept
    elif n:
        launch(count_entries, dim=-(-n // chunk), device=device, inputs=[rows, cols, nrow, ncol, counts, n, chunk])
    return rows, _scan(counts, device), counts


def entry_segments(rows, cols, nrow, ncol, device, zeros_of=None, carry=None):
    """Group the entries (rows[t], cols[t]) (int32 device arrays; entries outside the matrix,
    and those whose ``zeros_of[t]`` is zero when given, are dropped) into the compact blocks
    of a matrix: (offsets, nnz, write). ``write(columns, out)`` fills the nnz block columns
    and, with ``carry`` (the entries' values), ``out[b]``: the sum of block b's values in entry
    order. Without ``carry`` it returns (ends, order): block b sums the entries
    order[ends[b - 1]:ends[b]] (from 0 for b = 0), for a differentiable gather."""
    n, chunk = rows.shape[0], _chunk(device)
    rows, starts, counts = _bucket(rows, cols, nrow, ncol, device, zeros_of)
    total = max(_last(starts), 0)
    if carry is None:       # a gather the tape records reads ``ids`` again on backward(): not scratch
        keys, ids, vals = _scratch("keys", total, int, device), wp.empty(total, dtype=int, device=device), None
    else:                   # keys: column << 32 | entry id
        keys, ids = _scratch("keys64", total, wp.int64, device), None
        vals = _scratch("vals", total, carry.dtype, device)
    rdim = -(-nrow // chunk)
    if total:
        counts.zero_()
        if carry is None:
            launch(bucket_entries, dim=-(-n // chunk), device=device,
                   inputs=[rows, cols, nrow, ncol, starts, counts, keys, ids, n, chunk])
        else:
            launch(bucket_entry_values, dim=-(-n // chunk), device=device,
                   inputs=[rows, cols, nrow, ncol, starts, counts, keys, carry, vals, n, chunk])
    row_nnz = counts
    row_nnz.zero_()
    if total and carry is None:
        launch(sort_entry_rows, dim=rdim, device=device, inputs=[starts, keys, ids, row_nnz, nrow, chunk])
    elif total:
        launch(sort_entry_values, dim=rdim, device=device, inputs=[starts, keys, vals, row_nnz, nrow, chunk])
    offsets = _scan(row_nnz, device)
    nnz = _last(offsets)

    def write(columns, out=None):
        if carry is not None:
            if nnz:
                launch(write_entry_values, dim=rdim, device=device,
                       inputs=[starts, keys, vals, offsets, columns, out, nrow, chunk])
            return None
        ends = wp.empty(nnz, dtype=int, device=device)
        if nnz:
            launch(write_entry_blocks, dim=rdim, device=device, inputs=[starts, keys, offsets, columns, ends, nrow, chunk])
        return ends, ids

    return offsets, nnz, write


def product_segments(x, y, x_counts, y_counts):
    """The blocks of x @ y: (offsets, columns, first, last, order, nnz, pair_x, pair_y), ``order``
    listing product ids p, whose blocks are x.values[pair_x[p]] and y.values[pair_y[p]]."""
    device = x.device
    counts = wp.zeros(x.nrow + 1, dtype=int, device=device)
    if x.nrow:
        launch(count_products, dim=x.nrow, device=device,
                  inputs=[x.offsets, x_counts, x.columns, x.ncol, y.offsets, y_counts, counts])
    starts = _scan(counts, device)
    total = _last(starts)
    pair_x, pair_y, pair_col, ids = (wp.empty(total, dtype=int, device=device) for _ in range(4))
    if x.nrow:
        launch(list_products, dim=x.nrow, device=device,
                  inputs=[x.offsets, x_counts, x.columns, x.ncol, y.offsets, y_counts, y.columns, y.ncol, starts,
                          pair_x, pair_y, pair_col, ids])
    return _blocks(starts, ids, pair_col, x.nrow, device) + (pair_x, pair_y)


# --- products by merging sorted rows -------------------------------------------------------------
# When every row of y has sorted, unique, in-range columns (what the constructors make), the
# row i of x @ y is the merge of the rows of y that the blocks of x's row i select: one cursor
# per block of x walks its y row, and each step takes the smallest column under the cursors.
# No product list and no sort: a first pass counts the blocks of each row, a second writes
# columns and values (each sum in x block order, as the sorted path's).

@wp.kernel
def check_rows(offsets: wp.array(dtype=int), counts: wp.array(dtype=int), columns: wp.array(dtype=int), ncol: int,
               flags: wp.array(dtype=int)):
    """flags[0] := 1 if a row's columns are not strictly increasing inside [0, ncol);
    flags[1] := max row length."""
    r = wp.tid()
    lo = offsets[r]
    hi = row_end(offsets, counts, r)
    prev = int(-1)
    for q in range(lo, hi):
        c = columns[q]
        if c <= prev or c >= ncol:
            flags[0] = 1
        prev = c
    wp.atomic_max(flags, 1, hi - lo)


@wp.func
def _next_column(lo: int, hi: int, cursor: wp.array(dtype=int), cursor_end: wp.array(dtype=int),
                 y_columns: wp.array(dtype=int), none: int):
    m = none
    for k in range(lo, hi):
        q = cursor[k]
        if q < cursor_end[k]:
            m = wp.min(m, y_columns[q])
    return m


@wp.func
def _start_cursors(r: int, x_offsets: wp.array(dtype=int), x_counts: wp.array(dtype=int),
                   x_columns: wp.array(dtype=int), x_ncol: int, y_offsets: wp.array(dtype=int),
                   y_counts: wp.array(dtype=int), cursor: wp.array(dtype=int), cursor_end: wp.array(dtype=int)):
    hi = row_end(x_offsets, x_counts, r)
    for k in range(x_offsets[r], hi):
        c = x_columns[k]
        if c >= 0 and c < x_ncol:
            cursor[k] = y_offsets[c]
            cursor_end[k] = row_end(y_offsets, y_counts, c)
        else:
            cursor[k] = 0
            cursor_end[k] = 0
    return hi


@wp.kernel
def merge_count(x_offsets: wp.array(dtype=int), x_counts: wp.array(dtype=int), x_columns: wp.array(dtype=int),
                x_ncol: int, y_offsets: wp.array(dtype=int), y_counts: wp.array(dtype=int),
                y_columns: wp.array(dtype=int), y_ncol: int, cursor: wp.array(dtype=int),
                cursor_end: wp.array(dtype=int), row_nnz: wp.array(dtype=int)):
    r = wp.tid()
    lo = x_offsets[r]
    hi = _start_cursors(r, x_offsets, x_counts, x_columns, x_ncol, y_offsets, y_counts, cursor, cursor_end)
    n = int(0)
    m = _next_column(lo, hi, cursor, cursor_end, y_columns, y_ncol)
    while m < y_ncol:
        n += 1
        for k in range(lo, hi):
            q = cursor[k]
            if q < cursor_end[k]:
                if y_columns[q] == m:
                    cursor[k] = q + 1
        m = _next_column(lo, hi, cursor, cursor_end, y_columns, y_ncol)
    row_nnz[r] = n


@wp.kernel
def merge_values(x_offsets: wp.array(dtype=int), x_counts: wp.array(dtype=int), x_columns: wp.array(dtype=int),
                 x_ncol: int, y_offsets: wp.array(dtype=int), y_counts: wp.array(dtype=int),
                 y_columns: wp.array(dtype=int), y_ncol: int, cursor: wp.array(dtype=int),
                 cursor_end: wp.array(dtype=int), alpha: Any, x_values: wp.array(dtype=Any),
                 y_values: wp.array(dtype=Any), offsets: wp.array(dtype=int), max_nnz: int,
                 columns: wp.array(dtype=int), values: wp.array(dtype=Any)):
    """Row r of alpha * x @ y into columns/values from offsets[r] (blocks past max_nnz dropped)."""
    r = wp.tid()
    lo = x_offsets[r]
    hi = _start_cursors(r, x_offsets, x_counts, x_columns, x_ncol, y_offsets, y_counts, cursor, cursor_end)
    u = offsets[r]
    m = _next_column(lo, hi, cursor, cursor_end, y_columns, y_ncol)
    while m < y_ncol and u < max_nnz:
        v = values.dtype(0.0)
        for k in range(lo, hi):
            q = cursor[k]
            if q < cursor_end[k]:
                if y_columns[q] == m:
                    v += x_values[k] * y_values[q]
                    cursor[k] = q + 1
        columns[u] = m
        values[u] = alpha * v
        u += 1
        m = _next_column(lo, hi, cursor, cursor_end, y_columns, y_ncol)


def merge_applies(x, y, x_counts, y_counts, longest=32):
    """Whether y's rows are sorted, unique and in range, and x's rows short enough to merge."""
    flags = wp.zeros(2, dtype=int, device=x.device)
    if y.nrow:
        launch(check_rows, dim=y.nrow, device=x.device, inputs=[y.offsets, y_counts, y.columns, y.ncol, flags])
    if not flags.numpy()[0] and x.nrow:
        flags.zero_()
        launch(check_rows, dim=x.nrow, device=x.device, inputs=[x.offsets, x_counts, x.columns, x.ncol, flags])
        return int(flags.numpy()[1]) <= longest
    return False


def merge_topology(x, y, x_counts, y_counts):
    """(offsets, nnz, cursors) of x @ y by the merge (see merge_applies)."""
    device = x.device
    cursors = tuple(wp.empty(max(x.nnz, 1), dtype=int, device=device) for _ in range(2))
    row_nnz = wp.zeros(x.nrow + 1, dtype=int, device=device)
    if x.nrow:
        launch(merge_count, dim=x.nrow, device=device,
                  inputs=[x.offsets, x_counts, x.columns, x.ncol, y.offsets, y_counts, y.columns, y.ncol, *cursors,
                          row_nnz])
    offsets = _scan(row_nnz, device)
    return offsets, _last(offsets), cursors


def merge_product(x, y, x_counts, y_counts, alpha, plan, dest):
    """dest (compact, nnz blocks allocated) := alpha * x @ y from a merge_topology plan."""
    offsets, nnz, cursors = plan
    if x.nrow and nnz:
        launch(merge_values, dim=x.nrow, device=x.device,
                  inputs=[x.offsets, x_counts, x.columns, x.ncol, y.offsets, y_counts, y.columns, y.ncol, *cursors,
                          alpha, x.values, y.values, dest.offsets, nnz, dest.columns, dest.values])


# --- products with a dense marker (CPU) ----------------------------------------------------------
# Gustavson's row-by-row product: thread t owns the rows [t * chunk, (t + 1) * chunk) and a marker
# array of ncol entries (a slice of ``marker``), so a column's block in the current row is found
# in O(1). Few threads (the CPU's), so the markers stay small; each row's blocks are then sorted by
# column (values moved along). Sums in (x block, y block) order, as the other paths.

@wp.kernel
def marker_count(x_offsets: wp.array(dtype=int), x_counts: wp.array(dtype=int), x_columns: wp.array(dtype=int),
                 x_ncol: int, y_offsets: wp.array(dtype=int), y_counts: wp.array(dtype=int),
                 y_columns: wp.array(dtype=int), y_ncol: int, nrow: int, chunk: int, marker: wp.array(dtype=int),
                 row_nnz: wp.array(dtype=int)):
    t = wp.tid()
    base = t * y_ncol
    # unsigned indices where they cannot be negative (stored offsets, checked columns): the
    # compiler then drops each access's negative-index wrap
    for r in range(t * chunk, wp.min(t * chunk + chunk, nrow)):
        n = int(0)
        for k in range(wp.uint32(x_offsets[r]), wp.uint32(row_end(x_offsets, x_counts, r))):
            c = x_columns[k]
            if c >= 0 and c < x_ncol:
                for q in range(wp.uint32(y_offsets[c]), wp.uint32(row_end(y_offsets, y_counts, c))):
                    col = y_columns[q]
                    if col >= 0 and col < y_ncol:
                        if marker[wp.uint32(base + col)] != r:
                            marker[wp.uint32(base + col)] = r
                            n += 1
        row_nnz[r] = n


@wp.kernel
def marker_values(x_offsets: wp.array(dtype=int), x_counts: wp.array(dtype=int), x_columns: wp.array(dtype=int),
                  x_ncol: int, y_offsets: wp.array(dtype=int), y_counts: wp.array(dtype=int),
                  y_columns: wp.array(dtype=int), y_ncol: int, nrow: int, chunk: int, marker: wp.array(dtype=int),
                  alpha: Any, x_values: wp.array(dtype=Any), y_values: wp.array(dtype=Any),
                  offsets: wp.array(dtype=int), max_nnz: int, columns: wp.array(dtype=int),
                  values: wp.array(dtype=Any)):
    """Rows of alpha * x @ y into columns/values from offsets[r] (marker: -1 on entry; blocks
    past max_nnz, when the product was truncated, dropped)."""
    t = wp.tid()
    base = t * y_ncol
    for r in range(t * chunk, wp.min(t * chunk + chunk, nrow)):
        u0 = offsets[r]
        u = u0
        for k in range(wp.uint32(x_offsets[r]), wp.uint32(row_end(x_offsets, x_counts, r))):
            c = x_columns[k]
            if c >= 0 and c < x_ncol:
                for q in range(wp.uint32(y_offsets[c]), wp.uint32(row_end(y_offsets, y_counts, c))):
                    col = y_columns[q]
                    if col >= 0 and col < y_ncol:
                        at = marker[wp.uint32(base + col)]
                        if at < u0:
                            marker[wp.uint32(base + col)] = u
                            if u < max_nnz:
                                columns[u] = col
                                values[u] = x_values[k] * y_values[q]
                            u += 1
                        elif at < max_nnz:
                            values[at] = values[at] + x_values[k] * y_values[q]
        _sort_blocks(columns, values, u0, wp.min(u, max_nnz))
        if u0 < max_nnz:
            for j in range(u0, wp.min(u, max_nnz)):
                values[j] = alpha * values[j]


@wp.func
def _sort_blocks(columns: wp.array(dtype=int), values: wp.array(dtype=Any), lo: int, hi: int):
    """Insertion sort of the blocks lo:hi by column (distinct columns)."""
    for i in range(lo + 1, hi):
        c = columns[i]
        v = values[i]
        j = i - 1
        while j >= lo and columns[j] > c:
            columns[j + 1] = columns[j]
            values[j + 1] = values[j]
            j -= 1
        columns[j + 1] = c
        values[j + 1] = v


MARKER_THREADS = 8


def marker_topology(x, y, x_counts, y_counts):
    """(offsets, nnz, (marker, chunk, threads)) of x @ y by the marker product."""
    device = x.device
    threads = max(1, min(MARKER_THREADS, -(-x.nrow // 1024)))
    chunk = -(-x.nrow // threads)
    marker = _scratch("marker", threads * max(y.ncol, 1), int, device)     # filled again before each use
    marker.fill_(-1)
    row_nnz = wp.zeros(x.nrow + 1, dtype=int, device=device)
    if x.nrow:
        launch(marker_count, dim=threads, device=device,
                  inputs=[x.offsets, x_counts, x.columns, x.ncol, y.offsets, y_counts, y.columns, y.ncol, x.nrow,
                          chunk, marker, row_nnz])
    offsets = _scan(row_nnz, device)
    return offsets, _last(offsets), (marker, chunk, threads)


def marker_product(x, y, x_counts, y_counts, alpha, plan, dest):
    """dest (compact, nnz blocks allocated, offsets set) := alpha * x @ y from a marker_topology plan."""
    offsets, nnz, (marker, chunk, threads) = plan
    if x.nrow and nnz:
        marker.fill_(-1)
        launch(marker_values, dim=threads, device=x.device,
                  inputs=[x.offsets, x_counts, x.columns, x.ncol, y.offsets, y_counts, y.columns, y.ncol, x.nrow,
                          chunk, marker, alpha, x.values, y.values, dest.offsets, nnz, dest.columns, dest.values])
