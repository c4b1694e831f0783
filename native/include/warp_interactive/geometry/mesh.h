// Triangle-mesh queries for kernels: closest/furthest point (with several sign tests), ray casts,
// box queries, evaluation at barycentric coordinates. A mesh is a mesh_t descriptor (its address
// is `mesh.id`) mirrored by warp_interactive/geometry/descriptors.py. Barycentrics follow the
// reference: position = u * p[i0] + v * p[i1] + (1 - u - v) * p[i2].
#pragma once

#include "warp_interactive/geometry/bvh.h"

namespace wp {

typedef vec_t<3, float32> mesh_vec3;

// fast winding numbers: per BVH node, the data of native/src/geometry/winding.cpp (WnNode)
struct mesh_wn_node_t {
    mesh_vec3 c;        // area-weighted centre
    float32 r;          // bound on the distance from c to the node's vertices
    mesh_vec3 n;        // sum of area * unit normal
    float32 area;
    float32 m[9];       // sum of area * n (centroid - c)^T, row major
    float32 pad[3];
};

struct mesh_t {
    bvh_t bvh;                  // first member: bvh queries on a mesh id read it at offset 0
    const mesh_vec3* points;
    const mesh_vec3* velocities;
    const int32* indices;
    int32 num_points;
    int32 num_tris;
    int32 support_winding_number;
    int32 pad;
    const mesh_wn_node_t* winding;   // one per BVH node; null without support_winding_number
    mesh_vec3* points_grad;          // the points' and velocities' gradient arrays (or null):
    mesh_vec3* velocities_grad;      // mesh_get's arrays carry them, so adjoints reach them
};

WPI_FUNC const mesh_t& mesh_at(uint64 id) { return *(const mesh_t*)id; }

struct mesh_query_point_t {
    bool result;
    float32 sign;
    int32 face;
    float32 u;
    float32 v;
};

struct mesh_query_ray_t {
    bool result;
    float32 sign;
    int32 face;
    float32 t;
    float32 u;
    float32 v;
    mesh_vec3 normal;
};

WPI_FUNC void adj_accum(mesh_query_point_t& a, const mesh_query_point_t& b)
{
    a.sign += b.sign; a.u += b.u; a.v += b.v;
}
WPI_FUNC void adj_accum(mesh_query_ray_t& a, const mesh_query_ray_t& b)
{
    a.sign += b.sign; a.t += b.t; a.u += b.u; a.v += b.v; a.normal += b.normal;
}

// --- triangle primitives --------------------------------------------------------------------------
WPI_FUNC void mesh_triangle(const mesh_t& m, int32 face, mesh_vec3& a, mesh_vec3& b, mesh_vec3& c)
{
    a = m.points[m.indices[3 * face + 0]];
    b = m.points[m.indices[3 * face + 1]];
    c = m.points[m.indices[3 * face + 2]];
}

// Closest point on triangle abc to p (Ericson, Real-Time Collision Detection 5.1.5) as weights
// (wa, wb) of a and b; edge and vertex regions give exact zeros, which the adjoints rely on.
WPI_FUNC void closest_on_triangle(const mesh_vec3& p, const mesh_vec3& a, const mesh_vec3& b, const mesh_vec3& c,
                                  float32& wa, float32& wb)
{
    const mesh_vec3 ab = b - a, ac = c - a, ap = p - a;
    const float32 d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= 0.0f && d2 <= 0.0f) { wa = 1.0f; wb = 0.0f; return; }
    const mesh_vec3 bp = p - b;
    const float32 d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0.0f && d4 <= d3) { wa = 0.0f; wb = 1.0f; return; }
    const float32 vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f && d1 - d3 > 0.0f) {
        const float32 t = d1 / (d1 - d3);
        wa = 1.0f - t; wb = t; return;
    }
    const mesh_vec3 cp = p - c;
    const float32 d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0.0f && d5 <= d6) { wa = 0.0f; wb = 0.0f; return; }
    const float32 vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f && d2 - d6 > 0.0f) {
        const float32 t = d2 / (d2 - d6);
        wa = 1.0f - t; wb = 0.0f; return;
    }
    const float32 va = d3 * d6 - d5 * d4;
    if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f && (d4 - d3) + (d5 - d6) > 0.0f) {
        const float32 t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        wa = 0.0f; wb = 1.0f - t; return;
    }
    const float32 sum = va + vb + vc;
    if (!(sum > 0.0f)) {   // degenerate (collinear) triangle: best of the three edges' endpoints
        const float32 da = length_sq(ap), db = length_sq(bp), dc = length_sq(cp);
        wa = (da <= db && da <= dc) ? 1.0f : 0.0f;
        wb = (wa == 0.0f && db <= dc) ? 1.0f : 0.0f;
        return;
    }
    const float32 inv = 1.0f / sum;
    const float32 v = vb * inv, w = vc * inv;   // p' = a + v*ab + w*ac: weights (1 - v - w, v, w)
    wa = 1.0f - v - w; wb = v;
}

