// mat_t<R, C, T>: row-major matrices and their builtins.
//
// Constructors and their adjoints (see vec.h for the pattern):
//   mat_t<R,C,T>()                     -> adj_mat_t(adj_ret)
//   mat_t<R,C,T>(s)            fill    -> adj_mat_t(s, adj_s, adj_ret)
//   mat_t<R,C,T>(m00..m(R-1)(C-1))     -> adj_mat_t(m00.., adj_m00.., adj_ret)     (row-major)
//   mat_t<R,C,T>(mat_t<R,C,U>) cast    -> adj_mat_t(m, adj_m, adj_ret)
//   matrix_from_rows(r0, r1, ..)       -> adj_matrix_from_rows(r0.., adj_r0.., adj_ret)
//   matrix_from_cols(c0, c1, ..)       -> adj_matrix_from_cols(c0.., adj_c0.., adj_ret)
//
// add/sub/neg/pos/eq/ne come from the generic templates in scalar.h through the operators below.
#pragma once

#include "warp_interactive/math/vec.h"

namespace wp {

template <unsigned R, unsigned C, typename T> struct mat_t {
    T data[R > 0 ? R : 1][C > 0 ? C : 1];   // an empty slice (m[5:]) is a 0x0 matrix: storage anyway (as vec_t)

    WPI_FUNC mat_t() : data() {}
    WPI_FUNC explicit mat_t(T s)
    {
        for (unsigned i = 0; i < R; ++i)
            for (unsigned j = 0; j < C; ++j)
                data[i][j] = s;
    }
    template <typename... Rest>
    WPI_FUNC mat_t(T c0, T c1, Rest... rest) : data{c0, c1, T(rest)...}
    {
        static_assert(sizeof...(Rest) + 2 == R * C, "mat_t: wrong number of components");
    }
    template <typename U> WPI_FUNC explicit mat_t(const mat_t<R, C, U>& m)
    {
        for (unsigned i = 0; i < R; ++i)
            for (unsigned j = 0; j < C; ++j)
                data[i][j] = T(m.data[i][j]);
    }
};

// ---------------------------------------------------------------------------------------------
// operators

template <unsigned R, unsigned C, typename T>
WPI_FUNC mat_t<R, C, T> operator+(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b)
{
    mat_t<R, C, T> r;
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            r.data[i][j] = a.data[i][j] + b.data[i][j];
    return r;
}
template <unsigned R, unsigned C, typename T>
WPI_FUNC mat_t<R, C, T> operator-(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b)
{
    mat_t<R, C, T> r;
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            r.data[i][j] = a.data[i][j] - b.data[i][j];
    return r;
}
template <unsigned R, unsigned C, typename T> WPI_FUNC mat_t<R, C, T> operator-(const mat_t<R, C, T>& a)
{
    mat_t<R, C, T> r;
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            r.data[i][j] = -a.data[i][j];
    return r;
}
// component-wise bitwise operators (integer matrices, as warp-lang): the generic bit_and/.../invert
// of scalar.h call these
#define WPI_MAT_BITWISE(OP)                                                                        \
    template <unsigned R, unsigned C, typename T>                                                  \
    WPI_FUNC mat_t<R, C, T> operator OP(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b)         \
    {                                                                                              \
        mat_t<R, C, T> r;                                                                          \
        for (unsigned i = 0; i < R; ++i)                                                           \
            for (unsigned j = 0; j < C; ++j)                                                       \
                r.data[i][j] = T(a.data[i][j] OP b.data[i][j]);                                    \
        return r;                                                                                  \
    }
WPI_MAT_BITWISE(&)
WPI_MAT_BITWISE(|)
WPI_MAT_BITWISE(^)
WPI_MAT_BITWISE(<<)
WPI_MAT_BITWISE(>>)
#undef WPI_MAT_BITWISE
template <unsigned R, unsigned C, typename T> WPI_FUNC mat_t<R, C, T> operator~(const mat_t<R, C, T>& a)
{
    mat_t<R, C, T> r;
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            r.data[i][j] = T(~a.data[i][j]);
    return r;
}

template <unsigned R, unsigned C, typename T> WPI_FUNC mat_t<R, C, T> operator*(const mat_t<R, C, T>& a, T s)
{
    mat_t<R, C, T> r;
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            r.data[i][j] = a.data[i][j] * s;
    return r;
}
template <unsigned R, unsigned C, typename T> WPI_FUNC mat_t<R, C, T> operator*(T s, const mat_t<R, C, T>& a) { return a * s; }
template <unsigned R, unsigned C, typename T> WPI_FUNC mat_t<R, C, T> operator/(const mat_t<R, C, T>& a, T s)
{
    mat_t<R, C, T> r;
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            r.data[i][j] = div(a.data[i][j], s);   // integers: as scalars (x / 0 == 0)
    return r;
}
template <unsigned R, unsigned C, typename T>
WPI_FUNC mat_t<R, C, T>& operator+=(mat_t<R, C, T>& a, const mat_t<R, C, T>& b)
{
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            a.data[i][j] += b.data[i][j];
    return a;
}
template <unsigned R, unsigned C, typename T>
WPI_FUNC mat_t<R, C, T>& operator-=(mat_t<R, C, T>& a, const mat_t<R, C, T>& b)
{
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            a.data[i][j] -= b.data[i][j];
    return a;
}
template <unsigned R, unsigned C, typename T> WPI_FUNC bool operator==(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b)
{
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            if (!(a.data[i][j] == b.data[i][j]))
                return false;
    return true;
}
template <unsigned R, unsigned C, typename T> WPI_FUNC bool operator!=(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b)
{
    return !(a == b);
}

// ---------------------------------------------------------------------------------------------
// constructor adjoints

namespace detail {

struct mat_component {
    template <unsigned R, unsigned C, typename T>
    static WPI_FUNC void accum(T& adj, const mat_t<R, C, T>& g, unsigned k) { adj += g.data[k / C][k % C]; }
};
struct mat_row {
    template <unsigned R, unsigned C, typename T>
    static WPI_FUNC void accum(vec_t<C, T>& adj, const mat_t<R, C, T>& g, unsigned k)
    {
        for (unsigned j = 0; j < C; ++j)
            adj.c[j] += g.data[k][j];
    }
};
struct mat_col {
    template <unsigned R, unsigned C, typename T>
    static WPI_FUNC void accum(vec_t<R, T>& adj, const mat_t<R, C, T>& g, unsigned k)
    {
        for (unsigned i = 0; i < R; ++i)
            adj.c[i] += g.data[i][k];
    }
};

}  // namespace detail

template <unsigned R, unsigned C, typename T> WPI_FUNC void adj_mat_t(const mat_t<R, C, T>&) {}

template <unsigned R, unsigned C, typename T> WPI_FUNC void adj_mat_t(T, T& adj_s, const mat_t<R, C, T>& adj_ret)
{
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            adj_s += adj_ret.data[i][j];
}

template <unsigned R, unsigned C, typename T, typename U>
WPI_FUNC void adj_mat_t(const mat_t<R, C, U>& m, mat_t<R, C, U>& adj_m, const mat_t<R, C, T>& adj_ret)
{
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            adj_cast<T, U>(m.data[i][j], adj_m.data[i][j], adj_ret.data[i][j]);
}

// component constructor, R * C >= 2 (2 R C + 1 arguments)
template <typename... A>
WPI_FUNC typename detail::enable_if<(sizeof...(A) >= 5)>::type adj_mat_t(A&&... args)
{
    detail::ctor_adj_all<detail::mat_component>(args...);
}

template <unsigned C, typename T, typename... Rows>
WPI_FUNC mat_t<sizeof...(Rows) + 1, C, T> matrix_from_rows(const vec_t<C, T>& r0, const Rows&... rest)
{
    const vec_t<C, T>* rows[] = {&r0, &rest...};
    mat_t<sizeof...(Rows) + 1, C, T> m;
    for (unsigned i = 0; i < sizeof...(Rows) + 1; ++i)
        for (unsigned j = 0; j < C; ++j)
            m.data[i][j] = rows[i]->c[j];
    return m;
}
template <typename... A> WPI_FUNC void adj_matrix_from_rows(A&&... args)
{
    detail::ctor_adj_all<detail::mat_row>(args...);
}

template <unsigned R, typename T, typename... Cols>
WPI_FUNC mat_t<R, sizeof...(Cols) + 1, T> matrix_from_cols(const vec_t<R, T>& c0, const Cols&... rest)
{
    const vec_t<R, T>* cols[] = {&c0, &rest...};
    mat_t<R, sizeof...(Cols) + 1, T> m;
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < sizeof...(Cols) + 1; ++j)
            m.data[i][j] = cols[j]->c[i];
    return m;
}
template <typename... A> WPI_FUNC void adj_matrix_from_cols(A&&... args)
{
    detail::ctor_adj_all<detail::mat_col>(args...);
}

