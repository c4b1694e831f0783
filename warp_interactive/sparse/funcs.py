"""The @wp.func helpers of ``warp.sparse`` that kernels (ours and users') call: the row holding
a block, the block at (row, col), the end of a row's active range."""

import warp_interactive as wp


@wp.func
def bsr_row_index(offsets: wp.array(dtype=int), row_count: int, block_index: int):
    """The row holding block ``block_index`` (``offsets[row] <= block_index < offsets[row + 1]``;
    empty rows are skipped), or -1 when the index is outside ``[0, offsets[row_count])``."""
    if block_index < 0 or block_index >= offsets[row_count]:
        return -1
    lo = int(0)
    hi = row_count
    while hi - lo > 1:      # offsets[lo] <= block_index < offsets[hi] throughout
        mid = (lo + hi) // 2
        if offsets[mid] <= block_index:
            lo = mid
        else:
            hi = mid
    return lo


@wp.func
def bsr_row_index(offsets: wp.array(dtype=int), row_count: int, block_index: int,  # noqa: F811
                  row_counts: wp.array(dtype=int)):
    """As above for a matrix with row capacity: only the first ``row_counts[row]`` blocks of a
    row are active (``row_counts`` None: every stored block is)."""
    row = bsr_row_index(offsets, row_count, block_index)
    if row_counts.shape[0] > 0 and row >= 0:
        if block_index >= offsets[row] + row_counts[row]:
            row = -1
    return row


@wp.func
def row_end(offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int), row: int):
    """One past the last active block of ``row``."""
    if row_counts.shape[0] > 0:
        return offsets[row] + row_counts[row]
    return offsets[row + 1]


@wp.func
def _search_row(col: int, lo: int, hi: int, columns: wp.array(dtype=int)):
    """Binary search of ``col`` in the sorted ``columns[lo:hi]``; -1 when absent."""
    while lo < hi:
        mid = (lo + hi) // 2
        c = columns[mid]
        if c == col:
            return mid
        if c < col:
            lo = mid + 1
        else:
            hi = mid
    return -1


@wp.func
def bsr_block_index(row: int, col: int, bsr_offsets: wp.array(dtype=int), bsr_columns: wp.array(dtype=int)):
    """The index of the block at block coordinates (row, col), or -1 when there is none (the
    columns of each row are sorted)."""
    if row < 0:
        return -1
    return _search_row(col, bsr_offsets[row], bsr_offsets[row + 1], bsr_columns)


@wp.func
def bsr_block_index(row: int, col: int, bsr_offsets: wp.array(dtype=int),  # noqa: F811
                    bsr_columns: wp.array(dtype=int), bsr_row_counts: wp.array(dtype=int)):
    """As above, searching only the active blocks of a matrix with row capacity."""
    if row < 0:
        return -1
    return _search_row(col, bsr_offsets[row], row_end(bsr_offsets, bsr_row_counts, row), bsr_columns)