// Moller-Trumbore, both faces: t and the weights (u of a, v of b) of the hit point.
WPI_FUNC bool ray_triangle_t(const mesh_vec3& o, const mesh_vec3& d, const mesh_vec3& a, const mesh_vec3& b,
                             const mesh_vec3& c, float32& t, float32& u, float32& v)
{
    const mesh_vec3 e1 = b - a, e2 = c - a;
    const mesh_vec3 pv = cross(d, e2);
    const float32 det = dot(e1, pv);
    if (det == 0.0f || det != det) return false;
    const float32 inv = 1.0f / det;
    const mesh_vec3 tv = o - a;
    const float32 bu = dot(tv, pv) * inv;      // weight of b
    if (bu < 0.0f || bu > 1.0f) return false;
    const mesh_vec3 qv = cross(tv, e1);
    const float32 bv = dot(d, qv) * inv;       // weight of c
    if (bv < 0.0f || bu + bv > 1.0f) return false;
    t = dot(e2, qv) * inv;
    u = 1.0f - bu - bv;
    v = bu;
    return true;
}

// The face's unit normal and the side the ray comes from (+1: against the normal, the front).
WPI_FUNC void ray_face_normal(const mesh_vec3& d, const mesh_vec3& a, const mesh_vec3& b, const mesh_vec3& c,
                              float32& sign, mesh_vec3& n)
{
    const mesh_vec3 fn = cross(b - a, c - a);
    n = fn / sqrt(dot(fn, fn));
    sign = dot(d, fn) < 0.0f ? 1.0f : -1.0f;
}

// --- closest point ----------------------------------------------------------------------------------
// Best face within max_dist; ties (a point nearest to an edge or vertex shared by several faces)
// prefer the face whose plane the offset p - closest is most aligned with, so the face normal
// gives the right side (used by the normal sign test).
WPI_FUNC bool mesh_closest(const mesh_t& m, const mesh_vec3& p, float32 max_dist, int32& face, float32& u,
                           float32& v)
{
    const bvh_t& bvh = m.bvh;
    float32 best = max_dist * max_dist, best_align = -1.0f;
    bool found = false;
    if (bvh.num_items == 0) return false;
    int32 stack[WPI_BVH_STACK];
    int32 count = 0;
    stack[count++] = 0;
    while (count) {
        const bvh_node_t& n = bvh.nodes[stack[--count]];
        if (box_distance_sq(p, n.lower, n.upper) > best) continue;
        if (bvh_is_leaf(n)) {
            for (int32 s = ~n.left; s < ~n.left + n.right; ++s) {
                const int32 f = bvh.items[s];
                mesh_vec3 a, b, c;
                mesh_triangle(m, f, a, b, c);
                float32 wa, wb;
                closest_on_triangle(p, a, b, c, wa, wb);
                const mesh_vec3 q = a * wa + b * wb + c * (1.0f - wa - wb);
                const float32 d = length_sq(p - q);
                if (d > best * 1.000001f + 1e-30f) continue;
                const mesh_vec3 fn = cross(b - a, c - a);
                const float32 fl = length(fn), dl = sqrt(d);
                const float32 align = (fl > 0.0f && dl > 0.0f) ? abs(dot(p - q, fn)) / (fl * dl) : 0.0f;
                if (found && d >= best * 0.999999f && align <= best_align) continue;
                best = d < best ? d : best;
                best_align = align;
                face = f; u = wa; v = wb;
                found = true;
            }
        } else if (count + 2 <= WPI_BVH_STACK) {
            const float32 dl = box_distance_sq(p, bvh.nodes[n.left].lower, bvh.nodes[n.left].upper);
            const float32 dr = box_distance_sq(p, bvh.nodes[n.right].lower, bvh.nodes[n.right].upper);
            // nearer child on top of the stack
            stack[count++] = dl < dr ? n.right : n.left;
            stack[count++] = dl < dr ? n.left : n.right;
        }
    }
    return found;
}

WPI_FUNC mesh_vec3 mesh_eval_position(uint64 id, int32 face, float32 u, float32 v);

// Ray parity along a direction: number of crossings (all hits, not just the first).
WPI_FUNC int32 mesh_ray_crossings(const mesh_t& m, const mesh_vec3& o, const mesh_vec3& d)
{
    const bvh_t& bvh = m.bvh;
    if (bvh.num_items == 0) return 0;
    const mesh_vec3 inv = safe_inverse(d);
    int32 stack[WPI_BVH_STACK];
    int32 count = 0, hits = 0;
    stack[count++] = 0;
    while (count) {
        const bvh_node_t& n = bvh.nodes[stack[--count]];
        float32 te;
        if (!ray_box(o, inv, geom_inf(), n.lower, n.upper, te)) continue;
        if (bvh_is_leaf(n)) {
            for (int32 s = ~n.left; s < ~n.left + n.right; ++s) {
                mesh_vec3 a, b, c;
                mesh_triangle(m, bvh.items[s], a, b, c);
                float32 t, u, v;
                if (ray_triangle_t(o, d, a, b, c, t, u, v) && t >= 0.0f) hits++;
            }
        } else if (count + 2 <= WPI_BVH_STACK) {
            stack[count++] = n.left;
            stack[count++] = n.right;
        }
    }
    return hits;
}