// ---------------------------------------------------------------------------------------------
// products

// double contraction sum_ij a_ij b_ij
template <unsigned R, unsigned C, typename T> WPI_FUNC T ddot(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b)
{
    T r = T(0);
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            r += a.data[i][j] * b.data[i][j];
    return r;
}
template <unsigned R, unsigned C, typename T>
WPI_FUNC void adj_ddot(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b, mat_t<R, C, T>& adj_a, mat_t<R, C, T>& adj_b,
                       T adj_ret)
{
    adj_a += b * adj_ret;
    adj_b += a * adj_ret;
}

template <unsigned R, unsigned C, typename T> WPI_FUNC mat_t<R, C, T> mul(const mat_t<R, C, T>& a, T s) { return a * s; }
template <unsigned R, unsigned C, typename T>
WPI_FUNC void adj_mul(const mat_t<R, C, T>& a, T s, mat_t<R, C, T>& adj_a, T& adj_s, const mat_t<R, C, T>& adj_ret)
{
    adj_a += adj_ret * s;
    adj_s += ddot(a, adj_ret);
}

template <unsigned R, unsigned C, typename T> WPI_FUNC mat_t<R, C, T> mul(T s, const mat_t<R, C, T>& a) { return a * s; }
template <unsigned R, unsigned C, typename T>
WPI_FUNC void adj_mul(T s, const mat_t<R, C, T>& a, T& adj_s, mat_t<R, C, T>& adj_a, const mat_t<R, C, T>& adj_ret)
{
    adj_mul(a, s, adj_a, adj_s, adj_ret);
}

template <unsigned R, unsigned C, typename T> WPI_FUNC mat_t<R, C, T> div(const mat_t<R, C, T>& a, T s) { return a / s; }
template <unsigned R, unsigned C, typename T>
WPI_FUNC void adj_div(const mat_t<R, C, T>& a, T s, mat_t<R, C, T>& adj_a, T& adj_s, const mat_t<R, C, T>& adj_ret)
{
    if (detail::is_int<T>::value) return;
    adj_a += adj_ret / s;
    adj_s -= ddot(a, adj_ret) / (s * s);
}

