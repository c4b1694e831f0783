// Tiles: fixed-shape blocks of values that kernels load, combine and store as one value
// (warp-lang's tile model). A block runs with an effective width of one thread on every target
// (warp-lang's CPU semantics), so a tile is a plain value of its thread: every operation is a loop
// over a compile-time size, which the compiler unrolls or vectorises. Depends on core.h, atomic.h.
#pragma once

namespace wp {

// Shapes are padded to four dimensions with trailing ones; the Python type keeps the true rank.
template <typename T, int D0, int D1 = 1, int D2 = 1, int D3 = 1>
struct tile_t {
    static constexpr int size = D0 * D1 * D2 * D3;
    static constexpr int d0 = D0, d1 = D1, d2 = D2, d3 = D3;
    typedef T value_type;
    T data[size];
};

#define WPI_TILE_PARAMS typename T, int D0, int D1, int D2, int D3
#define WPI_TILE_TPL template <WPI_TILE_PARAMS>
#define WPI_TILE tile_t<T, D0, D1, D2, D3>

// --- construction ------------------------------------------------------------------------------
template <typename R>
WPI_FUNC R tile_full(const typename R::value_type& v)
{
    R r;
    for (int i = 0; i < R::size; ++i) r.data[i] = v;
    return r;
}
template <typename R, typename S>
WPI_FUNC void adj_tile_full(const S&, S& adj_v, const R& adj_ret)
{
    for (int i = 0; i < R::size; ++i) adj_accum(adj_v, adj_ret.data[i]);
}

template <typename R, typename S>
WPI_FUNC R tile_arange(S start, S step)
{
    R r;
    for (int i = 0; i < R::size; ++i) r.data[i] = S(start + S(i) * step);
    return r;
}
template <typename R, typename S>
WPI_FUNC void adj_tile_arange(S, S, S&, S&, const R&) {}

// uint32 state, left unchanged: as in warp-lang, the block's thread t hashes state + t and draws
// the elements t, t + W, t + 2W... (W: the block's width) from that stream in turn, so element k is
// the (k / W + 1)-th value of stream hash(state + k % W). Every lane computes all the streams (a
// block-uniform tile); with one-lane blocks element k is stream hash(state)'s (k+1)-th value.
template <typename R, typename Draw>
WPI_FUNC R tile_random(uint32 state, Draw draw)
{
    R r;
    const int W = block_width();
    for (int t = 0; t < W && t < R::size; ++t) {
        uint32 s = detail::pcg_hash(state + uint32(t));
        for (int k = t; k < R::size; k += W) r.data[k] = draw(s);
    }
    return r;
}
template <typename R>
WPI_FUNC R tile_randf(uint32 state, float32 lo, float32 hi)
{
    return tile_random<R>(state, [=](uint32& s) { return randf(s, lo, hi); });
}
template <typename R>
WPI_FUNC R tile_randi(uint32 state)
{
    return tile_random<R>(state, [](uint32& s) { return randi(s); });
}
template <typename R>
WPI_FUNC R tile_randi(uint32 state, int32 lo, int32 hi)
{
    return tile_random<R>(state, [=](uint32& s) { return randi(s, lo, hi); });
}

// --- element access ----------------------------------------------------------------------------
// A run-time index along an axis of length n: negative ones count from the end (NumPy); -1 when
// it is outside the axis, which element reads turn into zero and writes into nothing, so no index
// reaches outside the tile's memory (constant indices are checked at build time).
WPI_FUNC int32 tile_index(int32 i, int32 n)
{
    if (i < 0) i += n;
    return (i >= 0 && i < n) ? i : -1;
}
// i's flat offset along an axis of element stride s; far below zero when i is outside, so that a
// sum of up to four of them and a window's offset stays negative (tile_gather_at reads zeros)
WPI_FUNC int32 tile_index_offset(int32 i, int32 n, int32 s)
{
    const int32 k = tile_index(i, n);
    return k < 0 ? -(1 << 28) : k * s;
}

// a window's run-time offset o along an axis: valid for 0 <= o < limit (the window fits)
WPI_FUNC int32 tile_window_offset(int32 o, int32 limit, int32 s) { return o >= 0 && o < limit ? o * s : -(1 << 28); }

// debug builds: a run-time index outside [-n, n) or a window offset outside [0, limit) records a
// bounds error (the tile as the "array", its axis length as the shape) and stops the thread
template <typename I>
WPI_FUNC bool check_tile_index(I i, int32 n, const char* kernel, int line)
{
    const int64 ii = int64(i);
    if (ii >= -int64(n) && ii < n) return true;
    const int32 shape[1] = {n};
    record_bounds_error("tile", kernel, line, &ii, 1, shape, 1);
    return false;
}
template <typename I>
WPI_FUNC bool check_tile_window(I o, int32 limit, const char* kernel, int line)
{
    const int64 oo = int64(o);
    if (oo >= 0 && oo < limit) return true;
    const int32 shape[1] = {limit};
    record_bounds_error("tile window offset", kernel, line, &oo, 1, shape, 1);
    return false;
}

WPI_TILE_TPL WPI_FUNC int tile_flat(const WPI_TILE&, int i) { return i; }
WPI_TILE_TPL WPI_FUNC int tile_flat(const WPI_TILE&, int i, int j) { return i < 0 || j < 0 ? -1 : i * D1 + j; }
WPI_TILE_TPL WPI_FUNC int tile_flat(const WPI_TILE&, int i, int j, int k)
{
    return i < 0 || j < 0 || k < 0 ? -1 : (i * D1 + j) * D2 + k;
}
WPI_TILE_TPL WPI_FUNC int tile_flat(const WPI_TILE&, int i, int j, int k, int l)
{
    return i < 0 || j < 0 || k < 0 || l < 0 ? -1 : ((i * D1 + j) * D2 + k) * D3 + l;
}

template <WPI_TILE_PARAMS, typename... I>
WPI_FUNC T tile_extract(const WPI_TILE& t, I... idx)
{
    const int k = tile_flat(t, int(idx)...);
    return k < 0 ? T{} : t.data[k];
}

template <typename Tl, typename... Rest>
WPI_FUNC void adj_tile_extract_impl(const Tl& t, Tl& adj_t, const typename Tl::value_type& adj_ret, Rest... idx)
{
    const int k = tile_flat(t, int(idx)...);
    if (k >= 0) adj_accum(adj_t.data[k], adj_ret);
}
template <WPI_TILE_PARAMS, typename I0>
WPI_FUNC void adj_tile_extract(const WPI_TILE& t, I0 i, WPI_TILE& adj_t, I0&, const T& adj_ret)
{
    adj_tile_extract_impl(t, adj_t, adj_ret, i);
}
template <WPI_TILE_PARAMS, typename I0, typename I1>
WPI_FUNC void adj_tile_extract(const WPI_TILE& t, I0 i, I1 j, WPI_TILE& adj_t, I0&, I1&, const T& adj_ret)
{
    adj_tile_extract_impl(t, adj_t, adj_ret, i, j);
}
template <WPI_TILE_PARAMS, typename I0, typename I1, typename I2>
WPI_FUNC void adj_tile_extract(const WPI_TILE& t, I0 i, I1 j, I2 k, WPI_TILE& adj_t, I0&, I1&, I2&,
                               const T& adj_ret)
{
    adj_tile_extract_impl(t, adj_t, adj_ret, i, j, k);
}
template <WPI_TILE_PARAMS, typename I0, typename I1, typename I2, typename I3>
WPI_FUNC void adj_tile_extract(const WPI_TILE& t, I0 i, I1 j, I2 k, I3 l, WPI_TILE& adj_t, I0&, I1&, I2&, I3&,
                               const T& adj_ret)
{
    adj_tile_extract_impl(t, adj_t, adj_ret, i, j, k, l);
}

// t[idx] = v on a value: returns the modified copy (the translator rebinds the name)
template <WPI_TILE_PARAMS, typename... I>
WPI_FUNC WPI_TILE tile_assign_elem(const WPI_TILE& t, const T& v, I... idx)
{
    WPI_TILE r = t;
    const int k = tile_flat(t, int(idx)...);
    if (k >= 0) r.data[k] = v;
    return r;
}

template <typename Tl>
WPI_FUNC void adj_tile_assign_elem_impl(int k, Tl& adj_t, typename Tl::value_type& adj_v, const Tl& adj_ret)
{
    for (int i = 0; i < Tl::size; ++i)
        if (i != k) adj_accum(adj_t.data[i], adj_ret.data[i]);
    if (k >= 0) adj_accum(adj_v, adj_ret.data[k]);
}
template <WPI_TILE_PARAMS, typename I0>
WPI_FUNC void adj_tile_assign_elem(const WPI_TILE& t, const T&, I0 i, WPI_TILE& adj_t, T& adj_v, I0&,
                                   const WPI_TILE& adj_ret)
{
    adj_tile_assign_elem_impl(tile_flat(t, int(i)), adj_t, adj_v, adj_ret);
}
template <WPI_TILE_PARAMS, typename I0, typename I1>
WPI_FUNC void adj_tile_assign_elem(const WPI_TILE& t, const T&, I0 i, I1 j, WPI_TILE& adj_t, T& adj_v, I0&, I1&,
                                   const WPI_TILE& adj_ret)
{
    adj_tile_assign_elem_impl(tile_flat(t, int(i), int(j)), adj_t, adj_v, adj_ret);
}
template <WPI_TILE_PARAMS, typename I0, typename I1, typename I2>
WPI_FUNC void adj_tile_assign_elem(const WPI_TILE& t, const T&, I0 i, I1 j, I2 k, WPI_TILE& adj_t, T& adj_v, I0&,
                                   I1&, I2&, const WPI_TILE& adj_ret)
{
    adj_tile_assign_elem_impl(tile_flat(t, int(i), int(j), int(k)), adj_t, adj_v, adj_ret);
}
template <WPI_TILE_PARAMS, typename I0, typename I1, typename I2, typename I3>
WPI_FUNC void adj_tile_assign_elem(const WPI_TILE& t, const T&, I0 i, I1 j, I2 k, I3 l, WPI_TILE& adj_t, T& adj_v,
                                   I0&, I1&, I2&, I3&, const WPI_TILE& adj_ret)
{
    adj_tile_assign_elem_impl(tile_flat(t, int(i), int(j), int(k), int(l)), adj_t, adj_v, adj_ret);
}

// --- elementwise arithmetic (through the scalar/composite builtins, so every dtype works) --------
// bitwise operators between integer tiles (not differentiable); the arithmetic ones below add
// an adjoint
#define WPI_TILE_BITWISE(NAME, FN)                                                                 \
    WPI_TILE_TPL WPI_FUNC WPI_TILE NAME(const WPI_TILE& a, const WPI_TILE& b)                       \
    {                                                                                              \
        WPI_TILE r;                                                                                \
        for (int i = 0; i < WPI_TILE::size; ++i) r.data[i] = FN(a.data[i], b.data[i]);             \
        return r;                                                                                  \
    }
#define WPI_TILE_BINARY(NAME, FN)                                                                  \
    WPI_TILE_BITWISE(NAME, FN)                                                                     \
    WPI_TILE_TPL WPI_FUNC void adj_##NAME(const WPI_TILE& a, const WPI_TILE& b, WPI_TILE& adj_a,    \
                                          WPI_TILE& adj_b, const WPI_TILE& adj_ret)                \
    {                                                                                              \
        for (int i = 0; i < WPI_TILE::size; ++i)                                                   \
            adj_##FN(a.data[i], b.data[i], adj_a.data[i], adj_b.data[i], adj_ret.data[i]);         \
    }