// Inside if at least two of three skewed rays cross the surface an odd number of times.
WPI_FUNC float32 mesh_sign_parity(const mesh_t& m, const mesh_vec3& p)
{
    const mesh_vec3 dirs[3] = {mesh_vec3(0.5773f, 0.5774f, 0.5773f), mesh_vec3(-0.7071f, 0.5f, 0.5f),
                               mesh_vec3(0.3f, -0.4f, 0.866f)};
    int32 inside = 0;
    for (int k = 0; k < 3; ++k) inside += mesh_ray_crossings(m, p, dirs[k]) & 1;
    return inside >= 2 ? -1.0f : 1.0f;
}

// Side of the nearest face a ray meets: +1 from the front (against the normal), -1 from the back,
// 0 when it meets none.
WPI_FUNC float32 mesh_ray_first_side(const mesh_t& m, const mesh_vec3& o, const mesh_vec3& d)
{
    const bvh_t& bvh = m.bvh;
    if (bvh.num_items == 0) return 0.0f;
    const mesh_vec3 inv = safe_inverse(d);
    int32 stack[WPI_BVH_STACK];
    int32 count = 0;
    float32 best = geom_inf(), side = 0.0f;
    stack[count++] = 0;
    while (count) {
        const bvh_node_t& n = bvh.nodes[stack[--count]];
        float32 te;
        if (!ray_box(o, inv, best, n.lower, n.upper, te)) continue;
        if (bvh_is_leaf(n)) {
            for (int32 s = ~n.left; s < ~n.left + n.right; ++s) {
                mesh_vec3 a, b, c;
                mesh_triangle(m, bvh.items[s], a, b, c);
                float32 t, u, v;
                if (ray_triangle_t(o, d, a, b, c, t, u, v) && t >= 0.0f && t < best) {
                    best = t;
                    side = dot(d, cross(b - a, c - a)) < 0.0f ? 1.0f : -1.0f;
                }
            }
        } else if (count + 2 <= WPI_BVH_STACK) {
            stack[count++] = n.left;
            stack[count++] = n.right;
        }
    }
    return side;
}

// Inside if at least two of the rays along +x, +y, +z first meet a face from its back: the sign of
// the winding-number query on a mesh built without the winding-number data (as warp-lang's), a
// BVH search per ray instead of a sum over every triangle.
WPI_FUNC float32 mesh_sign_first_hits(const mesh_t& m, const mesh_vec3& p)
{
    int32 inside = 0;
    for (int k = 0; k < 3; ++k)
        inside += mesh_ray_first_side(m, p, mesh_vec3(k == 0 ? 1.0f : 0.0f, k == 1 ? 1.0f : 0.0f,
                                                      k == 2 ? 1.0f : 0.0f)) < 0.0f;
    return inside >= 2 ? -1.0f : 1.0f;
}

// One triangle's solid angle over 4 pi, seen from the origin (Van Oosterom and Strackee).
WPI_FUNC float32 triangle_winding(const mesh_vec3& a, const mesh_vec3& b, const mesh_vec3& c)
{
    const float32 la = length(a), lb = length(b), lc = length(c);
    const float32 num = dot(a, cross(b, c));
    const float32 den = la * lb * lc + dot(a, b) * lc + dot(b, c) * la + dot(c, a) * lb;
    return 2.0f * atan2(num, den) * (1.0f / (4.0f * 3.14159265358979f));
}