// matrix * column vector
template <unsigned R, unsigned C, typename T> WPI_FUNC vec_t<R, T> mul(const mat_t<R, C, T>& m, const vec_t<C, T>& v)
{
    vec_t<R, T> r;
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            r.c[i] += m.data[i][j] * v.c[j];
    return r;
}
template <unsigned R, unsigned C, typename T>
WPI_FUNC void adj_mul(const mat_t<R, C, T>& m, const vec_t<C, T>& v, mat_t<R, C, T>& adj_m, vec_t<C, T>& adj_v,
                      const vec_t<R, T>& adj_ret)
{
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j) {
            adj_m.data[i][j] += adj_ret.c[i] * v.c[j];
            adj_v.c[j] += m.data[i][j] * adj_ret.c[i];
        }
}

// row vector * matrix
template <unsigned R, unsigned C, typename T> WPI_FUNC vec_t<C, T> mul(const vec_t<R, T>& v, const mat_t<R, C, T>& m)
{
    vec_t<C, T> r;
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            r.c[j] += v.c[i] * m.data[i][j];
    return r;
}
template <unsigned R, unsigned C, typename T>
WPI_FUNC void adj_mul(const vec_t<R, T>& v, const mat_t<R, C, T>& m, vec_t<R, T>& adj_v, mat_t<R, C, T>& adj_m,
                      const vec_t<C, T>& adj_ret)
{
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j) {
            adj_m.data[i][j] += v.c[i] * adj_ret.c[j];
            adj_v.c[i] += m.data[i][j] * adj_ret.c[j];
        }
}

template <unsigned R, unsigned K, unsigned C, typename T>
WPI_FUNC mat_t<R, C, T> mul(const mat_t<R, K, T>& a, const mat_t<K, C, T>& b)
{
    mat_t<R, C, T> r;
    for (unsigned i = 0; i < R; ++i)
        for (unsigned k = 0; k < K; ++k)
            for (unsigned j = 0; j < C; ++j)
                r.data[i][j] += a.data[i][k] * b.data[k][j];
    return r;
}
template <unsigned R, unsigned K, unsigned C, typename T>
WPI_FUNC void adj_mul(const mat_t<R, K, T>& a, const mat_t<K, C, T>& b, mat_t<R, K, T>& adj_a, mat_t<K, C, T>& adj_b,
                      const mat_t<R, C, T>& adj_ret)
{
    // adj_a += adj_ret b^T, adj_b += a^T adj_ret
    for (unsigned i = 0; i < R; ++i)
        for (unsigned k = 0; k < K; ++k)
            for (unsigned j = 0; j < C; ++j) {
                adj_a.data[i][k] += adj_ret.data[i][j] * b.data[k][j];
                adj_b.data[k][j] += a.data[i][k] * adj_ret.data[i][j];
            }
}

// a b^T
template <unsigned R, unsigned C, typename T> WPI_FUNC mat_t<R, C, T> outer(const vec_t<R, T>& a, const vec_t<C, T>& b)
{
    mat_t<R, C, T> m;
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            m.data[i][j] = a.c[i] * b.c[j];
    return m;
}
template <unsigned R, unsigned C, typename T>
WPI_FUNC void adj_outer(const vec_t<R, T>& a, const vec_t<C, T>& b, vec_t<R, T>& adj_a, vec_t<C, T>& adj_b,
                        const mat_t<R, C, T>& adj_ret)
{
    adj_a += mul(adj_ret, b);
    adj_b += mul(a, adj_ret);
}

// component-wise product and quotient
template <unsigned R, unsigned C, typename T>
WPI_FUNC mat_t<R, C, T> cw_mul(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b)
{
    mat_t<R, C, T> r;
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            r.data[i][j] = a.data[i][j] * b.data[i][j];
    return r;
}
template <unsigned R, unsigned C, typename T>
WPI_FUNC void adj_cw_mul(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b, mat_t<R, C, T>& adj_a, mat_t<R, C, T>& adj_b,
                         const mat_t<R, C, T>& adj_ret)
{
    adj_a += cw_mul(b, adj_ret);
    adj_b += cw_mul(a, adj_ret);
}
template <unsigned R, unsigned C, typename T>
WPI_FUNC mat_t<R, C, T> cw_div(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b)
{
    mat_t<R, C, T> r;
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            r.data[i][j] = div(a.data[i][j], b.data[i][j]);   // integers: as scalars
    return r;
}
template <unsigned R, unsigned C, typename T>
WPI_FUNC void adj_cw_div(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b, mat_t<R, C, T>& adj_a, mat_t<R, C, T>& adj_b,
                         const mat_t<R, C, T>& adj_ret)
{
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            adj_div(a.data[i][j], b.data[i][j], adj_a.data[i][j], adj_b.data[i][j], adj_ret.data[i][j]);
}

template <unsigned R, unsigned C, typename T>
WPI_FUNC mat_t<R, C, T> lerp(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b, T t)
{
    return a * (T(1) - t) + b * t;
}
template <unsigned R, unsigned C, typename T>
WPI_FUNC void adj_lerp(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b, T t, mat_t<R, C, T>& adj_a, mat_t<R, C, T>& adj_b,
                       T& adj_t, const mat_t<R, C, T>& adj_ret)
{
    adj_a += adj_ret * (T(1) - t);
    adj_b += adj_ret * t;
    adj_t += ddot(adj_ret, b - a);
}

// ---------------------------------------------------------------------------------------------
// structure

