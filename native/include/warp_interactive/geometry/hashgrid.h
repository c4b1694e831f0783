// Hash-grid neighbour queries for kernels. The grid (hash_grid_t, address = `grid.id`) is built
// by geometry/hash_grid.py: point ids sorted by cell key, one [start, end) range per cell.
// The order a query yields points in is the reference's, so sums over neighbours round as there:
// a point's cell along an axis is floor(x * (1 / cell_width)) (multiplying by the inverse, in the
// grid's precision: float64 grids in double, the others in float32), wrapped into [0, dim); the
// cell key is (z * dim_y + y) * dim_x + x; within a cell points are in increasing id order; a query
// visits the cells of its box with x fastest, then y, then z. hash_grid_unwrapped must stay
// identical to the builder's binning (geometry/hash_grid.py _cell_keys).
#pragma once

#include "warp_interactive/math/vec.h"

namespace wp {

struct hash_grid_t {
    const int32* point_ids;    // point indices sorted by cell
    const int32* cell_starts;
    const int32* cell_ends;
    int32 dim_x, dim_y, dim_z;
    int32 num_points;
    float32 cell_width;
    int32 pad;
    const int32* point_groups; // one group per point id, or null (built without groups)
    float64 cell_width64;      // the cell width in double, binning float64 grids
};

// unwrapped cell coordinate of x; T is the precision the grid bins in (float32 or float64)
template <typename T>
WPI_FUNC int64 hash_grid_unwrapped(T x, T inv_width)
{
    T q = floor(x * inv_width);
    q = q < T(-1.0e9) ? T(-1.0e9) : (q > T(1.0e9) ? T(1.0e9) : q);
    if (isnan(q)) q = T(0);   // NaN: cell 0, as the builder
    return int64(q);
}

// Visits cells [lo, hi] per axis (unwrapped coordinates, at most dim per axis so no cell twice).
struct hash_grid_query_t {
    uint64 id;
    int64 lo[3];
    int64 hi[3];
    int64 cell[3];    // the cell being visited
    int32 wlo[3];     // lo wrapped into [0, dim): cells are stepped wrapped, without a division each
    int32 wcell[3];   // cell wrapped into [0, dim)
    int32 next;       // next sorted slot in the current cell
    int32 end;
    int32 done;
    int32 group;      // with use_group on a grid built with groups: only that group's points
    int32 use_group;
    int32 pad;
};

WPI_FUNC void adj_accum(hash_grid_query_t&, const hash_grid_query_t&) {}

WPI_FUNC void hash_grid_open_cell(hash_grid_query_t& q, const hash_grid_t& g)
{
    const int64 key = (int64(q.wcell[2]) * g.dim_y + q.wcell[1]) * g.dim_x + q.wcell[0];
    q.next = g.cell_starts[key];
    q.end = g.cell_ends[key];
}

// the query box [lo, hi] per axis from its corners in the grid's precision
template <typename T>
WPI_FUNC hash_grid_query_t hash_grid_query_box(uint64 id, const T* p, T radius, T inv_width)
{
    hash_grid_query_t q = {};
    q.id = id;
    const hash_grid_t& g = *(const hash_grid_t*)id;
    const int32 dims[3] = {g.dim_x, g.dim_y, g.dim_z};
    for (int k = 0; k < 3; ++k) {
        q.lo[k] = hash_grid_unwrapped(T(p[k] - radius), inv_width);
        q.hi[k] = hash_grid_unwrapped(T(p[k] + radius), inv_width);
        if (q.hi[k] - q.lo[k] >= dims[k]) q.hi[k] = q.lo[k] + dims[k] - 1;
        q.cell[k] = q.lo[k];
        const int64 c = q.lo[k] % dims[k];
        q.wlo[k] = q.wcell[k] = int32(c < 0 ? c + dims[k] : c);
    }
    hash_grid_open_cell(q, g);
    return q;
}

WPI_FUNC bool hash_grid_empty(uint64 id)
{
    // a null handle, or a grid never built, finds nothing
    return !id || ((const hash_grid_t*)id)->num_points == 0 || !(((const hash_grid_t*)id)->cell_width > 0.0f);
}

WPI_FUNC hash_grid_query_t hash_grid_query(uint64 id, const vec_t<3, float32>& p, float32 radius)
{
    if (hash_grid_empty(id)) {
        hash_grid_query_t q = {};
        q.id = id;
        q.done = 1;
        return q;
    }
    const float32 inv = 1.0f / ((const hash_grid_t*)id)->cell_width;
    return hash_grid_query_box<float32>(id, p.c, radius, inv);
}
WPI_FUNC void adj_hash_grid_query(uint64, const vec_t<3, float32>&, float32, uint64&, vec_t<3, float32>&, float32&,
                                  const hash_grid_query_t&) {}

WPI_FUNC hash_grid_query_t hash_grid_query(uint64 id, const vec_t<3, float64>& p, float64 radius)
{
    if (hash_grid_empty(id)) return hash_grid_query(id, vec_t<3, float32>(), 0.0f);
    const float64 inv = 1.0 / ((const hash_grid_t*)id)->cell_width64;
    return hash_grid_query_box<float64>(id, p.c, radius, inv);
}
WPI_FUNC void adj_hash_grid_query(uint64, const vec_t<3, float64>&, float64, uint64&, vec_t<3, float64>&, float64&,
                                  const hash_grid_query_t&) {}

// half grids: points and radius in half, cells binned in float32 as the builder bins them (so a
// point is always looked for in the cell it was sorted into)
WPI_FUNC hash_grid_query_t hash_grid_query(uint64 id, const vec_t<3, half>& p, half radius)
{
    return hash_grid_query(id, vec_t<3, float32>(float32(p.c[0]), float32(p.c[1]), float32(p.c[2])),
                           float32(radius));
}
WPI_FUNC void adj_hash_grid_query(uint64, const vec_t<3, half>&, half, uint64&, vec_t<3, half>&, half&,
                                  const hash_grid_query_t&) {}

// grouped form: a grid built with groups yields only `group`'s points (none for an absent
// group); a grid built without groups ignores it (the reference's behaviour)
template <typename T>
WPI_FUNC hash_grid_query_t hash_grid_query(uint64 id, const vec_t<3, T>& p, T radius, int32 group)
{
    hash_grid_query_t q = hash_grid_query(id, p, radius);
    q.group = group;
    q.use_group = id && ((const hash_grid_t*)id)->point_groups ? 1 : 0;
    return q;
}
template <typename T>
WPI_FUNC void adj_hash_grid_query(uint64, const vec_t<3, T>&, T, int32, uint64&, vec_t<3, T>&, T&, int32&,
                                  const hash_grid_query_t&) {}

// the next cell along axis k; false (and back at lo) past hi: the caller steps the next axis
WPI_FUNC bool hash_grid_step_axis(hash_grid_query_t& q, int32 dim, int k)
{
    if (++q.cell[k] <= q.hi[k]) {
        if (++q.wcell[k] == dim) q.wcell[k] = 0;
        return true;
    }
    q.cell[k] = q.lo[k];
    q.wcell[k] = q.wlo[k];
    return false;
}

WPI_FUNC bool hash_grid_advance(hash_grid_query_t& q, int32& index)
{
    if (q.done) return false;
    const hash_grid_t& g = *(const hash_grid_t*)q.id;
    for (;;) {
        if (q.next < q.end) {
            const int32 id = g.point_ids[q.next++];
            if (q.use_group && g.point_groups[id] != q.group) continue;
            index = id;
            return true;
        }
        // next cell, x fastest
        if (!hash_grid_step_axis(q, g.dim_x, 0) && !hash_grid_step_axis(q, g.dim_y, 1) &&
            !hash_grid_step_axis(q, g.dim_z, 2)) {
            q.done = 1;
            return false;
        }
        hash_grid_open_cell(q, g);
    }
}

// out-parameter form: (query, index) in, (result, query, index) out
WPI_FUNC void hash_grid_query_next(hash_grid_query_t query, int32 index, bool& result, hash_grid_query_t& query_out,
                                   int32& index_out)
{
    result = hash_grid_advance(query, index);
    query_out = query;
    index_out = index;
}

WPI_FUNC int32 hash_grid_point_id(uint64 id, int32 index)
{
    if (!id) return -1;
    const hash_grid_t& g = *(const hash_grid_t*)id;
    return (index >= 0 && index < g.num_points) ? g.point_ids[index] : -1;
}

}  // namespace wp
