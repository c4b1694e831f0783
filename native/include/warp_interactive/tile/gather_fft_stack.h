// Tiles, part 3: indexed loads/stores (gather/scatter along one axis through a tile of indices),
// per-thread scatters into a tile, FFTs of complex (vec2) tiles, the block-wide stack. Included
// by tile.h.
#pragma once

namespace wp {

// tile_indexed_offset (tile.h) places an element of an indexed load or store in the array.
template <typename R, int NDIM, int AXIS, typename T, typename Ix>
WPI_FUNC R tile_load_indexed(const array_t<T>& a, const Ix& indices, int32 o0, int32 o1, int32 o2, int32 o3)
{
    R r;
    const int o[4] = {o0, o1, o2, o3};
    for (int n = 0; n < R::size; ++n) {
        bool inside;
        int64 off = tile_indexed_offset<AXIS, T, R>(a, NDIM, o, n, indices, inside);
        r.data[n] = inside ? *(const T*)((const char*)a.data + off) : T{};
    }
    return r;
}
template <typename R, int NDIM, int AXIS, typename T, typename Ix>
WPI_FUNC void adj_tile_load_indexed(const array_t<T>& a, const Ix& indices, int32 o0, int32 o1, int32 o2, int32 o3,
                                    array_t<T>&, Ix&, int32&, int32&, int32&, int32&, const R& adj_ret)
{
    if (!a.grad) return;    // (a cooperative block: each lane adds its own part of the gradient)
    const int o[4] = {o0, o1, o2, o3};
    for (int n = 0; n < R::size; ++n) {
        bool inside;
        int64 off = tile_indexed_offset<AXIS, T, R>(a, NDIM, o, n, indices, inside);
        if (inside) atomic_add_ptr((T*)((char*)a.grad + off), adj_ret.data[n]);
    }
}

template <int NDIM, int AXIS, typename T, typename Ix, typename Tl>
WPI_FUNC void tile_store_indexed(const array_t<T>& a, const Ix& indices, const Tl& t, int32 o0, int32 o1, int32 o2,
                                 int32 o3)
{
    if (block_lane() != 0) return;    // a cooperative block stores once (lane 0)
    const int o[4] = {o0, o1, o2, o3};
    for (int n = 0; n < Tl::size; ++n) {
        bool inside;
        int64 off = tile_indexed_offset<AXIS, T, Tl>(a, NDIM, o, n, indices, inside);
        if (inside) *(T*)((char*)a.data + off) = t.data[n];
    }
}
template <int NDIM, int AXIS, typename T, typename Ix, typename Tl>
WPI_FUNC void adj_tile_store_indexed_grad(const array_t<T>& a, const Ix& indices, int32 o0, int32 o1, int32 o2,
                                          int32 o3, Tl& adj_t, bool take)
{
    if (!a.grad || block_lane() != 0) return;    // a block stored once: lane 0 takes the gradient
    const int o[4] = {o0, o1, o2, o3};
    for (int n = 0; n < Tl::size; ++n) {
        bool inside;
        int64 off = tile_indexed_offset<AXIS, T, Tl>(a, NDIM, o, n, indices, inside);
        if (inside) adj_accum(adj_t.data[n], tile_grad_of(a, off, take));
    }
}
template <int NDIM, int AXIS, typename T, typename Ix, typename Tl>
WPI_FUNC void adj_tile_store_indexed(const array_t<T>& a, const Ix& indices, const Tl&, int32 o0, int32 o1,
                                     int32 o2, int32 o3, array_t<T>&, Ix&, Tl& adj_t, int32&, int32&, int32&, int32&)
{
    adj_tile_store_indexed_grad<NDIM, AXIS>(a, indices, o0, o1, o2, o3, adj_t, true);
}
template <int NDIM, int AXIS, typename T, typename Ix, typename Tl>
WPI_FUNC Tl tile_atomic_add_indexed(const array_t<T>& a, const Ix& indices, const Tl& t, int32 o0, int32 o1,
                                    int32 o2, int32 o3)
{
    Tl old = {};
    if (block_lane() == 0) {    // a cooperative block adds once (lane 0) and shares the old values
        const int o[4] = {o0, o1, o2, o3};
        for (int n = 0; n < Tl::size; ++n) {
            bool inside;
            int64 off = tile_indexed_offset<AXIS, T, Tl>(a, NDIM, o, n, indices, inside);
            old.data[n] = inside ? atomic_add_ptr((T*)((char*)a.data + off), t.data[n]) : T{};
        }
    }
    return block_width() > 1 ? block_broadcast(old, 0) : old;
}
template <int NDIM, int AXIS, typename T, typename Ix, typename Tl>
WPI_FUNC Tl tile_atomic_add_indexed_replay(const array_t<T>&, const Ix&, const Tl&, int32, int32, int32, int32)
{
    return Tl{};
}
template <int NDIM, int AXIS, typename T, typename Ix, typename Tl>
WPI_FUNC void adj_tile_atomic_add_indexed(const array_t<T>& a, const Ix& indices, const Tl& t, int32 o0, int32 o1,
                                          int32 o2, int32 o3, array_t<T>& adj_a, Ix& adj_i, Tl& adj_t, int32& a0,
                                          int32& a1, int32& a2, int32& a3, const Tl&)
{
    adj_tile_store_indexed_grad<NDIM, AXIS>(a, indices, o0, o1, o2, o3, adj_t, false);
}

// t[indices, ...]: rows (along axis 0) picked by a 1-d tile of indices, negative from the end
// t viewed as (OUTER, N, INNER), gathered along the middle axis: r[o, i, k] = t[o, indices[i], k].
// Negative indices count from the end; one outside the axis reads zeros (and takes no gradient).
template <typename R, int OUTER, int N, int INNER, typename A, typename Ix>
WPI_FUNC R tile_slice_indexed(const A& t, const Ix& indices)
{
    R r;
    for (int o = 0; o < OUTER; ++o)
        for (int i = 0; i < Ix::size; ++i) {
            const int src = tile_index(int32(indices.data[i]), N);
            for (int k = 0; k < INNER; ++k)
                r.data[(o * Ix::size + i) * INNER + k] =
                    src < 0 ? typename R::value_type{} : t.data[(o * N + src) * INNER + k];
        }
    return r;
}
template <typename R, int OUTER, int N, int INNER, typename A, typename Ix>
WPI_FUNC void adj_tile_slice_indexed(const A&, const Ix& indices, A& adj_t, Ix&, const R& adj_ret)
{
    for (int o = 0; o < OUTER; ++o)
        for (int i = 0; i < Ix::size; ++i) {
            const int src = tile_index(int32(indices.data[i]), N);
            if (src < 0) continue;
            for (int k = 0; k < INNER; ++k)
                adj_accum(adj_t.data[(o * N + src) * INNER + k], adj_ret.data[(o * Ix::size + i) * INNER + k]);
        }
}

// a thread's value into a tile (the block is one thread wide): add or write at one index (the
// indices come wrapped by tile_index: one outside the tile writes nothing)
template <typename Tl, typename V, typename... I>
WPI_FUNC Tl tile_scatter_add(const Tl& a, const V& value, bool has_value, I... idx)
{
    Tl r = a;
    const int k = tile_flat(a, int(idx)...);
    if (has_value && k >= 0) r.data[k] = add(r.data[k], value);
    return r;
}
template <typename Tl, typename V, typename... I>
WPI_FUNC Tl tile_scatter_masked(const Tl& a, const V& value, bool has_value, I... idx)
{
    Tl r = a;
    const int k = tile_flat(a, int(idx)...);
    if (has_value && k >= 0) r.data[k] = value;
    return r;
}

// Adjoints (one-lane blocks; per-lane merges of cooperative blocks stop the gradient): an add
// passes the tile's gradient through and gives the value the gradient at its index; a masked
// write gives the value that gradient and takes it from the overwritten element.
template <bool MASKED, typename Tl, typename V>
WPI_FUNC void adj_tile_scatter_impl(int k, bool has_value, Tl& adj_a, V& adj_value, const Tl& adj_ret)
{
    const bool hit = has_value && k >= 0;
    for (int i = 0; i < Tl::size; ++i)
        if (!(MASKED && hit && i == k)) adj_accum(adj_a.data[i], adj_ret.data[i]);
    if (hit) adj_accum(adj_value, adj_ret.data[k]);
}
#define WPI_SCATTER_ADJ(NAME, MASKED)                                                                      \
    template <typename Tl, typename V, typename I0>                                                        \
    WPI_FUNC void adj_##NAME(const Tl& a, const V&, bool h, I0 i, Tl& adj_a, V& adj_v, bool&, I0&,          \
                             const Tl& adj_ret)                                                            \
    {                                                                                                      \
        adj_tile_scatter_impl<MASKED>(tile_flat(a, int(i)), h, adj_a, adj_v, adj_ret);                     \
    }                                                                                                      \
    template <typename Tl, typename V, typename I0, typename I1>                                           \
    WPI_FUNC void adj_##NAME(const Tl& a, const V&, bool h, I0 i, I1 j, Tl& adj_a, V& adj_v, bool&, I0&,    \
                             I1&, const Tl& adj_ret)                                                       \
    {                                                                                                      \
        adj_tile_scatter_impl<MASKED>(tile_flat(a, int(i), int(j)), h, adj_a, adj_v, adj_ret);             \
    }                                                                                                      \
    template <typename Tl, typename V, typename I0, typename I1, typename I2>                              \
    WPI_FUNC void adj_##NAME(const Tl& a, const V&, bool h, I0 i, I1 j, I2 k, Tl& adj_a, V& adj_v, bool&,   \
                             I0&, I1&, I2&, const Tl& adj_ret)                                             \
    {                                                                                                      \
        adj_tile_scatter_impl<MASKED>(tile_flat(a, int(i), int(j), int(k)), h, adj_a, adj_v, adj_ret);     \
    }                                                                                                      \
    template <typename Tl, typename V, typename I0, typename I1, typename I2, typename I3>                 \
    WPI_FUNC void adj_##NAME(const Tl& a, const V&, bool h, I0 i, I1 j, I2 k, I3 l, Tl& adj_a, V& adj_v,    \
                             bool&, I0&, I1&, I2&, I3&, const Tl& adj_ret)                                 \
    {                                                                                                      \
        adj_tile_scatter_impl<MASKED>(tile_flat(a, int(i), int(j), int(k), int(l)), h, adj_a, adj_v,       \
                                      adj_ret);                                                            \
    }
