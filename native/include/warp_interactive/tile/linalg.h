// Tile linear algebra, scans and sorting: matmul (register-blocked), Cholesky and triangular
// solves, prefix scans, a stable key/value sort. Included by tile.h.
#pragma once

namespace wp {

// half and bfloat16 tiles multiply and accumulate in float32, as tensor cores do
template <typename T> struct tile_acc { typedef T type; };
template <> struct tile_acc<half> { typedef float32 type; };
template <> struct tile_acc<bfloat16> { typedef float32 type; };

// c[i][j] = alpha * sum_k a[i][k] b[k][j] + beta * c[i][j] over rows [i0, i1) and columns [j0, j1)
// (all row-major): the plain loops, for edges, half tiles and the GPU
template <typename T, int M, int N, int K>
WPI_FUNC void tile_gemm_plain(T* c, const T* a, const T* b, float64 alpha, float64 beta, int i0, int i1,
                              int j0, int j1)
{
    typedef typename tile_acc<T>::type A;
    const A al = A(alpha), be = A(beta);
    for (int i = i0; i < i1; ++i)
        for (int j = j0; j < j1; ++j) {
            A s = A(0);
            for (int k = 0; k < K; ++k) s += A(a[i * K + k]) * A(b[k * N + j]);
            T& out = c[i * N + j];
            out = be == A(0) ? T(al * s) : T(al * s + be * A(out));   // beta = 0: out is not read
        }
}

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
// The CPU kernel for float/double: blocks of MR rows x NV vectors of c stay in registers across
// the whole k loop (GCC's vector extensions: 32-byte vectors, two SSE halves where AVX is
// missing). Left to itself GCC vectorised the k loop (strided) and reached 1-2 GFLOP/s on 64x64.
// rows [i0, i0 + MR * n) in blocks of MR; returns the first row not done
template <typename A, int MR, int M, int N, int K>
inline int tile_gemm_rows(A* c, const A* a, const A* b, A al, A be, int i0)
{
    typedef A V __attribute__((vector_size(32)));
    constexpr int L = int(32 / sizeof(A)), NV = 2, NR = NV * L, NB = N / NR * NR;
    const int i1 = i0 + (M - i0) / MR * MR;
    for (int i = i0; i < i1; i += MR)
        for (int j = 0; j < NB; j += NR) {
            V acc[MR][NV];
            for (int r = 0; r < MR; ++r)
                for (int v = 0; v < NV; ++v) acc[r][v] = V{};
            for (int k = 0; k < K; ++k) {
                V bv[NV];
                for (int v = 0; v < NV; ++v) __builtin_memcpy(&bv[v], b + k * N + j + v * L, sizeof(V));
                for (int r = 0; r < MR; ++r) {
                    const A av = a[(i + r) * K + k];
                    for (int v = 0; v < NV; ++v) acc[r][v] += av * bv[v];
                }
            }
            for (int r = 0; r < MR; ++r)
                for (int v = 0; v < NV; ++v) {
                    V cv = al * acc[r][v];
                    A* out = c + (i + r) * N + j + v * L;
                    if (be != A(0)) {   // beta = 0: out is not read (it may hold NaN), as in warp-lang
                        V old;
                        __builtin_memcpy(&old, out, sizeof(V));
                        cv += be * old;
                    }
                    __builtin_memcpy(out, &cv, sizeof(V));
                }
        }
    return i1;
}
// 6 rows x 2 vectors = 12 accumulators (of 16 vector registers); leftover rows in blocks of 2, 1
template <typename A, int M, int N, int K>
inline void tile_gemm_blocked(A* c, const A* a, const A* b, float64 alpha, float64 beta)
{
    constexpr int NR = int(2 * 32 / sizeof(A)), NB = N / NR * NR;
    const A al = A(alpha), be = A(beta);
    int i = tile_gemm_rows<A, 6, M, N, K>(c, a, b, al, be, 0);
    i = tile_gemm_rows<A, 2, M, N, K>(c, a, b, al, be, i);
    tile_gemm_rows<A, 1, M, N, K>(c, a, b, al, be, i);
    tile_gemm_plain<A, M, N, K>(c, a, b, alpha, beta, 0, M, NB, N);
}
template <typename T, int M, int N, int K>
struct tile_gemm_dispatch {
    static void run(T* c, const T* a, const T* b, float64 al, float64 be)
    {
        tile_gemm_plain<T, M, N, K>(c, a, b, al, be, 0, M, 0, N);
    }
};
template <int M, int N, int K>
struct tile_gemm_dispatch<float32, M, N, K> {
    static void run(float32* c, const float32* a, const float32* b, float64 al, float64 be)
    {
        tile_gemm_blocked<float32, M, N, K>(c, a, b, al, be);
    }
};
template <int M, int N, int K>
struct tile_gemm_dispatch<float64, M, N, K> {
    static void run(float64* c, const float64* a, const float64* b, float64 al, float64 be)
    {
        tile_gemm_blocked<float64, M, N, K>(c, a, b, al, be);
    }
};
#endif

template <typename T, int M, int N, int K>
WPI_FUNC void tile_gemm(T* c, const T* a, const T* b, float64 alpha, float64 beta)
{
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
    tile_gemm_dispatch<T, M, N, K>::run(c, a, b, alpha, beta);
#else
    tile_gemm_plain<T, M, N, K>(c, a, b, alpha, beta, 0, M, 0, N);
#endif
}

// a tile's elements as T: the tile's own storage when it holds T, else a converted copy (a, b and
// out of tile_matmul may each be float16/32/64, as in warp-lang; the product is computed in T)
template <typename T, typename S, int R, int C>
struct tile_as {
    tile_t<T, R, C> copy;
    const T* data;
    WPI_FUNC explicit tile_as(const tile_t<S, R, C>& s)
    {
        for (int i = 0; i < R * C; ++i) copy.data[i] = T(s.data[i]);
        data = copy.data;
    }
};
template <typename T, int R, int C>
struct tile_as<T, T, R, C> {
    const T* data;
    WPI_FUNC explicit tile_as(const tile_t<T, R, C>& s) : data(s.data) {}
};

// out = alpha * a @ b + beta * out_in (the out-parameter form: computed in out's dtype T) and
// out = alpha * a @ b (computed in a's dtype T)
template <typename T, int M, int N, int K, typename TA, typename TB>
WPI_FUNC tile_t<T, M, N> tile_matmul_acc(const tile_t<TA, M, K>& a, const tile_t<TB, K, N>& b,
                                         const tile_t<T, M, N>& out, float64 alpha, float64 beta)
{
    tile_t<T, M, N> c = out;
    const tile_as<T, TA, M, K> av(a);
    const tile_as<T, TB, K, N> bv(b);
    tile_gemm<T, M, N, K>(c.data, av.data, bv.data, alpha, beta);
    return c;
}
template <typename T, int M, int N, int K, typename TB>
WPI_FUNC tile_t<T, M, N> tile_matmul(const tile_t<T, M, K>& a, const tile_t<TB, K, N>& b, float64 alpha)
{
    tile_t<T, M, N> c;
    const tile_as<T, TB, K, N> bv(b);
    tile_gemm<T, M, N, K>(c.data, a.data, bv.data, alpha, 0.0);
    return c;
}

// adj_a += alpha * adj_c @ b^T, adj_b += alpha * a^T @ adj_c, computed in adj_c's dtype T
template <typename T, int M, int N, int K, typename TA, typename TB>
WPI_FUNC void tile_matmul_backward(const tile_t<TA, M, K>& a, const tile_t<TB, K, N>& b, float64 alpha,
                                   tile_t<TA, M, K>& adj_a, tile_t<TB, K, N>& adj_b, const tile_t<T, M, N>& adj_c)
{
    tile_t<T, N, K> bt;
    for (int i = 0; i < K; ++i)
        for (int j = 0; j < N; ++j) bt.data[j * K + i] = T(b.data[i * N + j]);
    tile_t<T, M, K> ga;
    tile_gemm<T, M, K, N>(ga.data, adj_c.data, bt.data, alpha, 0.0);
    for (int i = 0; i < M * K; ++i) adj_a.data[i] = add(adj_a.data[i], TA(ga.data[i]));
    tile_t<T, K, M> at;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < K; ++j) at.data[j * M + i] = T(a.data[i * K + j]);
    tile_t<T, K, N> gb;
    tile_gemm<T, K, N, M>(gb.data, at.data, adj_c.data, alpha, 0.0);
    for (int i = 0; i < K * N; ++i) adj_b.data[i] = add(adj_b.data[i], TB(gb.data[i]));
}
template <typename T, int M, int N, int K, typename TB>
WPI_FUNC void adj_tile_matmul(const tile_t<T, M, K>& a, const tile_t<TB, K, N>& b, float64 alpha,
                              tile_t<T, M, K>& adj_a, tile_t<TB, K, N>& adj_b, float64&,
                              const tile_t<T, M, N>& adj_ret)
{
    tile_matmul_backward(a, b, alpha, adj_a, adj_b, adj_ret);
}
template <typename T, int M, int N, int K, typename TA, typename TB>
WPI_FUNC void adj_tile_matmul_acc(const tile_t<TA, M, K>& a, const tile_t<TB, K, N>& b, const tile_t<T, M, N>&,
                                  float64 alpha, float64 beta, tile_t<TA, M, K>& adj_a, tile_t<TB, K, N>& adj_b,
                                  tile_t<T, M, N>& adj_out, float64&, float64&, const tile_t<T, M, N>& adj_ret)
{
    tile_matmul_backward(a, b, alpha, adj_a, adj_b, adj_ret);
    for (int i = 0; i < M * N; ++i) adj_out.data[i] = add(adj_out.data[i], T(float64(adj_ret.data[i]) * beta));
}

