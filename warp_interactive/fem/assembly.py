"""Integrated triplets to BSR matrices (warp.sparse)."""


def matrix_from_triplets(nrow, ncol, rows, cols, vals, block_type, output, add, bsr_options):
    from .. import sparse
    opts = dict(bsr_options or {})
    opts.pop("capacity", None)
    opts.pop("construction", None)
    if output is None or not add:
        if output is None:
            output = sparse.bsr_zeros(nrow, ncol, block_type=block_type, device=rows.device)
        sparse.bsr_set_from_triplets(output, rows, cols, vals, **opts)
        return output
    extra = sparse.bsr_zeros(nrow, ncol, block_type=block_type, device=rows.device)
    sparse.bsr_set_from_triplets(extra, rows, cols, vals, **opts)
    sparse.bsr_axpy(extra, output, alpha=1.0, beta=1.0)
    return output