WPI_TILE_BINARY(tile_add, add)
WPI_TILE_BINARY(tile_sub, sub)
WPI_TILE_BINARY(tile_mul, mul)
WPI_TILE_BINARY(tile_div, div)
WPI_TILE_BITWISE(tile_bit_and, bit_and)
WPI_TILE_BITWISE(tile_bit_or, bit_or)
WPI_TILE_BITWISE(tile_bit_xor, bit_xor)
#undef WPI_TILE_BITWISE
#undef WPI_TILE_BINARY

// an element of a tile of @wp.structs updated in place (t[i] += s): the field-wise add/sub
// generated beside the struct (codegen/struct_ops.py), found by argument-dependent lookup
template <typename T> WPI_FUNC T struct_add(const T& a, const T& b) { return add(a, b); }
template <typename T> WPI_FUNC void adj_struct_add(const T& a, const T& b, T& adj_a, T& adj_b, const T& adj_ret)
{
    adj_add(a, b, adj_a, adj_b, adj_ret);
}
template <typename T> WPI_FUNC T struct_sub(const T& a, const T& b) { return sub(a, b); }
template <typename T> WPI_FUNC void adj_struct_sub(const T& a, const T& b, T& adj_a, T& adj_b, const T& adj_ret)
{
    adj_sub(a, b, adj_a, adj_b, adj_ret);
}