// --- Cholesky factorisation and triangular solves --------------------------------------------------
template <typename T, int N>
WPI_FUNC tile_t<T, N, N> tile_square_transpose(const tile_t<T, N, N>& a)
{
    tile_t<T, N, N> r;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) r.data[i * N + j] = a.data[j * N + i];
    return r;
}

// A = L L^T for symmetric positive definite A, reading only A's lower triangle; the upper
// triangle of the result is zero.
template <typename T, int N>
WPI_FUNC tile_t<T, N, N> tile_cholesky_lower(const tile_t<T, N, N>& a)
{
    tile_t<T, N, N> l;
    for (int i = 0; i < N * N; ++i) l.data[i] = T(0);
    for (int j = 0; j < N; ++j) {
        T d = a.data[j * N + j];
        for (int k = 0; k < j; ++k) d -= l.data[j * N + k] * l.data[j * N + k];
        const T ljj = sqrt(d);
        l.data[j * N + j] = ljj;
        for (int i = j + 1; i < N; ++i) {
            T s = a.data[i * N + j];
            for (int k = 0; k < j; ++k) s -= l.data[i * N + k] * l.data[j * N + k];
            l.data[i * N + j] = s / ljj;
        }
    }
    return l;
}

// op(m) x = y with op(m) = m or m^T (TRANS), m triangular (LOWER: its lower triangle is read,
// else its upper one); y is (N,) or (N, M): every column solved. Forward substitution when op(m)
// is lower triangular, back substitution otherwise.
template <typename T, int N, int M, bool LOWER, bool TRANS, typename Y>
WPI_FUNC Y tile_tri_solve(const tile_t<T, N, N>& m, const Y& y)
{
    constexpr bool forward = LOWER != TRANS;
    Y x = y;
    for (int c = 0; c < M; ++c)
        for (int s = 0; s < N; ++s) {
            const int i = forward ? s : N - 1 - s;
            T acc = x.data[i * M + c];
            for (int t = 0; t < s; ++t) {
                const int k = forward ? t : N - 1 - t;
                acc -= (TRANS ? m.data[k * N + i] : m.data[i * N + k]) * x.data[k * M + c];
            }
            x.data[i * M + c] = acc / m.data[i * N + i];
        }
    return x;
}
// x = op(m)^-1 y: adj_y += op(m)^-T adj_x = g, adj_op(m) -= g x^T on m's triangle
template <typename T, int N, int M, bool LOWER, bool TRANS, typename Y>
WPI_FUNC void adj_tile_tri_solve(const tile_t<T, N, N>& m, const Y& y, tile_t<T, N, N>& adj_m, Y& adj_y,
                                 const Y& adj_x)
{
    const Y x = tile_tri_solve<T, N, M, LOWER, TRANS>(m, y);
    const Y g = tile_tri_solve<T, N, M, LOWER, !TRANS>(m, adj_x);
    for (int i = 0; i < Y::size; ++i) adj_y.data[i] = add(adj_y.data[i], g.data[i]);
    for (int a = 0; a < N; ++a)
        for (int b = LOWER ? 0 : a; b <= (LOWER ? a : N - 1); ++b) {
            T s = T(0);
            for (int c = 0; c < M; ++c)
                s += TRANS ? g.data[b * M + c] * x.data[a * M + c] : g.data[a * M + c] * x.data[b * M + c];
            adj_m.data[a * N + b] -= s;
        }
}

