// Hash-grid neighbour queries for kernels. The grid (hash_grid_t, address = `grid.id`) is built
// by native/src/geometry/hash_grid_build.cpp: points sorted by cell key, one [start, end) range
// per cell. hash_grid_cell must stay identical to cell_coord there.
#pragma once

#include "vec.h"

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
};

WPI_FUNC int32 hash_grid_cell(float32 x, float32 cell_width, int32 dim)
{
    float32 q = floor(x / cell_width);
    q = q < -1.0e9f ? -1.0e9f : (q > 1.0e9f ? 1.0e9f : q);
    if (isnan(q)) q = 0.0f;   // NaN: cell 0, as the builder
    int64 c = int64(q) % dim;
    return int32(c < 0 ? c + dim : c);
}

WPI_FUNC int64 hash_grid_unwrapped(float32 x, float32 cell_width)
{
    float32 q = floor(x / cell_width);
    q = q < -1.0e9f ? -1.0e9f : (q > 1.0e9f ? 1.0e9f : q);
    if (isnan(q)) q = 0.0f;   // NaN: cell 0, as the builder
    return int64(q);
}

// Visits cells [lo, hi] per axis (unwrapped coordinates, at most dim per axis so no cell twice).
struct hash_grid_query_t {
    uint64 id;
    int64 lo[3];
    int64 hi[3];
    int64 cell[3];    // the cell being visited
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
    const int32 dims[3] = {g.dim_x, g.dim_y, g.dim_z};
    int64 w[3];
    for (int k = 0; k < 3; ++k) {
        const int64 c = q.cell[k] % dims[k];
        w[k] = c < 0 ? c + dims[k] : c;
    }
    const int64 key = (w[0] * g.dim_y + w[1]) * g.dim_z + w[2];
    q.next = g.cell_starts[key];
    q.end = g.cell_ends[key];
}

WPI_FUNC hash_grid_query_t hash_grid_query(uint64 id, const vec_t<3, float32>& p, float32 radius)
{
    hash_grid_query_t q = {};
    q.id = id;
    if (!id) {   // a null handle finds nothing
        q.done = 1;
        return q;
    }
    const hash_grid_t& g = *(const hash_grid_t*)id;
    if (g.num_points == 0 || !(g.cell_width > 0.0f)) {
        q.done = 1;
        return q;
    }
    const int32 dims[3] = {g.dim_x, g.dim_y, g.dim_z};
    for (int k = 0; k < 3; ++k) {
        q.lo[k] = hash_grid_unwrapped(p.c[k] - radius, g.cell_width);
        q.hi[k] = hash_grid_unwrapped(p.c[k] + radius, g.cell_width);
        if (q.hi[k] - q.lo[k] >= dims[k]) q.hi[k] = q.lo[k] + dims[k] - 1;
        q.cell[k] = q.lo[k];
    }
    hash_grid_open_cell(q, g);
    return q;
}
WPI_FUNC void adj_hash_grid_query(uint64, const vec_t<3, float32>&, float32, uint64&, vec_t<3, float32>&, float32&,
                                  const hash_grid_query_t&) {}

// grouped form: a grid built with groups yields only `group`'s points (none for an absent
// group); a grid built without groups ignores it (the reference's behaviour)
WPI_FUNC hash_grid_query_t hash_grid_query(uint64 id, const vec_t<3, float32>& p, float32 radius, int32 group)
{
    hash_grid_query_t q = hash_grid_query(id, p, radius);
    q.group = group;
    q.use_group = id && ((const hash_grid_t*)id)->point_groups ? 1 : 0;
    return q;
}
WPI_FUNC void adj_hash_grid_query(uint64, const vec_t<3, float32>&, float32, int32, uint64&, vec_t<3, float32>&,
                                  float32&, int32&, const hash_grid_query_t&) {}

// half and double grids: points and radius in their precision, cells binned in float32 as the
// builder bins them (so a point is always looked for in the cell it was sorted into)
template <typename T>
WPI_FUNC hash_grid_query_t hash_grid_query(uint64 id, const vec_t<3, T>& p, T radius)
{
    return hash_grid_query(id, vec_t<3, float32>(float32(p.c[0]), float32(p.c[1]), float32(p.c[2])),
                           float32(radius));
}
template <typename T>
WPI_FUNC void adj_hash_grid_query(uint64, const vec_t<3, T>&, T, uint64&, vec_t<3, T>&, T&, const hash_grid_query_t&) {}
template <typename T>
WPI_FUNC hash_grid_query_t hash_grid_query(uint64 id, const vec_t<3, T>& p, T radius, int32 group)
{
    return hash_grid_query(id, vec_t<3, float32>(float32(p.c[0]), float32(p.c[1]), float32(p.c[2])),
                           float32(radius), group);
}
template <typename T>
WPI_FUNC void adj_hash_grid_query(uint64, const vec_t<3, T>&, T, int32, uint64&, vec_t<3, T>&, T&, int32&,
                                  const hash_grid_query_t&) {}

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
        // next cell, z fastest
        if (++q.cell[2] > q.hi[2]) {
            q.cell[2] = q.lo[2];
            if (++q.cell[1] > q.hi[1]) {
                q.cell[1] = q.lo[1];
                if (++q.cell[0] > q.hi[0]) {
                    q.done = 1;
                    return false;
                }
            }
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
