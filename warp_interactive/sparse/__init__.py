"""``warp.sparse``: block sparse row (BSR) matrices, CSR ones as the 1x1-block case.

warp-lang's public names and signatures: ``BsrMatrix`` (a kernel struct per block type,
``bsr_matrix_t``), construction from triplets, copies, sums, products, transposes, diagonals.
The topology of compact triplet assembly and of products is built by kernels (segments.py);
that of the masked/padded assignments, sums and transposes on the host with NumPy
(topology.py). Values are computed by kernels of this package, through the normal pipeline,
and are recorded on a ``wp.Tape``."""

from .funcs import bsr_block_index, bsr_row_index
from .matrix import (BSR_STATUS_ROW_CAPACITY_EXCEEDED, BSR_STATUS_SUCCESS, BsrMatrix, bsr_matrix_t, bsr_set_zero,
                     bsr_zeros)
from .ops import bsr_assign, bsr_axpy, bsr_axpy_work_arrays, bsr_compress, bsr_copy, bsr_scale
from .products import bsr_mm, bsr_mm_work_arrays, bsr_mv
from .structure import (bsr_diag, bsr_get_diag, bsr_identity, bsr_set_diag, bsr_set_identity, bsr_set_transpose,
                        bsr_transposed)
from .triplets import BsrTripletMap, bsr_from_triplets, bsr_set_from_mapped_values, bsr_set_from_triplets
from . import operators as _operators  # noqa: F401  (attaches BsrMatrix's arithmetic operators)

__all__ = [
    "BSR_STATUS_ROW_CAPACITY_EXCEEDED", "BSR_STATUS_SUCCESS", "BsrMatrix", "BsrTripletMap", "bsr_assign",
    "bsr_axpy", "bsr_axpy_work_arrays", "bsr_block_index", "bsr_compress", "bsr_copy", "bsr_diag",
    "bsr_from_triplets", "bsr_get_diag", "bsr_identity", "bsr_matrix_t", "bsr_mm", "bsr_mm_work_arrays", "bsr_mv",
    "bsr_row_index", "bsr_scale", "bsr_set_diag", "bsr_set_from_mapped_values", "bsr_set_from_triplets",
    "bsr_set_identity", "bsr_set_transpose", "bsr_set_zero", "bsr_transposed", "bsr_zeros",
]
