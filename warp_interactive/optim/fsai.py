"""Adaptive factorized sparse approximate inverse (FSAI) of an SPD BSR matrix, as warp-lang's
``FSAI``: a lower-triangular ``G`` with ``G A G^T ~ I``, applied as ``M = G^T G``.

Each scalar row i of ``G`` is built on the device, independently: on the diagonally equilibrated
matrix (unit diagonal), its support S starts as {i} and grows by the column j < i, adjacent to
S in the graph of A, of largest gradient |(A g)_j| (warp-lang's ``max_step_size=1``); with
z = A[S,S]^-1 e_i (a Cholesky of A[S,S]), row i is z / sqrt(z_i). Growth stops at
``max_row_size`` entries, when the row's energy 1 / z_i improves by less than
``kap_tolerance`` (relative), when no candidate is left, or before a Cholesky pivot at or below
``pivot_floor`` (the row keeps its previous support and counts in ``truncated_rows``).
Blocks are expanded into scalar entries; the factor is computed in float64 and stored in
``factor_dtype``."""

import numpy as np

import warp_interactive as wp
import warp_interactive.sparse as sparse

from .fsai_local import MAX_ROW, entry, equilibrated, rounded, scratch, solve
from .fsai_refit import Refit
from .operators import LinearOperator, as_scalar_array

_FLOORS = {wp.float16: 1.0e-3, wp.float32: 1.0e-6, wp.float64: 1.0e-12}


# set-up and application only, never differentiated (as warp-lang's optim.linear): no adjoint
# code, which would be most of the module's CUDA build
wp.set_module_options({"enable_backward": False})


@wp.func
def _best_candidate(t: int, i: int, s: int, offsets: wp.array(dtype=int), columns: wp.array(dtype=int),
                    values: wp.array(dtype=wp.float64), isd: wp.array(dtype=wp.float64),
                    S: wp.array2d(dtype=int), z: wp.array2d(dtype=wp.float64)):
    """The column j < i outside S, adjacent to S, of largest |(A~ z)_j| (smallest j on ties), or -1."""
    best = int(-1)
    best_score = wp.float64(0.0)
    for a in range(s):
        row = S[t, a]
        for k in range(offsets[row], offsets[row + 1]):
            j = columns[k]
            fresh = j < i
            for b in range(s):
                if S[t, b] == j:
                    fresh = False
            if fresh:
                g = wp.float64(0.0)
                for b in range(s):
                    g += entry(offsets, columns, values, S[t, b], j) * isd[S[t, b]] * z[t, b]
                score = wp.abs(g * isd[j])
                if score > best_score or (score == best_score and score > wp.float64(0.0) and j < best):
                    best = j
                    best_score = score
    return best


@wp.kernel
def _fsai_rows(offsets: wp.array(dtype=int), columns: wp.array(dtype=int), values: wp.array(dtype=wp.float64),
               isd: wp.array(dtype=wp.float64), nrow: int, chunk: int, max_size: int, kap_tol: wp.float64,
               floor: wp.float64, S: wp.array2d(dtype=int), L: wp.array2d(dtype=wp.float64),
               z: wp.array2d(dtype=wp.float64), out_rows: wp.array(dtype=int), out_cols: wp.array(dtype=int),
               out_vals: wp.array(dtype=wp.float64), truncated: wp.array(dtype=int)):
    t = wp.tid()
    for i in range(t * chunk, wp.min(t * chunk + chunk, nrow)):
        S[t, 0] = i
        s = int(1)
        zi = solve(t, s, offsets, columns, values, isd, floor, S, L, z)
        energy = wp.float64(1.0) / zi
        growing = s < max_size
        while growing:
            j = _best_candidate(t, i, s, offsets, columns, values, isd, S, z)
            if j < 0:
                growing = False
            else:
                S[t, s] = j
                zi_new = solve(t, s + 1, offsets, columns, values, isd, floor, S, L, z)
                if zi_new <= wp.float64(0.0):   # rejected pivot: keep the previous support
                    wp.atomic_add(truncated, 0, 1)
                    zi = solve(t, s, offsets, columns, values, isd, floor, S, L, z)
                    growing = False
                else:
                    s += 1
                    zi = zi_new
                    new_energy = wp.float64(1.0) / zi
                    gain = (energy - new_energy) / energy
                    energy = new_energy
                    if gain < kap_tol or s >= max_size:
                        growing = False
        scale = wp.float64(1.0) / wp.sqrt(zi)
        for a in range(max_size):
            slot = i * max_size + a
            if a < s:
                out_rows[slot] = i
                out_cols[slot] = S[t, a]
                out_vals[slot] = z[t, a] * scale * isd[S[t, a]]
            else:
                out_rows[slot] = -1
                out_cols[slot] = 0
                out_vals[slot] = wp.float64(0.0)