// Generalized winding number. With the per-node data (support_winding_number=True) it is the
// fast winding number: a node whose centre is farther than accuracy * r from p contributes its
// dipole expansion (winding.cpp), nearer ones are opened, leaves summed exactly. Without the data
// (or accuracy <= 0) the exact sum over all triangles.
WPI_FUNC float32 mesh_winding_number(const mesh_t& m, const mesh_vec3& p, float32 accuracy)
{
    float32 total = 0.0f;
    const bvh_t& bvh = m.bvh;
    if (!m.winding || !(accuracy > 0.0f) || bvh.num_items == 0) {
        for (int32 f = 0; f < m.num_tris; ++f) {
            mesh_vec3 a, b, c;
            mesh_triangle(m, f, a, b, c);
            total += triangle_winding(a - p, b - p, c - p);
        }
        return total;
    }
    const float32 inv4pi = 1.0f / (4.0f * 3.14159265358979f);
    int32 stack[WPI_BVH_STACK];
    int32 count = 0;
    stack[count++] = 0;
    while (count) {
        const int32 i = stack[--count];
        const bvh_node_t& n = bvh.nodes[i];
        const mesh_wn_node_t& w = m.winding[i];
        const mesh_vec3 r = w.c - p;
        const float32 d2 = dot(r, r);
        if (d2 > accuracy * accuracy * w.r * w.r) {
            // f(c).N + J(c) : M with f(x) = (x - p) / (4 pi |x - p|^3)
            const float32 d = sqrt(d2), inv3 = 1.0f / (d2 * d), inv5 = inv3 / d2;
            const float32 trace = w.m[0] + w.m[4] + w.m[8];
            float32 rmr = 0.0f;
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b) rmr += r.c[a] * w.m[3 * a + b] * r.c[b];
            total += (dot(r, w.n) * inv3 + trace * inv3 - 3.0f * rmr * inv5) * inv4pi;
        } else if (bvh_is_leaf(n)) {
            for (int32 s = ~n.left; s < ~n.left + n.right; ++s) {
                mesh_vec3 a, b, c;
                mesh_triangle(m, bvh.items[s], a, b, c);
                total += triangle_winding(a - p, b - p, c - p);
            }
        } else if (count + 2 <= WPI_BVH_STACK) {
            stack[count++] = n.left;
            stack[count++] = n.right;
        }
    }
    return total;
}

WPI_FUNC mesh_query_point_t mesh_query_point_impl(uint64 id, const mesh_vec3& p, float32 max_dist, int32 sign_mode,
                                                  float32 threshold, float32 accuracy = 2.0f)
{
    mesh_query_point_t r = {};
    if (!id) return r;   // a null handle finds nothing (never dereferenced)
    const mesh_t& m = mesh_at(id);
    r.result = mesh_closest(m, p, max_dist, r.face, r.u, r.v);
    if (!r.result) return r;
    if (sign_mode == 0) {
        r.sign = 0.0f;
    } else if (sign_mode == 1) {   // face normal of the best-aligned closest face
        mesh_vec3 a, b, c;
        mesh_triangle(m, r.face, a, b, c);
        const mesh_vec3 q = a * r.u + b * r.v + c * (1.0f - r.u - r.v);
        r.sign = dot(p - q, cross(b - a, c - a)) >= 0.0f ? 1.0f : -1.0f;
    } else if (sign_mode == 2) {
        r.sign = mesh_sign_parity(m, p);
    } else if (!m.winding) {
        r.sign = mesh_sign_first_hits(m, p);
    } else {
        r.sign = mesh_winding_number(m, p, accuracy) > threshold ? -1.0f : 1.0f;
    }
    return r;
}

// d(u, v)/dp of the closest point, region by region (face interior, edge, vertex).
WPI_FUNC void adj_closest_uv(const mesh_t& m, int32 face, float32 u, float32 v, mesh_vec3& adj_p, float32 adj_u,
                             float32 adj_v)
{
    mesh_vec3 a, b, c;
    mesh_triangle(m, face, a, b, c);
    // u and v are exact zeros off their regions, but w = 1 - u - v of an edge a-b point rounds
    // to +-1e-7 rather than 0: snap it, or the edge would take the face interior's derivative
    float32 w = 1.0f - u - v;
    if (w < 1.0e-6f) w = 0.0f;
    if (u > 0.0f && v > 0.0f && w > 0.0f) {
        const mesh_vec3 e0 = a - c, e1 = b - c;
        const float32 g00 = dot(e0, e0), g01 = dot(e0, e1), g11 = dot(e1, e1);
        const float32 det = g00 * g11 - g01 * g01;
        if (det <= 0.0f) return;
        const float32 x = (g11 * adj_u - g01 * adj_v) / det, y = (g00 * adj_v - g01 * adj_u) / det;
        adj_p += e0 * x + e1 * y;
    } else if (u > 0.0f && v > 0.0f) {        // edge a-b: u = dot(p - b, a - b) / |a - b|^2
        const mesh_vec3 e = a - b;
        const float32 l = dot(e, e);
        if (l > 0.0f) adj_p += e * ((adj_u - adj_v) / l);
    } else if (v > 0.0f && w > 0.0f) {        // edge b-c: v = dot(p - c, b - c) / |b - c|^2
        const mesh_vec3 e = b - c;
        const float32 l = dot(e, e);
        if (l > 0.0f) adj_p += e * (adj_v / l);
    } else if (u > 0.0f && w > 0.0f) {        // edge a-c: u = dot(p - c, a - c) / |a - c|^2
        const mesh_vec3 e = a - c;
        const float32 l = dot(e, e);
        if (l > 0.0f) adj_p += e * (adj_u / l);
    }
}