// dA = L phi(L^-1 dA L^-T) for symmetric dA, phi = the lower triangle with its diagonal halved, so
// the adjoint is P = L^-T phi(L^T adj_L) L^-1; A's lower element (i, j) stands for (i, j) and (j, i).
template <typename T, int N>
WPI_FUNC void adj_tile_cholesky_lower(const tile_t<T, N, N>& a, tile_t<T, N, N>& adj_a, const tile_t<T, N, N>& adj_l)
{
    const tile_t<T, N, N> l = tile_cholesky_lower(a);
    tile_t<T, N, N> phi;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
            T s = T(0);
            for (int k = i; k < N && i >= j; ++k) s += l.data[k * N + i] * adj_l.data[k * N + j];
            phi.data[i * N + j] = i == j ? T(s * T(0.5)) : s;
        }
    // P^T = L^-T (L^-T phi)^T: two transposed solves
    const tile_t<T, N, N> q = tile_tri_solve<T, N, N, true, true>(l, phi);
    const tile_t<T, N, N> pt = tile_tri_solve<T, N, N, true, true>(l, tile_square_transpose(q));
    for (int i = 0; i < N; ++i)
        for (int j = 0; j <= i; ++j)
            adj_a.data[i * N + j] += i == j ? pt.data[i * N + i] : T(pt.data[i * N + j] + pt.data[j * N + i]);
}

