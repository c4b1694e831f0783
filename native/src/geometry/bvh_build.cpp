// BVH construction and refit for wp.Bvh and wp.Mesh.
//
// Builder: top-down binned SAH (16 bins per axis over the item centroids, all three axes tried),
// leaves of at most 4 items. Binned SAH gives trees within a few percent of full-sweep SAH for
// ray and closest-point queries at O(n log n) build cost with small constants, which is the
// usual trade-off for interactive rebuilds. Fallbacks keep the tree shallow: items with
// identical centroids, or an SAH split that leaves one side empty, or a depth past 40, are split
// at the object median instead, so the traversal stack in bvh.h (64 entries) always suffices.
//
// Node layout (32 bytes, mirrored by native/include/warp_interactive/geometry/bvh.h bvh_node_t):
//   float lower[3]; int32 left; float upper[3]; int32 right;
//   internal: left/right are child node indices (children come after their parent)
//   leaf:     left = ~first (negative), right = count; items[first, first + count)

#include "bvh_build.h"
#include "parallel.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <thread>

namespace wpi_geometry {

namespace {

constexpr int kBins = 16;
constexpr int kMaxLeaf = 4;
constexpr int kMedianDepth = 40;
constexpr int kParallelItems = 1 << 15;   // subtrees at least this large may run on a thread

struct Box {
    float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX};
    float hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    void grow(const float* l, const float* h)
    {
        for (int k = 0; k < 3; ++k) {
            lo[k] = std::min(lo[k], l[k]);
            hi[k] = std::max(hi[k], h[k]);
        }
    }
    void grow(const Box& b) { grow(b.lo, b.hi); }
    float area() const
    {
        const float dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
        if (dx < 0 || dy < 0 || dz < 0) return 0.0f;
        return 2.0f * (dx * dy + dy * dz + dz * dx);
    }
};

// An item's box and id, partitioned in place: the builder reads items sequentially (random
// access through an index array made the build memory bound).
struct Ref {
    float lo[3];
    int32_t id;
    float hi[3];
    int32_t pad;
    float c(int k) const { return 0.5f * (lo[k] + hi[k]); }
};

struct Builder {
    std::vector<Ref>& refs;
    std::vector<BvhNode>& nodes;
    int spawn_depth;   // levels below which subtrees may still be built on another thread

    void bounds(int begin, int end, Box& box, Box& cbox) const
    {
        for (int i = begin; i < end; ++i) {
            const Ref& r = refs[i];
            const float c[3] = {r.c(0), r.c(1), r.c(2)};
            box.grow(r.lo, r.hi);
            cbox.grow(c, c);
        }
    }

    // box/cbox: the bounds of the items' boxes and of their centroids, computed by the parent
    // while it split (so each level reads the items once for binning and once to partition)
    int build(int begin, int end, int depth, const Box& box, const Box& cbox)
    {
        const int index = int(nodes.size());
        nodes.push_back(BvhNode{});
        const int n = end - begin;
        int mid = -1;
        Box child[4];   // left box, left centroids, right box, right centroids
        if (n > 1) mid = choose_split(begin, end, depth, box, cbox, child);
        if (mid < 0) {
            set_leaf(index, box, begin, n);
            return index;
        }
        int left, right;
        if (spawn_depth > 0 && n >= kParallelItems) {
            // the right subtree on another thread, into its own node array appended afterwards
            // (its indices shifted), so children still follow their parents
            std::vector<BvhNode> rnodes;
            rnodes.reserve(size_t(2) * (end - mid));
            Builder rb{refs, rnodes, spawn_depth - 1};
            std::thread worker([&] { rb.build(mid, end, depth + 1, child[2], child[3]); });
            spawn_depth -= 1;
            left = build(begin, mid, depth + 1, child[0], child[1]);
            spawn_depth += 1;
            worker.join();
            right = int(nodes.size());
            for (BvhNode node : rnodes) {
                if (node.left >= 0) {
                    node.left += right;
                    node.right += right;
                }
                nodes.push_back(node);
            }
        } else {
            left = build(begin, mid, depth + 1, child[0], child[1]);
            right = build(mid, end, depth + 1, child[2], child[3]);
        }
        BvhNode& node = nodes[index];
        std::memcpy(node.lower, box.lo, sizeof(box.lo));
        std::memcpy(node.upper, box.hi, sizeof(box.hi));
        node.left = left;
        node.right = right;
        return index;
    }

