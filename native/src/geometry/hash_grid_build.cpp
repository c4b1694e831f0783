// Hash-grid build: every point gets the key of its (wrapped) cell, then the (key, point id) pairs
// are sorted by a parallel LSD radix sort (8-bit digits, per-thread histograms, stable scatter)
// and each cell's [start, end) range in the sorted order is recorded.
// geometry/hash_grid.py bins the points itself (in the grid's precision, as hashgrid.h's queries
// do) and hands this builder the unwrapped integer cell coordinates as floats with a cell width of
// 1, so cell_coord here only wraps them.

#include <cmath>
#include <cstring>
#include <vector>

#include "bvh_build.h"
#include "parallel.h"

namespace wpi_geometry {

namespace {

inline int32_t cell_coord(float x, float cell_width, int dim)
{
    float q = std::floor(x / cell_width);
    // keep far-away points finite before wrapping (the same clamp as hashgrid.h)
    q = q < -1.0e9f ? -1.0e9f : (q > 1.0e9f ? 1.0e9f : q);
    int64_t c = int64_t(q) % dim;
    return int32_t(c < 0 ? c + dim : c);
}

void radix_sort(int32_t* keys, int32_t* ids, int n, uint32_t max_key)
{
    std::vector<int32_t> keys2(n), ids2(n);
    int32_t *src_k = keys, *src_i = ids, *dst_k = keys2.data(), *dst_i = ids2.data();
    const int workers = worker_count(n);
    int passes = 0;
    for (uint32_t m = max_key; m; m >>= 8) ++passes;
    std::vector<int64_t> hist(size_t(workers) * 256);
    for (int pass = 0; pass < passes; ++pass) {
        const int shift = 8 * pass;
        std::fill(hist.begin(), hist.end(), 0);
        parallel_chunks(n, workers, [&](int w, int64_t b, int64_t e) {
            int64_t* h = &hist[size_t(w) * 256];
            for (int64_t i = b; i < e; ++i) h[(uint32_t(src_k[i]) >> shift) & 255]++;
        });
        // exclusive prefix over (digit, worker): stable because worker chunks are in order
        int64_t sum = 0;
        for (int d = 0; d < 256; ++d)
            for (int w = 0; w < workers; ++w) {
                const int64_t c = hist[size_t(w) * 256 + d];
                hist[size_t(w) * 256 + d] = sum;
                sum += c;
            }
        parallel_chunks(n, workers, [&](int w, int64_t b, int64_t e) {
            int64_t* h = &hist[size_t(w) * 256];
            for (int64_t i = b; i < e; ++i) {
                const int64_t pos = h[(uint32_t(src_k[i]) >> shift) & 255]++;
                dst_k[pos] = src_k[i];
                dst_i[pos] = src_i[i];
            }
        });
        std::swap(src_k, dst_k);
        std::swap(src_i, dst_i);
    }
    if (src_k != keys) {
        std::memcpy(keys, src_k, sizeof(int32_t) * size_t(n));
        std::memcpy(ids, src_i, sizeof(int32_t) * size_t(n));
    }
}

}  // namespace

void hash_grid_build(const float* points, int64_t stride_bytes, int n, float cell_width, int dim_x,
                     int dim_y, int dim_z, int32_t* point_ids, int32_t* cell_starts,
                     int32_t* cell_ends, int32_t* keys)
{
    const int64_t num_cells = int64_t(dim_x) * dim_y * dim_z;
    std::memset(cell_starts, 0, sizeof(int32_t) * size_t(num_cells));
    std::memset(cell_ends, 0, sizeof(int32_t) * size_t(num_cells));
    if (n <= 0) return;
    const int workers = worker_count(n);
    parallel_chunks(n, workers, [&](int, int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
            const float* p = (const float*)((const char*)points + i * stride_bytes);
            const int32_t cx = cell_coord(p[0], cell_width, dim_x);
            const int32_t cy = cell_coord(p[1], cell_width, dim_y);
            const int32_t cz = cell_coord(p[2], cell_width, dim_z);
            keys[i] = int32_t((int64_t(cx) * dim_y + cy) * dim_z + cz);
            point_ids[i] = int32_t(i);
        }
    });
    radix_sort(keys, point_ids, n, uint32_t(num_cells - 1));
    parallel_chunks(n, workers, [&](int, int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
            const int32_t k = keys[i];
            if (i == 0 || keys[i - 1] != k) cell_starts[k] = int32_t(i);
            if (i == n - 1 || keys[i + 1] != k) cell_ends[k] = int32_t(i + 1);
        }
    });
}

}  // namespace wpi_geometry