// found by adj_accum/adj_copy's generic templates (argument-dependent lookup)
WPI_TILE_TPL WPI_FUNC WPI_TILE add(const WPI_TILE& a, const WPI_TILE& b) { return tile_add(a, b); }

WPI_TILE_TPL WPI_FUNC WPI_TILE tile_neg(const WPI_TILE& a)
{
    WPI_TILE r;
    for (int i = 0; i < WPI_TILE::size; ++i) r.data[i] = neg(a.data[i]);
    return r;
}
WPI_TILE_TPL WPI_FUNC void adj_tile_neg(const WPI_TILE& a, WPI_TILE& adj_a, const WPI_TILE& adj_ret)
{
    for (int i = 0; i < WPI_TILE::size; ++i) adj_neg(a.data[i], adj_a.data[i], adj_ret.data[i]);
}

// tile * scalar, tile / scalar (and scalar * tile below: its arguments come the other way round)
#define WPI_TILE_BY_SCALAR(NAME, FN)                                                               \
    template <WPI_TILE_PARAMS, typename S>                                                         \
    WPI_FUNC WPI_TILE NAME(const WPI_TILE& a, S s)                                                 \
    {                                                                                              \
        WPI_TILE r;                                                                                \
        for (int i = 0; i < WPI_TILE::size; ++i) r.data[i] = FN(a.data[i], s);                     \
        return r;                                                                                  \
    }                                                                                              \
    template <WPI_TILE_PARAMS, typename S>                                                         \
    WPI_FUNC void adj_##NAME(const WPI_TILE& a, S s, WPI_TILE& adj_a, S& adj_s, const WPI_TILE& adj_ret) \
    {                                                                                              \
        for (int i = 0; i < WPI_TILE::size; ++i) adj_##FN(a.data[i], s, adj_a.data[i], adj_s, adj_ret.data[i]); \
    }
WPI_TILE_BY_SCALAR(tile_mul_scalar, mul)
WPI_TILE_BY_SCALAR(tile_div_scalar, div)
#undef WPI_TILE_BY_SCALAR
template <WPI_TILE_PARAMS, typename S>
WPI_FUNC WPI_TILE tile_scalar_mul(S s, const WPI_TILE& a)
{
    WPI_TILE r;
    for (int i = 0; i < WPI_TILE::size; ++i) r.data[i] = mul(s, a.data[i]);
    return r;
}
template <WPI_TILE_PARAMS, typename S>
WPI_FUNC void adj_tile_scalar_mul(S s, const WPI_TILE& a, S& adj_s, WPI_TILE& adj_a, const WPI_TILE& adj_ret)
{
    for (int i = 0; i < WPI_TILE::size; ++i) adj_mul(s, a.data[i], adj_s, adj_a.data[i], adj_ret.data[i]);
}

// --- tile_map: a function (a lambda codegen writes around a builtin or @wp.func) per element ----
// Each argument after the function is a tile of the result's shape (its element i) or a value
// broadcast to every element (whose adjoint sums the elements' contributions).
template <typename X>
struct tile_map_arg {
    static WPI_FUNC const X& get(const X& x, int) { return x; }
    static WPI_FUNC X& adj(X& x, int) { return x; }
};
template <WPI_TILE_PARAMS>
struct tile_map_arg<WPI_TILE> {
    static WPI_FUNC const T& get(const WPI_TILE& x, int i) { return x.data[i]; }
    static WPI_FUNC T& adj(WPI_TILE& x, int i) { return x.data[i]; }
};
// an argument's type without reference or const (NVRTC has no <type_traits>)
template <typename X> struct tile_bare { using type = X; };
template <typename X> struct tile_bare<X&> { using type = typename tile_bare<X>::type; };
template <typename X> struct tile_bare<const X> { using type = X; };
template <typename X> using tile_map_arg_of = tile_map_arg<typename tile_bare<X>::type>;

template <typename R, typename F, typename... A>
WPI_FUNC R tile_map(F f, const A&... a)
{
    R r;
    for (int i = 0; i < R::size; ++i) r.data[i] = f(tile_map_arg<A>::get(a, i)...);
    return r;
}

// The adjoint's arguments are (a_0..a_n-1, adj_f, adj_a_0..adj_a_n-1, adj_ret): two runs of one
// length, so one pack split by position (a pack that is not last cannot be deduced).
template <int... I> struct tile_seq {};
template <int N, int... I> struct tile_make_seq { using type = typename tile_make_seq<N - 1, N - 1, I...>::type; };
template <int... I> struct tile_make_seq<0, I...> { using type = tile_seq<I...>; };
template <int I, typename X0, typename... X>
WPI_FUNC decltype(auto) tile_pack_get(X0& x0, X&... xs)
{
    if constexpr (I == 0) return (x0);
    else return tile_pack_get<I - 1>(xs...);
}
template <typename R, int... I, typename... X>
WPI_FUNC void adj_tile_map_split(tile_seq<I...>, X&... xs)
{
    constexpr int n = sizeof...(I);
    auto& adj_f = tile_pack_get<n>(xs...);
    const R& adj_ret = tile_pack_get<2 * n + 1>(xs...);
    for (int i = 0; i < R::size; ++i)
        adj_f(tile_map_arg_of<decltype(tile_pack_get<I>(xs...))>::get(tile_pack_get<I>(xs...), i)...,
              tile_map_arg_of<decltype(tile_pack_get<n + 1 + I>(xs...))>::adj(tile_pack_get<n + 1 + I>(xs...), i)...,
              adj_ret.data[i]);
}
template <typename R, typename F, typename... X>
WPI_FUNC void adj_tile_map(F, X&&... xs)
{
    static_assert(sizeof...(X) >= 4 && sizeof...(X) % 2 == 0, "adj_tile_map: (args, adj_f, adj_args, adj_ret)");
    adj_tile_map_split<R>(typename tile_make_seq<(int(sizeof...(X)) - 2) / 2>::type(), xs...);
}

// the element-wise builtins as function objects (sums along an axis, scans)
struct tile_add_fn {
    template <typename X> WPI_FUNC X operator()(const X& a, const X& b) const { return add(a, b); }
};
struct tile_max_fn {
    template <typename X> WPI_FUNC X operator()(const X& a, const X& b) const { return max(a, b); }
};
struct tile_min_fn {
    template <typename X> WPI_FUNC X operator()(const X& a, const X& b) const { return min(a, b); }
};

