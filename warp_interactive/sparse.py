"""``warp.sparse`` (the reference's block-sparse matrices): so far only ``bsr_row_index``, the
@wp.func kernels use to find the row of a block in BSR/CSR row offsets. The BSR matrix type and
its operations are open work (docs/compatibility.md)."""

from .lang.decorators import func
from .types.array import array


@func
def bsr_row_index(offsets: array(dtype=int), row_count: int, block_index: int):
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


@func
def bsr_row_index(offsets: array(dtype=int), row_count: int, block_index: int,  # noqa: F811
                  row_counts: array(dtype=int)):
    """As above for a matrix with row capacity: only the first ``row_counts[row]`` blocks of a
    row are active (``row_counts`` None: every stored block is)."""
    row = bsr_row_index(offsets, row_count, block_index)
    if row_counts and row >= 0:
        if block_index >= offsets[row] + row_counts[row]:
            row = -1
    return row