WPI_SCATTER_ADJ(tile_scatter_add, false)
WPI_SCATTER_ADJ(tile_scatter_masked, true)
#undef WPI_SCATTER_ADJ

// --- FFT of complex (vec2) rows: the last dimension, unnormalised, NumPy's bin order -------------
// radix 2, in place: bit reversal then butterflies; (wr, wi)[m] = exp(sign 2 pi i m / n), m < n / 2
// (the twiddles of every stage: stage len uses m = k n / len), computed once per tile, not per
// butterfly (a sin and a cos per butterfly were most of the fft_poisson_navier_stokes_2d step)
template <typename T>
WPI_FUNC void tile_fft_row(vec_t<2, T>* x, int n, const T* wr, const T* wi)
{
    for (int i = 1, j = 0; i < n; ++i) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            vec_t<2, T> t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        const int half = len / 2, stride = n / len;
        for (int s = 0; s < n; s += len)
            for (int k = 0; k < half; ++k) {
                const T cr = wr[k * stride], ci = wi[k * stride];
                vec_t<2, T> u = x[s + k], v = x[s + k + half];
                const T vr = v.c[0] * cr - v.c[1] * ci, vi = v.c[0] * ci + v.c[1] * cr;
                x[s + k] = vec_t<2, T>(u.c[0] + vr, u.c[1] + vi);
                x[s + k + half] = vec_t<2, T>(u.c[0] - vr, u.c[1] - vi);
            }
    }
}

