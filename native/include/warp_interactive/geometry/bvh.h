// BVH traversal for kernels (wp.Bvh queries; also used by mesh.h). Host and device code alike:
// no allocation, no standard library, fixed-size traversal stacks.
// The tree is built by native/src/geometry/bvh_build.cpp; layouts below mirror it and
// warp_interactive/geometry/descriptors.py.
#pragma once

#include "warp_interactive/math/vec.h"

namespace wp {

typedef vec_t<3, float32> bvh_vec3;

// internal: left/right child indices; leaf: left = ~first item slot, right = item count
struct bvh_node_t {
    bvh_vec3 lower;
    int32 left;
    bvh_vec3 upper;
    int32 right;
};

struct bvh_t {
    const bvh_node_t* nodes;
    const int32* items;        // item ids in leaf order
    const bvh_vec3* lowers;    // item bounds (wp.Bvh: the user's arrays)
    const bvh_vec3* uppers;
    int32 num_nodes;
    int32 num_items;
    int32 by_slot;             // 1: lowers/uppers are in leaf-slot order (meshes), 0: by item id
    int32 num_groups;          // built with groups: one subtree per group, roots in group_roots
    const int32* group_ids;    // sorted ascending
    const int32* group_roots;  // the node index of each group's subtree
};

#define WPI_BVH_STACK 64

WPI_FUNC float32 geom_inf() { return detail::bits_float(0x7f800000u); }

WPI_FUNC bool bvh_is_leaf(const bvh_node_t& n) { return n.left < 0; }

WPI_FUNC bool aabb_overlap(const bvh_vec3& alo, const bvh_vec3& ahi, const bvh_vec3& blo, const bvh_vec3& bhi)
{
    return alo.c[0] <= bhi.c[0] && ahi.c[0] >= blo.c[0] && alo.c[1] <= bhi.c[1] && ahi.c[1] >= blo.c[1] &&
           alo.c[2] <= bhi.c[2] && ahi.c[2] >= blo.c[2];
}

// Slab test: true if the ray start + t*dir (t in [0, max_t]) meets the box; t_enter = first t.
WPI_FUNC bool ray_box(const bvh_vec3& start, const bvh_vec3& inv_dir, float32 max_t, const bvh_vec3& lo,
                      const bvh_vec3& hi, float32& t_enter)
{
    float32 t0 = 0.0f, t1 = max_t;
    for (int k = 0; k < 3; ++k) {
        float32 a = (lo.c[k] - start.c[k]) * inv_dir.c[k];
        float32 b = (hi.c[k] - start.c[k]) * inv_dir.c[k];
        if (a != a) a = -geom_inf();   // 0 * inf: the ray lies in the slab plane
        if (b != b) b = geom_inf();
        const float32 near_t = a < b ? a : b, far_t = a < b ? b : a;
        t0 = near_t > t0 ? near_t : t0;
        t1 = far_t < t1 ? far_t : t1;
        if (t0 > t1) return false;
    }
    t_enter = t0;
    return lo.c[0] <= hi.c[0];
}

WPI_FUNC bvh_vec3 safe_inverse(const bvh_vec3& d)
{
    bvh_vec3 r;
    for (int k = 0; k < 3; ++k) r.c[k] = d.c[k] != 0.0f ? 1.0f / d.c[k] : geom_inf();
    return r;
}

// Squared distance from p to the box (0 inside); largest squared distance from p to the box.
WPI_FUNC float32 box_distance_sq(const bvh_vec3& p, const bvh_vec3& lo, const bvh_vec3& hi)
{
    float32 d = 0.0f;
    for (int k = 0; k < 3; ++k) {
        const float32 e = p.c[k] < lo.c[k] ? lo.c[k] - p.c[k] : (p.c[k] > hi.c[k] ? p.c[k] - hi.c[k] : 0.0f);
        d += e * e;
    }
    return d;
}
WPI_FUNC float32 box_far_distance_sq(const bvh_vec3& p, const bvh_vec3& lo, const bvh_vec3& hi)
{
    float32 d = 0.0f;
    for (int k = 0; k < 3; ++k) {
        const float32 a = p.c[k] - lo.c[k], b = hi.c[k] - p.c[k];
        const float32 e = a > b ? a : b;
        d += e * e;
    }
    return d;
}

// --- the query object of bvh_query_aabb / bvh_query_ray / bvh_query_next ------------------------
// Also serves mesh_query_aabb (items are triangles). Leaves are emitted item by item.
struct bvh_query_t {
    uint64 id;
    int32 stack[WPI_BVH_STACK];
    int32 count;         // entries on the stack
    int32 leaf_next;     // next item slot of the current leaf
    int32 leaf_end;
    int32 is_ray;
    int32 bvh_offset;    // byte offset of the bvh_t inside the descriptor id points at
    bvh_vec3 a;          // aabb: lower;  ray, capsule: start;  sphere: center
    bvh_vec3 b;          // aabb: upper;  ray, capsule: 1/dir;  sphere: (radius^2, 0, 0)
    float32 max_t;       // ray, capsule: boxes met at 0 <= t <= max_t (bvh_query_next's max_dist)
    float32 radius;      // capsule: the boxes are inflated by it
};

WPI_FUNC const bvh_t& bvh_at(uint64 id, int32 offset) { return *(const bvh_t*)((const char*)id + offset); }

WPI_FUNC bvh_query_t bvh_query_begin(uint64 id, int32 offset, int32 is_ray, const bvh_vec3& a, const bvh_vec3& b)
{
    bvh_query_t q = {};
    q.id = id;
    q.bvh_offset = offset;
    q.is_ray = is_ray;
    q.a = a;
    q.b = b;
    q.count = 0;
    q.max_t = geom_inf();
    if (id && bvh_at(id, offset).num_nodes > 0 && bvh_at(id, offset).num_items > 0) q.stack[q.count++] = 0;
    return q;
}

// start the traversal at node `root` instead (-1 or out of range: the whole tree)
WPI_FUNC bvh_query_t bvh_query_from(bvh_query_t q, int32 root)
{
    if (q.count && root >= 0 && root < bvh_at(q.id, q.bvh_offset).num_nodes) q.stack[0] = root;
    return q;
}

// the root node of `group`'s subtree, or -1 (the whole tree) where the group has no items
WPI_FUNC int32 bvh_group_root(const bvh_t& bvh, int32 group)
{
    int32 lo = 0, hi = bvh.num_groups - 1;
    while (lo <= hi) {
        const int32 mid = (lo + hi) / 2;
        if (bvh.group_ids[mid] == group) return bvh.group_roots[mid];
        if (bvh.group_ids[mid] < group) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}
WPI_FUNC int32 bvh_get_group_root(uint64 id, int32 group) { return id ? bvh_group_root(bvh_at(id, 0), group) : -1; }
WPI_FUNC void adj_bvh_get_group_root(uint64, int32, uint64&, int32&, int32) {}

// is_ray: 0 box [a, b]; 1 ray from a with 1/dir b; 2 sphere at a with squared radius b[0];
// 3 capsule: the ray against the box inflated by `radius` (conservative near box corners)
WPI_FUNC bool bvh_query_box_hit(const bvh_query_t& q, const bvh_vec3& lo, const bvh_vec3& hi)
{
    float32 t;
    if (q.is_ray == 2) return box_distance_sq(q.a, lo, hi) <= q.b.c[0];
    if (q.is_ray == 3) {
        const bvh_vec3 r(q.radius, q.radius, q.radius);
        return ray_box(q.a, q.b, q.max_t, lo - r, hi + r, t);
    }
    if (q.is_ray) return ray_box(q.a, q.b, q.max_t, lo, hi, t);
    return aabb_overlap(q.a, q.b, lo, hi);
}

WPI_FUNC bool bvh_query_node_hit(const bvh_query_t& q, const bvh_node_t& n)
{
    return bvh_query_box_hit(q, n.lower, n.upper);
}

// Advances to the next item whose box meets the query; false when there are no more.
WPI_FUNC bool bvh_query_advance(bvh_query_t& q, int32& item)
{
    const bvh_t& bvh = bvh_at(q.id, q.bvh_offset);
    for (;;) {
        while (q.leaf_next < q.leaf_end) {
            const int32 slot = q.leaf_next++;
            const int32 it = bvh.items[slot];
            if (bvh.lowers) {   // test each item's own box (a leaf holds up to 4)
                const int32 b = bvh.by_slot ? slot : it;
                if (!bvh_query_box_hit(q, bvh.lowers[b], bvh.uppers[b])) continue;
            }
            item = it;
            return true;
        }
        if (q.count == 0) return false;
        const bvh_node_t& n = bvh.nodes[q.stack[--q.count]];
        if (!bvh_query_node_hit(q, n)) continue;
        if (bvh_is_leaf(n)) {
            q.leaf_next = ~n.left;
            q.leaf_end = ~n.left + n.right;
        } else if (q.count + 2 <= WPI_BVH_STACK) {
            q.stack[q.count++] = n.right;
            q.stack[q.count++] = n.left;
        }
    }
}

WPI_FUNC bvh_query_t bvh_query_aabb(uint64 id, const bvh_vec3& lower, const bvh_vec3& upper)
{
    return bvh_query_begin(id, 0, 0, lower, upper);
}
WPI_FUNC bvh_query_t bvh_query_aabb(uint64 id, const bvh_vec3& lower, const bvh_vec3& upper, int32 root)
{
    return bvh_query_from(bvh_query_begin(id, 0, 0, lower, upper), root);
}
WPI_FUNC void adj_bvh_query_aabb(uint64, const bvh_vec3&, const bvh_vec3&, int32, uint64&, bvh_vec3&, bvh_vec3&,
                                 int32&, const bvh_query_t&) {}
WPI_FUNC bvh_query_t bvh_query_ray(uint64 id, const bvh_vec3& start, const bvh_vec3& dir, int32 root)
{
    return bvh_query_from(bvh_query_begin(id, 0, 1, start, safe_inverse(dir)), root);
}
WPI_FUNC void adj_bvh_query_ray(uint64, const bvh_vec3&, const bvh_vec3&, int32, uint64&, bvh_vec3&, bvh_vec3&,
                                int32&, const bvh_query_t&) {}

// the items whose boxes the capsule swept from start to start + t dir (t in [0, max_dist] of
// bvh_query_next) with `radius` may touch: boxes inflated by the radius (a negative one is zero)
WPI_FUNC bvh_query_t bvh_query_capsule(uint64 id, const bvh_vec3& start, const bvh_vec3& dir, float32 radius,
                                       int32 root)
{
    bvh_query_t q = bvh_query_from(bvh_query_begin(id, 0, 3, start, safe_inverse(dir)), root);
    q.radius = radius > 0.0f ? radius : 0.0f;
    return q;
}
WPI_FUNC void adj_bvh_query_capsule(uint64, const bvh_vec3&, const bvh_vec3&, float32, int32, uint64&, bvh_vec3&,
                                    bvh_vec3&, float32&, int32&, const bvh_query_t&) {}
WPI_FUNC bvh_query_t bvh_query_capsule(uint64 id, const bvh_vec3& start, const bvh_vec3& dir, float32 radius)
{
    return bvh_query_capsule(id, start, dir, radius, -1);
}
WPI_FUNC void adj_bvh_query_capsule(uint64, const bvh_vec3&, const bvh_vec3&, float32, uint64&, bvh_vec3&,
                                    bvh_vec3&, float32&, const bvh_query_t&) {}
WPI_FUNC void adj_bvh_query_aabb(uint64, const bvh_vec3&, const bvh_vec3&, uint64&, bvh_vec3&, bvh_vec3&,
                                 const bvh_query_t&) {}

WPI_FUNC bvh_query_t bvh_query_ray(uint64 id, const bvh_vec3& start, const bvh_vec3& dir)
{
    return bvh_query_begin(id, 0, 1, start, safe_inverse(dir));
}
WPI_FUNC void adj_bvh_query_ray(uint64, const bvh_vec3&, const bvh_vec3&, uint64&, bvh_vec3&, bvh_vec3&,
                                const bvh_query_t&) {}

// the items whose boxes are within `radius` of `center` (touching included); a negative radius
// counts as zero. `root` >= 0 starts the traversal at that node instead of the tree's root.
WPI_FUNC bvh_query_t bvh_query_sphere(uint64 id, const bvh_vec3& center, float32 radius, int32 root)
{
    const float32 r = radius > 0.0f ? radius : 0.0f;
    return bvh_query_from(bvh_query_begin(id, 0, 2, center, bvh_vec3(r * r, 0.0f, 0.0f)), root);
}
WPI_FUNC void adj_bvh_query_sphere(uint64, const bvh_vec3&, float32, int32, uint64&, bvh_vec3&, float32&, int32&,
                                   const bvh_query_t&) {}
WPI_FUNC bvh_query_t bvh_query_sphere(uint64 id, const bvh_vec3& center, float32 radius)
{
    return bvh_query_sphere(id, center, radius, -1);
}
WPI_FUNC void adj_bvh_query_sphere(uint64, const bvh_vec3&, float32, uint64&, bvh_vec3&, float32&, const bvh_query_t&) {}

// out-parameter form: (query, index) in, (result, query, index) out
WPI_FUNC void bvh_query_next(bvh_query_t query, int32 index, bool& result, bvh_query_t& query_out, int32& index_out)
{
    result = bvh_query_advance(query, index);
    query_out = query;
    index_out = index;
}
// with max_dist: ray and capsule queries keep the boxes met at t <= max_dist (in multiples of
// |dir|); box and sphere queries ignore it
WPI_FUNC void bvh_query_next(bvh_query_t query, int32 index, float32 max_dist, bool& result, bvh_query_t& query_out,
                             int32& index_out)
{
    query.max_t = max_dist;
    bvh_query_next(query, index, result, query_out, index_out);
}

WPI_FUNC void adj_accum(bvh_query_t&, const bvh_query_t&) {}

}  // namespace wp