// lower: A = L L^T from A's lower triangle; upper: A = U^T U from its upper triangle, U being
// the lower factor of A^T, transposed. The other triangle of the result is zero.
template <typename T, int N, bool UPPER>
WPI_FUNC tile_t<T, N, N> tile_cholesky(const tile_t<T, N, N>& a)
{
    if (UPPER) return tile_square_transpose(tile_cholesky_lower(tile_square_transpose(a)));
    return tile_cholesky_lower(a);
}
template <typename T, int N, bool UPPER>
WPI_FUNC void adj_tile_cholesky(const tile_t<T, N, N>& a, tile_t<T, N, N>& adj_a, const tile_t<T, N, N>& adj_ret)
{
    if (!UPPER) return adj_tile_cholesky_lower(a, adj_a, adj_ret);
    tile_t<T, N, N> adj_at;
    for (int i = 0; i < N * N; ++i) adj_at.data[i] = T(0);
    adj_tile_cholesky_lower(tile_square_transpose(a), adj_at, tile_square_transpose(adj_ret));
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) adj_a.data[i * N + j] += adj_at.data[j * N + i];
}

// L x = y (forward substitution) and U x = y (back substitution), y a (N,) or (N, M) tile
#define WPI_TILE_TRI_SOLVE(NAME, LOWER)                                                            \
    template <typename T, int N, typename Y>                                                       \
    WPI_FUNC Y NAME(const tile_t<T, N, N>& f, const Y& y)                                          \
    {                                                                                              \
        return tile_tri_solve<T, N, Y::size / N, LOWER, false>(f, y);                              \
    }                                                                                              \
    template <typename T, int N, typename Y>                                                       \
    WPI_FUNC void adj_##NAME(const tile_t<T, N, N>& f, const Y& y, tile_t<T, N, N>& adj_f, Y& adj_y, \
                             const Y& adj_ret)                                                     \
    {                                                                                              \
        adj_tile_tri_solve<T, N, Y::size / N, LOWER, false>(f, y, adj_f, adj_y, adj_ret);          \
    }