// (wr, wi)[m] = exp(sign 2 pi i m / n): m < n / 2 for radix 2, every m < n for the DFT; in
// double, so each twiddle is rounded once
template <int n, typename T>
WPI_FUNC void fft_twiddles_fill(T* wr, T* wi, T sign)
{
    for (int m = 0; m < ((n & (n - 1)) == 0 ? n / 2 : n); ++m) {
        const float64 ang = float64(sign) * 6.283185307179586476925286766559 * float64(m) / float64(n);
        wr[m] = T(cos(ang));
        wi[m] = T(sin(ang));
    }
}
template <typename T, int count>
struct fft_twiddles {   // zero-initialised: no guard for a thread_local of it
    int ready;
    T wr[count], wi[count];
};

// n: the length of the last dimension (given by codegen, which knows the tile's rank)
template <int n, typename Tl, typename T>
WPI_FUNC Tl tile_fft_impl(const Tl& a, T sign)
{
    Tl r = a;
    constexpr bool pow2 = (n & (n - 1)) == 0;
    constexpr int count = pow2 ? (n / 2 > 0 ? n / 2 : 1) : n;
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
    // each CPU worker computes a length's twiddles once (a tile is often one row: computing
    // them per tile was ~40% of a 512-point row transform)
    static thread_local fft_twiddles<T, count> tables[2];
    fft_twiddles<T, count>& table = tables[sign > T(0) ? 1 : 0];
    if (!table.ready) {
        fft_twiddles_fill<n>(table.wr, table.wi, sign);
        table.ready = 1;
    }
    const T* wr = table.wr;
    const T* wi = table.wi;
#else
    T wr[count], wi[count];
    fft_twiddles_fill<n>(wr, wi, sign);
#endif
    if (pow2) {
        for (int row = 0; row < Tl::size / n; ++row) tile_fft_row(r.data + row * n, n, wr, wi);
        return r;
    }
    // other lengths: the DFT, term j of bin k taking twiddle (j k) mod n (stepped, not divided)
    for (int row = 0; row < Tl::size / n; ++row)
        for (int k = 0; k < n; ++k) {
            T re = T(0), im = T(0);
            for (int j = 0, m = 0; j < n; ++j, m = (m + k >= n ? m + k - n : m + k)) {
                const T c = wr[m], s = wi[m];
                const vec_t<2, T>& x = a.data[row * n + j];
                re += x.c[0] * c - x.c[1] * s;
                im += x.c[0] * s + x.c[1] * c;
            }
            r.data[row * n + k] = vec_t<2, T>(re, im);
        }
    return r;
}
template <int N, typename T, int D0, int D1, int D2, int D3>
WPI_FUNC tile_t<vec_t<2, T>, D0, D1, D2, D3> tile_fft(const tile_t<vec_t<2, T>, D0, D1, D2, D3>& a)
{
    return tile_fft_impl<N>(a, T(-1));
}
template <int N, typename T, int D0, int D1, int D2, int D3>
WPI_FUNC tile_t<vec_t<2, T>, D0, D1, D2, D3> tile_ifft(const tile_t<vec_t<2, T>, D0, D1, D2, D3>& a)
{
    return tile_fft_impl<N>(a, T(1));
}
// The DFT is linear: its adjoint is the conjugate transpose, the unnormalised transform of the
// other sign (warp-lang's: d fft = ifft * n, d ifft = fft, with ifft unnormalised here).
template <int N, typename T, int D0, int D1, int D2, int D3>
WPI_FUNC void adj_tile_fft(const tile_t<vec_t<2, T>, D0, D1, D2, D3>& a, tile_t<vec_t<2, T>, D0, D1, D2, D3>& adj_a,
                           const tile_t<vec_t<2, T>, D0, D1, D2, D3>& adj_ret)
{
    const tile_t<vec_t<2, T>, D0, D1, D2, D3> g = tile_fft_impl<N>(adj_ret, T(1));
    for (int i = 0; i < g.size; ++i) adj_a.data[i] = add(adj_a.data[i], g.data[i]);
}
template <int N, typename T, int D0, int D1, int D2, int D3>
WPI_FUNC void adj_tile_ifft(const tile_t<vec_t<2, T>, D0, D1, D2, D3>& a, tile_t<vec_t<2, T>, D0, D1, D2, D3>& adj_a,
                            const tile_t<vec_t<2, T>, D0, D1, D2, D3>& adj_ret)
{
    const tile_t<vec_t<2, T>, D0, D1, D2, D3> g = tile_fft_impl<N>(adj_ret, T(-1));
    for (int i = 0; i < g.size; ++i) adj_a.data[i] = add(adj_a.data[i], g.data[i]);
}

