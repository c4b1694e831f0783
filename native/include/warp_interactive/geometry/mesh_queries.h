// More mesh queries for kernels: the sphere query over triangles (exact narrow phase), the
// generic mesh_query_next, group roots, and mesh_get (the mesh's arrays as kernel arrays).
#pragma once

#include "warp_interactive/geometry/mesh.h"

namespace wp {

// --- sphere query: triangles whose closest point to `center` is within `radius` ----------------------
struct mesh_query_sphere_t {
    bvh_query_t q;    // broad phase: the triangle boxes within radius (bvh sphere mode)
    float32 r2;
    int32 pad;
};
WPI_FUNC void adj_accum(mesh_query_sphere_t&, const mesh_query_sphere_t&) {}

// squared distance from p to the segment ab
WPI_FUNC float32 segment_distance_sq(const mesh_vec3& p, const mesh_vec3& a, const mesh_vec3& b)
{
    const mesh_vec3 ab = b - a;
    const float32 l = dot(ab, ab);
    float32 t = l > 0.0f ? dot(p - a, ab) / l : 0.0f;
    t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    return length_sq(p - (a + ab * t));
}

// squared distance from p to triangle abc; a zero-area triangle is its longest edge
WPI_FUNC float32 triangle_distance_sq(const mesh_vec3& p, const mesh_vec3& a, const mesh_vec3& b, const mesh_vec3& c)
{
    if (length_sq(cross(b - a, c - a)) == 0.0f) {
        const float32 lab = length_sq(b - a), lbc = length_sq(c - b), lca = length_sq(a - c);
        if (lab >= lbc && lab >= lca) return segment_distance_sq(p, a, b);
        return lbc >= lca ? segment_distance_sq(p, b, c) : segment_distance_sq(p, c, a);
    }
    float32 wa, wb;
    closest_on_triangle(p, a, b, c, wa, wb);
    return length_sq(p - (a * wa + b * wb + c * (1.0f - wa - wb)));
}

WPI_FUNC mesh_query_sphere_t mesh_query_sphere(uint64 id, const mesh_vec3& center, float32 radius)
{
    const float32 r = radius > 0.0f ? radius : 0.0f;
    mesh_query_sphere_t s = {};
    s.q = bvh_query_begin(id, 0, 2, center, mesh_vec3(r * r, 0.0f, 0.0f));
    s.r2 = r * r;
    return s;
}
WPI_FUNC void adj_mesh_query_sphere(uint64, const mesh_vec3&, float32, uint64&, mesh_vec3&, float32&,
                                    const mesh_query_sphere_t&) {}

WPI_FUNC bool mesh_query_sphere_advance(mesh_query_sphere_t& s, int32& face)
{
    int32 f;
    while (bvh_query_advance(s.q, f)) {
        mesh_vec3 a, b, c;
        mesh_triangle(mesh_at(s.q.id), f, a, b, c);
        if (triangle_distance_sq(s.q.a, a, b, c) <= s.r2) {   // tangential contact included
            face = f;
            return true;
        }
    }
    return false;
}

// out-parameter forms: (query, index) in, (result, query, index) out
WPI_FUNC void mesh_query_next(bvh_query_t query, int32 index, bool& result, bvh_query_t& query_out, int32& index_out)
{
    mesh_query_aabb_next(query, index, result, query_out, index_out);
}
WPI_FUNC void mesh_query_next(mesh_query_sphere_t query, int32 index, bool& result, mesh_query_sphere_t& query_out,
                              int32& index_out)
{
    result = mesh_query_sphere_advance(query, index);
    query_out = query;
    index_out = index;
}
WPI_FUNC void mesh_query_aabb_next(mesh_query_sphere_t query, int32 index, bool& result,
                                   mesh_query_sphere_t& query_out, int32& index_out)
{
    mesh_query_next(query, index, result, query_out, index_out);
}

// --- groups ------------------------------------------------------------------------------------------
WPI_FUNC int32 mesh_get_group_root(uint64 id, int32 group) { return id ? bvh_group_root(mesh_at(id).bvh, group) : -1; }
WPI_FUNC void adj_mesh_get_group_root(uint64, int32, uint64&, int32&, int32) {}

// --- mesh_get: the mesh's points, velocities and indices as 1-d kernel arrays ------------------------
struct mesh_view_t {
    array_t<mesh_vec3> points;
    array_t<mesh_vec3> velocities;   // empty (null data, shape 0) without velocities
    array_t<int32> indices;          // 3 per triangle, flat
};
WPI_FUNC void adj_accum(mesh_view_t&, const mesh_view_t&) {}

template <typename T> WPI_FUNC array_t<T> mesh_array_1d(const T* data, int32 n)
{
    array_t<T> a = {};
    a.data = (T*)data;
    a.shape[0] = data ? n : 0;
    a.strides[0] = sizeof(T);
    a.ndim = 1;
    return a;
}

WPI_FUNC mesh_view_t mesh_get(uint64 id)
{
    mesh_view_t v = {};
    if (!id) return v;
    const mesh_t& m = mesh_at(id);
    v.points = mesh_array_1d(m.points, m.num_points);
    v.points.grad = m.points_grad;
    v.velocities = mesh_array_1d(m.velocities, m.num_points);
    v.velocities.grad = m.velocities ? m.velocities_grad : nullptr;
    v.indices = mesh_array_1d(m.indices, 3 * m.num_tris);
    return v;
}
WPI_FUNC void adj_mesh_get(uint64, uint64&, const mesh_view_t&) {}

}  // namespace wp
