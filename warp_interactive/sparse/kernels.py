"""The value kernels of ``warp.sparse``: generic over block types (``Any``), differentiable, one
thread per destination block. The topology and the permutations they read come from
``segments.py`` (kernels) or ``topology.py`` (host); sums run in a fixed order, so results are
deterministic."""

from typing import Any

import warp_interactive as wp

from .funcs import bsr_row_index, row_end


@wp.kernel
def gather_sum(starts: wp.array(dtype=int), ends: wp.array(dtype=int), order: wp.array(dtype=int),
               src: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    """out[b] = sum of src[order[j]] over j in starts[b]:ends[b]."""
    b = wp.tid()
    lo, hi = starts[b], ends[b]
    v = out.dtype(0.0)
    if lo < hi:             # the first entry as is (a lone -0.0 stays -0.0)
        v = src[order[lo]]
    for j in range(lo + 1, hi):
        v += src[order[j]]
    out[b] = v


@wp.kernel
def gather_sum_ends(ends: wp.array(dtype=int), order: wp.array(dtype=int), src: wp.array(dtype=Any),
                    out: wp.array(dtype=Any)):
    """gather_sum with block b's entries at order[ends[b - 1]:ends[b]] (from 0 for b = 0)."""
    b = wp.tid()
    lo = int(0)
    if b > 0:
        lo = ends[b - 1]
    hi = ends[b]
    v = out.dtype(0.0)
    if lo < hi:
        v = src[order[lo]]
    for j in range(lo + 1, hi):
        v += src[order[j]]
    out[b] = v


@wp.kernel
def scatter_add(blocks: wp.array(dtype=int), src: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    """out[blocks[t]] += src[t] for the triplets with a block (order of sums not fixed)."""
    t = wp.tid()
    b = blocks[t]
    if b >= 0:
        wp.atomic_add(out, b, src[t])


@wp.kernel
def axpy_gather(starts: wp.array(dtype=int), ends: wp.array(dtype=int), order: wp.array(dtype=int), nx: int, alpha: Any,
                x: wp.array(dtype=Any), beta: Any, y: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    """out[b] = sum over the block's entries of alpha * x[k] (k < nx) or beta * y[k - nx]."""
    b = wp.tid()
    v = out.dtype(0.0)
    for j in range(starts[b], ends[b]):
        k = order[j]
        if k < nx:
            v += alpha * x[k]
        elif beta != type(beta)(0.0):
            v += beta * y[k - nx]
    out[b] = v


@wp.kernel
def mm_gather(starts: wp.array(dtype=int), ends: wp.array(dtype=int), order: wp.array(dtype=int), pair_x: wp.array(dtype=int),
              pair_y: wp.array(dtype=int), alpha: Any, x: wp.array(dtype=Any), y: wp.array(dtype=Any),
              out: wp.array(dtype=Any)):
    """out[b] = alpha * sum of x[pair_x[p]] @ y[pair_y[p]] over the block's products p."""
    b = wp.tid()
    v = out.dtype(0.0)
    for j in range(starts[b], ends[b]):
        p = order[j]
        v += x[pair_x[p]] * y[pair_y[p]]
    out[b] = alpha * v


@wp.kernel
def transpose_gather(starts: wp.array(dtype=int), ends: wp.array(dtype=int), order: wp.array(dtype=int),
                     src: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    """out[b] = sum of transpose(src[order[j]]) over the block's entries (matrix blocks)."""
    b = wp.tid()
    lo, hi = starts[b], ends[b]
    v = out.dtype(0.0)
    if lo < hi:
        v = wp.transpose(src[order[lo]])
    for j in range(lo + 1, hi):
        v += wp.transpose(src[order[j]])
    out[b] = v


@wp.kernel
def scale_values(alpha: Any, values: wp.array(dtype=Any)):
    i = wp.tid()
    values[i] = alpha * values[i]


@wp.kernel
def scale_into(alpha: Any, src: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = alpha * src[i]


@wp.kernel
def reblock_add(slot: wp.array(dtype=int), block: wp.array(dtype=int), src_r0: wp.array(dtype=int),
                src_c0: wp.array(dtype=int), dst_r0: wp.array(dtype=int), dst_c0: wp.array(dtype=int),
                src: wp.array3d(dtype=Any), out: wp.array3d(dtype=Any)):
    """Add each tile of a source block into its place in a destination block, with a scalar
    cast (tiles of distinct source blocks do not overlap unless the source has duplicates)."""
    t, i, j = wp.tid()
    v = src[block[t], src_r0[t] + i, src_c0[t] + j]
    wp.atomic_add(out, slot[t], dst_r0[t] + i, dst_c0[t] + j, out.dtype(v))


@wp.kernel
def fill_value(value: Any, out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = value


@wp.kernel
def get_diag(nrow: int, offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int),
             columns: wp.array(dtype=int), values: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    """out[row] = the (row, row) block, or zero (any duplicates summed)."""
    row = wp.tid()
    v = out.dtype(0.0)
    for k in range(offsets[row], row_end(offsets, row_counts, row)):
        if columns[k] == row:
            v += values[k]
    out[row] = v


@wp.kernel
def mv_rows(alpha: Any, offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int),
            columns: wp.array(dtype=int), values: wp.array(dtype=Any), x: wp.array(dtype=Any),
            beta: Any, y: wp.array(dtype=Any)):
    """y[row] = alpha * sum_k values[k] x[columns[k]] + beta * y[row] (beta zero: y not read)."""
    row = wp.tid()
    v = y.dtype(0.0)
    for k in range(offsets[row], row_end(offsets, row_counts, row)):
        v += values[k] * x[columns[k]]
    v = alpha * v
    if beta != type(beta)(0.0):
        v += beta * y[row]
    y[row] = v


@wp.kernel(enable_backward=False)    # launched only when no gradient is wanted, not taped
def mv_row_chunks(alpha: Any, offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int),
                  columns: wp.array(dtype=int), values: wp.array(dtype=Any), x: wp.array(dtype=Any),
                  beta: Any, y: wp.array(dtype=Any), nrow: int, chunk: int):
    """mv_rows over the rows [t * chunk, (t + 1) * chunk) of thread t: on the CPU the per-index
    set-up (argument loads, the interrupt flag) is paid once per chunk, and the loop over
    consecutive rows streams through values and columns."""
    t = wp.tid()
    first = t * chunk
    last = wp.min(first + chunk, nrow)
    # beta tested once, not per row: each loop is then a plain row loop the compiler keeps tight.
    # Unsigned indices (stored offsets and columns are never negative): the compiler then drops
    # each access's negative-index wrap (which doubled the inner loop's instructions).
    if beta == type(beta)(0.0):
        for row in range(first, last):
            v = y.dtype(0.0)
            for k in range(wp.uint32(offsets[row]), wp.uint32(row_end(offsets, row_counts, row))):
                v += values[k] * x[wp.uint32(columns[k])]
            y[row] = alpha * v
    else:
        for row in range(first, last):
            v = y.dtype(0.0)
            for k in range(wp.uint32(offsets[row]), wp.uint32(row_end(offsets, row_counts, row))):
                v += values[k] * x[wp.uint32(columns[k])]
            y[row] = alpha * v + beta * y[row]


@wp.kernel
def mv_transpose_blocks(alpha: Any, nrow: int, offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int),
                        columns: wp.array(dtype=int), values: wp.array(dtype=Any), x: wp.array(dtype=Any),
                        y: wp.array(dtype=Any)):
    """y[columns[k]] += alpha * values[k]^T x[row] for every active block k (atomic)."""
    k = wp.tid()
    row = bsr_row_index(offsets, nrow, k, row_counts)
    if row >= 0:
        wp.atomic_add(y, columns[k], alpha * (x[row] * values[k]))


# --- sorts of each row's entries (segments.py and the assembly below) ---------------------------

@wp.func
def _pair_before(keys: wp.array(dtype=int), ids: wp.array(dtype=int), a: int, b: int):
    """Whether the pair at a sorts before the pair at b: by key, then by id."""
    return keys[a] < keys[b] or (keys[a] == keys[b] and ids[a] < ids[b])


@wp.func
def _swap_pairs(keys: wp.array(dtype=int), ids: wp.array(dtype=int), a: int, b: int):
    k = keys[a]
    keys[a] = keys[b]
    keys[b] = k
    i = ids[a]
    ids[a] = ids[b]
    ids[b] = i


@wp.func
def _sift_pairs(keys: wp.array(dtype=int), ids: wp.array(dtype=int), lo: int, root: int, n: int):
    i = root
    while 2 * i + 1 < n:
        child = 2 * i + 1
        if child + 1 < n and _pair_before(keys, ids, lo + child, lo + child + 1):
            child += 1
        if _pair_before(keys, ids, lo + i, lo + child):
            _swap_pairs(keys, ids, lo + i, lo + child)
            i = child
        else:
            i = n


@wp.func
def sort_pairs(keys: wp.array(dtype=int), ids: wp.array(dtype=int), lo: int, hi: int):
    """Sort the pairs (keys[j], ids[j]), j in lo:hi, in place: contiguous, no indirection."""
    n = hi - lo
    if n <= 32:     # insertion: fast for the few entries of a typical row; heapsort past it
        for i in range(lo + 1, hi):
            k = keys[i]
            v = ids[i]
            j = i - 1
            while j >= lo and (k < keys[j] or (k == keys[j] and v < ids[j])):
                keys[j + 1] = keys[j]
                ids[j + 1] = ids[j]
                j -= 1
            keys[j + 1] = k
            ids[j + 1] = v
    else:
        for root in range(n // 2 - 1, -1, -1):
            _sift_pairs(keys, ids, lo, root, n)
        for end in range(n - 1, 0, -1):
            _swap_pairs(keys, ids, lo, lo + end)
            _sift_pairs(keys, ids, lo, 0, end)


# --- compact assembly without a gradient (no tape): the values travel with the entries --------
# The bucket pass copies each entry's value next to its sort key, (column << 32) | entry id (one
# 64-bit compare orders by column, then by id); each row's (key, value) pairs are sorted and its
# blocks summed from contiguous memory, instead of gathering the values through the entry ids
# afterwards. Sums run in entry order, the first entry as is: the gather's results.

_ID_BITS = wp.constant(wp.int64(32))


@wp.func
def _swap_entries(keys: wp.array(dtype=wp.int64), vals: wp.array(dtype=Any), a: int, b: int):
    k = keys[a]
    keys[a] = keys[b]
    keys[b] = k
    v = vals[a]
    vals[a] = vals[b]
    vals[b] = v


@wp.func
def _sift_entries(keys: wp.array(dtype=wp.int64), vals: wp.array(dtype=Any), lo: int, root: int, n: int):
    i = root
    while 2 * i + 1 < n:
        child = 2 * i + 1
        if child + 1 < n and keys[lo + child] < keys[lo + child + 1]:
            child += 1
        if keys[lo + i] < keys[lo + child]:
            _swap_entries(keys, vals, lo + i, lo + child)
            i = child
        else:
            i = n


@wp.func
def _sort_entries(keys: wp.array(dtype=wp.int64), vals: wp.array(dtype=Any), lo: int, hi: int):
    """Sort the pairs (keys[j], vals[j]), j in lo:hi, by key (keys are distinct)."""
    n = hi - lo
    if n <= 32:     # insertion: fast for the few entries of a typical row; heapsort past it
        for i in range(lo + 1, hi):
            k = keys[i]
            v = vals[i]
            j = i - 1
            while j >= lo and k < keys[j]:
                keys[j + 1] = keys[j]
                vals[j + 1] = vals[j]
                j -= 1
            keys[j + 1] = k
            vals[j + 1] = v
    else:
        for root in range(n // 2 - 1, -1, -1):
            _sift_entries(keys, vals, lo, root, n)
        for end in range(n - 1, 0, -1):
            _swap_entries(keys, vals, lo, lo + end)
            _sift_entries(keys, vals, lo, 0, end)


@wp.kernel(enable_backward=False)
def bucket_entry_values(rows: wp.array(dtype=int), cols: wp.array(dtype=int), nrow: int, ncol: int,
                        starts: wp.array(dtype=int), cursor: wp.array(dtype=int), keys: wp.array(dtype=wp.int64),
                        src: wp.array(dtype=Any), vals: wp.array(dtype=Any), n: int, chunk: int):
    """Each entry inside the matrix: its key (column << 32 | id) and value into its row's range
    (any order). Thread t: the entries [t * chunk, (t + 1) * chunk)."""
    t = wp.tid()
    for e in range(t * chunk, wp.min(t * chunk + chunk, n)):
        r = rows[e]
        c = cols[e]
        if r >= 0 and r < nrow and c >= 0 and c < ncol:
            p = starts[r] + wp.atomic_add(cursor, r, 1)
            keys[p] = (wp.int64(c) << _ID_BITS) | wp.int64(e)
            vals[p] = src[e]


@wp.kernel(enable_backward=False)
def sort_entry_values(starts: wp.array(dtype=int), keys: wp.array(dtype=wp.int64), vals: wp.array(dtype=Any),
                      row_nnz: wp.array(dtype=int), nrow: int, chunk: int):
    """Sort each row's (key, value) pairs; row_nnz[row] := its number of distinct columns."""
    t = wp.tid()
    for r in range(t * chunk, wp.min(t * chunk + chunk, nrow)):
        lo = starts[r]
        hi = starts[r + 1]
        _sort_entries(keys, vals, lo, hi)
        n = int(0)
        prev = wp.int64(-1)
        for j in range(lo, hi):
            c = keys[j] >> _ID_BITS
            if c != prev:
                n += 1
            prev = c
        row_nnz[r] = n


@wp.kernel(enable_backward=False)
def write_entry_values(starts: wp.array(dtype=int), keys: wp.array(dtype=wp.int64), vals: wp.array(dtype=Any),
                       offsets: wp.array(dtype=int), columns: wp.array(dtype=int), values: wp.array(dtype=Any),
                       nrow: int, chunk: int):
    """Each row's blocks from its sorted pairs: columns, and values summed in entry order."""
    t = wp.tid()
    for r in range(t * chunk, wp.min(t * chunk + chunk, nrow)):
        u = offsets[r] - 1
        prev = wp.int64(-1)
        for j in range(starts[r], starts[r + 1]):
            c = keys[j] >> _ID_BITS
            if c != prev:
                u += 1
                columns[u] = int(c)
                values[u] = vals[j]
            else:
                values[u] = values[u] + vals[j]
            prev = c