    void set_leaf(int index, const Box& box, int first, int count)
    {
        BvhNode& node = nodes[index];
        std::memcpy(node.lower, box.lo, sizeof(box.lo));
        std::memcpy(node.upper, box.hi, sizeof(box.hi));
        node.left = ~first;
        node.right = count;
    }

    // The split position in [begin, end), or -1 for a leaf.
    int choose_split(int begin, int end, int depth, const Box& box, const Box& cbox, Box* child)
    {
        const int n = end - begin;
        int axis = 0;
        for (int k = 1; k < 3; ++k)
            if (cbox.hi[k] - cbox.lo[k] > cbox.hi[axis] - cbox.lo[axis]) axis = k;
        if (cbox.hi[axis] - cbox.lo[axis] <= 0.0f || depth >= kMedianDepth)
            return n <= kMaxLeaf ? -1 : median_split(begin, end, axis, child);

        float best_cost = FLT_MAX;
        int best_axis = -1, best_bin = -1;
        // one pass over the items fills the bins of all three axes
        // small nodes use fewer bins (one per item): the same candidate planes, less sweeping
        const int nb = n < kBins ? (n < 2 ? 2 : n) : kBins;
        Box bins[3][kBins];
        int counts[3][kBins] = {};
        float scale[3];
        for (int k = 0; k < 3; ++k) {
            const float extent = cbox.hi[k] - cbox.lo[k];
            scale[k] = extent > 0.0f ? nb / extent : 0.0f;
        }
        for (int i = begin; i < end; ++i) {
            const Ref& r = refs[i];
            for (int k = 0; k < 3; ++k) {
                const int b = bin_of(r.c(k), cbox.lo[k], scale[k], nb);
                counts[k][b]++;
                bins[k][b].grow(r.lo, r.hi);
            }
        }
        for (int k = 0; k < 3; ++k) {
            if (scale[k] == 0.0f) continue;
            // sweep from the right, then from the left, evaluating each of the kBins-1 planes
            float right_area[kBins];
            int right_count[kBins];
            Box acc;
            int cnt = 0;
            for (int b = nb - 1; b > 0; --b) {
                acc.grow(bins[k][b]);
                cnt += counts[k][b];
                right_area[b] = acc.area();
                right_count[b] = cnt;
            }
            Box lacc;
            int lcnt = 0;
            for (int b = 0; b < nb - 1; ++b) {
                lacc.grow(bins[k][b]);
                lcnt += counts[k][b];
                if (lcnt == 0 || right_count[b + 1] == 0) continue;
                const float cost = lacc.area() * lcnt + right_area[b + 1] * right_count[b + 1];
                if (cost < best_cost) {
                    best_cost = cost;
                    best_axis = k;
                    best_bin = b;
                }
            }
        }
        const float parent_area = box.area();
        // SAH with traversal cost 1 and intersection cost 1 per item
        const float split_cost = parent_area > 0 ? 1.0f + best_cost / parent_area : FLT_MAX;
        if (n <= kMaxLeaf && (best_axis < 0 || split_cost >= float(n))) return -1;
        if (best_axis < 0) return median_split(begin, end, axis, child);

        const float axis_scale = scale[best_axis];
        const float low = cbox.lo[best_axis];
        for (int b = 0; b < nb; ++b) child[b <= best_bin ? 0 : 2].grow(bins[best_axis][b]);
        // partition in place, growing each side's centroid bounds on the way
        int i = begin, j = end - 1;
        while (i <= j) {
            const Ref r = refs[i];
            const float c[3] = {r.c(0), r.c(1), r.c(2)};
            if (bin_of(c[best_axis], low, axis_scale, nb) <= best_bin) {
                child[1].grow(c, c);
                ++i;
            } else {
                child[3].grow(c, c);
                refs[i] = refs[j];
                refs[j] = r;
                --j;
            }
        }
        if (i == begin || i == end) return median_split(begin, end, axis, child);
        return i;
    }

    static int bin_of(float c, float low, float scale, int nb)
    {
        int b = int((c - low) * scale);
        return b < 0 ? 0 : (b >= nb ? nb - 1 : b);
    }

