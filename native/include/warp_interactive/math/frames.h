// Rotations and frames beyond the basic library: Euler angles (quat_from_euler, quat_to_euler,
// quat_to_rpy), twists about an axis, 4x4 matrices of transforms (compose/decompose/from/to),
// setting a transform's parts, and moving twists and wrenches between frames.
// Each forward function sits directly above its adjoint.
#pragma once

#include "warp_interactive/math/spatial.h"

namespace wp {

namespace detail {

// the rotation by `angle` about coordinate axis `a` (0, 1, 2), and its derivative in angle
template <typename T> WPI_FUNC quat_t<T> axis_rotation(int32 a, T angle)
{
    quat_t<T> q(T(0), T(0), T(0), cos(angle * T(0.5)));
    comp(q, unsigned(a)) = sin(angle * T(0.5));
    return q;
}
template <typename T> WPI_FUNC quat_t<T> axis_rotation_d(int32 a, T angle)
{
    quat_t<T> q(T(0), T(0), T(0), -T(0.5) * sin(angle * T(0.5)));
    comp(q, unsigned(a)) = T(0.5) * cos(angle * T(0.5));
    return q;
}
WPI_FUNC bool valid_axes(int32 i, int32 j, int32 k)
{
    return i >= 0 && i < 3 && j >= 0 && j < 3 && k >= 0 && k < 3 && i != j && j != k;
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Euler angles: rotations by e[i], e[j], e[k] about the fixed axes i, j, k in that order,
// q = qk qj qi. Invalid axis triples (an index outside 0..2, or i == j, or j == k) give the
// identity / zero angles.

template <typename T> WPI_FUNC quat_t<T> quat_from_euler(const vec_t<3, T>& e, int32 i, int32 j, int32 k)
{
    if (!detail::valid_axes(i, j, k))
        return quat_identity<T>();
    return mul(mul(detail::axis_rotation(k, e.c[k]), detail::axis_rotation(j, e.c[j])), detail::axis_rotation(i, e.c[i]));
}
template <typename T>
WPI_FUNC void adj_quat_from_euler(const vec_t<3, T>& e, int32 i, int32 j, int32 k, vec_t<3, T>& adj_e, int32&, int32&,
                                  int32&, const quat_t<T>& adj_ret)
{
    if (!detail::valid_axes(i, j, k))
        return;
    const quat_t<T> qi = detail::axis_rotation(i, e.c[i]), qj = detail::axis_rotation(j, e.c[j]),
                    qk = detail::axis_rotation(k, e.c[k]);
    const quat_t<T> kj = mul(qk, qj);
    quat_t<T> adj_kj, adj_qi, adj_qk, adj_qj;
    adj_mul(kj, qi, adj_kj, adj_qi, adj_ret);
    adj_mul(qk, qj, adj_qk, adj_qj, adj_kj);
    adj_e.c[i] += dot(adj_qi, detail::axis_rotation_d(i, e.c[i]));
    adj_e.c[j] += dot(adj_qj, detail::axis_rotation_d(j, e.c[j]));
    adj_e.c[k] += dot(adj_qk, detail::axis_rotation_d(k, e.c[k]));
}

namespace detail {

// Bernardes & Viollet (2022), "Quaternion to Euler angles conversion: a direct, general and
// computationally efficient method": the sequence's quaternion components (a, b, c, d), from
// which the angles are atan2s. `sign` is the parity of the axis permutation.
template <typename T> struct euler_frame {
    bool proper;
    int32 third;   // the slot of the third angle
    T sign;
};

template <typename T> WPI_FUNC euler_frame<T> euler_setup(int32 i, int32 j, int32 k)
{
    euler_frame<T> f;
    f.proper = (i == k);
    f.third = f.proper ? 3 - i - j : k;
    f.sign = T(((i - j) * (j - f.third) * (f.third - i)) / 2);
    return f;
}

// d(a, b, c, d) / dq as four quaternion rows, applied through `adj` (a gradient on a, b, c, d)
template <typename T>
WPI_FUNC void euler_abcd(const quat_t<T>& q, int32 i, int32 j, const euler_frame<T>& f, T& a, T& b, T& c, T& d)
{
    const T qi = comp(q, unsigned(i)), qj = comp(q, unsigned(j)), qk = comp(q, unsigned(f.third)) * f.sign;
    if (f.proper) {
        a = q.w, b = qi, c = qj, d = qk;
    } else {
        a = q.w - qj, b = qi + qk, c = qj + q.w, d = qk - qi;
    }
}

template <typename T> WPI_FUNC T hypot2(T x, T y) { return sqrt(x * x + y * y); }

}  // namespace detail

template <typename T> WPI_FUNC vec_t<3, T> quat_to_euler(const quat_t<T>& q, int32 i, int32 j, int32 k)
{
    if (!detail::valid_axes(i, j, k))
        return vec_t<3, T>();
    const detail::euler_frame<T> f = detail::euler_setup<T>(i, j, k);
    T a, b, c, d;
    detail::euler_abcd(q, i, j, f, a, b, c, d);
    const T hs = atan2(b, a), hd = atan2(d, c);
    vec_t<3, T> e;
    e.c[i] = hs - hd;
    e.c[j] = T(2) * atan2(detail::hypot2(c, d), detail::hypot2(a, b));
    e.c[f.third] = hs + hd;
    if (!f.proper) {
        e.c[f.third] = e.c[f.third] * f.sign;
        e.c[j] = e.c[j] - T(1.57079632679489661923);
    }
    return e;
}
template <typename T>
WPI_FUNC void adj_quat_to_euler(const quat_t<T>& q, int32 i, int32 j, int32 k, quat_t<T>& adj_q, int32&, int32&, int32&,
                                const vec_t<3, T>& adj_ret)
{
    if (!detail::valid_axes(i, j, k))
        return;
    const detail::euler_frame<T> f = detail::euler_setup<T>(i, j, k);
    T a, b, c, d;
    detail::euler_abcd(q, i, j, f, a, b, c, d);
    const T g1 = adj_ret.c[i], g2 = adj_ret.c[j], g3 = f.proper ? adj_ret.c[f.third] : adj_ret.c[f.third] * f.sign;
    // e_i = hs - hd, e_third = hs + hd (times sign), e_j = 2 atan2(|c, d|, |a, b|)
    const T g_hs = g1 + g3, g_hd = g3 - g1;
    T ga = T(0), gb = T(0), gc = T(0), gd = T(0);
    const T nab = a * a + b * b, ncd = c * c + d * d;
    if (nab > T(0)) {   // hs = atan2(b, a)
        ga -= g_hs * b / nab;
        gb += g_hs * a / nab;
    }
    if (ncd > T(0)) {   // hd = atan2(d, c)
        gc -= g_hd * d / ncd;
        gd += g_hd * c / ncd;
    }
    const T hab = sqrt(nab), hcd = sqrt(ncd), n = nab + ncd;
    if (n > T(0) && hab > T(0) && hcd > T(0)) {   // 2 atan2(hcd, hab)
        const T g_hcd = T(2) * g2 * hab / n, g_hab = -T(2) * g2 * hcd / n;
        ga += g_hab * a / hab;
        gb += g_hab * b / hab;
        gc += g_hcd * c / hcd;
        gd += g_hcd * d / hcd;
    }
    // back through (a, b, c, d) = linear in (q_i, q_j, s q_third, w)
    T& ai = detail::comp(adj_q, unsigned(i));
    T& aj = detail::comp(adj_q, unsigned(j));
    T& ak = detail::comp(adj_q, unsigned(f.third));
    if (f.proper) {
        adj_q.w += ga, ai += gb, aj += gc, ak += gd * f.sign;
    } else {
        adj_q.w += ga + gc, aj += gc - ga, ai += gb - gd, ak += (gb + gd) * f.sign;
    }
}

template <typename T> WPI_FUNC vec_t<3, T> quat_to_rpy(const quat_t<T>& q) { return quat_to_euler(q, 0, 1, 2); }
template <typename T> WPI_FUNC void adj_quat_to_rpy(const quat_t<T>& q, quat_t<T>& adj_q, const vec_t<3, T>& adj_ret)
{
    int32 ai = 0, aj = 0, ak = 0;
    adj_quat_to_euler(q, 0, 1, 2, adj_q, ai, aj, ak, adj_ret);
}

// ---------------------------------------------------------------------------------------------
// the shortest-arc rotation taking the direction of a to the direction of b: normalize of
// (a x b, |a||b| + a.b). Opposite directions (where that vanishes) get the half turn about an
// axis perpendicular to a (the reference leaves them undefined).

template <typename T> WPI_FUNC quat_t<T> quat_between_vectors(const vec_t<3, T>& a, const vec_t<3, T>& b)
{
    const T w = length(a) * length(b) + dot(a, b);
    const vec_t<3, T> c = cross(a, b);
    if (!(w > detail::epsilon(T(0)) * length(a) * length(b))) {
        // a perpendicular axis: cross with the coordinate axis along which a is smallest
        const vec_t<3, T> aa(abs(a.c[0]), abs(a.c[1]), abs(a.c[2]));
        vec_t<3, T> e;
        e.c[aa.c[0] <= aa.c[1] && aa.c[0] <= aa.c[2] ? 0 : (aa.c[1] <= aa.c[2] ? 1 : 2)] = T(1);
        return quat_t<T>(normalize(cross(a, e)), T(0));
    }
    return normalize(quat_t<T>(c, w));
}
template <typename T>
WPI_FUNC void adj_quat_between_vectors(const vec_t<3, T>& a, const vec_t<3, T>& b, vec_t<3, T>& adj_a, vec_t<3, T>& adj_b,
                                       const quat_t<T>& adj_ret)
{
    const T la = length(a), lb = length(b);
    const T w = la * lb + dot(a, b);
    if (!(w > detail::epsilon(T(0)) * la * lb))
        return;   // the half turn: a discontinuous choice of axis, no gradient
    quat_t<T> adj_raw;
    adj_normalize(quat_t<T>(cross(a, b), w), adj_raw, adj_ret);
    adj_cross(a, b, adj_a, adj_b, detail::quat_vec(adj_raw));
    // w = |a||b| + a.b
    if (la > T(0))
        adj_a += a * (adj_raw.w * lb / la);
    if (lb > T(0))
        adj_b += b * (adj_raw.w * la / lb);
    adj_a += b * adj_raw.w;
    adj_b += a * adj_raw.w;
}

// ---------------------------------------------------------------------------------------------
// twist about a (unit) axis: the rotation's vector part projected on the axis

template <typename T> WPI_FUNC quat_t<T> quat_twist(const vec_t<3, T>& axis, const quat_t<T>& q)
{
    const T p = dot(detail::quat_vec(q), axis);
    return normalize(quat_t<T>(axis * p, q.w));
}
template <typename T>
WPI_FUNC void adj_quat_twist(const vec_t<3, T>& axis, const quat_t<T>& q, vec_t<3, T>& adj_axis, quat_t<T>& adj_q,
                             const quat_t<T>& adj_ret)
{
    const vec_t<3, T> v = detail::quat_vec(q);
    const T p = dot(v, axis);
    const quat_t<T> raw(axis * p, q.w);
    quat_t<T> adj_raw;
    adj_normalize(raw, adj_raw, adj_ret);
    const vec_t<3, T> g = detail::quat_vec(adj_raw);
    const T adj_p = dot(g, axis);
    adj_axis += g * p + v * adj_p;
    adj_q += quat_t<T>(axis * adj_p, adj_raw.w);
}

// 2 atan2(|p|, w): in [0, pi] for w >= 0, (pi, 2 pi] otherwise
template <typename T> WPI_FUNC T quat_twist_angle(const vec_t<3, T>& axis, const quat_t<T>& q)
{
    return T(2) * atan2(abs(dot(detail::quat_vec(q), axis)), q.w);
}
template <typename T>
WPI_FUNC void adj_quat_twist_angle(const vec_t<3, T>& axis, const quat_t<T>& q, vec_t<3, T>& adj_axis, quat_t<T>& adj_q,
                                   T adj_ret)
{
    const vec_t<3, T> v = detail::quat_vec(q);
    const T p = dot(v, axis), ap = abs(p), n = ap * ap + q.w * q.w;
    if (!(n > T(0)))
        return;
    const T g_ap = T(2) * adj_ret * q.w / n, g_w = -T(2) * adj_ret * ap / n;
    const T g_p = p < T(0) ? -g_ap : g_ap;
    adj_axis += v * g_p;
    adj_q += quat_t<T>(axis * g_p, g_w);
}

// 2 atan2(p, w): right-handed about the axis, in [-pi, pi] for w >= 0
template <typename T> WPI_FUNC T quat_twist_angle_signed(const vec_t<3, T>& axis, const quat_t<T>& q)
{
    return T(2) * atan2(dot(detail::quat_vec(q), axis), q.w);
}
template <typename T>
WPI_FUNC void adj_quat_twist_angle_signed(const vec_t<3, T>& axis, const quat_t<T>& q, vec_t<3, T>& adj_axis,
                                          quat_t<T>& adj_q, T adj_ret)
{
    const vec_t<3, T> v = detail::quat_vec(q);
    const T p = dot(v, axis), n = p * p + q.w * q.w;
    if (!(n > T(0)))
        return;
    const T g_p = T(2) * adj_ret * q.w / n, g_w = -T(2) * adj_ret * p / n;
    adj_axis += v * g_p;
    adj_q += quat_t<T>(axis * g_p, g_w);
}

// ---------------------------------------------------------------------------------------------
// 4x4 matrices: M = [[R diag(s), p], [0, 0, 0, 1]]

template <typename T>
WPI_FUNC mat_t<4, 4, T> transform_compose(const vec_t<3, T>& p, const quat_t<T>& q, const vec_t<3, T>& s)
{
    const mat_t<3, 3, T> r = quat_to_matrix(q);
    mat_t<4, 4, T> m;
    for (unsigned a = 0; a < 3; ++a) {
        for (unsigned b = 0; b < 3; ++b)
            m.data[a][b] = r.data[a][b] * s.c[b];
        m.data[a][3] = p.c[a];
    }
    m.data[3][3] = T(1);
    return m;
}
template <typename T>
WPI_FUNC void adj_transform_compose(const vec_t<3, T>& p, const quat_t<T>& q, const vec_t<3, T>& s, vec_t<3, T>& adj_p,
                                    quat_t<T>& adj_q, vec_t<3, T>& adj_s, const mat_t<4, 4, T>& adj_ret)
{
    const mat_t<3, 3, T> r = quat_to_matrix(q);
    mat_t<3, 3, T> adj_r;
    for (unsigned a = 0; a < 3; ++a) {
        for (unsigned b = 0; b < 3; ++b) {
            adj_r.data[a][b] = adj_ret.data[a][b] * s.c[b];
            adj_s.c[b] += adj_ret.data[a][b] * r.data[a][b];
        }
        adj_p.c[a] += adj_ret.data[a][3];
    }
    adj_quat_to_matrix(q, adj_q, adj_r);
}

template <typename T> WPI_FUNC mat_t<4, 4, T> transform_to_matrix(const transform_t<T>& t)
{
    return transform_compose(t.p, t.q, vec_t<3, T>(T(1)));
}
template <typename T>
WPI_FUNC void adj_transform_to_matrix(const transform_t<T>& t, transform_t<T>& adj_t, const mat_t<4, 4, T>& adj_ret)
{
    vec_t<3, T> adj_s;
    adj_transform_compose(t.p, t.q, vec_t<3, T>(T(1)), adj_t.p, adj_t.q, adj_s, adj_ret);
}


template <typename T> WPI_FUNC transform_t<T> transform_from_matrix(const mat_t<4, 4, T>& m)
{
    return transform_t<T>(vec_t<3, T>(m.data[0][3], m.data[1][3], m.data[2][3]), quat_from_matrix(detail::upper3(m)));
}
template <typename T>
WPI_FUNC void adj_transform_from_matrix(const mat_t<4, 4, T>& m, mat_t<4, 4, T>& adj_m, const transform_t<T>& adj_ret)
{
    mat_t<3, 3, T> adj_r;
    adj_quat_from_matrix(detail::upper3(m), adj_r, adj_ret.q);
    for (unsigned a = 0; a < 3; ++a) {
        for (unsigned b = 0; b < 3; ++b)
            adj_m.data[a][b] += adj_r.data[a][b];
        adj_m.data[a][3] += adj_ret.p.c[a];
    }
}

// p, q, s = transform_decompose(m): s = the lengths of the upper block's columns, q = the
// rotation of the block with its columns normalized (written to the reference arguments)
template <typename T>
WPI_FUNC void transform_decompose(const mat_t<4, 4, T>& m, vec_t<3, T>& p, quat_t<T>& q, vec_t<3, T>& s)
{
    mat_t<3, 3, T> r = detail::upper3(m);
    for (unsigned b = 0; b < 3; ++b) {
        s.c[b] = sqrt(r.data[0][b] * r.data[0][b] + r.data[1][b] * r.data[1][b] + r.data[2][b] * r.data[2][b]);
        const T inv = s.c[b] > T(0) ? T(1) / s.c[b] : T(0);
        for (unsigned a = 0; a < 3; ++a)
            r.data[a][b] = r.data[a][b] * inv;
        p.c[b] = m.data[b][3];
    }
    q = quat_from_matrix(r);
}
template <typename T>
WPI_FUNC void adj_transform_decompose(const mat_t<4, 4, T>& m, const vec_t<3, T>&, const quat_t<T>&, const vec_t<3, T>& s,
                                      mat_t<4, 4, T>& adj_m, vec_t<3, T>& adj_p, quat_t<T>& adj_q, vec_t<3, T>& adj_s)
{
    mat_t<3, 3, T> r = detail::upper3(m);
    for (unsigned b = 0; b < 3; ++b)
        for (unsigned a = 0; a < 3; ++a)
            r.data[a][b] = s.c[b] > T(0) ? r.data[a][b] / s.c[b] : T(0);
    mat_t<3, 3, T> adj_r;
    adj_quat_from_matrix(r, adj_r, adj_q);
    for (unsigned b = 0; b < 3; ++b) {
        adj_m.data[b][3] += adj_p.c[b];
        if (!(s.c[b] > T(0)))
            continue;
        // column u = s r: d r = (du - r (r . du)) / s, d s = r . du
        T rg = T(0);
        for (unsigned a = 0; a < 3; ++a)
            rg += r.data[a][b] * adj_r.data[a][b];
        for (unsigned a = 0; a < 3; ++a)
            adj_m.data[a][b] += (adj_r.data[a][b] - r.data[a][b] * rg) / s.c[b] + adj_s.c[b] * r.data[a][b];
    }
    adj_p = vec_t<3, T>();
    adj_q = quat_t<T>();
    adj_s = vec_t<3, T>();
}

// ---------------------------------------------------------------------------------------------
// a transform with one part replaced (transform_set_* assign the result to their argument)

template <typename T> WPI_FUNC transform_t<T> transform_set_rotation_copy(const transform_t<T>& t, const quat_t<T>& q)
{
    return transform_t<T>(t.p, q);
}
template <typename T>
WPI_FUNC void adj_transform_set_rotation_copy(const transform_t<T>&, const quat_t<T>&, transform_t<T>& adj_t, quat_t<T>& adj_q,
                                              const transform_t<T>& adj_ret)
{
    adj_t.p += adj_ret.p;
    adj_q += adj_ret.q;
}

template <typename T> WPI_FUNC transform_t<T> transform_set_translation_copy(const transform_t<T>& t, const vec_t<3, T>& p)
{
    return transform_t<T>(p, t.q);
}
template <typename T>
WPI_FUNC void adj_transform_set_translation_copy(const transform_t<T>&, const vec_t<3, T>&, transform_t<T>& adj_t,
                                                 vec_t<3, T>& adj_p, const transform_t<T>& adj_ret)
{
    adj_p += adj_ret.p;
    adj_t.q += adj_ret.q;
}

// ---------------------------------------------------------------------------------------------
// spatial vectors between frames: t = (R, p); twist (w, v) -> (R w, R v + p x R w);
// wrench (tau, f) -> (R tau + p x R f, R f)

template <typename T> WPI_FUNC vec_t<6, T> transform_twist(const transform_t<T>& t, const vec_t<6, T>& x)
{
    const vec_t<3, T> w = quat_rotate(t.q, spatial_top(x)), v = quat_rotate(t.q, spatial_bottom(x));
    return spatial_vector(w, v + cross(t.p, w));
}
template <typename T>
WPI_FUNC void adj_transform_twist(const transform_t<T>& t, const vec_t<6, T>& x, transform_t<T>& adj_t, vec_t<6, T>& adj_x,
                                  const vec_t<6, T>& adj_ret)
{
    const vec_t<3, T> top = spatial_top(x), bottom = spatial_bottom(x);
    const vec_t<3, T> w = quat_rotate(t.q, top);
    const vec_t<3, T> g_w = spatial_top(adj_ret), g_v = spatial_bottom(adj_ret);
    vec_t<3, T> adj_w = g_w, adj_top, adj_bottom;
    adj_cross(t.p, w, adj_t.p, adj_w, g_v);
    adj_quat_rotate(t.q, top, adj_t.q, adj_top, adj_w);
    adj_quat_rotate(t.q, bottom, adj_t.q, adj_bottom, g_v);
    adj_x += spatial_vector(adj_top, adj_bottom);
}

template <typename T> WPI_FUNC vec_t<6, T> transform_wrench(const transform_t<T>& t, const vec_t<6, T>& x)
{
    const vec_t<3, T> f = quat_rotate(t.q, spatial_bottom(x)), tau = quat_rotate(t.q, spatial_top(x));
    return spatial_vector(tau + cross(t.p, f), f);
}
template <typename T>
WPI_FUNC void adj_transform_wrench(const transform_t<T>& t, const vec_t<6, T>& x, transform_t<T>& adj_t, vec_t<6, T>& adj_x,
                                   const vec_t<6, T>& adj_ret)
{
    const vec_t<3, T> top = spatial_top(x), bottom = spatial_bottom(x);
    const vec_t<3, T> f = quat_rotate(t.q, bottom);
    const vec_t<3, T> g_tau = spatial_top(adj_ret), g_f = spatial_bottom(adj_ret);
    vec_t<3, T> adj_f = g_f, adj_top, adj_bottom;
    adj_cross(t.p, f, adj_t.p, adj_f, g_tau);
    adj_quat_rotate(t.q, bottom, adj_t.q, adj_bottom, adj_f);
    adj_quat_rotate(t.q, top, adj_t.q, adj_top, g_tau);
    adj_x += spatial_vector(adj_top, adj_bottom);
}

// v + w x r for the twist qd = (w, v)
template <typename T> WPI_FUNC vec_t<3, T> velocity_at_point(const vec_t<6, T>& qd, const vec_t<3, T>& r)
{
    return spatial_bottom(qd) + cross(spatial_top(qd), r);
}
template <typename T>
WPI_FUNC void adj_velocity_at_point(const vec_t<6, T>& qd, const vec_t<3, T>& r, vec_t<6, T>& adj_qd, vec_t<3, T>& adj_r,
                                    const vec_t<3, T>& adj_ret)
{
    vec_t<3, T> adj_w;
    adj_cross(spatial_top(qd), r, adj_w, adj_r, adj_ret);
    adj_qd += spatial_vector(adj_w, adj_ret);
}

}  // namespace wp
