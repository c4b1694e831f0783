// quat_t<T>: quaternions (x, y, z, w) = (vector part, scalar part) and their builtins.
//
// The default constructor gives the zero quaternion, like vectors; quat_identity<T>() gives the
// identity rotation. Constructors and their adjoints (see vec.h for the pattern):
//   quat_t<T>()               -> adj_quat_t(adj_ret)
//   quat_t<T>(x, y, z, w)     -> adj_quat_t(x, y, z, w, adj_x, adj_y, adj_z, adj_w, adj_ret)
//   quat_t<T>(v, w)           -> adj_quat_t(v, w, adj_v, adj_w, adj_ret)        (v: vec_t<3,T>)
//   quat_t<T>(quat_t<U>) cast -> adj_quat_t(q, adj_q, adj_ret)
//
// add/sub/neg/pos/eq/ne come from the generic templates in scalar.h through the operators below.
#pragma once

#include "warp_interactive/math/mat.h"

namespace wp {

template <typename T> struct quat_t {
    T x, y, z, w;

    WPI_FUNC quat_t() : x(), y(), z(), w() {}
    WPI_FUNC quat_t(T x_, T y_, T z_, T w_) : x(x_), y(y_), z(z_), w(w_) {}
    WPI_FUNC quat_t(const vec_t<3, T>& v, T w_) : x(v.c[0]), y(v.c[1]), z(v.c[2]), w(w_) {}
    template <typename U> WPI_FUNC explicit quat_t(const quat_t<U>& q) : x(T(q.x)), y(T(q.y)), z(T(q.z)), w(T(q.w)) {}
};

// ---------------------------------------------------------------------------------------------
// operators (componentwise; the quaternion product is mul)

template <typename T> WPI_FUNC quat_t<T> operator+(const quat_t<T>& a, const quat_t<T>& b)
{
    return quat_t<T>(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
template <typename T> WPI_FUNC quat_t<T> operator-(const quat_t<T>& a, const quat_t<T>& b)
{
    return quat_t<T>(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w);
}
template <typename T> WPI_FUNC quat_t<T> operator-(const quat_t<T>& a) { return quat_t<T>(-a.x, -a.y, -a.z, -a.w); }
template <typename T> WPI_FUNC quat_t<T> operator*(const quat_t<T>& a, T s) { return quat_t<T>(a.x * s, a.y * s, a.z * s, a.w * s); }
template <typename T> WPI_FUNC quat_t<T> operator*(T s, const quat_t<T>& a) { return a * s; }
template <typename T> WPI_FUNC quat_t<T> operator/(const quat_t<T>& a, T s) { return quat_t<T>(a.x / s, a.y / s, a.z / s, a.w / s); }
template <typename T> WPI_FUNC quat_t<T>& operator+=(quat_t<T>& a, const quat_t<T>& b) { return a = a + b; }
template <typename T> WPI_FUNC quat_t<T>& operator-=(quat_t<T>& a, const quat_t<T>& b) { return a = a - b; }
template <typename T> WPI_FUNC bool operator==(const quat_t<T>& a, const quat_t<T>& b)
{
    return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}
template <typename T> WPI_FUNC bool operator!=(const quat_t<T>& a, const quat_t<T>& b) { return !(a == b); }

namespace detail {

template <typename T> WPI_FUNC vec_t<3, T> quat_vec(const quat_t<T>& q) { return vec_t<3, T>(q.x, q.y, q.z); }
template <typename T> WPI_FUNC quat_t<T> conj(const quat_t<T>& q) { return quat_t<T>(-q.x, -q.y, -q.z, q.w); }

// component i of q: 0..3 = x, y, z, w
template <typename T> WPI_FUNC T& comp(quat_t<T>& q, unsigned i) { return i == 0 ? q.x : (i == 1 ? q.y : (i == 2 ? q.z : q.w)); }
template <typename T> WPI_FUNC const T& comp(const quat_t<T>& q, unsigned i)
{
    return i == 0 ? q.x : (i == 1 ? q.y : (i == 2 ? q.z : q.w));
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// constructor adjoints

template <typename T> WPI_FUNC void adj_quat_t(const quat_t<T>&) {}

template <typename T>
WPI_FUNC void adj_quat_t(T, T, T, T, T& adj_x, T& adj_y, T& adj_z, T& adj_w, const quat_t<T>& adj_ret)
{
    adj_x += adj_ret.x;
    adj_y += adj_ret.y;
    adj_z += adj_ret.z;
    adj_w += adj_ret.w;
}

template <typename T>
WPI_FUNC void adj_quat_t(const vec_t<3, T>&, T, vec_t<3, T>& adj_v, T& adj_w, const quat_t<T>& adj_ret)
{
    adj_v += detail::quat_vec(adj_ret);
    adj_w += adj_ret.w;
}

template <typename T, typename U>
WPI_FUNC void adj_quat_t(const quat_t<U>& q, quat_t<U>& adj_q, const quat_t<T>& adj_ret)
{
    adj_cast<T, U>(q.x, adj_q.x, adj_ret.x);
    adj_cast<T, U>(q.y, adj_q.y, adj_ret.y);
    adj_cast<T, U>(q.z, adj_q.z, adj_ret.z);
    adj_cast<T, U>(q.w, adj_q.w, adj_ret.w);
}

template <typename T> WPI_FUNC quat_t<T> quat_identity() { return quat_t<T>(T(0), T(0), T(0), T(1)); }
template <typename T> WPI_FUNC void adj_quat_identity(const quat_t<T>&) {}

// ---------------------------------------------------------------------------------------------
// products and norms

template <typename T> WPI_FUNC T dot(const quat_t<T>& a, const quat_t<T>& b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
template <typename T>
WPI_FUNC void adj_dot(const quat_t<T>& a, const quat_t<T>& b, quat_t<T>& adj_a, quat_t<T>& adj_b, T adj_ret)
{
    adj_a += b * adj_ret;
    adj_b += a * adj_ret;
}

// Hamilton product: (v1, w1)(v2, w2) = (w1 v2 + w2 v1 + v1 x v2, w1 w2 - v1 . v2)
template <typename T> WPI_FUNC quat_t<T> mul(const quat_t<T>& a, const quat_t<T>& b)
{
    return quat_t<T>(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                     a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                     a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                     a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
template <typename T>
WPI_FUNC void adj_mul(const quat_t<T>& a, const quat_t<T>& b, quat_t<T>& adj_a, quat_t<T>& adj_b, const quat_t<T>& adj_ret)
{
    // the 4x4 matrices of left and right multiplication by q transpose to those of conj(q)
    adj_a += mul(adj_ret, detail::conj(b));
    adj_b += mul(detail::conj(a), adj_ret);
}

template <typename T> WPI_FUNC quat_t<T> mul(const quat_t<T>& q, T s) { return q * s; }
template <typename T>
WPI_FUNC void adj_mul(const quat_t<T>& q, T s, quat_t<T>& adj_q, T& adj_s, const quat_t<T>& adj_ret)
{
    adj_q += adj_ret * s;
    adj_s += dot(q, adj_ret);
}

template <typename T> WPI_FUNC quat_t<T> mul(T s, const quat_t<T>& q) { return q * s; }
template <typename T>
WPI_FUNC void adj_mul(T s, const quat_t<T>& q, T& adj_s, quat_t<T>& adj_q, const quat_t<T>& adj_ret)
{
    adj_mul(q, s, adj_q, adj_s, adj_ret);
}

template <typename T> WPI_FUNC quat_t<T> div(const quat_t<T>& q, T s) { return q / s; }
template <typename T>
WPI_FUNC void adj_div(const quat_t<T>& q, T s, quat_t<T>& adj_q, T& adj_s, const quat_t<T>& adj_ret)
{
    adj_q += adj_ret / s;
    adj_s -= dot(q, adj_ret) / (s * s);
}

template <typename T> WPI_FUNC T length_sq(const quat_t<T>& q) { return dot(q, q); }
template <typename T> WPI_FUNC void adj_length_sq(const quat_t<T>& q, quat_t<T>& adj_q, T adj_ret)
{
    adj_q += q * (T(2) * adj_ret);
}

template <typename T> WPI_FUNC T length(const quat_t<T>& q) { return sqrt(dot(q, q)); }
template <typename T> WPI_FUNC void adj_length(const quat_t<T>& q, quat_t<T>& adj_q, T adj_ret)
{
    const T l = length(q);
    if (l > T(0))
        adj_q += q * (adj_ret / l);
}

// the zero quaternion stays zero
template <typename T> WPI_FUNC quat_t<T> normalize(const quat_t<T>& q)
{
    const T l = length(q);
    return l > T(0) ? q / l : quat_t<T>();
}
template <typename T> WPI_FUNC void adj_normalize(const quat_t<T>& q, quat_t<T>& adj_q, const quat_t<T>& adj_ret)
{
    const T l = length(q);
    if (!(l > T(0)))
        return;
    const quat_t<T> n = q / l;
    adj_q += (adj_ret - n * dot(n, adj_ret)) / l;
}

// the conjugate, which is the inverse of a unit quaternion
template <typename T> WPI_FUNC quat_t<T> quat_inverse(const quat_t<T>& q) { return detail::conj(q); }
template <typename T> WPI_FUNC void adj_quat_inverse(const quat_t<T>&, quat_t<T>& adj_q, const quat_t<T>& adj_ret)
{
    adj_q += detail::conj(adj_ret);
}

// ---------------------------------------------------------------------------------------------
// rotations

// q v conj(q) = (w^2 - u.u) v + 2 (u.v) u + 2 w (u x v), with u the vector part of q: the rotation
// of v for a unit q (a non-unit q also scales by |q|^2)
// v (2 w^2 - 1) + 2 u (u . v) + 2 w (u x v): the rotation q v q* for a unit q, written with
// 2 w^2 - 1 for w^2 - |u|^2 as the reference does, so that values and gradients off the unit
// sphere (a quaternion that is not normalized, the radial part of a gradient) are the reference's
template <typename T> WPI_FUNC vec_t<3, T> quat_rotate(const quat_t<T>& q, const vec_t<3, T>& v)
{
    const vec_t<3, T> u = detail::quat_vec(q);
    return v * (T(2) * q.w * q.w - T(1)) + u * (T(2) * dot(u, v)) + cross(u, v) * (T(2) * q.w);
}
template <typename T>
WPI_FUNC void adj_quat_rotate(const quat_t<T>& q, const vec_t<3, T>& v, quat_t<T>& adj_q, vec_t<3, T>& adj_v,
                              const vec_t<3, T>& adj_ret)
{
    const vec_t<3, T> u = detail::quat_vec(q);
    const vec_t<3, T>& g = adj_ret;
    const T a = T(2) * q.w * q.w - T(1), ug = dot(u, g), uv = dot(u, v), gv = dot(g, v);
    adj_v += g * a + u * (T(2) * ug) + cross(g, u) * (T(2) * q.w);
    const vec_t<3, T> adj_u = v * (T(2) * ug) + g * (T(2) * uv) + cross(v, g) * (T(2) * q.w);
    adj_q += quat_t<T>(adj_u, T(4) * q.w * gv + T(2) * dot(g, cross(u, v)));
}

// conj(q) v q: the inverse rotation for a unit q
template <typename T> WPI_FUNC vec_t<3, T> quat_rotate_inv(const quat_t<T>& q, const vec_t<3, T>& v)
{
    return quat_rotate(detail::conj(q), v);
}
template <typename T>
WPI_FUNC void adj_quat_rotate_inv(const quat_t<T>& q, const vec_t<3, T>& v, quat_t<T>& adj_q, vec_t<3, T>& adj_v,
                                  const vec_t<3, T>& adj_ret)
{
    quat_t<T> adj_conj;
    adj_quat_rotate(detail::conj(q), v, adj_conj, adj_v, adj_ret);
    adj_q += detail::conj(adj_conj);
}

// the matrix whose columns are quat_rotate(q, e_i)
template <typename T> WPI_FUNC mat_t<3, 3, T> quat_to_matrix(const quat_t<T>& q)
{
    return matrix_from_cols(quat_rotate(q, vec_t<3, T>(T(1), T(0), T(0))), quat_rotate(q, vec_t<3, T>(T(0), T(1), T(0))),
                            quat_rotate(q, vec_t<3, T>(T(0), T(0), T(1))));
}
template <typename T> WPI_FUNC void adj_quat_to_matrix(const quat_t<T>& q, quat_t<T>& adj_q, const mat_t<3, 3, T>& adj_ret)
{
    for (unsigned j = 0; j < 3; ++j) {
        vec_t<3, T> e, adj_e;
        e.c[j] = T(1);
        adj_quat_rotate(q, e, adj_q, adj_e, detail::col(adj_ret, j));
    }
}

namespace detail {

// Shepperd's method: first the largest of |x|, |y|, |z|, |w| from the trace or a diagonal entry
// (t = 4 q_k^2, s = 2 sqrt(t) = 4 q_k), then the other three from off-diagonal pairs divided by s.
// With (k, i, j) a cyclic permutation of the axes, the diagonal-k branch reads
//   t = 1 + m_kk - m_ii - m_jj, q_k = s/4, q_i = (m_ki + m_ik)/s, q_j = (m_kj + m_jk)/s, w = (m_ji - m_ij)/s
// and the trace branch
//   t = 1 + trace(m), w = s/4, q_k = (m_ji - m_ij)/s for each axis k.
// Not normalized.
template <typename T> WPI_FUNC quat_t<T> quat_from_matrix_raw(const mat_t<3, 3, T>& m)
{
    const T tr = trace(m);
    quat_t<T> q;
    if (tr > T(0)) {
        const T s = T(2) * sqrt(T(1) + tr);
        q.w = s / T(4);
        for (unsigned k = 0; k < 3; ++k) {
            const unsigned i = (k + 1) % 3, j = (k + 2) % 3;
            comp(q, k) = (m.data[j][i] - m.data[i][j]) / s;
        }
        return q;
    }
    const unsigned k = argmax(get_diag(m));
    const unsigned i = (k + 1) % 3, j = (k + 2) % 3;
    const T s = T(2) * sqrt(T(1) + m.data[k][k] - m.data[i][i] - m.data[j][j]);
    comp(q, k) = s / T(4);
    comp(q, i) = (m.data[k][i] + m.data[i][k]) / s;
    comp(q, j) = (m.data[k][j] + m.data[j][k]) / s;
    q.w = (m.data[j][i] - m.data[i][j]) / s;
    return q;
}

// Each branch has the form q_dominant = s/4, q_other = n_other / s with n linear in m and
// s = 2 sqrt(t), t linear in m; so adj_s = g_dominant/4 - sum g_other n_other / s^2, adj_n = g/s,
// and adj_t = adj_s ds/dt = adj_s 2/s.
template <typename T> WPI_FUNC void adj_quat_from_matrix_raw(const mat_t<3, 3, T>& m, mat_t<3, 3, T>& adj_m, const quat_t<T>& g)
{
    const T tr = trace(m);
    if (tr > T(0)) {
        const T s = T(2) * sqrt(T(1) + tr);
        T adj_s = g.w / T(4);
        for (unsigned k = 0; k < 3; ++k) {
            const unsigned i = (k + 1) % 3, j = (k + 2) % 3;
            const T gk = comp(g, k);
            adj_s -= gk * (m.data[j][i] - m.data[i][j]) / (s * s);
            adj_m.data[j][i] += gk / s;
            adj_m.data[i][j] -= gk / s;
        }
        const T adj_t = adj_s * T(2) / s;
        for (unsigned k = 0; k < 3; ++k)
            adj_m.data[k][k] += adj_t;
        return;
    }
    const unsigned k = argmax(get_diag(m));
    const unsigned i = (k + 1) % 3, j = (k + 2) % 3;
    const T s = T(2) * sqrt(T(1) + m.data[k][k] - m.data[i][i] - m.data[j][j]);
    const T gi = comp(g, i), gj = comp(g, j);
    const T adj_s = comp(g, k) / T(4) -
                    (gi * (m.data[k][i] + m.data[i][k]) + gj * (m.data[k][j] + m.data[j][k]) +
                     g.w * (m.data[j][i] - m.data[i][j])) / (s * s);
    adj_m.data[k][i] += gi / s;
    adj_m.data[i][k] += gi / s;
    adj_m.data[k][j] += gj / s;
    adj_m.data[j][k] += gj / s;
    adj_m.data[j][i] += g.w / s;
    adj_m.data[i][j] -= g.w / s;
    const T adj_t = adj_s * T(2) / s;
    adj_m.data[k][k] += adj_t;
    adj_m.data[i][i] -= adj_t;
    adj_m.data[j][j] -= adj_t;
}

}  // namespace detail

// the unit quaternion of a rotation matrix
template <typename T> WPI_FUNC quat_t<T> quat_from_matrix(const mat_t<3, 3, T>& m)
{
    return normalize(detail::quat_from_matrix_raw(m));
}
template <typename T> WPI_FUNC void adj_quat_from_matrix(const mat_t<3, 3, T>& m, mat_t<3, 3, T>& adj_m, const quat_t<T>& adj_ret)
{
    const quat_t<T> raw = detail::quat_from_matrix_raw(m);
    quat_t<T> adj_raw;
    adj_normalize(raw, adj_raw, adj_ret);
    detail::adj_quat_from_matrix_raw(m, adj_m, adj_raw);
}

namespace detail {
template <typename T> WPI_FUNC mat_t<3, 3, T> upper3(const mat_t<4, 4, T>& m)
{
    mat_t<3, 3, T> r;
    for (unsigned a = 0; a < 3; ++a)
        for (unsigned b = 0; b < 3; ++b)
            r.data[a][b] = m.data[a][b];
    return r;
}
}  // namespace detail

// a 4x4 (homogeneous) matrix: the rotation of its upper-left 3x3 block, as in the reference
template <typename T> WPI_FUNC quat_t<T> quat_from_matrix(const mat_t<4, 4, T>& m)
{
    return quat_from_matrix(detail::upper3(m));
}
template <typename T> WPI_FUNC void adj_quat_from_matrix(const mat_t<4, 4, T>& m, mat_t<4, 4, T>& adj_m, const quat_t<T>& adj_ret)
{
    mat_t<3, 3, T> adj_r;
    adj_quat_from_matrix(detail::upper3(m), adj_r, adj_ret);
    for (unsigned a = 0; a < 3; ++a)
        for (unsigned b = 0; b < 3; ++b)
            adj_m.data[a][b] += adj_r.data[a][b];
}

// rotation by angle (radians) about axis (normalized here)
template <typename T> WPI_FUNC quat_t<T> quat_from_axis_angle(const vec_t<3, T>& axis, T angle)
{
    const T h = angle * T(0.5);
    return quat_t<T>(normalize(axis) * sin(h), cos(h));
}
template <typename T>
WPI_FUNC void adj_quat_from_axis_angle(const vec_t<3, T>& axis, T angle, vec_t<3, T>& adj_axis, T& adj_angle,
                                       const quat_t<T>& adj_ret)
{
    const T h = angle * T(0.5);
    const vec_t<3, T> n = normalize(axis);
    const vec_t<3, T> g = detail::quat_vec(adj_ret);
    adj_angle += (dot(g, n) * cos(h) - adj_ret.w * sin(h)) * T(0.5);
    adj_normalize(axis, adj_axis, g * sin(h));
}

// angle = 2 atan2(|u|, |w|) in [0, pi], axis = u / |u| (negated when w < 0, so that (axis,
// angle) is the shorter of the two ways to the rotation, as in the reference; zero for the identity)
template <typename T> WPI_FUNC void quat_to_axis_angle(const quat_t<T>& q, vec_t<3, T>& axis, T& angle)
{
    const vec_t<3, T> u = detail::quat_vec(q);
    axis = q.w < T(0) ? -normalize(u) : normalize(u);
    angle = T(2) * atan2(length(u), abs(q.w));
}
template <typename T>
WPI_FUNC void adj_quat_to_axis_angle(const quat_t<T>& q, const vec_t<3, T>&, T, quat_t<T>& adj_q, vec_t<3, T>& adj_axis,
                                     T& adj_angle)
{
    const vec_t<3, T> u = detail::quat_vec(q);
    vec_t<3, T> adj_u;
    adj_normalize(u, adj_u, q.w < T(0) ? -adj_axis : adj_axis);
    T adj_l = T(0), adj_abs_w = T(0), adj_w = T(0);
    adj_atan2(length(u), abs(q.w), adj_l, adj_abs_w, T(2) * adj_angle);
    adj_abs(q.w, adj_w, adj_abs_w);
    adj_length(u, adj_u, adj_l);
    adj_q += quat_t<T>(adj_u, adj_w);
    // the out-parameters' earlier values were overwritten: no gradient flows to them
    adj_axis = vec_t<3, T>();
    adj_angle = T(0);
}

namespace detail {

// rotation by angle about coordinate axis k
template <typename T> WPI_FUNC quat_t<T> axis_quat(unsigned k, T angle)
{
    quat_t<T> q;
    comp(q, k) = sin(angle * T(0.5));
    q.w = cos(angle * T(0.5));
    return q;
}
template <typename T> WPI_FUNC void adj_axis_quat(unsigned k, T angle, T& adj_angle, const quat_t<T>& adj_ret)
{
    adj_angle += (comp(adj_ret, k) * cos(angle * T(0.5)) - adj_ret.w * sin(angle * T(0.5))) * T(0.5);
}

}  // namespace detail

// roll about x, then pitch about y, then yaw about z (fixed axes): qz(yaw) qy(pitch) qx(roll)
template <typename T> WPI_FUNC quat_t<T> quat_rpy(T roll, T pitch, T yaw)
{
    return mul(mul(detail::axis_quat(2, yaw), detail::axis_quat(1, pitch)), detail::axis_quat(0, roll));
}
template <typename T>
WPI_FUNC void adj_quat_rpy(T roll, T pitch, T yaw, T& adj_roll, T& adj_pitch, T& adj_yaw, const quat_t<T>& adj_ret)
{
    const quat_t<T> qz = detail::axis_quat(2, yaw), qy = detail::axis_quat(1, pitch), qx = detail::axis_quat(0, roll);
    quat_t<T> adj_qzy, adj_qz, adj_qy, adj_qx;
    adj_mul(mul(qz, qy), qx, adj_qzy, adj_qx, adj_ret);
    adj_mul(qz, qy, adj_qz, adj_qy, adj_qzy);
    detail::adj_axis_quat(2, yaw, adj_yaw, adj_qz);
    detail::adj_axis_quat(1, pitch, adj_pitch, adj_qy);
    detail::adj_axis_quat(0, roll, adj_roll, adj_qx);
}

// Spherical interpolation along the shorter arc, defined as the reference defines it:
//   (axis, angle) = quat_to_axis_angle(q0^-1 q1) (angle in [0, pi]: the shorter arc),
//   slerp = q0 quat_from_axis_angle(axis, t angle)
// (the same values as the sin-weighted formula on unit quaternions; this form fixes the values and
// gradients off the unit sphere to the reference's). The adjoint chains the parts' adjoints.
template <typename T> WPI_FUNC quat_t<T> quat_slerp(const quat_t<T>& q0, const quat_t<T>& q1, T t)
{
    vec_t<3, T> axis;
    T angle;
    quat_to_axis_angle(mul(quat_inverse(q0), q1), axis, angle);
    return mul(q0, quat_from_axis_angle(axis, t * angle));
}
template <typename T>
WPI_FUNC void adj_quat_slerp(const quat_t<T>& q0, const quat_t<T>& q1, T t, quat_t<T>& adj_q0, quat_t<T>& adj_q1,
                             T& adj_t, const quat_t<T>& adj_ret)
{
    const quat_t<T> q0_inv = quat_inverse(q0), q_rel = mul(q0_inv, q1);
    vec_t<3, T> axis, adj_axis;
    T angle, adj_turn = T(0), adj_angle;
    quat_to_axis_angle(q_rel, axis, angle);
    const quat_t<T> turn = quat_from_axis_angle(axis, t * angle);
    quat_t<T> adj_turn_q, adj_rel, adj_inv;
    adj_mul(q0, turn, adj_q0, adj_turn_q, adj_ret);
    adj_quat_from_axis_angle(axis, t * angle, adj_axis, adj_turn, adj_turn_q);
    adj_t += adj_turn * angle;
    adj_angle = adj_turn * t;
    adj_quat_to_axis_angle(q_rel, axis, angle, adj_rel, adj_axis, adj_angle);
    adj_mul(q0_inv, q1, adj_inv, adj_q1, adj_rel);
    adj_quat_inverse(q0, adj_q0, adj_inv);
}

template <typename T> WPI_FUNC quat_t<T> lerp(const quat_t<T>& a, const quat_t<T>& b, T t)
{
    return a * (T(1) - t) + b * t;
}
template <typename T>
WPI_FUNC void adj_lerp(const quat_t<T>& a, const quat_t<T>& b, T t, quat_t<T>& adj_a, quat_t<T>& adj_b, T& adj_t,
                       const quat_t<T>& adj_ret)
{
    adj_a += adj_ret * (T(1) - t);
    adj_b += adj_ret * t;
    adj_t += dot(adj_ret, b - a);
}

// ---------------------------------------------------------------------------------------------
// components (0..3 = x, y, z, w)

template <typename T, typename I> WPI_FUNC T extract(const quat_t<T>& q, I i) { return detail::comp(q, unsigned(i)); }
template <typename T, typename I> WPI_FUNC void adj_extract(const quat_t<T>&, I i, quat_t<T>& adj_q, I&, T adj_ret)
{
    detail::comp(adj_q, unsigned(i)) += adj_ret;
}

template <typename T, typename I> WPI_FUNC quat_t<T> assign(quat_t<T> q, I i, T x)
{
    detail::comp(q, unsigned(i)) = x;
    return q;
}
template <typename T, typename I>
WPI_FUNC void adj_assign(const quat_t<T>&, I i, T, quat_t<T>& adj_q, I&, T& adj_x, const quat_t<T>& adj_ret)
{
    quat_t<T> g = adj_ret;
    adj_x += detail::comp(g, unsigned(i));
    detail::comp(g, unsigned(i)) = T(0);
    adj_q += g;
}

}  // namespace wp