// --- reductions (results are shape-(1,) tiles) ---------------------------------------------------
// Eight partial sums: independent lanes the compiler vectorises without reassociating a chain.
// They start from the first elements (not zero), so a struct's fields that do not accumulate
// (bool, int8, arrays: they ride along, as in warp-lang) carry the first element's value.
// (A partial cooperative block leaves the missing lanes' elements out: block_absent, cpu_blocks.h;
// element 0 is always there: lane 0 is.)
template <typename R, typename F, typename A>
WPI_FUNC R tile_reduce_present(F f, const A& a, block_absent_t gone)
{
    R r;
    r.data[0] = a.data[0];
    for (int i = 1; i < A::size; ++i)
        if (!gone(i)) r.data[0] = f(r.data[0], a.data[i]);
    return r;
}
WPI_TILE_TPL WPI_FUNC tile_t<T, 1> tile_sum(const WPI_TILE& a)
{
    const block_absent_t gone = block_absent();
    if (gone.any()) return tile_reduce_present<tile_t<T, 1>>(tile_add_fn(), a, gone);
    constexpr int W = 8;
    constexpr int first = WPI_TILE::size >= W ? W : 1;
    T part[W];
    for (int l = 0; l < W; ++l) part[l] = l < first ? a.data[l] : T{};
    int i = first;
    for (; i + W <= WPI_TILE::size; i += W)
        for (int l = 0; l < W; ++l) part[l] = add(part[l], a.data[i + l]);
    for (; i < WPI_TILE::size; ++i) part[0] = add(part[0], a.data[i]);
    tile_t<T, 1> r;
    r.data[0] = part[0];
    for (int l = 1; l < W; ++l) r.data[0] = add(r.data[0], part[l]);
    return r;
}
WPI_TILE_TPL WPI_FUNC void adj_tile_sum(const WPI_TILE&, WPI_TILE& adj_a, const tile_t<T, 1>& adj_ret)
{
    const block_absent_t gone = block_absent();
    for (int i = 0; i < WPI_TILE::size; ++i)
        if (!gone(i)) adj_accum(adj_a.data[i], adj_ret.data[0]);
}

WPI_TILE_TPL WPI_FUNC int tile_arg_extreme(const WPI_TILE& a, bool want_max)
{
    const block_absent_t gone = block_absent();
    int best = 0;
    for (int i = 1; i < WPI_TILE::size; ++i)
        if (gone(i)) continue;
        else if (want_max ? (a.data[best] < a.data[i]) : (a.data[i] < a.data[best])) best = i;
    return best;
}
WPI_TILE_TPL WPI_FUNC tile_t<T, 1> tile_max(const WPI_TILE& a) { return {{a.data[tile_arg_extreme(a, true)]}}; }
WPI_TILE_TPL WPI_FUNC tile_t<T, 1> tile_min(const WPI_TILE& a) { return {{a.data[tile_arg_extreme(a, false)]}}; }
WPI_TILE_TPL WPI_FUNC tile_t<int32, 1> tile_argmax(const WPI_TILE& a) { return {{tile_arg_extreme(a, true)}}; }
WPI_TILE_TPL WPI_FUNC tile_t<int32, 1> tile_argmin(const WPI_TILE& a) { return {{tile_arg_extreme(a, false)}}; }
WPI_TILE_TPL WPI_FUNC void adj_tile_max(const WPI_TILE& a, WPI_TILE& adj_a, const tile_t<T, 1>& adj_ret)
{
    adj_accum(adj_a.data[tile_arg_extreme(a, true)], adj_ret.data[0]);
}
WPI_TILE_TPL WPI_FUNC void adj_tile_min(const WPI_TILE& a, WPI_TILE& adj_a, const tile_t<T, 1>& adj_ret)
{
    adj_accum(adj_a.data[tile_arg_extreme(a, false)], adj_ret.data[0]);
}

template <typename R, typename F, typename A>
WPI_FUNC R tile_reduce(F f, const A& a)
{
    const block_absent_t gone = block_absent();
    if (gone.any()) return tile_reduce_present<R>(f, a, gone);
    R r;
    r.data[0] = a.data[0];
    for (int i = 1; i < A::size; ++i) r.data[0] = f(r.data[0], a.data[i]);
    return r;
}

// The value of an empty axis slice (only a partial cooperative block has one: every element of the
// slice belongs to a missing lane), warp-lang's: the operator's identity (ID: 1 add, 2 mul, 3 min,
// 4 max; scalars for min/max), else a run-time error (0: a custom operator has none).
template <typename T> WPI_FUNC T tile_id_top(T*)
{
    return T(-1) < T(0) ? T(~uint64(0) >> (65 - 8 * int(sizeof(T)))) : T(~uint64(0) >> (64 - 8 * int(sizeof(T))));
}
WPI_FUNC float32 tile_id_top(float32*) { return INFINITY; }
WPI_FUNC float64 tile_id_top(float64*) { return INFINITY; }
WPI_FUNC half tile_id_top(half*) { return half(INFINITY); }
WPI_FUNC bfloat16 tile_id_top(bfloat16*) { return bfloat16(INFINITY); }
template <typename T> WPI_FUNC T tile_id_bottom(T* p)
{
    return T(-1) < T(0) ? T(-tile_id_top(p) - 1) : T(0);
}
WPI_FUNC float32 tile_id_bottom(float32*) { return -INFINITY; }
WPI_FUNC float64 tile_id_bottom(float64*) { return -INFINITY; }
WPI_FUNC half tile_id_bottom(half*) { return half(-INFINITY); }
WPI_FUNC bfloat16 tile_id_bottom(bfloat16*) { return bfloat16(-INFINITY); }
template <int ID, typename T> WPI_FUNC T tile_reduce_identity()
{
    if constexpr (ID == 1) return T{};
    else if constexpr (ID == 2) return T(1);
    else if constexpr (ID == 3) return tile_id_top((T*)nullptr);
    else if constexpr (ID == 4) return tile_id_bottom((T*)nullptr);
    else {
        record_block_error("Warp tile_reduce() axis slice has no active values and the reduction operator has no "
                           "declared identity (a partial cooperative CPU block)");
        return T{};
    }
}

