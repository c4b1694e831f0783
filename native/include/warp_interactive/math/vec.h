// vec_t<N, T>: fixed-size vectors and their builtins.
//
// Constructors and their adjoints (codegen emits the adjoint with the constructor's arguments):
//   vec_t<N,T>()                   -> adj_vec_t(adj_ret)                              (nothing to do)
//   vec_t<N,T>(s)          fill    -> adj_vec_t(s, adj_s, adj_ret)                    adj_s += sum(adj_ret)
//   vec_t<N,T>(x0..xN-1)   comps   -> adj_vec_t(x0..xN-1, adj_x0..adj_xN-1, adj_ret)  adj_xk += adj_ret[k]
//   vec_t<N,T>(vec_t<N,U>) cast    -> adj_vec_t(v, adj_v, adj_ret)                    adj_v += adj_ret (floats only)
// For N == 1 the fill and component forms coincide.
//
// add/sub/neg/pos/eq/ne come from the generic templates in scalar.h through the operators below.
#pragma once

#include "warp_interactive/core/scalar.h"

namespace wp {

template <unsigned N, typename T> struct vec_t {
    T c[N > 0 ? N : 1];   // a 0-length vector (an empty slice, v[5:]) still needs a storage
                          // member: NVRTC rejects zero-size arrays

    WPI_FUNC vec_t() : c() {}
    WPI_FUNC explicit vec_t(T s)
    {
        for (unsigned i = 0; i < N; ++i)
            c[i] = s;
    }
    template <typename... Rest>
    WPI_FUNC vec_t(T c0, T c1, Rest... rest) : c{c0, c1, T(rest)...}
    {
        static_assert(sizeof...(Rest) + 2 == N, "vec_t: wrong number of components");
    }
    template <typename U> WPI_FUNC explicit vec_t(const vec_t<N, U>& v)
    {
        for (unsigned i = 0; i < N; ++i)
            c[i] = T(v.c[i]);
    }

    WPI_FUNC T& operator[](int i) { return c[i]; }
    WPI_FUNC const T& operator[](int i) const { return c[i]; }
};

// ---------------------------------------------------------------------------------------------
// operators (also the building blocks of the generic add/sub/neg/pos/eq/ne)

template <unsigned N, typename T> WPI_FUNC vec_t<N, T> operator+(const vec_t<N, T>& a, const vec_t<N, T>& b)
{
    vec_t<N, T> r;
    for (unsigned i = 0; i < N; ++i)
        r.c[i] = a.c[i] + b.c[i];
    return r;
}
template <unsigned N, typename T> WPI_FUNC vec_t<N, T> operator-(const vec_t<N, T>& a, const vec_t<N, T>& b)
{
    vec_t<N, T> r;
    for (unsigned i = 0; i < N; ++i)
        r.c[i] = a.c[i] - b.c[i];
    return r;
}
template <unsigned N, typename T> WPI_FUNC vec_t<N, T> operator-(const vec_t<N, T>& a)
{
    vec_t<N, T> r;
    for (unsigned i = 0; i < N; ++i)
        r.c[i] = -a.c[i];
    return r;
}
template <unsigned N, typename T> WPI_FUNC vec_t<N, T> operator*(const vec_t<N, T>& a, T s)
{
    vec_t<N, T> r;
    for (unsigned i = 0; i < N; ++i)
        r.c[i] = a.c[i] * s;
    return r;
}
template <unsigned N, typename T> WPI_FUNC vec_t<N, T> operator*(T s, const vec_t<N, T>& a) { return a * s; }
template <unsigned N, typename T> WPI_FUNC vec_t<N, T> operator/(const vec_t<N, T>& a, T s)
{
    vec_t<N, T> r;
    for (unsigned i = 0; i < N; ++i)
        r.c[i] = div(a.c[i], s);   // integers: truncating, x / 0 == 0, as scalars
    return r;
}
template <unsigned N, typename T> WPI_FUNC vec_t<N, T>& operator+=(vec_t<N, T>& a, const vec_t<N, T>& b)
{
    for (unsigned i = 0; i < N; ++i)
        a.c[i] += b.c[i];
    return a;
}
template <unsigned N, typename T> WPI_FUNC vec_t<N, T>& operator-=(vec_t<N, T>& a, const vec_t<N, T>& b)
{
    for (unsigned i = 0; i < N; ++i)
        a.c[i] -= b.c[i];
    return a;
}
template <unsigned N, typename T> WPI_FUNC bool operator==(const vec_t<N, T>& a, const vec_t<N, T>& b)
{
    for (unsigned i = 0; i < N; ++i)
        if (!(a.c[i] == b.c[i]))
            return false;
    return true;
}
template <unsigned N, typename T> WPI_FUNC bool operator!=(const vec_t<N, T>& a, const vec_t<N, T>& b) { return !(a == b); }

// component-wise bitwise operators (integer vectors): the generic bit_and/.../invert of scalar.h
#define WPI_VEC_BITWISE(OP)                                                                        \
    template <unsigned N, typename T> WPI_FUNC vec_t<N, T> operator OP(const vec_t<N, T>& a, const vec_t<N, T>& b) \
    {                                                                                              \
        vec_t<N, T> r;                                                                             \
        for (unsigned i = 0; i < N; ++i)                                                           \
            r.c[i] = T(a.c[i] OP b.c[i]);                                                          \
        return r;                                                                                  \
    }
WPI_VEC_BITWISE(&)
WPI_VEC_BITWISE(|)
WPI_VEC_BITWISE(^)
WPI_VEC_BITWISE(<<)
WPI_VEC_BITWISE(>>)
#undef WPI_VEC_BITWISE
template <unsigned N, typename T> WPI_FUNC vec_t<N, T> operator~(const vec_t<N, T>& a)
{
    vec_t<N, T> r;
    for (unsigned i = 0; i < N; ++i)
        r.c[i] = T(~a.c[i]);
    return r;
}

// ---------------------------------------------------------------------------------------------
// constructor adjoints

namespace detail {

template <typename A> WPI_FUNC const A& last(const A& a) { return a; }
template <typename A, typename... Rest> WPI_FUNC const auto& last(const A&, const Rest&... rest) { return last(rest...); }

// Walks the arguments of a constructor-style adjoint (x_0..x_{K-1}, adj_x_0..adj_x_{K-1}, adj_ret):
// skips the Skip forward values, then calls Piece::accum(adj_x_k, adj_ret, k) for the Count
// adjoints, and ignores what remains (adj_ret itself).
template <typename Piece, unsigned Skip, unsigned Count> struct ctor_adj {
    template <typename G, typename A, typename... Rest>
    static WPI_FUNC void run(const G& g, unsigned k, A&&, Rest&&... rest)
    {
        ctor_adj<Piece, Skip - 1, Count>::run(g, k, rest...);
    }
};
template <typename Piece, unsigned Count> struct ctor_adj<Piece, 0, Count> {
    template <typename G, typename A, typename... Rest>
    static WPI_FUNC void run(const G& g, unsigned k, A& adj, Rest&&... rest)
    {
        Piece::accum(adj, g, k);
        ctor_adj<Piece, 0, Count - 1>::run(g, k + 1, rest...);
    }
};
template <typename Piece> struct ctor_adj<Piece, 0, 0> {
    template <typename... Rest> static WPI_FUNC void run(Rest&&...) {}
};

// Runs ctor_adj over (x_0..x_{K-1}, adj_x_0..adj_x_{K-1}, adj_ret), K deduced from the count.
template <typename Piece, typename... A> WPI_FUNC void ctor_adj_all(A&&... args)
{
    ctor_adj<Piece, (sizeof...(A) - 1) / 2, (sizeof...(A) - 1) / 2>::run(last(args...), 0u, args...);
}

struct vec_component {
    template <unsigned N, typename T> static WPI_FUNC void accum(T& adj, const vec_t<N, T>& g, unsigned k) { adj += g.c[k]; }
};

}  // namespace detail

template <unsigned N, typename T> WPI_FUNC void adj_vec_t(const vec_t<N, T>&) {}

template <unsigned N, typename T> WPI_FUNC void adj_vec_t(T, T& adj_s, const vec_t<N, T>& adj_ret)
{
    for (unsigned i = 0; i < N; ++i)
        adj_s += adj_ret.c[i];
}

template <unsigned N, typename T, typename U>
WPI_FUNC void adj_vec_t(const vec_t<N, U>& v, vec_t<N, U>& adj_v, const vec_t<N, T>& adj_ret)
{
    for (unsigned i = 0; i < N; ++i)
        adj_cast<T, U>(v.c[i], adj_v.c[i], adj_ret.c[i]);
}

// component constructor, N >= 2 (2N + 1 arguments)
template <typename... A>
WPI_FUNC typename detail::enable_if<(sizeof...(A) >= 5)>::type adj_vec_t(A&&... args)
{
    detail::ctor_adj_all<detail::vec_component>(args...);
}

// ---------------------------------------------------------------------------------------------
// products

template <unsigned N, typename T> WPI_FUNC T dot(const vec_t<N, T>& a, const vec_t<N, T>& b)
{
    T r = T(0);
    for (unsigned i = 0; i < N; ++i)
        r += a.c[i] * b.c[i];
    return r;
}
template <unsigned N, typename T>
WPI_FUNC void adj_dot(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b, T adj_ret)
{
    adj_a += b * adj_ret;
    adj_b += a * adj_ret;
}

template <unsigned N, typename T> WPI_FUNC vec_t<N, T> mul(const vec_t<N, T>& a, T s) { return a * s; }
template <unsigned N, typename T>
WPI_FUNC void adj_mul(const vec_t<N, T>& a, T s, vec_t<N, T>& adj_a, T& adj_s, const vec_t<N, T>& adj_ret)
{
    adj_a += adj_ret * s;
    adj_s += dot(a, adj_ret);
}

template <unsigned N, typename T> WPI_FUNC vec_t<N, T> mul(T s, const vec_t<N, T>& a) { return a * s; }
template <unsigned N, typename T>
WPI_FUNC void adj_mul(T s, const vec_t<N, T>& a, T& adj_s, vec_t<N, T>& adj_a, const vec_t<N, T>& adj_ret)
{
    adj_mul(a, s, adj_a, adj_s, adj_ret);
}

template <unsigned N, typename T> WPI_FUNC vec_t<N, T> div(const vec_t<N, T>& a, T s) { return a / s; }
template <unsigned N, typename T>
WPI_FUNC void adj_div(const vec_t<N, T>& a, T s, vec_t<N, T>& adj_a, T& adj_s, const vec_t<N, T>& adj_ret)
{
    if (detail::is_int<T>::value) return;
    adj_a += adj_ret / s;
    adj_s -= dot(a, adj_ret) / (s * s);
}

// componentwise s / a[i]
template <unsigned N, typename T> WPI_FUNC vec_t<N, T> div(T s, const vec_t<N, T>& a)
{
    vec_t<N, T> r;
    for (unsigned i = 0; i < N; ++i)
        r.c[i] = div(s, a.c[i]);
    return r;
}
template <unsigned N, typename T>
WPI_FUNC void adj_div(T s, const vec_t<N, T>& a, T& adj_s, vec_t<N, T>& adj_a, const vec_t<N, T>& adj_ret)
{
    if (detail::is_int<T>::value) return;
    for (unsigned i = 0; i < N; ++i) {
        adj_s += adj_ret.c[i] / a.c[i];
        adj_a.c[i] -= adj_ret.c[i] * s / (a.c[i] * a.c[i]);
    }
}

template <typename T> WPI_FUNC vec_t<3, T> cross(const vec_t<3, T>& a, const vec_t<3, T>& b)
{
    return vec_t<3, T>(a.c[1] * b.c[2] - a.c[2] * b.c[1], a.c[2] * b.c[0] - a.c[0] * b.c[2],
                       a.c[0] * b.c[1] - a.c[1] * b.c[0]);
}
template <typename T>
WPI_FUNC void adj_cross(const vec_t<3, T>& a, const vec_t<3, T>& b, vec_t<3, T>& adj_a, vec_t<3, T>& adj_b,
                        const vec_t<3, T>& adj_ret)
{
    // g . (a x b) = a . (b x g) = b . (g x a)
    adj_a += cross(b, adj_ret);
    adj_b += cross(adj_ret, a);
}

template <unsigned N, typename T> WPI_FUNC T length_sq(const vec_t<N, T>& a) { return dot(a, a); }
template <unsigned N, typename T> WPI_FUNC void adj_length_sq(const vec_t<N, T>& a, vec_t<N, T>& adj_a, T adj_ret)
{
    adj_a += a * T(T(2) * adj_ret);   // T(...): small integer products promote to int
}

template <unsigned N, typename T> WPI_FUNC T length(const vec_t<N, T>& a) { return sqrt(dot(a, a)); }
template <unsigned N, typename T> WPI_FUNC void adj_length(const vec_t<N, T>& a, vec_t<N, T>& adj_a, T adj_ret)
{
    const T l = length(a);
    if (l > T(0))
        adj_a += a * (adj_ret / l);
}

// the zero vector stays zero
template <unsigned N, typename T> WPI_FUNC vec_t<N, T> normalize(const vec_t<N, T>& a)
{
    const T l = length(a);
    return l > T(0) ? a / l : vec_t<N, T>();
}
template <unsigned N, typename T>
WPI_FUNC void adj_normalize(const vec_t<N, T>& a, vec_t<N, T>& adj_a, const vec_t<N, T>& adj_ret)
{
    const T l = length(a);
    if (!(l > T(0)))
        return;
    // d(a/|a|) = (I - n n^T) da / |a|: remove the gradient's component along n
    const vec_t<N, T> n = a / l;
    adj_a += (adj_ret - n * dot(n, adj_ret)) / l;
}

// ---------------------------------------------------------------------------------------------
// componentwise

template <unsigned N, typename T> WPI_FUNC vec_t<N, T> cw_mul(const vec_t<N, T>& a, const vec_t<N, T>& b)
{
    vec_t<N, T> r;
    for (unsigned i = 0; i < N; ++i)
        r.c[i] = a.c[i] * b.c[i];
    return r;
}
template <unsigned N, typename T>
WPI_FUNC void adj_cw_mul(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b,
                         const vec_t<N, T>& adj_ret)
{
    adj_a += cw_mul(b, adj_ret);
    adj_b += cw_mul(a, adj_ret);
}

// a % b componentwise (the scalar mod's rule per component; integers: x % 0 == 0)
template <unsigned N, typename T> WPI_FUNC vec_t<N, T> mod(const vec_t<N, T>& a, const vec_t<N, T>& b)
{
    vec_t<N, T> r;
    for (unsigned i = 0; i < N; ++i)
        r.c[i] = mod(a.c[i], b.c[i]);
    return r;
}
template <unsigned N, typename T>
WPI_FUNC void adj_mod(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b,
                      const vec_t<N, T>& adj_ret)
{
    for (unsigned i = 0; i < N; ++i)
        adj_mod(a.c[i], b.c[i], adj_a.c[i], adj_b.c[i], adj_ret.c[i]);
}

template <unsigned N, typename T> WPI_FUNC vec_t<N, T> cw_div(const vec_t<N, T>& a, const vec_t<N, T>& b)
{
    vec_t<N, T> r;
    for (unsigned i = 0; i < N; ++i)
        r.c[i] = div(a.c[i], b.c[i]);   // integers: as scalars (x / 0 == 0)
    return r;
}
template <unsigned N, typename T>
WPI_FUNC void adj_cw_div(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b,
                         const vec_t<N, T>& adj_ret)
{
    for (unsigned i = 0; i < N; ++i)
        adj_div(a.c[i], b.c[i], adj_a.c[i], adj_b.c[i], adj_ret.c[i]);
}

template <unsigned N, typename T> WPI_FUNC vec_t<N, T> min(const vec_t<N, T>& a, const vec_t<N, T>& b)
{
    vec_t<N, T> r;
    for (unsigned i = 0; i < N; ++i)
        r.c[i] = min(a.c[i], b.c[i]);
    return r;
}
template <unsigned N, typename T>
WPI_FUNC void adj_min(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b,
                      const vec_t<N, T>& adj_ret)
{
    for (unsigned i = 0; i < N; ++i)
        adj_min(a.c[i], b.c[i], adj_a.c[i], adj_b.c[i], adj_ret.c[i]);
}

template <unsigned N, typename T> WPI_FUNC vec_t<N, T> max(const vec_t<N, T>& a, const vec_t<N, T>& b)
{
    vec_t<N, T> r;
    for (unsigned i = 0; i < N; ++i)
        r.c[i] = max(a.c[i], b.c[i]);
    return r;
}
template <unsigned N, typename T>
WPI_FUNC void adj_max(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b,
                      const vec_t<N, T>& adj_ret)
{
    for (unsigned i = 0; i < N; ++i)
        adj_max(a.c[i], b.c[i], adj_a.c[i], adj_b.c[i], adj_ret.c[i]);
}

template <unsigned N, typename T> WPI_FUNC vec_t<N, T> abs(const vec_t<N, T>& a)
{
    vec_t<N, T> r;
    for (unsigned i = 0; i < N; ++i)
        r.c[i] = abs(a.c[i]);
    return r;
}
template <unsigned N, typename T> WPI_FUNC void adj_abs(const vec_t<N, T>& a, vec_t<N, T>& adj_a, const vec_t<N, T>& adj_ret)
{
    for (unsigned i = 0; i < N; ++i)
        adj_abs(a.c[i], adj_a.c[i], adj_ret.c[i]);
}

template <unsigned N, typename T> WPI_FUNC vec_t<N, T> lerp(const vec_t<N, T>& a, const vec_t<N, T>& b, T t)
{
    return a * (T(1) - t) + b * t;
}
template <unsigned N, typename T>
WPI_FUNC void adj_lerp(const vec_t<N, T>& a, const vec_t<N, T>& b, T t, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b,
                       T& adj_t, const vec_t<N, T>& adj_ret)
{
    adj_a += adj_ret * (T(1) - t);
    adj_b += adj_ret * t;
    adj_t += dot(adj_ret, b - a);
}

// index of the first smallest / largest component; NaN components are skipped, as min/max skip
// them (0 when all are NaN), so the reductions' adjoints reach the component they returned
template <unsigned N, typename T> WPI_FUNC uint32 first_non_nan(const vec_t<N, T>& a)
{
    for (unsigned i = 0; i < N; ++i)
        if (a.c[i] == a.c[i])
            return i;
    return 0;
}
template <unsigned N, typename T> WPI_FUNC uint32 argmin(const vec_t<N, T>& a)
{
    uint32 k = first_non_nan(a);
    for (unsigned i = k + 1; i < N; ++i)
        if (a.c[i] < a.c[k])
            k = i;
    return k;
}
template <unsigned N, typename T> WPI_FUNC void adj_argmin(const vec_t<N, T>&, vec_t<N, T>&, uint32) {}

template <unsigned N, typename T> WPI_FUNC uint32 argmax(const vec_t<N, T>& a)
{
    uint32 k = first_non_nan(a);
    for (unsigned i = k + 1; i < N; ++i)
        if (a.c[k] < a.c[i])
            k = i;
    return k;
}
template <unsigned N, typename T> WPI_FUNC void adj_argmax(const vec_t<N, T>&, vec_t<N, T>&, uint32) {}

// smallest / largest component; the gradient goes to the first such component
template <unsigned N, typename T> WPI_FUNC T min(const vec_t<N, T>& a)
{
    T r = a.c[0];
    for (unsigned i = 1; i < N; ++i)
        r = min(r, a.c[i]);
    return r;
}
template <unsigned N, typename T> WPI_FUNC void adj_min(const vec_t<N, T>& a, vec_t<N, T>& adj_a, T adj_ret)
{
    if (!detail::is_int<T>::value)
        adj_a.c[argmin(a)] += adj_ret;
}
template <unsigned N, typename T> WPI_FUNC T max(const vec_t<N, T>& a)
{
    T r = a.c[0];
    for (unsigned i = 1; i < N; ++i)
        r = max(r, a.c[i]);
    return r;
}
template <unsigned N, typename T> WPI_FUNC void adj_max(const vec_t<N, T>& a, vec_t<N, T>& adj_a, T adj_ret)
{
    if (!detail::is_int<T>::value)
        adj_a.c[argmax(a)] += adj_ret;
}
template <unsigned N, typename T> WPI_FUNC vec_t<N, T> sign(const vec_t<N, T>& a)
{
    vec_t<N, T> r;
    for (unsigned i = 0; i < N; ++i)
        r.c[i] = sign(a.c[i]);
    return r;
}
template <unsigned N, typename T> WPI_FUNC void adj_sign(const vec_t<N, T>&, vec_t<N, T>&, const vec_t<N, T>&) {}

// ---------------------------------------------------------------------------------------------
// components

template <unsigned N, typename T, typename I> WPI_FUNC T extract(const vec_t<N, T>& a, I i) { return a.c[i]; }
template <unsigned N, typename T, typename I>
WPI_FUNC void adj_extract(const vec_t<N, T>&, I i, vec_t<N, T>& adj_a, I&, T adj_ret)
{
    adj_a.c[i] += adj_ret;
}

// a copy of a with component i replaced by x
template <unsigned N, typename T, typename I> WPI_FUNC vec_t<N, T> assign(vec_t<N, T> a, I i, T x)
{
    a.c[i] = x;
    return a;
}
template <unsigned N, typename T, typename I>
WPI_FUNC void adj_assign(const vec_t<N, T>&, I i, T, vec_t<N, T>& adj_a, I&, T& adj_x, const vec_t<N, T>& adj_ret)
{
    for (unsigned k = 0; k < N; ++k)
        if (k != unsigned(i))
            adj_a.c[k] += adj_ret.c[k];
    adj_x += adj_ret.c[i];
}

template <unsigned N, typename T> WPI_FUNC int32 len(const vec_t<N, T>&) { return int32(N); }
template <unsigned N, typename T> WPI_FUNC void adj_len(const vec_t<N, T>&, vec_t<N, T>&, int32) {}

}  // namespace wp