template <unsigned R, unsigned C, typename T> WPI_FUNC mat_t<C, R, T> transpose(const mat_t<R, C, T>& m)
{
    mat_t<C, R, T> t;
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            t.data[j][i] = m.data[i][j];
    return t;
}
template <unsigned R, unsigned C, typename T>
WPI_FUNC void adj_transpose(const mat_t<R, C, T>&, mat_t<R, C, T>& adj_m, const mat_t<C, R, T>& adj_ret)
{
    adj_m += transpose(adj_ret);
}

template <unsigned N, typename T> WPI_FUNC mat_t<N, N, T> identity()
{
    mat_t<N, N, T> m;
    for (unsigned i = 0; i < N; ++i)
        m.data[i][i] = T(1);
    return m;
}
template <unsigned N, typename T> WPI_FUNC void adj_identity(const mat_t<N, N, T>&) {}

template <unsigned N, typename T> WPI_FUNC mat_t<N, N, T> diag(const vec_t<N, T>& d)
{
    mat_t<N, N, T> m;
    for (unsigned i = 0; i < N; ++i)
        m.data[i][i] = d.c[i];
    return m;
}
template <unsigned N, typename T> WPI_FUNC void adj_diag(const vec_t<N, T>&, vec_t<N, T>& adj_d, const mat_t<N, N, T>& adj_ret)
{
    for (unsigned i = 0; i < N; ++i)
        adj_d.c[i] += adj_ret.data[i][i];
}

template <unsigned N, typename T> WPI_FUNC vec_t<N, T> get_diag(const mat_t<N, N, T>& m)
{
    vec_t<N, T> d;
    for (unsigned i = 0; i < N; ++i)
        d.c[i] = m.data[i][i];
    return d;
}
template <unsigned N, typename T>
WPI_FUNC void adj_get_diag(const mat_t<N, N, T>&, mat_t<N, N, T>& adj_m, const vec_t<N, T>& adj_ret)
{
    for (unsigned i = 0; i < N; ++i)
        adj_m.data[i][i] += adj_ret.c[i];
}

template <unsigned N, typename T> WPI_FUNC T trace(const mat_t<N, N, T>& m)
{
    T t = T(0);
    for (unsigned i = 0; i < N; ++i)
        t += m.data[i][i];
    return t;
}
template <unsigned N, typename T> WPI_FUNC void adj_trace(const mat_t<N, N, T>&, mat_t<N, N, T>& adj_m, T adj_ret)
{
    for (unsigned i = 0; i < N; ++i)
        adj_m.data[i][i] += adj_ret;
}

// skew(v) x == cross(v, x)
template <typename T> WPI_FUNC mat_t<3, 3, T> skew(const vec_t<3, T>& v)
{
    return mat_t<3, 3, T>(T(0), -v.c[2], v.c[1], v.c[2], T(0), -v.c[0], -v.c[1], v.c[0], T(0));
}
template <typename T> WPI_FUNC void adj_skew(const vec_t<3, T>&, vec_t<3, T>& adj_v, const mat_t<3, 3, T>& adj_ret)
{
    adj_v.c[0] += adj_ret.data[2][1] - adj_ret.data[1][2];
    adj_v.c[1] += adj_ret.data[0][2] - adj_ret.data[2][0];
    adj_v.c[2] += adj_ret.data[1][0] - adj_ret.data[0][1];
}

// ---------------------------------------------------------------------------------------------
// determinant and inverse, both from the cofactor matrix cof(m):
//   det(m) = sum_j m_0j cof_0j,   d det(m) / dm = cof(m),   inverse(m) = cof(m)^T / det(m)

namespace detail {

template <typename T> WPI_FUNC mat_t<2, 2, T> cofactor(const mat_t<2, 2, T>& m)
{
    return mat_t<2, 2, T>(m.data[1][1], -m.data[1][0], -m.data[0][1], m.data[0][0]);
}

// for 3x3 the cofactor rows are cross products of the other two rows
template <typename T> WPI_FUNC mat_t<3, 3, T> cofactor(const mat_t<3, 3, T>& m)
{
    const vec_t<3, T> r0(m.data[0][0], m.data[0][1], m.data[0][2]);
    const vec_t<3, T> r1(m.data[1][0], m.data[1][1], m.data[1][2]);
    const vec_t<3, T> r2(m.data[2][0], m.data[2][1], m.data[2][2]);
    return matrix_from_rows(cross(r1, r2), cross(r2, r0), cross(r0, r1));
}

// 4x4 minors are sums of six triple products: float32 (and half) accumulate them in a wider type,
// as the reference does, so that the determinant keeps its accuracy (finite differences of it
// and the inverse of a moderately conditioned matrix stay meaningful)
template <typename T> struct wide { typedef T type; };
template <> struct wide<float32> { typedef float64 type; };
template <> struct wide<half> { typedef float32 type; };

// the signed cofactor (i, j) of a 4x4 matrix, in the wide type W
template <typename W, typename T> WPI_FUNC W cofactor4(const mat_t<4, 4, T>& m, unsigned i, unsigned j)
{
    W s[3][3];   // the minor: m without row i and column j
    for (unsigned r = 0, a = 0; r < 4; ++r) {
        if (r == i)
            continue;
        for (unsigned c = 0, b = 0; c < 4; ++c)
            if (c != j)
                s[a][b++] = W(m.data[r][c]);
        ++a;
    }
    const W minor = s[0][0] * (s[1][1] * s[2][2] - s[1][2] * s[2][1]) - s[0][1] * (s[1][0] * s[2][2] - s[1][2] * s[2][0]) +
                    s[0][2] * (s[1][0] * s[2][1] - s[1][1] * s[2][0]);
    return (i + j) % 2 ? -minor : minor;
}

template <typename T> WPI_FUNC mat_t<4, 4, T> cofactor(const mat_t<4, 4, T>& m)
{
    mat_t<4, 4, T> cof;
    for (unsigned i = 0; i < 4; ++i)
        for (unsigned j = 0; j < 4; ++j)
            cof.data[i][j] = T(cofactor4<typename wide<T>::type>(m, i, j));
    return cof;
}

template <typename T> WPI_FUNC T det4(const mat_t<4, 4, T>& m)
{
    typedef typename wide<T>::type W;
    W d = W(0);
    for (unsigned j = 0; j < 4; ++j)
        d += W(m.data[0][j]) * cofactor4<W>(m, 0, j);
    return T(d);
}

template <unsigned N, typename T> WPI_FUNC T det_from_cofactor(const mat_t<N, N, T>& m, const mat_t<N, N, T>& cof)
{
    T d = T(0);
    for (unsigned j = 0; j < N; ++j)
        d += m.data[0][j] * cof.data[0][j];
    return d;
}

}  // namespace detail