    int median_split(int begin, int end, int axis, Box* child)
    {
        const int mid = begin + (end - begin) / 2;
        std::nth_element(refs.begin() + begin, refs.begin() + mid, refs.begin() + end,
                         [&](const Ref& a, const Ref& b) {
                             const float ca = a.c(axis), cb = b.c(axis);
                             return ca < cb || (ca == cb && a.id < b.id);
                         });
        for (int k = 0; k < 4; ++k) child[k] = Box();
        bounds(begin, mid, child[0], child[1]);
        bounds(mid, end, child[2], child[3]);
        return mid;
    }
};

}  // namespace

void bvh_build(const float* lowers, const float* uppers, int n, std::vector<BvhNode>& nodes,
               std::vector<int32_t>& items)
{
    nodes.clear();
    nodes.reserve(n > 0 ? 2 * n : 1);
    std::vector<Ref> refs(n);
    for (int i = 0; i < n; ++i) {
        Ref& r = refs[i];
        std::memcpy(r.lo, lowers + 3 * i, sizeof(r.lo));
        std::memcpy(r.hi, uppers + 3 * i, sizeof(r.hi));
        r.id = i;
        r.pad = 0;
    }
    int spawn = 0;   // log2 of the hardware threads: that many levels fork
    for (unsigned t = std::thread::hardware_concurrency(); t > 1; t >>= 1) ++spawn;
    Builder b{refs, nodes, spawn};
    Box box, cbox;
    b.bounds(0, n, box, cbox);
    b.build(0, n, 0, box, cbox);
    items.resize(n);
    for (int i = 0; i < n; ++i) items[i] = refs[i].id;
}

namespace {

// Post-order: a subtree's box comes back by value, so the parent never re-reads its children
// (the right child sits far from its parent in the node array); nodes are visited in memory order.
// The top `spawn` levels refit their left subtree on another thread (like the build, log2 of the
// hardware threads levels fork).
Box refit_node(BvhNode* nodes, int i, const int32_t* items, const float* lowers, const float* uppers,
               bool by_slot, int spawn)
{
    BvhNode& node = nodes[i];
    Box box;
    if (node.left < 0) {
        const int first = ~node.left;
        for (int j = first; j < first + node.right; ++j) {
            const int b = by_slot ? j : items[j];
            box.grow(lowers + 3 * b, uppers + 3 * b);
        }
    } else if (spawn > 0) {
        const int left = node.left, right = node.right;
        Box lbox;
        std::thread worker([&] { lbox = refit_node(nodes, left, items, lowers, uppers, by_slot, spawn - 1); });
        box = refit_node(nodes, right, items, lowers, uppers, by_slot, spawn - 1);
        worker.join();
        box.grow(lbox);
    } else {
        const int right = node.right;
        box = refit_node(nodes, node.left, items, lowers, uppers, by_slot, 0);
        box.grow(refit_node(nodes, right, items, lowers, uppers, by_slot, 0));
    }
    std::memcpy(node.lower, box.lo, sizeof(box.lo));
    std::memcpy(node.upper, box.hi, sizeof(box.hi));
    return box;
}

}  // namespace

void bvh_refit(BvhNode* nodes, int num_nodes, const int32_t* items, const float* lowers,
               const float* uppers, bool by_slot)
{
    int spawn = 0;   // small trees refit faster than a thread starts
    if (num_nodes >= 2 * kParallelItems)
        for (unsigned t = std::thread::hardware_concurrency(); t > 1; t >>= 1) ++spawn;
    if (num_nodes > 0) refit_node(nodes, 0, items, lowers, uppers, by_slot, spawn);
}

// slot_items: when given, box s is the box of triangle slot_items[s] (leaf order, so a refit
// reads the boxes sequentially); else box t is triangle t's.
void triangle_bounds(const float* points, const int32_t* indices, int num_tris, float* lowers,
                     float* uppers, const int32_t* slot_items)
{
    parallel_chunks(num_tris, worker_count(num_tris), [&](int, int64_t begin, int64_t end) {
        for (int64_t s = begin; s < end; ++s) {
            const int64_t t = slot_items ? slot_items[s] : s;
            for (int k = 0; k < 3; ++k) {
                float lo = FLT_MAX, hi = -FLT_MAX;
                for (int c = 0; c < 3; ++c) {
                    const float x = points[3 * indices[3 * t + c] + k];
                    lo = std::min(lo, x);
                    hi = std::max(hi, x);
                }
                lowers[3 * s + k] = lo;
                uppers[3 * s + k] = hi;
            }
        }
    });
}

}  // namespace wpi_geometry