// reduce along one axis: the input viewed as (outer, n, inner); the result is (outer, inner)
template <typename R, int OUTER, int N, int INNER, int ID, typename F, typename A>
WPI_FUNC R tile_reduce_axis_present(F f, const A& a, block_absent_t gone)
{
    R r;
    for (int o = 0; o < OUTER; ++o)
        for (int k = 0; k < INNER; ++k) {
            bool got = false;
            typename A::value_type s{};
            for (int j = 0; j < N; ++j) {
                const int e = (o * N + j) * INNER + k;
                if (gone(e)) continue;
                s = got ? f(s, a.data[e]) : a.data[e];
                got = true;
            }
            r.data[o * INNER + k] = got ? s : tile_reduce_identity<ID, typename A::value_type>();
        }
    return r;
}
template <typename R, int OUTER, int N, int INNER, int ID = 0, typename F, typename A>
WPI_FUNC R tile_reduce_axis(F f, const A& a)
{
    const block_absent_t gone = block_absent();
    if (gone.any()) return tile_reduce_axis_present<R, OUTER, N, INNER, ID>(f, a, gone);
    R r;
    for (int o = 0; o < OUTER; ++o)
        for (int k = 0; k < INNER; ++k) {
            auto s = a.data[o * N * INNER + k];
            for (int j = 1; j < N; ++j) s = f(s, a.data[(o * N + j) * INNER + k]);
            r.data[o * INNER + k] = s;
        }
    return r;
}
template <typename R, int OUTER, int N, int INNER, typename A>
WPI_FUNC R tile_sum_axis(const A& a)
{
    return tile_reduce_axis<R, OUTER, N, INNER, 1>(tile_add_fn(), a);
}
template <typename R, int OUTER, int N, int INNER, typename A>
WPI_FUNC void adj_tile_sum_axis(const A&, A& adj_a, const R& adj_ret)
{
    const block_absent_t gone = block_absent();
    for (int o = 0; o < OUTER; ++o)
        for (int j = 0; j < N; ++j)
            for (int k = 0; k < INNER; ++k)
                if (!gone((o * N + j) * INNER + k))
                    adj_accum(adj_a.data[(o * N + j) * INNER + k], adj_ret.data[o * INNER + k]);
}

// --- layout: one affine gather covers transpose, broadcast, view, squeeze, reshape, slices -------
// out[i0,i1,i2,i3] = a.data[off + i0*S0 + i1*S1 + i2*S2 + i3*S3] (strides may be 0: broadcast, or
// negative: reversed slices). A negative off (a run-time index outside the tile) reads zeros.
template <typename R, int S0, int S1, int S2, int S3, typename A>
WPI_FUNC R tile_gather_at(const A& a, int32 off)
{
    R r;
    int n = 0;
    for (int i0 = 0; i0 < R::d0; ++i0)
        for (int i1 = 0; i1 < R::d1; ++i1)
            for (int i2 = 0; i2 < R::d2; ++i2)
                for (int i3 = 0; i3 < R::d3; ++i3)
                    r.data[n++] = off < 0 ? typename R::value_type{} : a.data[off + i0 * S0 + i1 * S1 + i2 * S2 + i3 * S3];
    return r;
}
template <typename R, int S0, int S1, int S2, int S3, typename A>
WPI_FUNC void adj_tile_gather_at(const A&, int32 off, A& adj_a, int32&, const R& adj_ret)
{
    if (off < 0) return;
    int n = 0;
    for (int i0 = 0; i0 < R::d0; ++i0)
        for (int i1 = 0; i1 < R::d1; ++i1)
            for (int i2 = 0; i2 < R::d2; ++i2)
                for (int i3 = 0; i3 < R::d3; ++i3)
                    adj_accum(adj_a.data[off + i0 * S0 + i1 * S1 + i2 * S2 + i3 * S3], adj_ret.data[n++]);
}
template <typename R, int OFF, int S0, int S1, int S2, int S3, typename A>
WPI_FUNC R tile_gather(const A& a)
{
    return tile_gather_at<R, S0, S1, S2, S3>(a, OFF);
}
template <typename R, int OFF, int S0, int S1, int S2, int S3, typename A>
WPI_FUNC void adj_tile_gather(const A& a, A& adj_a, const R& adj_ret)
{
    int32 adj_off = 0;
    adj_tile_gather_at<R, S0, S1, S2, S3>(a, OFF, adj_a, adj_off, adj_ret);
}
// the inverse: dst with src written at the positions a gather of the same map reads (nothing
// is written when off is negative)
template <int S0, int S1, int S2, int S3, typename D, typename Sr>
WPI_FUNC D tile_scatter_at(const D& dst, const Sr& src, int32 off)
{
    D r = dst;
    if (off < 0) return r;
    int n = 0;
    for (int i0 = 0; i0 < Sr::d0; ++i0)
        for (int i1 = 0; i1 < Sr::d1; ++i1)
            for (int i2 = 0; i2 < Sr::d2; ++i2)
                for (int i3 = 0; i3 < Sr::d3; ++i3) r.data[off + i0 * S0 + i1 * S1 + i2 * S2 + i3 * S3] = src.data[n++];
    return r;
}
template <int S0, int S1, int S2, int S3, typename D, typename Sr>
WPI_FUNC void adj_tile_scatter_at(const D&, const Sr&, int32 off, D& adj_dst, Sr& adj_src, int32&, const D& adj_ret)
{
    bool written[D::size];
    for (int i = 0; i < D::size; ++i) written[i] = false;
    int n = 0;
    for (int i0 = 0; i0 < Sr::d0 && off >= 0; ++i0)
        for (int i1 = 0; i1 < Sr::d1; ++i1)
            for (int i2 = 0; i2 < Sr::d2; ++i2)
                for (int i3 = 0; i3 < Sr::d3; ++i3) {
                    int k = off + i0 * S0 + i1 * S1 + i2 * S2 + i3 * S3;
                    adj_accum(adj_src.data[n++], adj_ret.data[k]);
                    written[k] = true;
                }
    for (int i = 0; i < D::size; ++i)
        if (!written[i]) adj_accum(adj_dst.data[i], adj_ret.data[i]);
}
template <int OFF, int S0, int S1, int S2, int S3, typename D, typename Sr>
WPI_FUNC D tile_scatter(const D& dst, const Sr& src)
{
    return tile_scatter_at<S0, S1, S2, S3>(dst, src, OFF);
}
template <int OFF, int S0, int S1, int S2, int S3, typename D, typename Sr>
WPI_FUNC void adj_tile_scatter(const D& dst, const Sr& src, D& adj_dst, Sr& adj_src, const D& adj_ret)
{
    int32 adj_off = 0;
    adj_tile_scatter_at<S0, S1, S2, S3>(dst, src, OFF, adj_dst, adj_src, adj_off, adj_ret);
}