// defined for N = 2, 3, 4
template <unsigned N, typename T> WPI_FUNC T determinant(const mat_t<N, N, T>& m)
{
    return detail::det_from_cofactor(m, detail::cofactor(m));
}
template <typename T> WPI_FUNC T determinant(const mat_t<4, 4, T>& m) { return detail::det4(m); }
template <unsigned N, typename T> WPI_FUNC void adj_determinant(const mat_t<N, N, T>& m, mat_t<N, N, T>& adj_m, T adj_ret)
{
    adj_m += detail::cofactor(m) * adj_ret;
}

// defined for N = 2, 3, 4; a singular matrix gives the zero matrix
template <unsigned N, typename T> WPI_FUNC mat_t<N, N, T> inverse(const mat_t<N, N, T>& m)
{
    const mat_t<N, N, T> cof = detail::cofactor(m);
    const T d = detail::det_from_cofactor(m, cof);
    return d == T(0) ? mat_t<N, N, T>() : transpose(cof) / d;
}
template <unsigned N, typename T>
WPI_FUNC void adj_inverse(const mat_t<N, N, T>& m, mat_t<N, N, T>& adj_m, const mat_t<N, N, T>& adj_ret)
{
    // d(m^-1) = -m^-1 dm m^-1  =>  adj_m -= m^-T adj_ret m^-T
    const mat_t<N, N, T> it = transpose(inverse(m));
    adj_m -= mul(mul(it, adj_ret), it);
}

// ---------------------------------------------------------------------------------------------
// components

// row i
template <unsigned R, unsigned C, typename T, typename I> WPI_FUNC vec_t<C, T> extract(const mat_t<R, C, T>& m, I i)
{
    vec_t<C, T> r;
    for (unsigned j = 0; j < C; ++j)
        r.c[j] = m.data[i][j];
    return r;
}
template <unsigned R, unsigned C, typename T, typename I>
WPI_FUNC void adj_extract(const mat_t<R, C, T>&, I i, mat_t<R, C, T>& adj_m, I&, const vec_t<C, T>& adj_ret)
{
    for (unsigned j = 0; j < C; ++j)
        adj_m.data[i][j] += adj_ret.c[j];
}

template <unsigned R, unsigned C, typename T, typename I, typename J>
WPI_FUNC T extract(const mat_t<R, C, T>& m, I i, J j)
{
    return m.data[i][j];
}
template <unsigned R, unsigned C, typename T, typename I, typename J>
WPI_FUNC void adj_extract(const mat_t<R, C, T>&, I i, J j, mat_t<R, C, T>& adj_m, I&, J&, T adj_ret)
{
    adj_m.data[i][j] += adj_ret;
}

// a copy of m with entry (i, j) replaced by x
template <unsigned R, unsigned C, typename T, typename I, typename J>
WPI_FUNC mat_t<R, C, T> assign(mat_t<R, C, T> m, I i, J j, T x)
{
    m.data[i][j] = x;
    return m;
}
template <unsigned R, unsigned C, typename T, typename I, typename J>
WPI_FUNC void adj_assign(const mat_t<R, C, T>&, I i, J j, T, mat_t<R, C, T>& adj_m, I&, J&, T& adj_x,
                         const mat_t<R, C, T>& adj_ret)
{
    mat_t<R, C, T> g = adj_ret;
    adj_x += g.data[i][j];
    g.data[i][j] = T(0);
    adj_m += g;
}

// a copy of m with row i replaced by r
template <unsigned R, unsigned C, typename T, typename I>
WPI_FUNC mat_t<R, C, T> assign(mat_t<R, C, T> m, I i, const vec_t<C, T>& r)
{
    for (unsigned j = 0; j < C; ++j)
        m.data[i][j] = r.c[j];
    return m;
}
template <unsigned R, unsigned C, typename T, typename I>
WPI_FUNC void adj_assign(const mat_t<R, C, T>&, I i, const vec_t<C, T>&, mat_t<R, C, T>& adj_m, I&, vec_t<C, T>& adj_r,
                         const mat_t<R, C, T>& adj_ret)
{
    mat_t<R, C, T> g = adj_ret;
    for (unsigned j = 0; j < C; ++j) {
        adj_r.c[j] += g.data[i][j];
        g.data[i][j] = T(0);
    }
    adj_m += g;
}

// ---------------------------------------------------------------------------------------------
// 3x3 decompositions (float32 and float64). Their outputs are out-parameters; each adjoint
// consumes the outputs' adjoints and then clears them (the outputs' earlier values were
// overwritten, so nothing flows to them). Repeated eigen/singular values make the adjoints
// singular: those terms are dropped.