// --- the block-wide stack ----------------------------------------------------------------------------
// One lane per block: push/pop move at most one element. In a cooperative CPU block (cpu_blocks.h)
// every lane calls them: a push appends the pushing lanes' values in lane order (up to the capacity),
// a pop gives lane l the element at count - 1 - l; each lane's copy of the stack stays the same.
template <typename T, int CAP>
struct tile_stack_t {
    T data[CAP];
    int32 count;
};
#if defined(WPI_CPU_BLOCKS)
template <typename S, typename T>
WPI_FUNC void tile_stack_push_lanes(cpu_block* b, const S& s, const T& value, bool has_value, int32& slot,
                                    S& out)
{
    const int W = b->width, cap = int(sizeof(s.data) / sizeof(s.data[0]));
    const int32 flag = has_value ? 1 : 0;
    int32* flags = (int32*)__builtin_alloca(sizeof(int32) * size_t(W));
    T* values = (T*)__builtin_alloca(sizeof(T) * size_t(W));
    block_gather(&flag, 1, flags, W);
    block_gather(&value, 1, values, W);
    out = s;
    slot = -1;
    for (int l = 0; l < W; ++l) {
        if (!flags[l] || out.count >= cap) continue;
        if (l == b->lane) slot = out.count;
        out.data[out.count++] = values[l];
    }
}
#endif
template <typename S, typename T>
WPI_FUNC void tile_stack_push(const S& s, const T& value, bool has_value, int32& slot, S& out)
{
#if defined(WPI_CPU_BLOCKS)
    if (cpu_block* b = cpu_block_current()) return tile_stack_push_lanes(b, s, value, has_value, slot, out);
#elif defined(WPI_CUDA_BLOCKS)
    if (cuda_block_active()) return cuda_tile_stack_push(s, value, has_value, slot, out);
#endif
    out = s;
    slot = -1;
    if (has_value && s.count < int32(sizeof(s.data) / sizeof(s.data[0]))) {
        slot = s.count;
        out.data[slot] = value;
        out.count = s.count + 1;
    }
}
template <typename S, typename T>
WPI_FUNC void tile_stack_pop(const S& s, T& value, int32& slot, S& out)
{
    int lane = 0, lanes = 1;
#if defined(WPI_CPU_BLOCKS)
    if (cpu_block* b = cpu_block_current()) lane = b->lane, lanes = b->count;
#elif defined(WPI_CUDA_BLOCKS)
    if (cuda_block_active()) lane = int(threadIdx.x), lanes = int(blockDim.x);
#endif
    out = s;
    slot = -1;
    value = T{};
    if (s.count - 1 - lane >= 0) {
        slot = s.count - 1 - lane;
        value = s.data[slot];
    }
    out.count = s.count > lanes ? s.count - lanes : 0;
}
// Adjoints (stacks of floats: lang/tiles/more.py). A stack's adjoint is that of its
// elements (the count takes none); in a cooperative block each lane's adjoint holds its own part,
// as a tile's does (cpu_blocks.h block_adjoint_sum).
template <typename T, int CAP>
WPI_FUNC void adj_accum(tile_stack_t<T, CAP>& a, const tile_stack_t<T, CAP>& b)
{
    for (int i = 0; i < CAP; ++i) adj_accum(a.data[i], b.data[i]);
}
// The slot this lane's push wrote (-1: none) and which slots the push wrote, by the forward's rule:
// the pushing lanes in lane order, up to the capacity (a partial block's missing lanes push nothing).
template <typename S>
WPI_FUNC int32 tile_stack_push_slots(const S& s, bool has_value, bool* written)
{
    const int cap = int(sizeof(s.data) / sizeof(s.data[0])), W = block_width(), lane = W > 1 ? block_lane() : 0;
    const int32 flag = has_value ? 1 : 0;
    int32 flags[1024];      // (a block has at most 1024 lanes)
    if (W > 1) block_gather(&flag, 1, flags, W);
    else flags[0] = flag;
    int32 count = s.count, slot = -1;
    for (int i = 0; i < cap; ++i) written[i] = false;
    for (int l = 0; l < W; ++l) {
        if (!flags[l] || count >= cap) continue;
        if (l == lane) slot = count;
        written[count++] = true;
    }
    return slot;
}
// A written slot's adjoint (the block's: every lane's part summed) goes to the value pushed there,
// the overwritten element takes none; the other slots pass theirs through.
template <typename S, typename T>
WPI_FUNC void adj_tile_stack_push(const S& s, const T&, bool has_value, S& adj_s, T& adj_value, bool&, int32&,
                                  const S& adj_out)
{
    constexpr int CAP = int(sizeof(s.data) / sizeof(s.data[0]));
    bool written[CAP];
    const int32 slot = tile_stack_push_slots(s, has_value, written);
    for (int i = 0; i < CAP; ++i)
        if (!written[i]) adj_accum(adj_s.data[i], adj_out.data[i]);
    tile_t<T, CAP> part;
    for (int i = 0; i < CAP; ++i) part.data[i] = adj_out.data[i];
    const tile_t<T, CAP> total = block_width() > 1 ? block_adjoint_sum(part) : part;
    if (slot >= 0) adj_accum(adj_value, total.data[slot]);
}
// A pop leaves the elements as they were (they pass their adjoints through) and gives this lane
// the one at count - 1 - lane: its adjoint goes there.
template <typename S, typename T>
WPI_FUNC void adj_tile_stack_pop(const S& s, S& adj_s, T& adj_value, int32&, const S& adj_out)
{
    int lane = block_width() > 1 ? block_lane() : 0;
    constexpr int CAP = int(sizeof(s.data) / sizeof(s.data[0]));
    for (int i = 0; i < CAP; ++i) adj_accum(adj_s.data[i], adj_out.data[i]);
    if (s.count - 1 - lane >= 0) adj_accum(adj_s.data[s.count - 1 - lane], adj_value);
}
template <typename S>
WPI_FUNC int32 tile_stack_count(const S& s) { return s.count; }
template <typename S>
WPI_FUNC S tile_stack_clear(const S& s)
{
    S r = s;
    r.count = 0;
    return r;
}