#define WPI_MESH_QUERY_POINT(NAME, MODE)                                                                        \
    WPI_FUNC mesh_query_point_t NAME(uint64 id, const mesh_vec3& p, float32 max_dist)                            \
    {                                                                                                            \
        return mesh_query_point_impl(id, p, max_dist, MODE, 0.5f);                                               \
    }                                                                                                            \
    WPI_FUNC void adj_##NAME(uint64 id, const mesh_vec3& p, float32 max_dist, uint64&, mesh_vec3& adj_p,       \
                             float32&, const mesh_query_point_t& adj_ret)                                        \
    {                                                                                                            \
        const mesh_query_point_t r = mesh_query_point_impl(id, p, max_dist, 0, 0.5f);                            \
        if (r.result) adj_closest_uv(mesh_at(id), r.face, r.u, r.v, adj_p, adj_ret.u, adj_ret.v);               \
    }

WPI_MESH_QUERY_POINT(mesh_query_point_no_sign, 0)
WPI_MESH_QUERY_POINT(mesh_query_point_sign_normal, 1)
WPI_MESH_QUERY_POINT(mesh_query_point, 2)

// the epsilon form: ties within the relative tolerance the closest-point search already uses
WPI_FUNC mesh_query_point_t mesh_query_point_sign_normal(uint64 id, const mesh_vec3& p, float32 max_dist, float32)
{
    return mesh_query_point_impl(id, p, max_dist, 1, 0.5f);
}
WPI_FUNC void adj_mesh_query_point_sign_normal(uint64 id, const mesh_vec3& p, float32 max_dist, float32, uint64&,
                                               mesh_vec3& adj_p, float32&, float32&, const mesh_query_point_t& adj_ret)
{
    const mesh_query_point_t r = mesh_query_point_impl(id, p, max_dist, 0, 0.5f);
    if (r.result) adj_closest_uv(mesh_at(id), r.face, r.u, r.v, adj_p, adj_ret.u, adj_ret.v);
}

WPI_FUNC mesh_query_point_t mesh_query_point_sign_winding_number(uint64 id, const mesh_vec3& p, float32 max_dist,
                                                                 float32 accuracy, float32 threshold)
{
    return mesh_query_point_impl(id, p, max_dist, 3, threshold, accuracy);
}
WPI_FUNC void adj_mesh_query_point_sign_winding_number(uint64 id, const mesh_vec3& p, float32 max_dist, float32,
                                                       float32, uint64&, mesh_vec3& adj_p, float32&, float32&,
                                                       float32&, const mesh_query_point_t& adj_ret)
{
    const mesh_query_point_t r = mesh_query_point_impl(id, p, max_dist, 0, 0.5f);
    if (r.result) adj_closest_uv(mesh_at(id), r.face, r.u, r.v, adj_p, adj_ret.u, adj_ret.v);
}
WPI_FUNC mesh_query_point_t mesh_query_point_sign_winding_number(uint64 id, const mesh_vec3& p, float32 max_dist)
{
    return mesh_query_point_impl(id, p, max_dist, 3, 0.5f);
}
WPI_FUNC void adj_mesh_query_point_sign_winding_number(uint64 id, const mesh_vec3& p, float32 max_dist, uint64&,
                                                       mesh_vec3& adj_p, float32&, const mesh_query_point_t& adj_ret)
{
    const mesh_query_point_t r = mesh_query_point_impl(id, p, max_dist, 0, 0.5f);
    if (r.result) adj_closest_uv(mesh_at(id), r.face, r.u, r.v, adj_p, adj_ret.u, adj_ret.v);
}

// Out-parameter forms of the older reference: (id, p, max_dist, inside, face, u, v) -> bool, the
// no-sign one without `inside`. Inputs by value, then result, then the written arguments.
WPI_FUNC void mesh_query_point(uint64 id, const mesh_vec3& p, float32 max_dist, float32, int32, float32, float32,
                               bool& result, float32& inside, int32& face, float32& u, float32& v)
{
    const mesh_query_point_t r = mesh_query_point_impl(id, p, max_dist, 2, 0.5f);
    result = r.result;
    if (r.result) { inside = r.sign; face = r.face; u = r.u; v = r.v; }
}
WPI_FUNC void mesh_query_point_no_sign(uint64 id, const mesh_vec3& p, float32 max_dist, int32, float32, float32,
                                       bool& result, int32& face, float32& u, float32& v)
{
    const mesh_query_point_t r = mesh_query_point_impl(id, p, max_dist, 0, 0.5f);
    result = r.result;
    if (r.result) { face = r.face; u = r.u; v = r.v; }
}