namespace detail {

WPI_FUNC float32 epsilon(float32) { return 1.1920929e-7f; }
WPI_FUNC float64 epsilon(float64) { return 2.220446049250313e-16; }
WPI_FUNC half epsilon(half) { return half(9.765625e-4f); }
WPI_FUNC bfloat16 epsilon(bfloat16) { return bfloat16(7.8125e-3f); }

// Jacobi rotation: t = tan(phi) of the rotation that zeroes the off-diagonal entry of the
// symmetric 2x2 block [[app, apq], [apq, aqq]] (the smaller of the two roots, for stability).
template <typename T> WPI_FUNC void jacobi_angle(T app, T aqq, T apq, T& c, T& s)
{
    const T theta = (aqq - app) / (T(2) * apq);
    const T t = (theta < T(0) ? T(-1) : T(1)) / (abs(theta) + sqrt(theta * theta + T(1)));
    c = T(1) / sqrt(t * t + T(1));
    s = t * c;
}

// m <- m J, where J rotates the (p, q) plane: new col p = c p - s q, new col q = s p + c q
template <typename T> WPI_FUNC void rotate_cols(mat_t<3, 3, T>& m, unsigned p, unsigned q, T c, T s)
{
    for (unsigned k = 0; k < 3; ++k) {
        const T mp = m.data[k][p], mq = m.data[k][q];
        m.data[k][p] = c * mp - s * mq;
        m.data[k][q] = s * mp + c * mq;
    }
}

template <typename T> WPI_FUNC void swap_cols(mat_t<3, 3, T>& m, unsigned p, unsigned q)
{
    for (unsigned k = 0; k < 3; ++k) {
        const T t = m.data[k][p];
        m.data[k][p] = m.data[k][q];
        m.data[k][q] = t;
    }
}

template <typename T> WPI_FUNC vec_t<3, T> col(const mat_t<3, 3, T>& m, unsigned j)
{
    return vec_t<3, T>(m.data[0][j], m.data[1][j], m.data[2][j]);
}

template <typename T> WPI_FUNC void set_col(mat_t<3, 3, T>& m, unsigned j, const vec_t<3, T>& v)
{
    for (unsigned k = 0; k < 3; ++k)
        m.data[k][j] = v.c[k];
}

// sorts d (ascending, or descending), permuting the columns of a and b alike
template <typename T> WPI_FUNC void sort3(vec_t<3, T>& d, mat_t<3, 3, T>& a, mat_t<3, 3, T>* b, bool descending)
{
    for (unsigned i = 0; i < 2; ++i)
        for (unsigned j = 2; j > i; --j)
            if (descending ? d.c[j - 1] < d.c[j] : d.c[j] < d.c[j - 1]) {
                const T t = d.c[j - 1];
                d.c[j - 1] = d.c[j];
                d.c[j] = t;
                swap_cols(a, j - 1, j);
                if (b)
                    swap_cols(*b, j - 1, j);
            }
}

enum { jacobi_max_sweeps = 32 };

}  // namespace detail

// Eigen-decomposition of the symmetric part (A + A^T) / 2 of A by cyclic Jacobi rotations:
// A = Q diag(d) Q^T, eigenvalues d ascending, Q orthogonal with the eigenvectors as columns.
template <typename T> WPI_FUNC void eig3(const mat_t<3, 3, T>& A, mat_t<3, 3, T>& Q, vec_t<3, T>& d)
{
    mat_t<3, 3, T> S = (A + transpose(A)) * T(0.5);
    Q = identity<3, T>();
    const T tol = detail::epsilon(T(0)) * detail::epsilon(T(0)) * ddot(S, S);
    for (unsigned sweep = 0; sweep < detail::jacobi_max_sweeps; ++sweep) {
        const T off = S.data[0][1] * S.data[0][1] + S.data[0][2] * S.data[0][2] + S.data[1][2] * S.data[1][2];
        if (off <= tol)
            break;
        for (unsigned p = 0; p < 2; ++p)
            for (unsigned q = p + 1; q < 3; ++q) {
                if (S.data[p][q] == T(0))
                    continue;
                T c, s;
                detail::jacobi_angle(S.data[p][p], S.data[q][q], S.data[p][q], c, s);
                // S <- J^T S J (via (S J)^T = J^T S, S being symmetric), Q <- Q J
                detail::rotate_cols(S, p, q, c, s);
                S = transpose(S);
                detail::rotate_cols(S, p, q, c, s);
                S.data[p][q] = S.data[q][p] = T(0);
                detail::rotate_cols(Q, p, q, c, s);
            }
    }
    d = get_diag(S);
    detail::sort3<T>(d, Q, nullptr, false);
}

// Giles (2008): for A = Q diag(d) Q^T, adj_A = Q (diag(adj_d) + F o (Q^T adj_Q)) Q^T with
// F_ij = 1 / (d_j - d_i) off the diagonal; symmetrized, as the forward uses (A + A^T) / 2.
template <typename T>
WPI_FUNC void adj_eig3(const mat_t<3, 3, T>& A, const mat_t<3, 3, T>& Q, const vec_t<3, T>& d, mat_t<3, 3, T>& adj_A,
                       mat_t<3, 3, T>& adj_Q, vec_t<3, T>& adj_d)
{
    const mat_t<3, 3, T> QtG = mul(transpose(Q), adj_Q);
    const T scale = max(abs(d.c[0]), abs(d.c[2])) + T(1);
    mat_t<3, 3, T> inner;
    for (unsigned i = 0; i < 3; ++i)
        for (unsigned j = 0; j < 3; ++j) {
            const T gap = d.c[j] - d.c[i];
            if (i == j)
                inner.data[i][j] = adj_d.c[i];
            else if (abs(gap) > detail::epsilon(T(0)) * scale)
                inner.data[i][j] = QtG.data[i][j] / gap;
        }
    const mat_t<3, 3, T> g = mul(mul(Q, inner), transpose(Q));
    adj_A += (g + transpose(g)) * T(0.5);
    adj_Q = mat_t<3, 3, T>();
    adj_d = vec_t<3, T>();
}

