// BVH and hash-grid builders (host side); layouts documented in bvh_build.cpp / hash_grid_build.cpp.
#pragma once

#include <cstdint>
#include <vector>

namespace wpi_geometry {

struct BvhNode {
    float lower[3];
    int32_t left;
    float upper[3];
    int32_t right;
};
static_assert(sizeof(BvhNode) == 32, "BvhNode must match wp::bvh_node_t");

void bvh_build(const float* lowers, const float* uppers, int n, std::vector<BvhNode>& nodes,
               std::vector<int32_t>& items);
void bvh_refit(BvhNode* nodes, int num_nodes, const int32_t* items, const float* lowers,
               const float* uppers, bool by_slot);
void triangle_bounds(const float* points, const int32_t* indices, int num_tris, float* lowers,
                     float* uppers, const int32_t* slot_items);

// fast winding number data per BVH node (winding.cpp); mirrors wp::mesh_wn_node_t (mesh.h)
struct WnNode {
    float c[3];
    float r;
    float n[3];
    float area;
    float m[9];
    float pad[3];
};
static_assert(sizeof(WnNode) == 80, "WnNode must match wp::mesh_wn_node_t");

void winding_data(const BvhNode* nodes, int num_nodes, const int32_t* items, const float* points,
                  const int32_t* indices, WnNode* out);

void hash_grid_build(const float* points, int64_t stride_bytes, int n, float cell_width, int dim_x,
                     int dim_y, int dim_z, int32_t* point_ids, int32_t* cell_starts,
                     int32_t* cell_ends, int32_t* keys_scratch);

}  // namespace wpi_geometry