// --- furthest point -----------------------------------------------------------------------------------
// The furthest point of a triangle from p is one of its vertices.
WPI_FUNC mesh_query_point_t mesh_query_furthest_point_no_sign(uint64 id, const mesh_vec3& p, float32 min_dist)
{
    mesh_query_point_t r = {};
    if (!id) return r;
    const mesh_t& m = mesh_at(id);
    const bvh_t& bvh = m.bvh;
    if (bvh.num_items == 0) return r;
    float32 best = min_dist > 0.0f ? min_dist * min_dist : 0.0f;
    int32 stack[WPI_BVH_STACK];
    int32 count = 0;
    stack[count++] = 0;
    while (count) {
        const bvh_node_t& n = bvh.nodes[stack[--count]];
        if (box_far_distance_sq(p, n.lower, n.upper) < best) continue;
        if (bvh_is_leaf(n)) {
            for (int32 s = ~n.left; s < ~n.left + n.right; ++s) {
                mesh_vec3 v3[3];
                mesh_triangle(m, bvh.items[s], v3[0], v3[1], v3[2]);
                for (int k = 0; k < 3; ++k) {
                    const float32 d = length_sq(p - v3[k]);
                    if (d >= best && (d > best || !r.result)) {
                        best = d; r.result = true; r.face = bvh.items[s];
                        r.u = k == 0 ? 1.0f : 0.0f; r.v = k == 1 ? 1.0f : 0.0f;
                    }
                }
            }
        } else if (count + 2 <= WPI_BVH_STACK) {
            stack[count++] = n.left;
            stack[count++] = n.right;
        }
    }
    return r;
}
WPI_FUNC void adj_mesh_query_furthest_point_no_sign(uint64, const mesh_vec3&, float32, uint64&, mesh_vec3&, float32&,
                                                    const mesh_query_point_t&) {}   // vertex weights are constant

// --- ray casts ------------------------------------------------------------------------------------------
// `root` >= 0: only the subtree of that BVH node (mesh_get_group_root gives a group's)
WPI_FUNC mesh_query_ray_t mesh_query_ray(uint64 id, const mesh_vec3& start, const mesh_vec3& dir, float32 max_t,
                                         int32 root = -1)
{
    mesh_query_ray_t r = {};
    if (!id) return r;
    const mesh_t& m = mesh_at(id);
    const bvh_t& bvh = m.bvh;
    if (bvh.num_items == 0) return r;
    const mesh_vec3 inv = safe_inverse(dir);
    float32 best = max_t, te;
    int32 stack[WPI_BVH_STACK];
    int32 count = 0;
    const int32 top = root >= 0 && root < bvh.num_nodes ? root : 0;
    if (ray_box(start, inv, best, bvh.nodes[top].lower, bvh.nodes[top].upper, te)) stack[count++] = top;
    while (count) {
        const bvh_node_t& n = bvh.nodes[stack[--count]];
        if (bvh_is_leaf(n)) {
            for (int32 s = ~n.left; s < ~n.left + n.right; ++s) {
                mesh_vec3 a, b, c;
                const int32 f = bvh.items[s];
                mesh_triangle(m, f, a, b, c);
                float32 t, u, v;
                if (ray_triangle_t(start, dir, a, b, c, t, u, v) && t >= 0.0f && t < best) {
                    best = t; r.result = true; r.face = f; r.t = t; r.u = u; r.v = v;
                }
            }
        } else if (count + 2 <= WPI_BVH_STACK) {
            // children the ray meets before the best hit so far; the nearer one is visited first
            float32 tl, tr;
            const bool hl = ray_box(start, inv, best, bvh.nodes[n.left].lower, bvh.nodes[n.left].upper, tl);
            const bool hr = ray_box(start, inv, best, bvh.nodes[n.right].lower, bvh.nodes[n.right].upper, tr);
            if (hl && hr) {
                stack[count++] = tl < tr ? n.right : n.left;
                stack[count++] = tl < tr ? n.left : n.right;
            } else if (hl) {
                stack[count++] = n.left;
            } else if (hr) {
                stack[count++] = n.right;
            }
        }
    }
    if (r.result) {
        mesh_vec3 a, b, c;
        mesh_triangle(m, r.face, a, b, c);
        ray_face_normal(dir, a, b, c, r.sign, r.normal);
    }
    return r;
}

// t = dot(a - o, n) / dot(d, n); (u, v) from the hit point x = o + t d on the face plane.
WPI_FUNC void adj_mesh_query_ray_root(uint64 id, const mesh_vec3& start, const mesh_vec3& dir, float32 max_t,
                                      int32 root, mesh_vec3& adj_start, mesh_vec3& adj_dir,
                                      const mesh_query_ray_t& adj_ret);
