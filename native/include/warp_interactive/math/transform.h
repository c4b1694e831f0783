// transform_t<T>: rigid transforms (translation p, rotation q), 7 contiguous T, and their builtins.
// A transform maps x to quat_rotate(q, x) + p.
//
// The default constructor gives the zero transform (p = 0, q = 0), like every other type: codegen
// zero-initializes adjoints with `T adj = {};`, which an identity default would break (the
// gradient of q.w would start at 1). transform_identity<T>() gives the identity.
// Constructors and their adjoints (see vec.h for the pattern):
//   transform_t<T>()                   -> adj_transform_t(adj_ret)
//   transform_t<T>(s)          fill    -> adj_transform_t(s, adj_s, adj_ret)
//   transform_t<T>(p, q)               -> adj_transform_t(p, q, adj_p, adj_q, adj_ret)
//   transform_t<T>(px..qw)     comps   -> adj_transform_t(px..qw, adj_px..adj_qw, adj_ret)
//   transform_t<T>(transform_t<U>) cast -> adj_transform_t(t, adj_t, adj_ret)
// As in the reference, a transform is also a 7-vector: + and - componentwise, * by a scalar.
#pragma once

#include "warp_interactive/math/quat.h"

namespace wp {

template <typename T> struct transform_t {
    vec_t<3, T> p;
    quat_t<T> q;

    WPI_FUNC transform_t() : p(), q() {}
    WPI_FUNC explicit transform_t(T s) : p(s), q(s, s, s, s) {}
    WPI_FUNC transform_t(const vec_t<3, T>& p_, const quat_t<T>& q_) : p(p_), q(q_) {}
    WPI_FUNC transform_t(T px, T py, T pz, T qx, T qy, T qz, T qw) : p(px, py, pz), q(qx, qy, qz, qw) {}
    template <typename U> WPI_FUNC explicit transform_t(const transform_t<U>& t) : p(t.p), q(t.q) {}
};

template <typename T> WPI_FUNC bool operator==(const transform_t<T>& a, const transform_t<T>& b)
{
    return a.p == b.p && a.q == b.q;
}
template <typename T> WPI_FUNC bool operator!=(const transform_t<T>& a, const transform_t<T>& b) { return !(a == b); }

// componentwise, as on a 7-vector: the generic add/sub (scalar.h) and the adjoints' += use them
template <typename T> WPI_FUNC transform_t<T> operator+(const transform_t<T>& a, const transform_t<T>& b)
{
    return transform_t<T>(a.p + b.p, a.q + b.q);
}
template <typename T> WPI_FUNC transform_t<T> operator-(const transform_t<T>& a, const transform_t<T>& b)
{
    return transform_t<T>(a.p - b.p, a.q - b.q);
}
template <typename T> WPI_FUNC transform_t<T> operator-(const transform_t<T>& a) { return transform_t<T>(-a.p, -a.q); }
template <typename T> WPI_FUNC transform_t<T> operator*(const transform_t<T>& a, T s) { return transform_t<T>(a.p * s, a.q * s); }
template <typename T> WPI_FUNC transform_t<T> operator*(T s, const transform_t<T>& a) { return a * s; }
template <typename T> WPI_FUNC transform_t<T>& operator+=(transform_t<T>& a, const transform_t<T>& b) { return a = a + b; }
template <typename T> WPI_FUNC transform_t<T>& operator-=(transform_t<T>& a, const transform_t<T>& b) { return a = a - b; }

// ---------------------------------------------------------------------------------------------
// constructor adjoints

template <typename T> WPI_FUNC void adj_transform_t(const transform_t<T>&) {}

template <typename T> WPI_FUNC void adj_transform_t(T, T& adj_s, const transform_t<T>& adj_ret)
{
    adj_s += adj_ret.p.c[0] + adj_ret.p.c[1] + adj_ret.p.c[2] + adj_ret.q.x + adj_ret.q.y + adj_ret.q.z + adj_ret.q.w;
}

template <typename T>
WPI_FUNC void adj_transform_t(T, T, T, T, T, T, T, T& adj_px, T& adj_py, T& adj_pz, T& adj_qx, T& adj_qy, T& adj_qz,
                              T& adj_qw, const transform_t<T>& adj_ret)
{
    adj_px += adj_ret.p.c[0];
    adj_py += adj_ret.p.c[1];
    adj_pz += adj_ret.p.c[2];
    adj_qx += adj_ret.q.x;
    adj_qy += adj_ret.q.y;
    adj_qz += adj_ret.q.z;
    adj_qw += adj_ret.q.w;
}

template <typename T>
WPI_FUNC void adj_transform_t(const vec_t<3, T>&, const quat_t<T>&, vec_t<3, T>& adj_p, quat_t<T>& adj_q,
                              const transform_t<T>& adj_ret)
{
    adj_p += adj_ret.p;
    adj_q += adj_ret.q;
}

template <typename T, typename U>
WPI_FUNC void adj_transform_t(const transform_t<U>& t, transform_t<U>& adj_t, const transform_t<T>& adj_ret)
{
    adj_vec_t(t.p, adj_t.p, adj_ret.p);
    adj_quat_t(t.q, adj_t.q, adj_ret.q);
}

template <typename T> WPI_FUNC transform_t<T> transform_identity()
{
    return transform_t<T>(vec_t<3, T>(), quat_identity<T>());
}
template <typename T> WPI_FUNC void adj_transform_identity(const transform_t<T>&) {}

// ---------------------------------------------------------------------------------------------
// parts

template <typename T> WPI_FUNC vec_t<3, T> transform_get_translation(const transform_t<T>& t) { return t.p; }
template <typename T>
WPI_FUNC void adj_transform_get_translation(const transform_t<T>&, transform_t<T>& adj_t, const vec_t<3, T>& adj_ret)
{
    adj_t.p += adj_ret;
}

template <typename T> WPI_FUNC quat_t<T> transform_get_rotation(const transform_t<T>& t) { return t.q; }
template <typename T>
WPI_FUNC void adj_transform_get_rotation(const transform_t<T>&, transform_t<T>& adj_t, const quat_t<T>& adj_ret)
{
    adj_t.q += adj_ret;
}

namespace detail {

// component i: 0..2 = p, 3..6 = q (x, y, z, w)
template <typename T> WPI_FUNC T& comp(transform_t<T>& t, unsigned i) { return i < 3 ? t.p.c[i] : comp(t.q, i - 3); }
template <typename T> WPI_FUNC const T& comp(const transform_t<T>& t, unsigned i)
{
    return i < 3 ? t.p.c[i] : comp(t.q, i - 3);
}

}  // namespace detail

template <typename T, typename I> WPI_FUNC T extract(const transform_t<T>& t, I i) { return detail::comp(t, unsigned(i)); }
template <typename T, typename I>
WPI_FUNC void adj_extract(const transform_t<T>&, I i, transform_t<T>& adj_t, I&, T adj_ret)
{
    detail::comp(adj_t, unsigned(i)) += adj_ret;
}
template <typename T, typename I> WPI_FUNC transform_t<T> assign(transform_t<T> t, I i, T x)
{
    detail::comp(t, unsigned(i)) = x;
    return t;
}
template <typename T, typename I>
WPI_FUNC void adj_assign(const transform_t<T>&, I i, T, transform_t<T>& adj_t, I&, T& adj_x,
                         const transform_t<T>& adj_ret)
{
    transform_t<T> g = adj_ret;
    adj_x += detail::comp(g, unsigned(i));
    detail::comp(g, unsigned(i)) = T(0);
    adj_t.p += g.p;
    adj_t.q += g.q;
}

// ---------------------------------------------------------------------------------------------
// composition and application

// (a b)(x) = a(b(x)): p = rotate(a.q, b.p) + a.p, q = a.q b.q
template <typename T> WPI_FUNC transform_t<T> transform_multiply(const transform_t<T>& a, const transform_t<T>& b)
{
    return transform_t<T>(quat_rotate(a.q, b.p) + a.p, mul(a.q, b.q));
}
template <typename T>
WPI_FUNC void adj_transform_multiply(const transform_t<T>& a, const transform_t<T>& b, transform_t<T>& adj_a,
                                     transform_t<T>& adj_b, const transform_t<T>& adj_ret)
{
    adj_quat_rotate(a.q, b.p, adj_a.q, adj_b.p, adj_ret.p);
    adj_a.p += adj_ret.p;
    adj_mul(a.q, b.q, adj_a.q, adj_b.q, adj_ret.q);
}

template <typename T> WPI_FUNC transform_t<T> mul(const transform_t<T>& a, const transform_t<T>& b)
{
    return transform_multiply(a, b);
}
template <typename T>
WPI_FUNC void adj_mul(const transform_t<T>& a, const transform_t<T>& b, transform_t<T>& adj_a, transform_t<T>& adj_b,
                      const transform_t<T>& adj_ret)
{
    adj_transform_multiply(a, b, adj_a, adj_b, adj_ret);
}

// scaling every component (the reference's transform * scalar, a 7-vector operation)
template <typename T> WPI_FUNC transform_t<T> mul(const transform_t<T>& t, T s) { return t * s; }
template <typename T>
WPI_FUNC void adj_mul(const transform_t<T>& t, T s, transform_t<T>& adj_t, T& adj_s, const transform_t<T>& adj_ret)
{
    adj_t += adj_ret * s;
    adj_s += dot(t.p, adj_ret.p) + dot(t.q, adj_ret.q);
}

template <typename T> WPI_FUNC transform_t<T> mul(T s, const transform_t<T>& t) { return t * s; }
template <typename T>
WPI_FUNC void adj_mul(T s, const transform_t<T>& t, T& adj_s, transform_t<T>& adj_t, const transform_t<T>& adj_ret)
{
    adj_mul(t, s, adj_t, adj_s, adj_ret);
}

template <typename T> WPI_FUNC vec_t<3, T> transform_point(const transform_t<T>& t, const vec_t<3, T>& x)
{
    return quat_rotate(t.q, x) + t.p;
}
template <typename T>
WPI_FUNC void adj_transform_point(const transform_t<T>& t, const vec_t<3, T>& x, transform_t<T>& adj_t, vec_t<3, T>& adj_x,
                                  const vec_t<3, T>& adj_ret)
{
    adj_quat_rotate(t.q, x, adj_t.q, adj_x, adj_ret);
    adj_t.p += adj_ret;
}

// rotation only
template <typename T> WPI_FUNC vec_t<3, T> transform_vector(const transform_t<T>& t, const vec_t<3, T>& v)
{
    return quat_rotate(t.q, v);
}
template <typename T>
WPI_FUNC void adj_transform_vector(const transform_t<T>& t, const vec_t<3, T>& v, transform_t<T>& adj_t, vec_t<3, T>& adj_v,
                                   const vec_t<3, T>& adj_ret)
{
    adj_quat_rotate(t.q, v, adj_t.q, adj_v, adj_ret);
}

// with a 4x4 homogeneous matrix (column vectors): the first three rows of m (p, 1), no division
template <typename T> WPI_FUNC vec_t<3, T> transform_point(const mat_t<4, 4, T>& m, const vec_t<3, T>& x)
{
    vec_t<3, T> r;
    for (unsigned i = 0; i < 3; ++i)
        r.c[i] = m.data[i][0] * x.c[0] + m.data[i][1] * x.c[1] + m.data[i][2] * x.c[2] + m.data[i][3];
    return r;
}
template <typename T>
WPI_FUNC void adj_transform_point(const mat_t<4, 4, T>& m, const vec_t<3, T>& x, mat_t<4, 4, T>& adj_m, vec_t<3, T>& adj_x,
                                  const vec_t<3, T>& adj_ret)
{
    for (unsigned i = 0; i < 3; ++i) {
        for (unsigned j = 0; j < 3; ++j) {
            adj_m.data[i][j] += adj_ret.c[i] * x.c[j];
            adj_x.c[j] += m.data[i][j] * adj_ret.c[i];
        }
        adj_m.data[i][3] += adj_ret.c[i];
    }
}

// the upper-left 3x3 block of m times v
template <typename T> WPI_FUNC vec_t<3, T> transform_vector(const mat_t<4, 4, T>& m, const vec_t<3, T>& v)
{
    vec_t<3, T> r;
    for (unsigned i = 0; i < 3; ++i)
        r.c[i] = m.data[i][0] * v.c[0] + m.data[i][1] * v.c[1] + m.data[i][2] * v.c[2];
    return r;
}
template <typename T>
WPI_FUNC void adj_transform_vector(const mat_t<4, 4, T>& m, const vec_t<3, T>& v, mat_t<4, 4, T>& adj_m, vec_t<3, T>& adj_v,
                                   const vec_t<3, T>& adj_ret)
{
    for (unsigned i = 0; i < 3; ++i)
        for (unsigned j = 0; j < 3; ++j) {
            adj_m.data[i][j] += adj_ret.c[i] * v.c[j];
            adj_v.c[j] += m.data[i][j] * adj_ret.c[i];
        }
}

// (-rotate(conj(q), p), conj(q)): the inverse for a unit q
template <typename T> WPI_FUNC transform_t<T> transform_inverse(const transform_t<T>& t)
{
    return transform_t<T>(-quat_rotate_inv(t.q, t.p), quat_inverse(t.q));
}
template <typename T>
WPI_FUNC void adj_transform_inverse(const transform_t<T>& t, transform_t<T>& adj_t, const transform_t<T>& adj_ret)
{
    adj_quat_rotate_inv(t.q, t.p, adj_t.q, adj_t.p, -adj_ret.p);
    adj_quat_inverse(t.q, adj_t.q, adj_ret.q);
}

// componentwise a (1 - t) + b t over the 7 components (warp-lang's lerp of transforms: the
// rotation part is not renormalized)
template <typename T> WPI_FUNC transform_t<T> lerp(const transform_t<T>& a, const transform_t<T>& b, T t)
{
    return transform_t<T>(lerp(a.p, b.p, t), lerp(a.q, b.q, t));
}
template <typename T>
WPI_FUNC void adj_lerp(const transform_t<T>& a, const transform_t<T>& b, T t, transform_t<T>& adj_a,
                       transform_t<T>& adj_b, T& adj_t, const transform_t<T>& adj_ret)
{
    adj_lerp(a.p, b.p, t, adj_a.p, adj_b.p, adj_t, adj_ret.p);
    adj_lerp(a.q, b.q, t, adj_a.q, adj_b.q, adj_t, adj_ret.q);
}

}  // namespace wp