WPI_TILE_TRI_SOLVE(tile_lower_solve, true)
WPI_TILE_TRI_SOLVE(tile_upper_solve, false)
#undef WPI_TILE_TRI_SOLVE
// A x = y from A's factor: lower, L z = y then L^T x = z; upper (A = U^T U), U^T z = y then U x = z
template <typename T, int N, bool UPPER, typename Y>
WPI_FUNC Y tile_cholesky_solve(const tile_t<T, N, N>& l, const Y& y)
{
    constexpr int M = Y::size / N;
    return tile_tri_solve<T, N, M, !UPPER, !UPPER>(l, tile_tri_solve<T, N, M, !UPPER, UPPER>(l, y));
}
template <typename T, int N, bool UPPER, typename Y>
WPI_FUNC void adj_tile_cholesky_solve(const tile_t<T, N, N>& l, const Y& y, tile_t<T, N, N>& adj_l, Y& adj_y,
                                      const Y& adj_ret)
{
    constexpr int M = Y::size / N;
    const Y z = tile_tri_solve<T, N, M, !UPPER, UPPER>(l, y);
    Y adj_z;
    for (int i = 0; i < Y::size; ++i) adj_z.data[i] = T(0);
    adj_tile_tri_solve<T, N, M, !UPPER, !UPPER>(l, z, adj_l, adj_z, adj_ret);
    adj_tile_tri_solve<T, N, M, !UPPER, UPPER>(l, y, adj_l, adj_y, adj_z);
}

// adds d (a scalar or a (N,) tile) to the diagonal
template <typename T, int N>
WPI_FUNC tile_t<T, N, N> tile_diag_add(const tile_t<T, N, N>& a, const tile_t<T, N>& d)
{
    tile_t<T, N, N> r = a;
    for (int i = 0; i < N; ++i) r.data[i * N + i] = add(r.data[i * N + i], d.data[i]);
    return r;
}
template <typename T, int N>
WPI_FUNC void adj_tile_diag_add(const tile_t<T, N, N>&, const tile_t<T, N>&, tile_t<T, N, N>& adj_a,
                                tile_t<T, N>& adj_d, const tile_t<T, N, N>& adj_ret)
{
    for (int i = 0; i < N * N; ++i) adj_a.data[i] = add(adj_a.data[i], adj_ret.data[i]);
    for (int i = 0; i < N; ++i) adj_d.data[i] = add(adj_d.data[i], adj_ret.data[i * N + i]);
}