// Singular value decomposition A = U diag(sigma) V^T by one-sided Jacobi (rotating pairs of
// columns of A until they are orthogonal; accurate also for small singular values).
// sigma >= 0 descending; U and V orthogonal (det may be -1).
template <typename T>
WPI_FUNC void svd3(const mat_t<3, 3, T>& A, mat_t<3, 3, T>& U, vec_t<3, T>& sigma, mat_t<3, 3, T>& V)
{
    const T eps = detail::epsilon(T(0));
    U = A;
    V = identity<3, T>();
    for (unsigned sweep = 0; sweep < detail::jacobi_max_sweeps; ++sweep) {
        bool rotated = false;
        for (unsigned p = 0; p < 2; ++p)
            for (unsigned q = p + 1; q < 3; ++q) {
                const vec_t<3, T> up = detail::col(U, p), uq = detail::col(U, q);
                const T alpha = dot(up, up), beta = dot(uq, uq), gamma = dot(up, uq);
                if (abs(gamma) <= eps * sqrt(alpha * beta))
                    continue;
                rotated = true;
                // the rotation that diagonalizes the Gram block [[alpha, gamma], [gamma, beta]]
                T c, s;
                detail::jacobi_angle(alpha, beta, gamma, c, s);
                detail::rotate_cols(U, p, q, c, s);
                detail::rotate_cols(V, p, q, c, s);
            }
        if (!rotated)
            break;
    }
    for (unsigned j = 0; j < 3; ++j)
        sigma.c[j] = length(detail::col(U, j));
    detail::sort3(sigma, U, &V, true);

    // columns are orthogonal now: normalize them, and complete an orthonormal basis where a
    // singular value is (numerically) zero
    const T tiny = sigma.c[0] * eps;
    if (!(sigma.c[0] > T(0))) {
        U = identity<3, T>();
        return;
    }
    const vec_t<3, T> u0 = detail::col(U, 0) / sigma.c[0];
    vec_t<3, T> u1;
    if (sigma.c[1] > tiny) {
        u1 = detail::col(U, 1) / sigma.c[1];
    } else {
        // any unit vector orthogonal to u0: cross with the axis along which u0 is smallest
        const unsigned k = argmin(abs(u0));
        vec_t<3, T> e;
        e.c[k] = T(1);
        u1 = normalize(cross(u0, e));
    }
    const vec_t<3, T> u2 = sigma.c[2] > tiny ? detail::col(U, 2) / sigma.c[2] : cross(u0, u1);
    U = matrix_from_cols(u0, u1, u2);
}

// Townsend (2016), square full-rank case: with S = diag(sigma) and F_ij = 1 / (s_j^2 - s_i^2) off
// the diagonal, adj_A = U [(F o (U^T adj_U - adj_U^T U)) S + diag(adj_sigma)
//                          + S (F o (V^T adj_V - adj_V^T V))] V^T
namespace detail {
// (adj_svd2 and adj_svd3 share it)
template <unsigned N, typename T>
WPI_FUNC void adj_svd_square(const mat_t<N, N, T>& U, const vec_t<N, T>& sigma, const mat_t<N, N, T>& V,
                             mat_t<N, N, T>& adj_A, mat_t<N, N, T>& adj_U, vec_t<N, T>& adj_sigma, mat_t<N, N, T>& adj_V)
{
    const mat_t<N, N, T> Ju = mul(transpose(U), adj_U), Jv = mul(transpose(V), adj_V);
    const T scale = sigma.c[0] * sigma.c[0] + T(1);
    mat_t<N, N, T> inner;
    for (unsigned i = 0; i < N; ++i)
        for (unsigned j = 0; j < N; ++j) {
            if (i == j) {
                inner.data[i][j] = adj_sigma.c[i];
                continue;
            }
            const T gap = sigma.c[j] * sigma.c[j] - sigma.c[i] * sigma.c[i];
            if (!(abs(gap) > detail::epsilon(T(0)) * scale))
                continue;
            const T f = T(1) / gap;
            inner.data[i][j] = f * (Ju.data[i][j] - Ju.data[j][i]) * sigma.c[j] +
                               sigma.c[i] * f * (Jv.data[i][j] - Jv.data[j][i]);
        }
    adj_A += mul(mul(U, inner), transpose(V));
    adj_U = mat_t<N, N, T>();
    adj_sigma = vec_t<N, T>();
    adj_V = mat_t<N, N, T>();
}
}  // namespace detail

template <typename T>
WPI_FUNC void adj_svd3(const mat_t<3, 3, T>& A, const mat_t<3, 3, T>& U, const vec_t<3, T>& sigma, const mat_t<3, 3, T>& V,
                       mat_t<3, 3, T>& adj_A, mat_t<3, 3, T>& adj_U, vec_t<3, T>& adj_sigma, mat_t<3, 3, T>& adj_V)
{
    detail::adj_svd_square(U, sigma, V, adj_A, adj_U, adj_sigma, adj_V);
}