// An additive write (`+=`, `-=`, tile_axpy) into a view whose elements alias (a broadcast of a
// shared tile: stride 0), as warp-lang's shared memory does it: every element of the view adds its
// change to the element of `dst` it maps to, so an element shared by ROWS view elements gets all
// ROWS changes (`new - old`, element by element).
// Calls f(n, k) for each element n (row-major) of a window of shape Sr, k being the element
// OFF + i0*S0 + i1*S1 + i2*S2 + i3*S3 of the tile the window views (for a delta write and its adjoint).
template <typename Sr, int OFF, int S0, int S1, int S2, int S3, typename F>
WPI_FUNC void tile_window_each(F&& f)
{
    int n = 0;
    for (int i0 = 0; i0 < Sr::d0; ++i0)
        for (int i1 = 0; i1 < Sr::d1; ++i1)
            for (int i2 = 0; i2 < Sr::d2; ++i2)
                for (int i3 = 0; i3 < Sr::d3; ++i3, ++n) f(n, OFF + i0 * S0 + i1 * S1 + i2 * S2 + i3 * S3);
}
template <int OFF, int S0, int S1, int S2, int S3, typename D, typename Sr>
WPI_FUNC D tile_scatter_delta(const D& dst, const Sr& old, const Sr& next)
{
    D r = dst;
    tile_window_each<Sr, OFF, S0, S1, S2, S3>(
        [&](int n, int k) { r.data[k] = add(r.data[k], sub(next.data[n], old.data[n])); });
    return r;
}
template <int OFF, int S0, int S1, int S2, int S3, typename D, typename Sr>
WPI_FUNC void adj_tile_scatter_delta(const D&, const Sr&, const Sr&, D& adj_dst, Sr& adj_old, Sr& adj_next,
                                     const D& adj_ret)
{
    for (int i = 0; i < D::size; ++i) adj_accum(adj_dst.data[i], adj_ret.data[i]);
    tile_window_each<Sr, OFF, S0, S1, S2, S3>([&](int n, int k) {
        adj_accum(adj_next.data[n], adj_ret.data[k]);
        adj_old.data[n] = sub(adj_old.data[n], adj_ret.data[k]);
    });
}

// --- memory: loads and stores of an n-d window at an offset; outside the array reads zero and
// writes nothing (warp-lang's bounds_check=True), so a tile need not divide the array ----------
// a load/store offset of another integer type as int32, saturated: array dimensions fit in int32,
// so an offset beyond it is outside the array either way (a plain cast could wrap back inside)
template <typename I>
WPI_FUNC int32 tile_offset_i32(I o)
{
    return int64(o) > int64(2147483647) ? int32(2147483647) : int64(o) < int64(-2147483647 - 1) ? int32(-2147483647 - 1) : int32(o);
}

// Byte offset of element n of tile Tl (row-major) in array a: coordinate d is o[d] + c[d], except
// along AXIS (when >= 0: indexed loads/stores, tile/gather_fft_stack.h) where it is o[AXIS] + indices[c[AXIS]];
// `inside` says whether it is in bounds.
struct tile_no_indices {};
template <int AXIS, typename T, typename Tl, typename Ix>
WPI_FUNC int64 tile_indexed_offset(const array_t<T>& a, int ndim, const int* o, int n, const Ix& indices,
                                   bool& inside)
{
    const int dims[4] = {Tl::d0, Tl::d1, Tl::d2, Tl::d3};
    int idx[4];
    for (int d = 3; d >= 0; --d) {
        idx[d] = n % dims[d];
        n /= dims[d];
    }
    int64 off = 0;
    inside = true;
    for (int d = 0; d < ndim; ++d) {
        int64 g = int64(o[d]) + idx[d];
        if constexpr (AXIS >= 0)
            if (d == AXIS) g = int64(o[d]) + int64(indices.data[idx[d]]);
        if (g < 0 || g >= a.shape[d]) inside = false;
        off += g * a.strides[d];
    }
    return off;
}
template <typename T, typename Tl>
WPI_FUNC int64 tile_array_offset(const array_t<T>& a, int ndim, const int* o, int n, bool& inside)
{
    return tile_indexed_offset<-1, T, Tl>(a, ndim, o, n, tile_no_indices{}, inside);
}

// f(n, off) for each element n of tile Tl inside array a, at byte offset off. A whole window
// inside the array with a unit inner stride goes row by row: one offset per row (the element-wise
// offset, a division per dimension, was most of a tile store's and a tile adjoint's time).
template <typename Tl, int NDIM, typename T, typename F>
WPI_FUNC void tile_each_inside(const array_t<T>& a, const int* o, F f)
{
    constexpr int inner = NDIM == 1 ? Tl::d0 : NDIM == 2 ? Tl::d1 : NDIM == 3 ? Tl::d2 : Tl::d3;
    const int dims[4] = {Tl::d0, Tl::d1, Tl::d2, Tl::d3};
    bool fits = a.strides[NDIM - 1] == int64(sizeof(T));
    for (int d = 0; d < NDIM; ++d) fits = fits && o[d] >= 0 && int64(o[d]) + dims[d] <= a.shape[d];
    if (fits) {
        for (int row = 0; row < Tl::size / inner; ++row) {
            bool inside;
            const int64 off = tile_array_offset<T, Tl>(a, NDIM, o, row * inner, inside);
            for (int j = 0; j < inner; ++j) f(row * inner + j, off + int64(j) * int64(sizeof(T)));
        }
        return;
    }
    for (int n = 0; n < Tl::size; ++n) {
        bool inside;
        const int64 off = tile_array_offset<T, Tl>(a, NDIM, o, n, inside);
        if (inside) f(n, off);
    }
}