WPI_FUNC void adj_mesh_query_ray(uint64 id, const mesh_vec3& start, const mesh_vec3& dir, float32 max_t, uint64&,
                                 mesh_vec3& adj_start, mesh_vec3& adj_dir, float32&, const mesh_query_ray_t& adj_ret)
{
    adj_mesh_query_ray_root(id, start, dir, max_t, -1, adj_start, adj_dir, adj_ret);
}
WPI_FUNC void adj_mesh_query_ray(uint64 id, const mesh_vec3& start, const mesh_vec3& dir, float32 max_t, int32 root,
                                 uint64&, mesh_vec3& adj_start, mesh_vec3& adj_dir, float32&, int32&,
                                 const mesh_query_ray_t& adj_ret)
{
    adj_mesh_query_ray_root(id, start, dir, max_t, root, adj_start, adj_dir, adj_ret);
}
WPI_FUNC void adj_mesh_query_ray_root(uint64 id, const mesh_vec3& start, const mesh_vec3& dir, float32 max_t,
                                      int32 root, mesh_vec3& adj_start, mesh_vec3& adj_dir,
                                      const mesh_query_ray_t& adj_ret)
{
    const mesh_query_ray_t r = mesh_query_ray(id, start, dir, max_t, root);
    if (!r.result) return;
    mesh_vec3 a, b, c;
    mesh_triangle(mesh_at(id), r.face, a, b, c);
    const mesh_vec3 e0 = a - c, e1 = b - c;
    const float32 g00 = dot(e0, e0), g01 = dot(e0, e1), g11 = dot(e1, e1);
    const float32 det = g00 * g11 - g01 * g01;
    mesh_vec3 adj_x;
    if (det > 0.0f) {
        const float32 x = (g11 * adj_ret.u - g01 * adj_ret.v) / det, y = (g00 * adj_ret.v - g01 * adj_ret.u) / det;
        adj_x = e0 * x + e1 * y;
    }
    const mesh_vec3 n = r.normal;
    const float32 dn = dot(dir, n);
    if (dn == 0.0f) return;
    const float32 adj_t = adj_ret.t + dot(adj_x, dir);
    adj_start += adj_x - n * (adj_t / dn);
    adj_dir += adj_x * r.t - n * (adj_t * r.t / dn);
}

// out-parameter form: (id, start, dir, max_t, t, u, v, sign, normal, face) -> bool
WPI_FUNC void mesh_query_ray(uint64 id, const mesh_vec3& start, const mesh_vec3& dir, float32 max_t, float32, float32,
                             float32, float32, const mesh_vec3&, int32, bool& result, float32& t, float32& u,
                             float32& v, float32& sign, mesh_vec3& normal, int32& face)
{
    const mesh_query_ray_t r = mesh_query_ray(id, start, dir, max_t);
    result = r.result;
    if (r.result) { t = r.t; u = r.u; v = r.v; sign = r.sign; normal = r.normal; face = r.face; }
}

// --- box queries (bvh_query_t over the mesh's triangle boxes) -------------------------------------------
WPI_FUNC bvh_query_t mesh_query_aabb(uint64 id, const mesh_vec3& lower, const mesh_vec3& upper)
{
    return bvh_query_begin(id, 0, 0, lower, upper);
}
WPI_FUNC void adj_mesh_query_aabb(uint64, const mesh_vec3&, const mesh_vec3&, uint64&, mesh_vec3&, mesh_vec3&,
                                  const bvh_query_t&) {}
WPI_FUNC void mesh_query_aabb_next(bvh_query_t query, int32 index, bool& result, bvh_query_t& query_out,
                                   int32& index_out)
{
    result = bvh_query_advance(query, index);
    query_out = query;
    index_out = index;
}

// --- evaluation and access -------------------------------------------------------------------------------
WPI_FUNC mesh_vec3 mesh_eval_position(uint64 id, int32 face, float32 u, float32 v)
{
    if (!id) return mesh_vec3();
    mesh_vec3 a, b, c;
    mesh_triangle(mesh_at(id), face, a, b, c);
    return a * u + b * v + c * (1.0f - u - v);
}
WPI_FUNC void adj_mesh_eval_position(uint64 id, int32 face, float32 u, float32 v, uint64&, int32&, float32& adj_u,
                                     float32& adj_v, const mesh_vec3& adj_ret)
{
    if (!id) return;
    mesh_vec3 a, b, c;
    mesh_triangle(mesh_at(id), face, a, b, c);
    adj_u += dot(adj_ret, a - c);
    adj_v += dot(adj_ret, b - c);
}

WPI_FUNC mesh_vec3 mesh_eval_velocity(uint64 id, int32 face, float32 u, float32 v)
{
    if (!id) return mesh_vec3();
    const mesh_t& m = mesh_at(id);
    if (!m.velocities) return mesh_vec3();
    const mesh_vec3 a = m.velocities[m.indices[3 * face]], b = m.velocities[m.indices[3 * face + 1]],
                    c = m.velocities[m.indices[3 * face + 2]];
    return a * u + b * v + c * (1.0f - u - v);
}
WPI_FUNC void adj_mesh_eval_velocity(uint64 id, int32 face, float32 u, float32 v, uint64&, int32&, float32& adj_u,
                                     float32& adj_v, const mesh_vec3& adj_ret)
{
    if (!id) return;
    const mesh_t& m = mesh_at(id);
    if (!m.velocities) return;
    const mesh_vec3 a = m.velocities[m.indices[3 * face]], b = m.velocities[m.indices[3 * face + 1]],
                    c = m.velocities[m.indices[3 * face + 2]];
    adj_u += dot(adj_ret, a - c);
    adj_v += dot(adj_ret, b - c);
}