// QR decomposition A = Q R by Givens rotations: Q orthogonal, R upper triangular with a
// non-negative diagonal.
template <typename T> WPI_FUNC void qr3(const mat_t<3, 3, T>& A, mat_t<3, 3, T>& Q, mat_t<3, 3, T>& R)
{
    R = A;
    Q = identity<3, T>();
    for (unsigned j = 0; j < 2; ++j)
        for (unsigned i = j + 1; i < 3; ++i) {
            const T a = R.data[j][j], b = R.data[i][j];
            if (b == T(0))
                continue;
            const T r = sqrt(a * a + b * b);
            const T c = a / r, s = b / r;
            // rows (j, i) of R <- G rows with G = [[c, s], [-s, c]]; Q <- Q G^T keeps A = Q R
            for (unsigned k = 0; k < 3; ++k) {
                const T rj = R.data[j][k], ri = R.data[i][k];
                R.data[j][k] = c * rj + s * ri;
                R.data[i][k] = c * ri - s * rj;
            }
            detail::rotate_cols(Q, j, i, c, -s);
            R.data[i][j] = T(0);
        }
    for (unsigned i = 0; i < 3; ++i)
        if (R.data[i][i] < T(0)) {
            for (unsigned k = 0; k < 3; ++k) {
                R.data[i][k] = -R.data[i][k];
                Q.data[k][i] = -Q.data[k][i];
            }
        }
}

// Square full-rank A = Q R (Walter & Lehmann; Seeger et al. 2017): M = R adj_R^T - adj_Q^T Q,
// adj_A = (adj_Q + Q copyltu(M)) R^-T with copyltu(M) the symmetric matrix from M's lower triangle.
template <typename T>
WPI_FUNC void adj_qr3(const mat_t<3, 3, T>& A, const mat_t<3, 3, T>& Q, const mat_t<3, 3, T>& R, mat_t<3, 3, T>& adj_A,
                      mat_t<3, 3, T>& adj_Q, mat_t<3, 3, T>& adj_R)
{
    const mat_t<3, 3, T> M = mul(R, transpose(adj_R)) - mul(transpose(adj_Q), Q);
    mat_t<3, 3, T> sym;
    for (unsigned i = 0; i < 3; ++i)
        for (unsigned j = 0; j < 3; ++j)
            sym.data[i][j] = i >= j ? M.data[i][j] : M.data[j][i];
    adj_A += mul(adj_Q + mul(Q, sym), transpose(inverse(R)));
    adj_Q = mat_t<3, 3, T>();
    adj_R = mat_t<3, 3, T>();
}

// float16 decompositions: computed in float32 and rounded once (as the reference accepts half
// matrices; the Jacobi tolerances and the adjoints' gap tests need more than half's 11 bits).
// The adjoints recompute the decomposition in float32 from A rather than widen rounded outputs.
namespace detail {
template <unsigned R, unsigned C> WPI_FUNC mat_t<R, C, float32> widen(const mat_t<R, C, half>& m)
{
    return mat_t<R, C, float32>(m);
}
template <unsigned N> WPI_FUNC vec_t<N, float32> widen(const vec_t<N, half>& v) { return vec_t<N, float32>(v); }
template <unsigned R, unsigned C> WPI_FUNC mat_t<R, C, half> narrow(const mat_t<R, C, float32>& m)
{
    return mat_t<R, C, half>(m);
}
template <unsigned N> WPI_FUNC vec_t<N, half> narrow(const vec_t<N, float32>& v) { return vec_t<N, half>(v); }
}  // namespace detail

WPI_FUNC void eig3(const mat_t<3, 3, half>& A, mat_t<3, 3, half>& Q, vec_t<3, half>& d)
{
    mat_t<3, 3, float32> q;
    vec_t<3, float32> e;
    eig3(detail::widen(A), q, e);
    Q = detail::narrow(q), d = detail::narrow(e);
}
WPI_FUNC void adj_eig3(const mat_t<3, 3, half>& A, const mat_t<3, 3, half>&, const vec_t<3, half>&,
                       mat_t<3, 3, half>& adj_A, mat_t<3, 3, half>& adj_Q, vec_t<3, half>& adj_d)
{
    const mat_t<3, 3, float32> a = detail::widen(A);
    mat_t<3, 3, float32> q, adj_a, adj_q = detail::widen(adj_Q);
    vec_t<3, float32> e, adj_e = detail::widen(adj_d);
    eig3(a, q, e);
    adj_eig3(a, q, e, adj_a, adj_q, adj_e);
    adj_A += detail::narrow(adj_a);
    adj_Q = mat_t<3, 3, half>();
    adj_d = vec_t<3, half>();
}

WPI_FUNC void qr3(const mat_t<3, 3, half>& A, mat_t<3, 3, half>& Q, mat_t<3, 3, half>& R)
{
    mat_t<3, 3, float32> q, r;
    qr3(detail::widen(A), q, r);
    Q = detail::narrow(q), R = detail::narrow(r);
}
WPI_FUNC void adj_qr3(const mat_t<3, 3, half>& A, const mat_t<3, 3, half>&, const mat_t<3, 3, half>&,
                      mat_t<3, 3, half>& adj_A, mat_t<3, 3, half>& adj_Q, mat_t<3, 3, half>& adj_R)
{
    const mat_t<3, 3, float32> a = detail::widen(A);
    mat_t<3, 3, float32> q, r, adj_a, adj_q = detail::widen(adj_Q), adj_r = detail::widen(adj_R);
    qr3(a, q, r);
    adj_qr3(a, q, r, adj_a, adj_q, adj_r);
    adj_A += detail::narrow(adj_a);
    adj_Q = mat_t<3, 3, half>(), adj_R = mat_t<3, 3, half>();
}

}  // namespace wp