template <typename R, int NDIM, typename T>
WPI_FUNC R tile_load(const array_t<T>& a, int32 o0, int32 o1, int32 o2, int32 o3)
{
    R r;
    const int o[4] = {o0, o1, o2, o3};
    // the common case: a whole row-major window with a unit inner stride, copied row by row
    constexpr int inner = NDIM == 1 ? R::d0 : NDIM == 2 ? R::d1 : NDIM == 3 ? R::d2 : R::d3;
    bool fits = a.strides[NDIM - 1] == int64(sizeof(T));
    for (int d = 0; d < NDIM; ++d) {
        const int dims[4] = {R::d0, R::d1, R::d2, R::d3};
        fits = fits && o[d] >= 0 && int64(o[d]) + dims[d] <= a.shape[d];
    }
    if (fits) {
        for (int row = 0; row < R::size / inner; ++row) {
            bool inside;
            int64 off = tile_array_offset<T, R>(a, NDIM, o, row * inner, inside);
            const T* src = (const T*)((const char*)a.data + off);
            for (int j = 0; j < inner; ++j) r.data[row * inner + j] = src[j];
        }
        return r;
    }
    for (int n = 0; n < R::size; ++n) {
        bool inside;
        int64 off = tile_array_offset<T, R>(a, NDIM, o, n, inside);
        r.data[n] = inside ? *(const T*)((const char*)a.data + off) : T{};
    }
    return r;
}
template <typename R, int NDIM, typename T>
WPI_FUNC void adj_tile_load(const array_t<T>& a, int32 o0, int32 o1, int32 o2, int32 o3, array_t<T>&,
                            int32&, int32&, int32&, int32&, const R& adj_ret)
{
    if (!a.grad) return;    // (a cooperative block: each lane adds its own part of the gradient)
    const int o[4] = {o0, o1, o2, o3};
    tile_each_inside<R, NDIM>(a, o, [&](int n, int64 off) { grad_add((T*)((char*)a.grad + off), adj_ret.data[n]); });
}

template <int NDIM, typename T, typename Tl>
WPI_FUNC void tile_store(const array_t<T>& a, const Tl& t, int32 o0, int32 o1, int32 o2, int32 o3)
{
    if (block_lane() != 0) return;    // a cooperative block stores once (lane 0)
    const int o[4] = {o0, o1, o2, o3};
    tile_each_inside<Tl, NDIM>(a, o, [&](int n, int64 off) { *(T*)((char*)a.data + off) = t.data[n]; });
}
// the gradient of a tile's elements in an array: a store takes it (the overwritten values had no
// influence after it, as adj_array_store; not with retain_grad), an atomic addition passes it on
template <typename T>
WPI_FUNC T tile_grad_of(const array_t<T>& a, int64 off, bool take)
{
    T* p = (T*)((char*)a.grad + off);
    return take && !(a.flags & WPI_ARRAY_RETAIN_GRAD) ? grad_take(p) : *p;
}
template <int NDIM, typename T, typename Tl>
WPI_FUNC void adj_tile_store_grad(const array_t<T>& a, int32 o0, int32 o1, int32 o2, int32 o3, Tl& adj_t, bool take)
{
    if (!a.grad || block_lane() != 0) return;    // a block stored once: lane 0 takes the gradient
    const int o[4] = {o0, o1, o2, o3};
    tile_each_inside<Tl, NDIM>(a, o, [&](int n, int64 off) { adj_accum(adj_t.data[n], tile_grad_of(a, off, take)); });
}
template <int NDIM, typename T, typename Tl>
WPI_FUNC void adj_tile_store(const array_t<T>& a, const Tl&, int32 o0, int32 o1, int32 o2, int32 o3,
                             array_t<T>&, Tl& adj_t, int32&, int32&, int32&, int32&)
{
    adj_tile_store_grad<NDIM>(a, o0, o1, o2, o3, adj_t, true);
}

// returns the values the array held before the addition
template <int NDIM, typename T, typename Tl>
WPI_FUNC Tl tile_atomic_add(const array_t<T>& a, const Tl& t, int32 o0, int32 o1, int32 o2, int32 o3)
{
    Tl old = {};
    if (block_lane() == 0) {    // a cooperative block adds once (lane 0) and shares the old values
        const int o[4] = {o0, o1, o2, o3};
        tile_each_inside<Tl, NDIM>(a, o, [&](int n, int64 off) { old.data[n] = atomic_add_ptr((T*)((char*)a.data + off), t.data[n]); });
    }
    return block_width() > 1 ? block_broadcast(old, 0) : old;
}
template <int NDIM, typename T, typename Tl>
WPI_FUNC Tl tile_atomic_add_replay(const array_t<T>&, const Tl&, int32, int32, int32, int32) { return Tl{}; }
template <int NDIM, typename T, typename Tl>
WPI_FUNC void adj_tile_atomic_add(const array_t<T>& a, const Tl& t, int32 o0, int32 o1, int32 o2, int32 o3,
                                  array_t<T>& adj_a, Tl& adj_t, int32& a0, int32& a1, int32& a2, int32& a3,
                                  const Tl&)
{
    adj_tile_store_grad<NDIM>(a, o0, o1, o2, o3, adj_t, false);
}

