"""FSAI ``reuse_pattern``: ``update()`` refits each row of G on the support chosen at set-up
(row i: {i} and the other columns of G's row i) for the new values of a matrix of the same
compact topology, by the same equilibrated Cholesky solve as the set-up; no new support search.
The new values are written into G's and G^T's arrays in place."""

import numpy as np

import warp_interactive as wp
import warp_interactive.sparse as sparse

from .fsai_local import MAX_ROW, equilibrated, rounded, scratch, solve


# set-up and application only, never differentiated (as warp-lang's optim.linear): no adjoint
# code, which would be most of the module's CUDA build
wp.set_module_options({"enable_backward": False})


@wp.kernel
def _refit_rows(offsets: wp.array(dtype=int), columns: wp.array(dtype=int), values: wp.array(dtype=wp.float64),
                isd: wp.array(dtype=wp.float64), nrow: int, chunk: int, floor: wp.float64,
                g_offsets: wp.array(dtype=int), g_columns: wp.array(dtype=int), S: wp.array2d(dtype=int),
                L: wp.array2d(dtype=wp.float64), z: wp.array2d(dtype=wp.float64), pos: wp.array2d(dtype=int),
                out_vals: wp.array(dtype=wp.float64), failed: wp.array(dtype=int)):
    t = wp.tid()
    for i in range(t * chunk, wp.min(t * chunk + chunk, nrow)):
        S[t, 0] = i
        s = int(1)
        for k in range(g_offsets[i], g_offsets[i + 1]):
            if g_columns[k] == i:
                pos[t, 0] = k
            else:
                S[t, s] = g_columns[k]
                pos[t, s] = k
                s += 1
        zi = solve(t, s, offsets, columns, values, isd, floor, S, L, z)
        if zi > wp.float64(0.0) and wp.isfinite(zi):
            scale = wp.float64(1.0) / wp.sqrt(zi)
            for a in range(s):
                out_vals[pos[t, a]] = z[t, a] * scale * isd[S[t, a]]
        else:
            wp.atomic_add(failed, 0, 1)


class Refit:
    """What ``FSAI.update`` needs: A's topology at set-up, the status counts, the settings."""

    def __init__(self, A, G, floor, factor_dtype, validate):
        nnz = A.nnz_sync()
        self.meta = _meta(A)
        self.offsets = A.offsets.numpy()[:A.nrow + 1].copy()
        self.columns = A.columns.numpy()[:nnz].copy()
        self.floor, self.factor_dtype, self.validate = floor, factor_dtype, validate
        self.status = wp.zeros(4, dtype=int, device=A.device)

    def _mismatches(self, A):
        """Rows whose stored columns differ from the set-up's (or the count of rows when the
        storage itself changed)."""
        off = A.offsets.numpy()[:A.nrow + 1]
        if not np.array_equal(off, self.offsets):
            return int(np.count_nonzero(np.diff(off) != np.diff(self.offsets))) or A.nrow
        cols = A.columns.numpy()[:self.columns.shape[0]]
        bad = np.flatnonzero(cols != self.columns)
        return int(np.unique(np.searchsorted(self.offsets, bad, side="right") - 1).shape[0])

    def update(self, M, A):
        if _meta(A) != self.meta or A.row_counts is not None or A.nnz_sync() != self.columns.shape[0]:
            raise ValueError("FSAI.update: the matrix's shape, block type, storage or number of blocks changed "
                             "since construction; rebuild the preconditioner")
        counts = np.zeros(4, dtype=np.int32)
        if self.validate:
            counts[0] = self._mismatches(A)
            if counts[0]:
                self.status.assign(counts)
                raise ValueError(f"FSAI.update: the matrix topology changed ({counts[0]} rows); rebuild the "
                                 "preconditioner")
        try:
            C, isd = equilibrated(A)
        except ValueError as e:
            counts[1] = int(str(e).split("(")[-1].split()[0])
            self.status.assign(counts)
            raise ValueError(f"FSAI.update: {e}") from None
        G = M.G
        vals = wp.empty(G.nnz, dtype=wp.float64, device=A.device)
        failed = wp.zeros(1, dtype=int, device=A.device)
        threads, chunk, S, L, z = scratch(C.nrow, A.device)
        pos = wp.empty((threads, MAX_ROW), dtype=int, device=A.device)
        if C.nrow:
            wp.launch(_refit_rows, dim=threads, device=A.device,
                      inputs=[C.offsets, C.columns, C.values, isd, C.nrow, chunk, wp.float64(self.floor),
                              G.offsets, G.columns, S, L, z, pos, vals, failed])
        counts[2] = int(failed.numpy()[0])
        vals = rounded(vals, self.factor_dtype, A.scalar_type)
        if not counts[2] and not np.all(np.isfinite(vals.numpy().astype(np.float64))):
            counts[2] = int(np.count_nonzero(~np.isfinite(vals.numpy().astype(np.float64))))
        self.status.assign(counts)
        if counts[2]:
            raise ValueError(f"FSAI.update: the local factorization of {counts[2]} rows failed on the fixed "
                             "supports; the previous factor is kept (rebuild to select new supports)")
        wp.copy(G.values, vals, count=G.nnz)
        wp.copy(M.GT.values, sparse.bsr_transposed(G).values, count=G.nnz)


def _meta(A):
    return (A.nrow, A.ncol, A.block_shape, A.scalar_type)