// --- prefix scans over the row-major elements ---------------------------------------------------------
// r_i = f(r_{i-1}, a_i): the inclusive sum, max and min scans
// (A partial cooperative block leaves the missing lanes' elements out, as warp-lang's CPU tiles do:
// block_absent in cpu_blocks.h; such an element's own slot gets the scan of the elements before it,
// and no gradient.)
template <typename Tl, typename F>
WPI_FUNC Tl tile_scan_inclusive_with(const Tl& a, F f)
{
    const block_absent_t gone = block_absent();
    Tl r;
    r.data[0] = a.data[0];
    for (int i = 1; i < Tl::size; ++i) r.data[i] = gone(i) ? r.data[i - 1] : f(r.data[i - 1], a.data[i]);
    return r;
}
template <typename Tl>
WPI_FUNC Tl tile_scan_inclusive(const Tl& a)
{
    return tile_scan_inclusive_with(a, tile_add_fn());
}
template <typename Tl>
WPI_FUNC void adj_tile_scan_inclusive(const Tl&, Tl& adj_a, const Tl& adj_ret)
{
    const block_absent_t gone = block_absent();
    auto s = adj_ret.data[Tl::size - 1];   // d r_j / d a_i = 1 for j >= i: a suffix sum
    s = sub(s, s);
    for (int i = Tl::size - 1; i >= 0; --i) {
        s = add(s, adj_ret.data[i]);
        if (!gone(i)) adj_a.data[i] = add(adj_a.data[i], s);
    }
}
template <typename Tl>
WPI_FUNC Tl tile_scan_exclusive(const Tl& a)
{
    const block_absent_t gone = block_absent();
    Tl r;
    r.data[0] = sub(a.data[0], a.data[0]);
    for (int i = 1; i < Tl::size; ++i) r.data[i] = gone(i - 1) ? r.data[i - 1] : add(r.data[i - 1], a.data[i - 1]);
    return r;
}
template <typename Tl>
WPI_FUNC void adj_tile_scan_exclusive(const Tl&, Tl& adj_a, const Tl& adj_ret)
{
    const block_absent_t gone = block_absent();
    auto s = adj_ret.data[0];
    s = sub(s, s);
    for (int i = Tl::size - 1; i >= 1; --i) {
        s = add(s, adj_ret.data[i]);
        if (!gone(i - 1)) adj_a.data[i - 1] = add(adj_a.data[i - 1], s);
    }
}
template <typename Tl>
WPI_FUNC Tl tile_scan_max_inclusive(const Tl& a)
{
    return tile_scan_inclusive_with(a, tile_max_fn());
}
template <typename Tl>
WPI_FUNC Tl tile_scan_min_inclusive(const Tl& a)
{
    return tile_scan_inclusive_with(a, tile_min_fn());
}

// --- sort: stable, ascending by key, values moved with their keys (bottom-up merge sort) -----------
template <typename K, typename V>
WPI_FUNC void tile_sort(const K& keys, const V& values, K& keys_out, V& values_out)
{
    K kb;
    V vb;
    keys_out = keys;
    values_out = values;
    K* src_k = &keys_out;
    V* src_v = &values_out;
    K* dst_k = &kb;
    V* dst_v = &vb;
    constexpr int n = K::size;
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            int mid = lo + width < n ? lo + width : n;
            int hi = lo + 2 * width < n ? lo + 2 * width : n;
            int i = lo, j = mid;
            for (int o = lo; o < hi; ++o) {
                if (i < mid && (j >= hi || !(src_k->data[j] < src_k->data[i]))) {
                    dst_k->data[o] = src_k->data[i];
                    dst_v->data[o] = src_v->data[i++];
                } else {
                    dst_k->data[o] = src_k->data[j];
                    dst_v->data[o] = src_v->data[j++];
                }
            }
        }
        K* tk = src_k; src_k = dst_k; dst_k = tk;
        V* tv = src_v; src_v = dst_v; dst_v = tv;
    }
    if (src_k != &keys_out) {
        keys_out = *src_k;
        values_out = *src_v;
    }
}

}  // namespace wp
