"""Topology on the device: entries (row, column) grouped into the blocks of a compact matrix,
by kernels (a counting sort by row, then a sort of each row by column), so a CUDA matrix needs
no round trip and a CPU one runs compiled loops instead of NumPy passes.

The result: ``offsets`` (nrow + 1) and ``columns`` of the compact matrix, and per block b the
range ``first[b]:last[b]`` of ``order``, the entry ids sorted by (row, column, id).
Sums over ``order`` therefore run in entry order whatever the threads did: results are
deterministic. The only host reads are two counts (sizes of the arrays to allocate)."""

import functools
from typing import Any

import warp_interactive as wp

from .funcs import row_end
from .matrix import ensure_fits

# Topology (integers) and the values of products no tape differentiates (products.py takes
# another way when a gradient is wanted): no adjoint code, which was most of this module's
# CUDA build (NVRTC), and launches a tape does not record (an adjoint launch of a kernel
# without one raises).
wp.set_module_options({"enable_backward": False})
launch = functools.partial(wp.launch, record_tape=False)

@wp.func
def _before(cols: wp.array(dtype=int), a: int, b: int):
    """Whether entry a sorts before entry b: by column, then by id."""
    ca = cols[a]
    cb = cols[b]
    return ca < cb or (ca == cb and a < b)


@wp.func
def _sift_down(ids: wp.array(dtype=int), cols: wp.array(dtype=int), lo: int, root: int, n: int):
    i = root
    while 2 * i + 1 < n:
        child = 2 * i + 1
        if child + 1 < n and _before(cols, ids[lo + child], ids[lo + child + 1]):
            child += 1
        if _before(cols, ids[lo + i], ids[lo + child]):
            t = ids[lo + i]
            ids[lo + i] = ids[lo + child]
            ids[lo + child] = t
            i = child
        else:
            i = n


@wp.func
def _sort_range(ids: wp.array(dtype=int), cols: wp.array(dtype=int), lo: int, hi: int):
    """Sort ids[lo:hi] by (cols[id], id)."""
    n = hi - lo
    if n <= 32:     # insertion: fast for the few entries of a typical row; heapsort past it
        for i in range(lo + 1, hi):
            v = ids[i]
            j = i - 1
            while j >= lo and _before(cols, v, ids[j]):
                ids[j + 1] = ids[j]
                j -= 1
            ids[j + 1] = v
    else:
        for root in range(n // 2 - 1, -1, -1):
            _sift_down(ids, cols, lo, root, n)
        for end in range(n - 1, 0, -1):
            t = ids[lo]
            ids[lo] = ids[lo + end]
            ids[lo + end] = t
            _sift_down(ids, cols, lo, 0, end)


@wp.kernel
def count_entries(rows: wp.array(dtype=int), cols: wp.array(dtype=int), nrow: int, ncol: int,
                  counts: wp.array(dtype=int)):
    """counts[row] += 1 for each entry inside the matrix; rows[t] := -1 for the others."""
    t = wp.tid()
    r = rows[t]
    c = cols[t]
    if r >= 0 and r < nrow and c >= 0 and c < ncol:
        wp.atomic_add(counts, r, 1)


@wp.kernel
def bucket_entries(rows: wp.array(dtype=int), cols: wp.array(dtype=int), nrow: int, ncol: int,
                   starts: wp.array(dtype=int), cursor: wp.array(dtype=int), ids: wp.array(dtype=int)):
    """Each kept entry's id into its row's range (in any order: rows are sorted next)."""
    t = wp.tid()
    r = rows[t]
    c = cols[t]
    if r >= 0 and r < nrow and c >= 0 and c < ncol:
        ids[starts[r] + wp.atomic_add(cursor, r, 1)] = t


@wp.kernel
def sort_and_count(starts: wp.array(dtype=int), ids: wp.array(dtype=int), cols: wp.array(dtype=int),
                   row_nnz: wp.array(dtype=int)):
    """Sort each row's entries by (column, id); row_nnz[row] := its number of distinct columns
    (entries with a negative column, which sort first, are not blocks)."""
    r = wp.tid()
    lo = starts[r]
    hi = starts[r + 1]
    _sort_range(ids, cols, lo, hi)
    n = int(0)
    prev = int(-1)
    for j in range(lo, hi):
        c = cols[ids[j]]
        if c != prev:
            n += 1
        prev = c
    row_nnz[r] = n


@wp.kernel
def write_blocks(starts: wp.array(dtype=int), ids: wp.array(dtype=int), cols: wp.array(dtype=int),
                 offsets: wp.array(dtype=int), columns: wp.array(dtype=int), first: wp.array(dtype=int),
                 last: wp.array(dtype=int)):
    """The blocks of each row: their columns and their entries' range first:last in ``ids``."""
    r = wp.tid()
    lo = starts[r]
    hi = starts[r + 1]
    u = offsets[r] - 1
    prev = int(-1)
    for j in range(lo, hi):
        c = cols[ids[j]]
        if c != prev:
            u += 1
            columns[u] = c
            first[u] = j
        if c >= 0:
            last[u] = j + 1
        prev = c


@wp.kernel
def drop_zero_blocks(rows: wp.array(dtype=int), values: wp.array(dtype=Any), out: wp.array(dtype=int)):
    """out[t] := rows[t], or -1 where values[t] is zero (every coefficient; NaN is not zero)."""
    t = wp.tid()
    r = rows[t]
    if _is_zero(values[t]):
        r = -1
    out[t] = r


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


def _scan(counts, device):
    """Exclusive scan of ``counts`` (n + 1 entries, the last 0): starts, with starts[n] = total."""
    out = wp.empty(counts.shape[0], dtype=int, device=device)
    wp.utils.array_scan(counts, out, inclusive=False)
    return out


def _last(a):
    return int(a[a.shape[0] - 1:].numpy()[0])


def _blocks(starts, ids, cols, nrow, device):
    """From rows' (unsorted) entry ranges: (offsets, columns, first, last, ids sorted, nnz)."""
    row_nnz = wp.zeros(nrow + 1, dtype=int, device=device)
    if nrow:
        launch(sort_and_count, dim=nrow, device=device, inputs=[starts, ids, cols, row_nnz])
    offsets = _scan(row_nnz, device)
    nnz = _last(offsets)
    columns, first, last = (wp.empty(nnz, dtype=int, device=device) for _ in range(3))
    if nrow:
        launch(write_blocks, dim=nrow, device=device, inputs=[starts, ids, cols, offsets, columns, first, last])
    return offsets, columns, first, last, ids, nnz


def entry_segments(rows, cols, nrow, ncol, device):
    """Group the entries (rows[t], cols[t]) (int32 device arrays; entries outside the matrix are
    dropped) into compact blocks: (offsets, columns, first, last, order, nnz): block b sums
    the entries order[first[b]:last[b]]."""
    n = rows.shape[0]
    counts = wp.zeros(nrow + 1, dtype=int, device=device)
    if n:
        launch(count_entries, dim=n, device=device, inputs=[rows, cols, nrow, ncol, counts])
    starts = _scan(counts, device)
    ids = wp.empty(max(_last(starts), 0), dtype=int, device=device)
    if n:
        counts.zero_()
        launch(bucket_entries, dim=n, device=device, inputs=[rows, cols, nrow, ncol, starts, counts, ids])
    return _blocks(starts, ids, cols, nrow, device)


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
    marker = wp.full(threads * max(y.ncol, 1), -1, dtype=int, device=device)
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
