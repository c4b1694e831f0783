// warp_interactive._geometry: native builders for wp.Bvh, wp.Mesh and wp.HashGrid.
// Addresses cross as Python ints (ndarray.ctypes.data); the builders run with the GIL released.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstring>

#include "bvh_build.h"

namespace py = pybind11;
using namespace wpi_geometry;

namespace {

template <typename T>
T* ptr(uintptr_t p) { return reinterpret_cast<T*>(p); }

py::tuple build(uintptr_t lowers, uintptr_t uppers, int n)
{
    if (n < 0) throw py::value_error("bvh_build: negative item count");
    std::vector<BvhNode> nodes;
    std::vector<int32_t> items;
    {
        py::gil_scoped_release release;
        bvh_build(ptr<const float>(lowers), ptr<const float>(uppers), n, nodes, items);
    }
    py::array_t<uint8_t> node_bytes(py::ssize_t(nodes.size() * sizeof(BvhNode)));
    std::memcpy(node_bytes.mutable_data(), nodes.data(), nodes.size() * sizeof(BvhNode));
    py::array_t<int32_t> item_arr(py::ssize_t(items.size() > 0 ? items.size() : 1));
    if (!items.empty()) std::memcpy(item_arr.mutable_data(), items.data(), items.size() * 4);
    else item_arr.mutable_data()[0] = 0;
    return py::make_tuple(node_bytes, item_arr, int(nodes.size()));
}

}  // namespace

PYBIND11_MODULE(_geometry, m) {
    m.doc() = "Native BVH (binned SAH) and hash-grid (radix sort) builders.";
    m.def("bvh_build", &build, py::arg("lowers"), py::arg("uppers"), py::arg("n"),
          "Build a BVH over n boxes (float32 xyz rows at the given addresses); returns "
          "(node bytes, item order, node count).");
    m.def("bvh_refit",
          [](uintptr_t nodes, int num_nodes, uintptr_t items, uintptr_t lowers, uintptr_t uppers,
             bool by_slot) {
              py::gil_scoped_release release;
              bvh_refit(ptr<BvhNode>(nodes), num_nodes, ptr<const int32_t>(items),
                        ptr<const float>(lowers), ptr<const float>(uppers), by_slot);
          },
          py::arg("nodes"), py::arg("num_nodes"), py::arg("items"), py::arg("lowers"),
          py::arg("uppers"), py::arg("by_slot") = false,
          "Recompute every node's bounds from the items' bounds (by item id, or in leaf-slot "
          "order with by_slot), in place.");
    m.def("triangle_bounds",
          [](uintptr_t points, uintptr_t indices, int num_tris, uintptr_t lowers, uintptr_t uppers,
             uintptr_t slot_items) {
              py::gil_scoped_release release;
              triangle_bounds(ptr<const float>(points), ptr<const int32_t>(indices), num_tris,
                              ptr<float>(lowers), ptr<float>(uppers), ptr<const int32_t>(slot_items));
          },
          py::arg("points"), py::arg("indices"), py::arg("num_tris"), py::arg("lowers"),
          py::arg("uppers"), py::arg("slot_items") = 0,
          "Per-triangle bounding boxes (in leaf-slot order when slot_items is given).");
    m.def("winding_data",
          [](uintptr_t nodes, int num_nodes, uintptr_t items, uintptr_t points, uintptr_t indices,
             uintptr_t out) {
              py::gil_scoped_release release;
              winding_data(ptr<const BvhNode>(nodes), num_nodes, ptr<const int32_t>(items),
                           ptr<const float>(points), ptr<const int32_t>(indices), ptr<WnNode>(out));
          },
          py::arg("nodes"), py::arg("num_nodes"), py::arg("items"), py::arg("points"),
          py::arg("indices"), py::arg("out"),
          "Per-node centre, radius bound, area-weighted normal sum and first moment for fast "
          "winding numbers (80 bytes per node at out).");
    m.def("hash_grid_build",
          [](uintptr_t points, int64_t stride, int n, float cell_width, int dx, int dy, int dz,
             uintptr_t ids, uintptr_t starts, uintptr_t ends, uintptr_t keys) {
              py::gil_scoped_release release;
              hash_grid_build(ptr<const float>(points), stride, n, cell_width, dx, dy, dz,
                              ptr<int32_t>(ids), ptr<int32_t>(starts), ptr<int32_t>(ends),
                              ptr<int32_t>(keys));
          },
          py::arg("points"), py::arg("stride"), py::arg("n"), py::arg("cell_width"),
          py::arg("dim_x"), py::arg("dim_y"), py::arg("dim_z"), py::arg("point_ids"),
          py::arg("cell_starts"), py::arg("cell_ends"), py::arg("keys"),
          "Sort points by cell (parallel radix sort) and record each cell's range.");
}