def _check(A, max_row_size, kap_tolerance, pivot_floor, factor_dtype, reuse_pattern, max_step_size, defer_pattern,
           regularize_refit):
    if not isinstance(A, sparse.BsrMatrix) or A.shape[0] != A.shape[1] or A.block_shape[0] != A.block_shape[1]:
        raise ValueError("FSAI requires a square BSR matrix with square blocks")
    if A.scalar_type not in _FLOORS:
        raise TypeError("FSAI supports float16, float32 and float64")
    if not 1 <= int(max_row_size) <= MAX_ROW:
        raise ValueError(f"max_row_size must be in [1, {MAX_ROW}], got {max_row_size}")
    if not 0.0 <= kap_tolerance < 1.0:
        raise ValueError(f"kap_tolerance must be in [0, 1), got {kap_tolerance}")
    if pivot_floor is not None and not 0.0 < pivot_floor < 1.0:
        raise ValueError(f"pivot_floor must be in (0, 1), got {pivot_floor}")
    if factor_dtype not in (None, A.scalar_type, wp.float32):
        raise ValueError("factor_dtype must be the matrix scalar type or wp.float32")
    if int(max_step_size) != 1:
        raise ValueError("FSAI here grows supports one entry per step: max_step_size must be 1")
    if defer_pattern and not reuse_pattern:
        raise ValueError("defer_pattern requires reuse_pattern")
    if reuse_pattern and A.row_counts is not None:
        raise ValueError("reuse_pattern requires compact BSR storage; compact with bsr_compress")
    if defer_pattern or regularize_refit:
        raise ValueError("FSAI defer_pattern and regularize_refit are not available in warp_interactive; "
                         "use reuse_pattern=True and update(), or rebuild the preconditioner after changing A")

class FSAI(LinearOperator):
    """The FSAI preconditioner ``M = G^T G`` of an SPD BSR matrix (see the module docstring);
    pass it as ``M`` to the Krylov solvers. Attributes: ``G``, ``GT`` (scalar BSR matrices
    of A's scalar type, holding the factor rounded to ``factor_dtype``),
    ``truncated_rows``, ``source``."""

    def __init__(self, A, max_row_size=8, kap_tolerance=1.0e-3, pivot_floor=None, factor_dtype=None,
                 reuse_pattern=False, max_step_size=1, regularize_refit=False, validate_topology=True,
                 defer_pattern=False):
        _check(A, max_row_size, kap_tolerance, pivot_floor, factor_dtype, reuse_pattern, max_step_size, defer_pattern,
               regularize_refit)
        self.source = A
        self.pattern_ready = self.pattern_status = self.update_status = None
        floor = _FLOORS[A.scalar_type] if pivot_floor is None else float(pivot_floor)
        self.G = self._factor(A, int(max_row_size), float(kap_tolerance), floor, factor_dtype or A.scalar_type)
        self.GT = sparse.bsr_transposed(self.G)
        self._refit = Refit(A, self.G, floor, factor_dtype or A.scalar_type, validate_topology) if reuse_pattern else None
        self.update_status = self._refit.status if reuse_pattern else None
        self._tmp = wp.empty(A.shape[0], dtype=A.scalar_type, device=A.device)
        super().__init__(A.shape, A.dtype, A.device, self._apply)

    def update(self, A=None):
        """Refit the factor on its supports for ``A``'s new values (``None``: ``source``), in
        place (``G.values``, ``GT.values``: a captured application reads the new factor).
        Requires ``reuse_pattern=True`` and A's compact topology unchanged (checked unless
        ``validate_topology=False``). On failure it raises ValueError and keeps the previous
        factor; ``update_status`` holds [topology mismatches, invalid diagonals, failed rows, 0]."""
        if self._refit is None:
            raise ValueError("Construct FSAI with reuse_pattern=True before updating")
        A = self.source if A is None else A
        if not isinstance(A, sparse.BsrMatrix):
            raise ValueError("update requires a Warp BSR matrix")
        self._refit.update(self, A)
        self.source = A
        return self

    def _factor(self, A, max_size, kap_tol, floor, factor_dtype):
        device = A.device
        C, isd = equilibrated(A)
        n = C.nrow
        threads, chunk, S, L, z = scratch(n, device)
        rows, cols = (wp.empty(n * max_size, dtype=int, device=device) for _ in range(2))
        vals = wp.empty(n * max_size, dtype=wp.float64, device=device)
        truncated = wp.zeros(1, dtype=int, device=device)
        if n:
            wp.launch(_fsai_rows, dim=threads, device=device,
                      inputs=[C.offsets, C.columns, C.values, isd, n, chunk, max_size, kap_tol, floor, S, L, z,
                              rows, cols, vals, truncated])
        self.truncated_rows = int(truncated.numpy()[0])
        vals = rounded(vals, factor_dtype, A.scalar_type)
        G = sparse.bsr_from_triplets(n, n, rows, cols, vals, prune_numerical_zeros=False)
        check = G.values[: G.nnz_sync()].numpy().astype(np.float64)
        if not np.all(np.isfinite(check)):
            raise ValueError("FSAI factor lost finite entries or a positive diagonal")
        return G

    def _apply(self, x, y, z, alpha, beta):
        """z := alpha * G^T G x + beta * y."""
        xs, ys, zs = as_scalar_array(x), as_scalar_array(y), as_scalar_array(z)
        sparse.bsr_mv(self.G, xs, self._tmp, alpha=1.0, beta=0.0)
        if beta != 0.0 and zs.ptr != ys.ptr:
            wp.copy(zs, ys)
        sparse.bsr_mv(self.GT, self._tmp, zs, alpha=alpha, beta=beta)
