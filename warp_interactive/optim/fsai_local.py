"""The local fit shared by FSAI's set-up and its refit: A's equilibrated float64 scalar copy,
the entries of a support, its Cholesky solve, per-thread scratch, and the factor's rounding."""

import warp_interactive as wp
import warp_interactive.sparse as sparse

MAX_ROW = 64

# set-up only, never differentiated (as warp-lang's optim.linear): no adjoint code
wp.set_module_options({"enable_backward": False})


@wp.func
def entry(offsets: wp.array(dtype=int), columns: wp.array(dtype=int), values: wp.array(dtype=wp.float64),
           row: int, col: int):
    v = wp.float64(0.0)
    for k in range(offsets[row], offsets[row + 1]):
        if columns[k] == col:
            v += values[k]
    return v


@wp.func
def solve(t: int, s: int, offsets: wp.array(dtype=int), columns: wp.array(dtype=int),
           values: wp.array(dtype=wp.float64), isd: wp.array(dtype=wp.float64), floor: wp.float64,
           S: wp.array2d(dtype=int), L: wp.array2d(dtype=wp.float64), z: wp.array2d(dtype=wp.float64)):
    """z[t, :s] := A~[S,S]^-1 e_0 (S[t, 0] = i); returns z_i, or -1 for a pivot <= floor."""
    for a in range(s):
        for b in range(a + 1):
            L[t, a * 64 + b] = entry(offsets, columns, values, S[t, a], S[t, b]) * isd[S[t, a]] * isd[S[t, b]]
    for k in range(s):
        piv = L[t, k * 64 + k]
        for m in range(k):
            piv -= L[t, k * 64 + m] * L[t, k * 64 + m]
        if not (piv > floor):
            return wp.float64(-1.0)
        d = wp.sqrt(piv)
        L[t, k * 64 + k] = d
        for a in range(k + 1, s):
            v = L[t, a * 64 + k]
            for m in range(k):
                v -= L[t, a * 64 + m] * L[t, k * 64 + m]
            L[t, a * 64 + k] = v / d
    for a in range(s):          # L y = e_0
        v = wp.float64(0.0)
        if a == 0:
            v = wp.float64(1.0)
        for m in range(a):
            v -= L[t, a * 64 + m] * z[t, m]
        z[t, a] = v / L[t, a * 64 + a]
    for a in range(s - 1, -1, -1):      # L^T z = y
        v = z[t, a]
        for m in range(a + 1, s):
            v -= L[t, m * 64 + a] * z[t, m]
        z[t, a] = v / L[t, a * 64 + a]
    return z[t, 0]

@wp.kernel
def _inverse_sqrt_diag(d: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64), bad: wp.array(dtype=int)):
    i = wp.tid()
    v = d[i]
    if wp.isfinite(v) and v > wp.float64(0.0):
        out[i] = wp.float64(1.0) / wp.sqrt(v)
    else:
        out[i] = wp.float64(0.0)
        wp.atomic_add(bad, 0, 1)


def equilibrated(A):
    """A as compact float64 scalar CSR, and 1/sqrt of its diagonal (ValueError if not positive)."""
    C = sparse.bsr_compress(sparse.bsr_copy(A, scalar_type=wp.float64, block_shape=(1, 1)),
                            prune_numerical_zeros=False, inplace=True)
    n = C.nrow
    isd = wp.empty(n, dtype=wp.float64, device=A.device)
    bad = wp.zeros(1, dtype=int, device=A.device)
    if n:
        wp.launch(_inverse_sqrt_diag, dim=n, device=A.device, inputs=[sparse.bsr_get_diag(C), isd, bad])
    invalid = int(bad.numpy()[0])
    if invalid:
        raise ValueError(f"FSAI requires finite positive diagonals ({invalid} invalid rows)")
    return C, isd


def scratch(n, device):
    """Threads, rows per thread and the per-thread support, Cholesky and solution scratch."""
    threads = max(1, min(n, 64 if device.is_cpu else 4096))
    chunk = -(-n // threads) if n else 0
    S = wp.empty((threads, MAX_ROW), dtype=int, device=device)
    L = wp.empty((threads, MAX_ROW * MAX_ROW), dtype=wp.float64, device=device)
    z = wp.empty((threads, MAX_ROW), dtype=wp.float64, device=device)
    return threads, chunk, S, L, z


def rounded(vals, factor_dtype, scalar):
    """float64 factor values rounded to the storage type, kept in the matrix scalar type."""
    for dtype in (factor_dtype, scalar):
        if vals.dtype is not dtype:
            cast = wp.empty(vals.shape[0], dtype=dtype, device=vals.device)
            wp.utils.array_cast(vals, cast)
            vals = cast
    return vals
