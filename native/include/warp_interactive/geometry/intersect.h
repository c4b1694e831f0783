// Pairwise geometry predicates and distances: closest_point_edge_edge, intersect_tri_tri.
// Each forward function sits directly above its adjoint.
#pragma once

#include "warp_interactive/math/frames.h"

namespace wp {

// ---------------------------------------------------------------------------------------------
// closest points of the segments p1 q1 and p2 q2: (s, t, d) with c1 = p1 + s (q1 - p1),
// c2 = p2 + t (q2 - p2) the closest pair and d = |c1 - c2| (Ericson, Real-Time Collision
// Detection 5.1.9). A segment shorter than sqrt(epsilon) counts as a point.

namespace detail {

template <typename T> struct edge_edge {
    T s, t;
    bool s_free, t_free;   // strictly inside (0, 1) and not fixed by a degenerate edge
};

template <typename T> WPI_FUNC T clamp01(T x) { return x < T(0) ? T(0) : (x > T(1) ? T(1) : x); }

template <typename T>
WPI_FUNC edge_edge<T> solve_edge_edge(const vec_t<3, T>& p1, const vec_t<3, T>& q1, const vec_t<3, T>& p2,
                                      const vec_t<3, T>& q2, T epsilon)
{
    const vec_t<3, T> d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
    const T a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
    edge_edge<T> o;
    o.s = T(0), o.t = T(0);
    if (a <= epsilon && e <= epsilon) {
        o.s_free = o.t_free = false;
        return o;
    }
    if (a <= epsilon) {
        o.t = clamp01(f / e);
    } else {
        const T c = dot(d1, r);
        if (e <= epsilon) {
            o.s = clamp01(-c / a);
        } else {
            const T b = dot(d1, d2), denom = a * e - b * b;
            o.s = denom != T(0) ? clamp01((b * f - c * e) / denom) : T(0);
            o.t = (b * o.s + f) / e;
            if (o.t < T(0)) {
                o.t = T(0);
                o.s = clamp01(-c / a);
            } else if (o.t > T(1)) {
                o.t = T(1);
                o.s = clamp01((b - c) / a);
            }
        }
    }
    o.s_free = a > epsilon && o.s > T(0) && o.s < T(1);
    o.t_free = e > epsilon && o.t > T(0) && o.t < T(1);
    return o;
}

}  // namespace detail

template <typename T>
WPI_FUNC vec_t<3, T> closest_point_edge_edge(const vec_t<3, T>& p1, const vec_t<3, T>& q1, const vec_t<3, T>& p2,
                                             const vec_t<3, T>& q2, T epsilon)
{
    const detail::edge_edge<T> o = detail::solve_edge_edge(p1, q1, p2, q2, epsilon);
    const vec_t<3, T> w = (p1 + (q1 - p1) * o.s) - (p2 + (q2 - p2) * o.t);
    return vec_t<3, T>(o.s, o.t, length(w));
}
// d: the envelope theorem (the gradient of the distance at its minimum over s, t);
// s, t: implicit differentiation of the stationarity conditions of the free ones
template <typename T>
WPI_FUNC void adj_closest_point_edge_edge(const vec_t<3, T>& p1, const vec_t<3, T>& q1, const vec_t<3, T>& p2,
                                          const vec_t<3, T>& q2, T epsilon, vec_t<3, T>& adj_p1, vec_t<3, T>& adj_q1,
                                          vec_t<3, T>& adj_p2, vec_t<3, T>& adj_q2, T&, const vec_t<3, T>& adj_ret)
{
    const detail::edge_edge<T> o = detail::solve_edge_edge(p1, q1, p2, q2, epsilon);
    const T s = o.s, t = o.t;
    const vec_t<3, T> d1 = q1 - p1, d2 = q2 - p2;
    const vec_t<3, T> w = (p1 + d1 * s) - (p2 + d2 * t);
    const T dist = length(w);
    if (dist > T(0)) {
        const vec_t<3, T> n = w * (adj_ret.c[2] / dist);
        adj_p1 += n * (T(1) - s), adj_q1 += n * s;
        adj_p2 -= n * (T(1) - t), adj_q2 -= n * t;
    }
    // H lambda = adj over the free variables, H = [[a, -b], [-b, e]] (the Hessian / 2)
    const T a = dot(d1, d1), e = dot(d2, d2), b = dot(d1, d2);
    T ls = T(0), lt = T(0);
    if (o.s_free && o.t_free) {
        const T det = a * e - b * b;
        if (!(abs(det) > T(0)))
            return;
        ls = (e * adj_ret.c[0] + b * adj_ret.c[1]) / det;
        lt = (b * adj_ret.c[0] + a * adj_ret.c[1]) / det;
    } else if (o.s_free) {
        ls = adj_ret.c[0] / a;
    } else if (o.t_free) {
        lt = adj_ret.c[1] / e;
    } else {
        return;
    }
    // adj_theta -= lambda . d(grad / 2)/d theta, grad / 2 = (d1 . w, -d2 . w)
    adj_p1 -= (d1 * (T(1) - s) - w) * ls - d2 * ((T(1) - s) * lt);
    adj_q1 -= (w + d1 * s) * ls - d2 * (s * lt);
    adj_p2 -= -(d1 * ((T(1) - t) * ls)) + (w + d2 * (T(1) - t)) * lt;
    adj_q2 -= -(d1 * (t * ls)) + (d2 * t - w) * lt;
}

// ---------------------------------------------------------------------------------------------
// triangle-triangle intersection (closed triangles; touching and coplanar overlap count): for
// non-degenerate triangles they meet iff an edge of one meets the other.

namespace detail {

// the 2D orientation of (a, b, c) in the plane dropping axis `k`
template <typename T> WPI_FUNC T orient2(const vec_t<3, T>& a, const vec_t<3, T>& b, const vec_t<3, T>& c, int k)
{
    const int u = k == 0 ? 1 : 0, v = k == 2 ? 1 : 2;
    return (b.c[u] - a.c[u]) * (c.c[v] - a.c[v]) - (b.c[v] - a.c[v]) * (c.c[u] - a.c[u]);
}

template <typename T>
WPI_FUNC bool in_tri2(const vec_t<3, T>& p, const vec_t<3, T>& a, const vec_t<3, T>& b, const vec_t<3, T>& c, int k)
{
    const T d0 = orient2(a, b, p, k), d1 = orient2(b, c, p, k), d2 = orient2(c, a, p, k);
    return (d0 >= T(0) && d1 >= T(0) && d2 >= T(0)) || (d0 <= T(0) && d1 <= T(0) && d2 <= T(0));
}

template <typename T>
WPI_FUNC bool segments_meet2(const vec_t<3, T>& p, const vec_t<3, T>& q, const vec_t<3, T>& a, const vec_t<3, T>& b, int k)
{
    const T o1 = orient2(p, q, a, k), o2 = orient2(p, q, b, k), o3 = orient2(a, b, p, k), o4 = orient2(a, b, q, k);
    if (((o1 > T(0) && o2 < T(0)) || (o1 < T(0) && o2 > T(0))) && ((o3 > T(0) && o4 < T(0)) || (o3 < T(0) && o4 > T(0))))
        return true;
    // collinear touching: an endpoint on the other segment (within its box)
    const int u = k == 0 ? 1 : 0, v = k == 2 ? 1 : 2;
    auto on = [&](const vec_t<3, T>& x, const vec_t<3, T>& s0, const vec_t<3, T>& s1, T o) {
        return o == T(0) && min(s0.c[u], s1.c[u]) <= x.c[u] && x.c[u] <= max(s0.c[u], s1.c[u]) &&
               min(s0.c[v], s1.c[v]) <= x.c[v] && x.c[v] <= max(s0.c[v], s1.c[v]);
    };
    return on(a, p, q, o1) || on(b, p, q, o2) || on(p, a, b, o3) || on(q, a, b, o4);
}

// does the closed segment p q meet the closed triangle (a, b, c)?
template <typename T>
WPI_FUNC bool segment_meets_tri(const vec_t<3, T>& p, const vec_t<3, T>& q, const vec_t<3, T>& a, const vec_t<3, T>& b,
                                const vec_t<3, T>& c)
{
    const vec_t<3, T> n = cross(b - a, c - a);
    const T dp = dot(n, p - a), dq = dot(n, q - a);
    if ((dp > T(0) && dq > T(0)) || (dp < T(0) && dq < T(0)))
        return false;
    const vec_t<3, T> an(abs(n.c[0]), abs(n.c[1]), abs(n.c[2]));
    const int k = an.c[0] >= an.c[1] && an.c[0] >= an.c[2] ? 0 : (an.c[1] >= an.c[2] ? 1 : 2);
    if (dp == T(0) && dq == T(0))   // in the plane: a 2D overlap test
        return in_tri2(p, a, b, c, k) || in_tri2(q, a, b, c, k) || segments_meet2(p, q, a, b, k) ||
               segments_meet2(p, q, b, c, k) || segments_meet2(p, q, c, a, k);
    const vec_t<3, T> x = p + (q - p) * (dp / (dp - dq));
    return in_tri2(x, a, b, c, k);
}

}  // namespace detail

template <typename T>
WPI_FUNC int32 intersect_tri_tri(const vec_t<3, T>& v0, const vec_t<3, T>& v1, const vec_t<3, T>& v2, const vec_t<3, T>& u0,
                                 const vec_t<3, T>& u1, const vec_t<3, T>& u2)
{
    using detail::segment_meets_tri;
    return (segment_meets_tri(v0, v1, u0, u1, u2) || segment_meets_tri(v1, v2, u0, u1, u2) ||
            segment_meets_tri(v2, v0, u0, u1, u2) || segment_meets_tri(u0, u1, v0, v1, v2) ||
            segment_meets_tri(u1, u2, v0, v1, v2) || segment_meets_tri(u2, u0, v0, v1, v2))
               ? 1
               : 0;
}
template <typename T>
WPI_FUNC void adj_intersect_tri_tri(const vec_t<3, T>&, const vec_t<3, T>&, const vec_t<3, T>&, const vec_t<3, T>&,
                                    const vec_t<3, T>&, const vec_t<3, T>&, vec_t<3, T>&, vec_t<3, T>&, vec_t<3, T>&,
                                    vec_t<3, T>&, vec_t<3, T>&, vec_t<3, T>&, int32)
{
}

}  // namespace wp