WPI_FUNC mesh_vec3 mesh_eval_face_normal(uint64 id, int32 face)
{
    if (!id) return mesh_vec3();
    mesh_vec3 a, b, c;
    mesh_triangle(mesh_at(id), face, a, b, c);
    const mesh_vec3 n = cross(b - a, c - a);
    const float32 l = length(n);
    return l > 0.0f ? n / l : mesh_vec3();
}

WPI_FUNC mesh_vec3 mesh_get_point(uint64 id, int32 index)
{
    return id ? mesh_at(id).points[mesh_at(id).indices[index]] : mesh_vec3();
}
WPI_FUNC mesh_vec3 mesh_get_velocity(uint64 id, int32 index)
{
    if (!id) return mesh_vec3();
    const mesh_t& m = mesh_at(id);
    return m.velocities ? m.velocities[m.indices[index]] : mesh_vec3();
}
WPI_FUNC int32 mesh_get_index(uint64 id, int32 index) { return id ? mesh_at(id).indices[index] : -1; }

// --- any-hit and counting ray casts, the mesh's BVH ---------------------------------------------------
// `root` >= 0 starts the traversal at that BVH node instead of the root.
WPI_FUNC int32 mesh_ray_walk(uint64 id, const mesh_vec3& o, const mesh_vec3& d, float32 max_t, int32 root, bool any)
{
    if (!id) return 0;
    const mesh_t& m = mesh_at(id);
    const bvh_t& bvh = m.bvh;
    if (bvh.num_items == 0) return 0;
    const mesh_vec3 inv = safe_inverse(d);
    int32 stack[WPI_BVH_STACK];
    int32 count = 0, hits = 0;
    stack[count++] = root >= 0 && root < bvh.num_nodes ? root : 0;
    while (count) {
        const bvh_node_t& n = bvh.nodes[stack[--count]];
        float32 te;
        if (!ray_box(o, inv, max_t, n.lower, n.upper, te)) continue;
        if (bvh_is_leaf(n)) {
            for (int32 s = ~n.left; s < ~n.left + n.right; ++s) {
                mesh_vec3 a, b, c;
                mesh_triangle(m, bvh.items[s], a, b, c);
                float32 t, u, v;
                if (ray_triangle_t(o, d, a, b, c, t, u, v) && t >= 0.0f && t < max_t) {
                    if (any) return 1;
                    hits++;
                }
            }
        } else if (count + 2 <= WPI_BVH_STACK) {
            stack[count++] = n.left;
            stack[count++] = n.right;
        }
    }
    return hits;
}

WPI_FUNC bool mesh_query_ray_anyhit(uint64 id, const mesh_vec3& start, const mesh_vec3& dir, float32 max_t, int32 root)
{
    return mesh_ray_walk(id, start, dir, max_t, root, true) != 0;
}
WPI_FUNC void adj_mesh_query_ray_anyhit(uint64, const mesh_vec3&, const mesh_vec3&, float32, int32, uint64&, mesh_vec3&,
                                        mesh_vec3&, float32&, int32&, bool) {}
WPI_FUNC bool mesh_query_ray_anyhit(uint64 id, const mesh_vec3& start, const mesh_vec3& dir, float32 max_t)
{
    return mesh_ray_walk(id, start, dir, max_t, -1, true) != 0;
}
WPI_FUNC void adj_mesh_query_ray_anyhit(uint64, const mesh_vec3&, const mesh_vec3&, float32, uint64&, mesh_vec3&, mesh_vec3&,
                                        float32&, bool) {}

WPI_FUNC int32 mesh_query_ray_count_intersections(uint64 id, const mesh_vec3& start, const mesh_vec3& dir, int32 root)
{
    return mesh_ray_walk(id, start, dir, geom_inf(), root, false);
}
WPI_FUNC void adj_mesh_query_ray_count_intersections(uint64, const mesh_vec3&, const mesh_vec3&, int32, uint64&, mesh_vec3&,
                                                     mesh_vec3&, int32&, int32) {}
WPI_FUNC int32 mesh_query_ray_count_intersections(uint64 id, const mesh_vec3& start, const mesh_vec3& dir)
{
    return mesh_ray_walk(id, start, dir, geom_inf(), -1, false);
}
WPI_FUNC void adj_mesh_query_ray_count_intersections(uint64, const mesh_vec3&, const mesh_vec3&, uint64&, mesh_vec3&,
                                                     mesh_vec3&, int32) {}

// the mesh's triangle BVH as a wp.Bvh id for the bvh_query_* builtins (items are face indices):
// the descriptor holds it first, at offset 0
WPI_FUNC uint64 mesh_get_bvh(uint64 id) { return id; }
WPI_FUNC void adj_mesh_get_bvh(uint64, uint64&, uint64) {}

}  // namespace wp