// --- block-parallel BVH / mesh queries (block width one: one result per step) ---------------------
struct tile_bvh_query_t {
    bvh_query_t q;
    bool valid;
};
WPI_FUNC void adj_accum(tile_bvh_query_t&, const tile_bvh_query_t&) {}
WPI_FUNC tile_bvh_query_t tile_bvh_query_aabb(uint64 id, const bvh_vec3& lower, const bvh_vec3& upper)
{
    return {bvh_query_aabb(id, lower, upper), true};
}
WPI_FUNC tile_bvh_query_t tile_bvh_query_ray(uint64 id, const bvh_vec3& start, const bvh_vec3& dir)
{
    return {bvh_query_ray(id, start, dir), true};
}
WPI_FUNC tile_bvh_query_t tile_mesh_query_aabb(uint64 id, const mesh_vec3& lower, const mesh_vec3& upper)
{
    return {mesh_query_aabb(id, lower, upper), true};
}
// the next result as a shape-(1,) tile (-1 when done); the query is returned advanced
WPI_FUNC void tile_query_next(const tile_bvh_query_t& query, tile_t<int32, 1>& out, tile_bvh_query_t& query_out)
{
    query_out = query;
    int32 index = -1;
    query_out.valid = query.valid && bvh_query_advance(query_out.q, index);
    out.data[0] = query_out.valid ? index : -1;
}
WPI_FUNC bool tile_query_valid(const tile_bvh_query_t& query) { return query.valid; }

}  // namespace wp