// --- thread values <-> tiles (block width one: a tile of one column) -----------------------------
template <typename R, typename T>
WPI_FUNC R tile_from_value(const T& x)
{
    R r;
    block_gather(&x, 1, r.data, R::size);    // lane l's x at [l] (one lane: [0])
    return r;
}
template <typename R, typename T>
WPI_FUNC void adj_tile_from_value(const T&, T& adj_x, const R& adj_ret)
{
    const R all = R::size > 1 ? block_adjoint_sum(adj_ret) : adj_ret;    // every lane's part of it
    adj_accum(adj_x, all.data[R::size > 1 ? block_lane() : 0]);            // this lane's element
}
template <typename R, int N, typename T>
WPI_FUNC R tile_from_vector(const vec_t<N, T>& x)
{
    R r;
    block_gather(x.c, N, r.data, R::size / N);    // shape (N, block_dim)
    return r;
}
template <typename R, int N, typename T>
WPI_FUNC void adj_tile_from_vector(const vec_t<N, T>&, vec_t<N, T>& adj_x, const R& adj_ret)
{
    constexpr int W = R::size / N;
    const int lane = W > 1 ? block_lane() : 0;
    const R all = W > 1 ? block_adjoint_sum(adj_ret) : adj_ret;
    for (int i = 0; i < N; ++i) adj_x.c[i] += all.data[i * W + lane];
}
template <typename R, int M, int N, typename T>
WPI_FUNC R tile_from_matrix(const mat_t<M, N, T>& x)
{
    R r;
    T flat[M * N];
    for (int i = 0; i < M * N; ++i) flat[i] = x.data[i / N][i % N];
    block_gather(flat, M * N, r.data, R::size / (M * N));    // shape (M, N, block_dim)
    return r;
}
template <typename R, int M, int N, typename T>
WPI_FUNC void adj_tile_from_matrix(const mat_t<M, N, T>&, mat_t<M, N, T>& adj_x, const R& adj_ret)
{
    constexpr int W = R::size / (M * N);
    const int lane = W > 1 ? block_lane() : 0;
    const R all = W > 1 ? block_adjoint_sum(adj_ret) : adj_ret;
    for (int i = 0; i < M * N; ++i) adj_x.data[i / N][i % N] += all.data[i * W + lane];
}
template <int M, int N, typename T, typename Tl>
WPI_FUNC mat_t<M, N, T> untile_matrix(const Tl& t)
{
    constexpr int W = Tl::size / (M * N);     // the block width: this lane's column
    const int lane = W > 1 ? block_lane() : 0;
    mat_t<M, N, T> r;
    for (int i = 0; i < M * N; ++i) r.data[i / N][i % N] = t.data[i * W + lane];
    return r;
}
template <int M, int N, typename T, typename Tl>
WPI_FUNC void adj_untile_matrix(const Tl&, Tl& adj_t, const mat_t<M, N, T>& adj_ret)
{
    constexpr int W = Tl::size / (M * N);
    const int lane = W > 1 ? block_lane() : 0;
    for (int i = 0; i < M * N; ++i) adj_t.data[i * W + lane] += adj_ret.data[i / N][i % N];
}
WPI_TILE_TPL WPI_FUNC T untile_value(const WPI_TILE& t) { return t.data[WPI_TILE::size > 1 ? block_lane() : 0]; }
WPI_TILE_TPL WPI_FUNC void adj_untile_value(const WPI_TILE&, WPI_TILE& adj_t, const T& adj_ret)
{
    adj_accum(adj_t.data[WPI_TILE::size > 1 ? block_lane() : 0], adj_ret);
}
template <int N, typename T, typename Tl>
WPI_FUNC vec_t<N, T> untile_vector(const Tl& t)
{
    constexpr int W = Tl::size / N;
    const int lane = W > 1 ? block_lane() : 0;
    vec_t<N, T> r;
    for (int i = 0; i < N; ++i) r.c[i] = t.data[i * W + lane];
    return r;
}
template <int N, typename T, typename Tl>
WPI_FUNC void adj_untile_vector(const Tl&, Tl& adj_t, const vec_t<N, T>& adj_ret)
{
    constexpr int W = Tl::size / N;
    const int lane = W > 1 ? block_lane() : 0;
    for (int i = 0; i < N; ++i) adj_t.data[i * W + lane] += adj_ret.c[i];
}

template <typename R, typename A>
WPI_FUNC R tile_astype(const A& a)
{
    R r;
    for (int i = 0; i < R::size; ++i) r.data[i] = typename R::value_type(a.data[i]);
    return r;
}
// the gradient flows back converted to the source's dtype; an integer or bool source takes none
template <typename T> struct tile_grad_flows { static const bool value = !detail::is_integral<T>::value; };
template <> struct tile_grad_flows<bool> { static const bool value = false; };
template <typename R, typename A>
WPI_FUNC void adj_tile_astype(const A&, A& adj_a, const R& adj_ret)
{
    typedef typename A::value_type S;
    if constexpr (tile_grad_flows<S>::value)
        for (int i = 0; i < R::size; ++i) adj_a.data[i] += S(float64(adj_ret.data[i]));
}

// The adjoint of a per-lane tile write's merge (block_merge_tile, cpu_blocks.h). Each lane holds its
// own part of adj_ret; the block's adjoint is their sum. Writes (mode 0): an element of the result
// is the copy of the last lane that changed it (lane 0's, = old, where none did), so that lane's
// `mine` takes the element's adjoint (the write's own adjoint then sends it on to the value
// written or to `old`). Adds (mode 1): result = sum of the lanes' copies - (count - 1) * old, so
// every lane's `mine` takes the whole adjoint and `old` (one block-wide value: lane 0 takes the
// part) -(count - 1) times it. Bitwise merges (integers) take none. One lane: result = mine.
template <typename Tl>
WPI_FUNC bool tile_same_bytes(const Tl& a, const Tl& b, int k)
{
    const unsigned char* x = (const unsigned char*)&a.data[k];
    const unsigned char* y = (const unsigned char*)&b.data[k];
    for (int i = 0; i < int(sizeof(a.data[k])); ++i)
        if (x[i] != y[i]) return false;
    return true;
}
template <typename Tl>
WPI_FUNC void adj_block_merge_tile(const Tl& old, const Tl& mine, int mode, Tl& adj_old, Tl& adj_mine, int32&,
                                   const Tl& adj_ret)
{
    if (block_width() <= 1) {
        for (int k = 0; k < Tl::size; ++k) adj_accum(adj_mine.data[k], adj_ret.data[k]);
        return;
    }
    const Tl total = block_adjoint_sum(adj_ret);
    const int lane = block_lane();
    if (mode == 1) {
        int32 one = 1;
        const int32 count = block_adjoint_sum(tile_t<int32, 1>{{one}}).data[0];   // the block's lanes
        for (int k = 0; k < Tl::size; ++k) {
            adj_accum(adj_mine.data[k], total.data[k]);
            for (int c = 1; lane == 0 && c < count; ++c) adj_old.data[k] = sub(adj_old.data[k], total.data[k]);
        }
    } else if (mode == 0) {
        // which lane's copy each element came from: lane + 1 where a lane changed it, merged as writes
        tile_t<int32, Tl::d0, Tl::d1, Tl::d2, Tl::d3> none = {}, mark = {};
        for (int k = 0; k < Tl::size; ++k) mark.data[k] = tile_same_bytes(mine, old, k) ? 0 : lane + 1;
        const auto from = block_merge_tile(none, mark, 0);
        for (int k = 0; k < Tl::size; ++k)
            if ((from.data[k] == 0 ? 0 : from.data[k] - 1) == lane) adj_accum(adj_mine.data[k], total.data[k]);
    }
}

// tile_from_thread in a cooperative block: every lane got lane `src`'s value; its adjoint is the
// sum of every lane's part (block-wide), taken by lane `src`. One lane: the value's own adjoint.
template <typename T>
WPI_FUNC void adj_block_broadcast(const T&, int32 src, T& adj_value, int32&, const T& adj_ret)
{
    if (block_width() <= 1) {
        adj_accum(adj_value, adj_ret);
        return;
    }
    const tile_t<T, 1> total = block_adjoint_sum(tile_t<T, 1>{{adj_ret}});
    if (block_lane() == src) adj_accum(adj_value, total.data[0]);
}

}  // namespace wp

#include "warp_interactive/tile/linalg.h"
#include "warp_interactive/tile/gather_fft_stack.h"
