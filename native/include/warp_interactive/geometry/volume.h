// Sparse-volume access for kernels, reading a NanoVDB grid buffer in place (`volume.id` is the
// address of its GridData). Layout (NanoVDB 32.x, see docs/geometry.md):
//   GridData 672 B | TreeData 64 B | RootData + tiles | upper nodes (32^3) | lower (16^3) | leaves (8^3)
// Offsets below depend on the value type T and the stats type S (float for float/int32/vec3f).
// The same layout is written by warp_interactive/geometry/nanovdb.py.
#pragma once

#include "warp_interactive/core/atomic.h"
#include "warp_interactive/math/mat.h"
#include "warp_interactive/math/vec.h"

namespace wp {

typedef vec_t<3, float32> vol_vec3;

enum { VOLUME_CLOSEST = 0, VOLUME_LINEAR = 1 };
enum { NVDB_GRID_FLOAT = 1, NVDB_GRID_INT32 = 4, NVDB_GRID_VEC3F = 6, NVDB_GRID_VEC4F = 17, NVDB_GRID_VEC4D = 18,
       NVDB_GRID_INDEX = 19, NVDB_GRID_ON_INDEX = 20 };

// `template <int = 0>` on plain functions: they are instantiated only by modules that call them,
// not once into the precompiled header and again in every build (~10 ms of each rebuild).
template <int = 0> WPI_FUNC uint32 nvdb_round32(uint32 x) { return (x + 31u) & ~31u; }

// a value type's scalar: its alignment, and the stats type (double for double grids, else float)
template <typename T> struct nvdb_scalar { typedef T type; };
template <unsigned N, typename T> struct nvdb_scalar<vec_t<N, T> > { typedef T type; };

template <typename T> struct nvdb_layout {
    static constexpr uint32 A = sizeof(typename nvdb_scalar<T>::type);
    static constexpr uint32 S = A == 8u ? 8u : 4u;
    static constexpr uint32 align(uint32 x) { return (x + A - 1u) & ~(A - 1u); }
    static constexpr uint32 root_size() { return (align(28u) + 3u * sizeof(T) + 2u * S + 31u) & ~31u; }
    static constexpr uint32 tile_size() { return (align(20u) + sizeof(T) + 31u) & ~31u; }
    static constexpr uint32 internal_table(uint32 log2dim)
    {
        return (32u + 2u * ((1u << (3u * log2dim)) / 8u) + 2u * sizeof(T) + 2u * S + 31u) & ~31u;
    }
    static constexpr uint32 internal_stride() { return sizeof(T) > 8u ? ((sizeof(T) + 7u) & ~7u) : 8u; }
    static constexpr uint32 leaf_values() { return (80u + 2u * sizeof(T) + 2u * S + 31u) & ~31u; }
    static constexpr uint32 leaf_size() { return leaf_values() + 512u * sizeof(T); }
    static constexpr uint32 background() { return align(28u); }
    static constexpr uint32 tile_value() { return align(20u); }
};

template <int = 0> WPI_FUNC const char* nvdb_tree(uint64 id) { return (const char*)id + 672; }
// a null handle has no type, so every typed access below reads or writes nothing
template <int = 0> WPI_FUNC uint32 nvdb_grid_type(uint64 id) { return id ? *(const uint32*)((const char*)id + 636) : 0u; }
template <int = 0> WPI_FUNC uint64 nvdb_node_offset(uint64 id, int level) { return ((const uint64*)nvdb_tree(id))[level]; }

template <int = 0> WPI_FUNC uint64 nvdb_root_key(int32 i, int32 j, int32 k)
{
    return (uint64(uint32(k)) >> 12) | ((uint64(uint32(j)) >> 12) << 21) | ((uint64(uint32(i)) >> 12) << 42);
}

template <int = 0> WPI_FUNC bool nvdb_bit(const char* mask, uint32 n) { return (((const uint64*)mask)[n >> 6] >> (n & 63)) & 1; }

// The leaf holding voxel (i, j, k), with `value` at the start of its value table; or null, with
// `value` at the tile value or the background that covers the voxel. L: the node layout.
template <typename L>
WPI_FUNC const char* nvdb_find(uint64 id, int32 i, int32 j, int32 k, const char*& value)
{
    const char* root = nvdb_tree(id) + nvdb_node_offset(id, 3);
    const uint32 table_size = *(const uint32*)(root + 24);
    const uint64 key = nvdb_root_key(i, j, k);
    const char* tile = 0;
    for (uint32 t = 0; t < table_size; ++t) {
        const char* cand = root + L::root_size() + t * L::tile_size();
        if (*(const uint64*)cand == key) { tile = cand; break; }
    }
    value = root + L::background();
    if (!tile) return 0;
    const int64 child = *(const int64*)(tile + 8);
    value = tile + L::tile_value();
    if (child == 0) return 0;
    const char* upper = root + child;
    uint32 n = ((uint32(i & 4095) >> 7) << 10) | ((uint32(j & 4095) >> 7) << 5) | (uint32(k & 4095) >> 7);
    value = upper + L::internal_table(5) + n * L::internal_stride();
    if (!nvdb_bit(upper + 32 + 4096, n)) return 0;
    const char* lower = upper + *(const int64*)value;
    n = ((uint32(i & 127) >> 3) << 8) | ((uint32(j & 127) >> 3) << 4) | (uint32(k & 127) >> 3);
    value = lower + L::internal_table(4) + n * L::internal_stride();
    if (!nvdb_bit(lower + 32 + 512, n)) return 0;
    const char* leaf = lower + *(const int64*)value;
    value = leaf + L::leaf_values();
    return leaf;
}

// The address of voxel (i, j, k)'s value: a leaf value, a tile value or the background.
template <typename T>
WPI_FUNC const T* nvdb_value_ptr(uint64 id, int32 i, int32 j, int32 k, bool& in_leaf)
{
    const char* value;
    in_leaf = nvdb_find<nvdb_layout<T> >(id, i, j, k, value) != 0;
    if (!in_leaf) return (const T*)value;
    return (const T*)value + ((uint32(i & 7) << 6) | (uint32(j & 7) << 3) | uint32(k & 7));
}

template <typename T> WPI_FUNC T nvdb_lookup(uint64 id, int32 i, int32 j, int32 k, uint32 grid_type)
{
    if (nvdb_grid_type(id) != grid_type) return T();
    bool in_leaf;
    return *nvdb_value_ptr<T>(id, i, j, k, in_leaf);
}

// Stores into an existing leaf (voxels outside the allocated leaves are left alone) and marks
// the voxel active.
template <typename T> WPI_FUNC void nvdb_store(uint64 id, int32 i, int32 j, int32 k, const T& value, uint32 grid_type)
{
    if (nvdb_grid_type(id) != grid_type) return;
    bool in_leaf;
    T* p = (T*)nvdb_value_ptr<T>(id, i, j, k, in_leaf);
    if (!in_leaf) return;
    *p = value;
    const uint32 n = (uint32(i & 7) << 6) | (uint32(j & 7) << 3) | uint32(k & 7);
    char* leaf = (char*)(p - n) - nvdb_layout<T>::leaf_values();
    // other threads may be storing into the same mask word: set the bit atomically
    uint64* word = (uint64*)(leaf + 16) + (n >> 6);
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
    atomicOr((unsigned long long*)word, (unsigned long long)(uint64(1) << (n & 63)));
#else
    __atomic_fetch_or(word, uint64(1) << (n & 63), __ATOMIC_RELAXED);
#endif
}

// --- sampling ----------------------------------------------------------------------------------
// The trilinear stencil around uvw: the base voxel and the fractional offsets; corner c (bits
// a b d = c >> 2, (c >> 1) & 1, c & 1) has the voxel (i + a, j + b, k + d), the weights w along
// each axis and their derivatives s (-1 or +1).
struct nvdb_stencil {
    int32 i, j, k;
    float32 t[3];
};
struct nvdb_corner {
    int32 x, y, z;
    float32 w[3], s[3];
};
template <int = 0> WPI_FUNC nvdb_stencil nvdb_stencil_at(const vol_vec3& uvw)
{
    const float32 fx = floor(uvw.c[0]), fy = floor(uvw.c[1]), fz = floor(uvw.c[2]);
    const nvdb_stencil st = {int32(fx), int32(fy), int32(fz), {uvw.c[0] - fx, uvw.c[1] - fy, uvw.c[2] - fz}};
    return st;
}
template <int = 0> WPI_FUNC nvdb_corner nvdb_corner_of(const nvdb_stencil& st, int c)
{
    const int a = c >> 2, b = (c >> 1) & 1, d = c & 1;
    const nvdb_corner q = {st.i + a, st.j + b, st.k + d,
                           {a ? st.t[0] : 1.0f - st.t[0], b ? st.t[1] : 1.0f - st.t[1], d ? st.t[2] : 1.0f - st.t[2]},
                           {a ? 1.0f : -1.0f, b ? 1.0f : -1.0f, d ? 1.0f : -1.0f}};
    return q;
}
// adj_uvw += sum_k g_k dW_k/du at one corner (dW_k: the weight's derivative along axis k; its
// derivatives along the other axes are the interpolant's mixed second derivatives)
template <int = 0>
WPI_FUNC void nvdb_adj_uvw_mixed(const nvdb_corner& q, float32 g0, float32 g1, float32 g2, vol_vec3& adj_uvw)
{
    adj_uvw.c[0] += g1 * q.s[0] * q.s[1] * q.w[2] + g2 * q.s[0] * q.w[1] * q.s[2];
    adj_uvw.c[1] += g0 * q.s[0] * q.s[1] * q.w[2] + g2 * q.w[0] * q.s[1] * q.s[2];
    adj_uvw.c[2] += g0 * q.s[0] * q.w[1] * q.s[2] + g1 * q.w[0] * q.s[1] * q.s[2];
}
template <int = 0> WPI_FUNC void nvdb_store_grad(int32, int32, int32, vol_vec3& g) { g = vol_vec3(); }
template <int = 0> WPI_FUNC void nvdb_store_grad(float32 gx, float32 gy, float32 gz, vol_vec3& g) { g = vol_vec3(gx, gy, gz); }
template <int = 0> WPI_FUNC void nvdb_store_grad(const vol_vec3&, const vol_vec3&, const vol_vec3&, vol_vec3& g) { g = vol_vec3(); }
// vec3 volumes: the Jacobian, row i = d value_i / d (u, v, w) (the reference's layout)
template <int = 0> WPI_FUNC void nvdb_store_grad(const vol_vec3& gx, const vol_vec3& gy, const vol_vec3& gz,
                                                 mat_t<3, 3, float32>& g)
{
    for (int i = 0; i < 3; ++i) { g.data[i][0] = gx.c[i]; g.data[i][1] = gy.c[i]; g.data[i][2] = gz.c[i]; }
}
template <typename T, typename G = vol_vec3>
WPI_FUNC T nvdb_sample(uint64 id, const vol_vec3& uvw, int32 mode, uint32 grid_type, G* grad)
{
    if (mode != VOLUME_LINEAR) {
        if (grad) *grad = G();
        return nvdb_lookup<T>(id, int32(floor(uvw.c[0] + 0.5f)), int32(floor(uvw.c[1] + 0.5f)),
                              int32(floor(uvw.c[2] + 0.5f)), grid_type);
    }
    const float32 fx = floor(uvw.c[0]), fy = floor(uvw.c[1]), fz = floor(uvw.c[2]);
    const int32 i = int32(fx), j = int32(fy), k = int32(fz);
    const float32 tx = uvw.c[0] - fx, ty = uvw.c[1] - fy, tz = uvw.c[2] - fz;
    T c[2][2][2];
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b)
            for (int d = 0; d < 2; ++d) c[a][b][d] = nvdb_lookup<T>(id, i + a, j + b, k + d, grid_type);
    const float32 wx[2] = {1.0f - tx, tx}, wy[2] = {1.0f - ty, ty}, wz[2] = {1.0f - tz, tz};
    const float32 dw[2] = {-1.0f, 1.0f};
    T r = T(), gx = T(), gy = T(), gz = T();
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b)
            for (int d = 0; d < 2; ++d) {
                r = r + c[a][b][d] * (wx[a] * wy[b] * wz[d]);
                gx = gx + c[a][b][d] * (dw[a] * wy[b] * wz[d]);
                gy = gy + c[a][b][d] * (wx[a] * dw[b] * wz[d]);
                gz = gz + c[a][b][d] * (wx[a] * wy[b] * dw[d]);
            }
    if (grad) nvdb_store_grad(gx, gy, gz, *grad);
    return r;
}

template <int = 0> WPI_FUNC float32 volume_sample_f(uint64 id, const vol_vec3& uvw, int32 mode)
{
    return nvdb_sample<float32>(id, uvw, mode, NVDB_GRID_FLOAT, (vol_vec3*)0);
}
template <int = 0> WPI_FUNC void adj_volume_sample_f(uint64 id, const vol_vec3& uvw, int32 mode, uint64&, vol_vec3& adj_uvw, int32&,
                                  float32 adj_ret)
{
    vol_vec3 g;
    nvdb_sample<float32>(id, uvw, mode, NVDB_GRID_FLOAT, &g);
    adj_uvw += g * adj_ret;
}

// out-parameter form: (id, uvw, mode, grad) -> value, writing the index-space gradient to grad
template <int = 0> WPI_FUNC void volume_sample_grad_f(uint64 id, const vol_vec3& uvw, int32 mode, const vol_vec3&, float32& result,
                                   vol_vec3& grad)
{
    result = nvdb_sample<float32>(id, uvw, mode, NVDB_GRID_FLOAT, &grad);
}

// The trilinear interpolant's mixed second derivatives at uvw (xy, xz, yz; the pure ones are 0):
// what the adjoint of a sampled gradient needs.
template <typename T>
WPI_FUNC void nvdb_trilinear_mixed(uint64 id, const vol_vec3& uvw, uint32 grid_type, T h[3])
{
    const nvdb_stencil st = nvdb_stencil_at(uvw);
    h[0] = h[1] = h[2] = T();
    for (int c = 0; c < 8; ++c) {
        const nvdb_corner q = nvdb_corner_of(st, c);
        const T v = nvdb_lookup<T>(id, q.x, q.y, q.z, grid_type);
        h[0] = h[0] + v * (q.s[0] * q.s[1] * q.w[2]);
        h[1] = h[1] + v * (q.s[0] * q.w[1] * q.s[2]);
        h[2] = h[2] + v * (q.w[0] * q.s[1] * q.s[2]);
    }
}

// value and gradient both flow back to uvw: adj_uvw += grad * adj_value + H adj_grad
template <int = 0>
WPI_FUNC void adj_volume_sample_grad_f(uint64 id, const vol_vec3& uvw, int32 mode, const vol_vec3&, uint64&,
                                       vol_vec3& adj_uvw, int32&, vol_vec3&, float32 adj_ret, const vol_vec3& adj_grad)
{
    if (mode != VOLUME_LINEAR) return;   // piecewise constant: no gradient
    vol_vec3 g;
    nvdb_sample<float32>(id, uvw, mode, NVDB_GRID_FLOAT, &g);
    float32 h[3];
    nvdb_trilinear_mixed<float32>(id, uvw, NVDB_GRID_FLOAT, h);
    adj_uvw += g * adj_ret + vol_vec3(h[0] * adj_grad.c[1] + h[1] * adj_grad.c[2],
                                      h[0] * adj_grad.c[0] + h[2] * adj_grad.c[2],
                                      h[1] * adj_grad.c[0] + h[2] * adj_grad.c[1]);
}

template <int = 0> WPI_FUNC vol_vec3 volume_sample_v(uint64 id, const vol_vec3& uvw, int32 mode)
{
    return nvdb_sample<vol_vec3>(id, uvw, mode, NVDB_GRID_VEC3F, (vol_vec3*)0);
}

// out-parameter form for vec3 volumes: grad[i][j] = d value_i / d uvw_j
template <int = 0> WPI_FUNC void volume_sample_grad_v(uint64 id, const vol_vec3& uvw, int32 mode, const mat_t<3, 3, float32>&,
                                                      vol_vec3& result, mat_t<3, 3, float32>& grad)
{
    result = nvdb_sample<vol_vec3>(id, uvw, mode, NVDB_GRID_VEC3F, &grad);
}
template <int = 0> WPI_FUNC void adj_volume_sample_v(uint64 id, const vol_vec3& uvw, int32 mode, uint64&, vol_vec3& adj_uvw, int32&,
                                  const vol_vec3& adj_ret)
{
    // the Jacobian's columns are the derivatives along x, y, z: sample each component's gradient
    if (mode != VOLUME_LINEAR) return;
    const float32 fx = floor(uvw.c[0]), fy = floor(uvw.c[1]), fz = floor(uvw.c[2]);
    const int32 i = int32(fx), j = int32(fy), k = int32(fz);
    const float32 t[3] = {uvw.c[0] - fx, uvw.c[1] - fy, uvw.c[2] - fz};
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b)
            for (int d = 0; d < 2; ++d) {
                const float32 s = dot(nvdb_lookup<vol_vec3>(id, i + a, j + b, k + d, NVDB_GRID_VEC3F), adj_ret);
                const float32 w[3] = {a ? t[0] : 1.0f - t[0], b ? t[1] : 1.0f - t[1], d ? t[2] : 1.0f - t[2]};
                const float32 dw[3] = {a ? 1.0f : -1.0f, b ? 1.0f : -1.0f, d ? 1.0f : -1.0f};
                adj_uvw.c[0] += s * dw[0] * w[1] * w[2];
                adj_uvw.c[1] += s * w[0] * dw[1] * w[2];
                adj_uvw.c[2] += s * w[0] * w[1] * dw[2];
            }
}

template <int = 0> WPI_FUNC int32 volume_sample_i(uint64 id, const vol_vec3& uvw)
{
    return nvdb_sample<int32>(id, uvw, VOLUME_CLOSEST, NVDB_GRID_INT32, (vol_vec3*)0);
}

template <int = 0> WPI_FUNC float32 volume_lookup_f(uint64 id, int32 i, int32 j, int32 k)
{
    return nvdb_lookup<float32>(id, i, j, k, NVDB_GRID_FLOAT);
}
template <int = 0> WPI_FUNC vol_vec3 volume_lookup_v(uint64 id, int32 i, int32 j, int32 k)
{
    return nvdb_lookup<vol_vec3>(id, i, j, k, NVDB_GRID_VEC3F);
}
template <int = 0> WPI_FUNC int32 volume_lookup_i(uint64 id, int32 i, int32 j, int32 k)
{
    return nvdb_lookup<int32>(id, i, j, k, NVDB_GRID_INT32);
}
template <int = 0> WPI_FUNC void volume_store_f(uint64 id, int32 i, int32 j, int32 k, float32 v) { nvdb_store(id, i, j, k, v, NVDB_GRID_FLOAT); }
template <int = 0> WPI_FUNC void volume_store_v(uint64 id, int32 i, int32 j, int32 k, const vol_vec3& v)
{
    nvdb_store(id, i, j, k, v, NVDB_GRID_VEC3F);
}
template <int = 0> WPI_FUNC void volume_store_i(uint64 id, int32 i, int32 j, int32 k, int32 v) { nvdb_store(id, i, j, k, v, NVDB_GRID_INT32); }

// --- vec4f / vec4d volumes (NanoVDB Vec4f = 17, Vec4d = 18) ---------------------------------------
template <typename T> struct nvdb_vec4_type;
template <> struct nvdb_vec4_type<float32> { static constexpr uint32 value = NVDB_GRID_VEC4F; };
template <> struct nvdb_vec4_type<float64> { static constexpr uint32 value = NVDB_GRID_VEC4D; };

template <typename S> WPI_FUNC vec_t<4, S> volume_lookup_v4(uint64 id, int32 i, int32 j, int32 k)
{
    return nvdb_lookup<vec_t<4, S> >(id, i, j, k, nvdb_vec4_type<S>::value);
}
template <typename S> WPI_FUNC void volume_store_v4(uint64 id, int32 i, int32 j, int32 k, const vec_t<4, S>& v)
{
    nvdb_store(id, i, j, k, v, nvdb_vec4_type<S>::value);
}

// trilinear sampling (weights in float32, as the reference) with the Jacobian d value_r / d uvw_c
template <typename S>
WPI_FUNC vec_t<4, S> nvdb_sample_v4(uint64 id, const vol_vec3& uvw, int32 mode, mat_t<4, 3, S>* grad)
{
    typedef vec_t<4, S> V;
    const uint32 type = nvdb_vec4_type<S>::value;
    if (grad) *grad = mat_t<4, 3, S>();
    if (mode != VOLUME_LINEAR)
        return nvdb_lookup<V>(id, int32(floor(uvw.c[0] + 0.5f)), int32(floor(uvw.c[1] + 0.5f)),
                              int32(floor(uvw.c[2] + 0.5f)), type);
    const float32 fx = floor(uvw.c[0]), fy = floor(uvw.c[1]), fz = floor(uvw.c[2]);
    const int32 i = int32(fx), j = int32(fy), k = int32(fz);
    const float32 t[3] = {uvw.c[0] - fx, uvw.c[1] - fy, uvw.c[2] - fz};
    V r = V();
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b)
            for (int d = 0; d < 2; ++d) {
                const V c = nvdb_lookup<V>(id, i + a, j + b, k + d, type);
                const float32 w[3] = {a ? t[0] : 1.0f - t[0], b ? t[1] : 1.0f - t[1], d ? t[2] : 1.0f - t[2]};
                const float32 dw[3] = {a ? 1.0f : -1.0f, b ? 1.0f : -1.0f, d ? 1.0f : -1.0f};
                r = r + c * S(w[0] * w[1] * w[2]);
                if (!grad) continue;
                const S g[3] = {S(dw[0] * w[1] * w[2]), S(w[0] * dw[1] * w[2]), S(w[0] * w[1] * dw[2])};
                for (int row = 0; row < 4; ++row)
                    for (int col = 0; col < 3; ++col) grad->data[row][col] += c.c[row] * g[col];
            }
    return r;
}
template <typename S> WPI_FUNC vec_t<4, S> volume_sample_v4(uint64 id, const vol_vec3& uvw, int32 mode)
{
    return nvdb_sample_v4<S>(id, uvw, mode, 0);
}
template <typename S>
WPI_FUNC void adj_volume_sample_v4(uint64 id, const vol_vec3& uvw, int32 mode, uint64&, vol_vec3& adj_uvw, int32&,
                                   const vec_t<4, S>& adj_ret)
{
    mat_t<4, 3, S> g;
    nvdb_sample_v4<S>(id, uvw, mode, &g);
    for (int c = 0; c < 3; ++c) {
        S sum = S(0);
        for (int r = 0; r < 4; ++r) sum += g.data[r][c] * adj_ret.c[r];
        adj_uvw.c[c] += float32(sum);
    }
}
// out-parameter form: grad is the 4x3 Jacobian (row r: the gradient of component r)
template <typename S>
WPI_FUNC void volume_sample_grad_v4(uint64 id, const vol_vec3& uvw, int32 mode, const mat_t<4, 3, S>&,
                                    vec_t<4, S>& result, mat_t<4, 3, S>& grad)
{
    result = nvdb_sample_v4<S>(id, uvw, mode, &grad);
}

// --- index grids (NanoVDB ValueIndex = 19, ValueOnIndex = 20) --------------------------------------
// They store no values: each voxel maps to an index into a user array. Layout: root 96 B
// (background index at 32), root tiles 32 B (value at 24), internal tables as for float grids
// (stride 8), leaves 96 B: header 80 B, then the first index (uint64 at 80) and, for ValueOnIndex,
// the active counts before each 64-bit mask word packed 9 bits apiece (uint64 at 88). Index 0 is
// the background; voxel_index below is 0-based (NanoVDB index - 1) and -1 where there is none.
struct nvdb_index_layout {
    static constexpr uint32 root_size() { return 96u; }
    static constexpr uint32 tile_size() { return 32u; }
    static constexpr uint32 background() { return 32u; }
    static constexpr uint32 tile_value() { return 24u; }
    static constexpr uint32 internal_table(uint32 log2dim) { return log2dim == 5u ? 8256u : 1088u; }
    static constexpr uint32 internal_stride() { return 8u; }
    static constexpr uint32 leaf_values() { return 80u; }
};

template <int = 0> WPI_FUNC uint32 nvdb_popc(uint64 x)
{
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
    return uint32(__popcll((unsigned long long)x));
#else
    return uint32(__builtin_popcountll((unsigned long long)x));
#endif
}

// 0-based position of voxel (i, j, k) in the volume's voxel order (Volume.get_voxels()), or -1:
// index grids use their stored indices; other grids number every voxel of every leaf
// (leaf * 512 + offset in the leaf), the order of get_voxels() for them.
template <int = 0> WPI_FUNC int64 nvdb_voxel_index(uint64 id, int32 i, int32 j, int32 k)
{
    const uint32 type = nvdb_grid_type(id);
    const char* value;
    const char* leaf;
    uint32 leaf_size = 0;
    switch (type) {
    case NVDB_GRID_INDEX:
    case NVDB_GRID_ON_INDEX: leaf = nvdb_find<nvdb_index_layout>(id, i, j, k, value); break;
    case NVDB_GRID_FLOAT:
        leaf = nvdb_find<nvdb_layout<float32> >(id, i, j, k, value);
        leaf_size = nvdb_layout<float32>::leaf_size();
        break;
    case NVDB_GRID_INT32:
        leaf = nvdb_find<nvdb_layout<int32> >(id, i, j, k, value);
        leaf_size = nvdb_layout<int32>::leaf_size();
        break;
    case NVDB_GRID_VEC3F:
        leaf = nvdb_find<nvdb_layout<vol_vec3> >(id, i, j, k, value);
        leaf_size = nvdb_layout<vol_vec3>::leaf_size();
        break;
    case NVDB_GRID_VEC4F:
        leaf = nvdb_find<nvdb_layout<vec_t<4, float32> > >(id, i, j, k, value);
        leaf_size = nvdb_layout<vec_t<4, float32> >::leaf_size();
        break;
    case NVDB_GRID_VEC4D:
        leaf = nvdb_find<nvdb_layout<vec_t<4, float64> > >(id, i, j, k, value);
        leaf_size = nvdb_layout<vec_t<4, float64> >::leaf_size();
        break;
    default: return -1;
    }
    if (!leaf) return -1;
    const uint32 n = (uint32(i & 7) << 6) | (uint32(j & 7) << 3) | uint32(k & 7);
    if (leaf_size) {
        const char* first = nvdb_tree(id) + nvdb_node_offset(id, 0);
        return int64(uint64(leaf - first) / leaf_size) * 512 + n;
    }
    const uint64 offset = *(const uint64*)(leaf + 80);
    if (type == NVDB_GRID_INDEX) return int64(offset + n) - 1;
    const uint32 w = n >> 6;
    const uint64 word = ((const uint64*)(leaf + 16))[w], bit = uint64(1) << (n & 63);
    if (!(word & bit)) return -1;
    uint32 sum = nvdb_popc(word & (bit - 1));
    if (w > 0) sum += uint32(*(const uint64*)(leaf + 88) >> (9u * (w - 1u))) & 511u;
    return int64(offset + sum) - 1;
}

template <int = 0> WPI_FUNC int32 volume_lookup_index(uint64 id, int32 i, int32 j, int32 k) { return int32(nvdb_voxel_index(id, i, j, k)); }

// how many voxels have an index: the active voxels of a ValueOnIndex grid (the tree's voxel count,
// uint64 at 56), every voxel of every leaf otherwise (512 per leaf; leaf count uint32 at 32)
template <int = 0> WPI_FUNC int32 volume_voxel_count(uint64 id)
{
    if (!id) return 0;
    const char* tree = nvdb_tree(id);
    if (nvdb_grid_type(id) == NVDB_GRID_ON_INDEX) return int32(*(const uint64*)(tree + 56));
    return int32(512u * *(const uint32*)(tree + 32));
}
template <int = 0> WPI_FUNC void adj_volume_voxel_count(uint64, uint64&, int32) {}

template <typename T>
WPI_FUNC T nvdb_index_value(uint64 id, int32 i, int32 j, int32 k, const array_t<T>& data, const T& background, int64& at)
{
    at = nvdb_voxel_index(id, i, j, k);
    if (at >= data.shape[0]) at = -1;
    return at >= 0 ? *elem_ptr(data.data, data, at) : background;
}

template <int = 0> WPI_FUNC float32 nvdb_dot(float32 a, float32 b) { return a * b; }
template <unsigned N, typename S> WPI_FUNC S nvdb_dot(const vec_t<N, S>& a, const vec_t<N, S>& b) { return dot(a, b); }

// Samples user data through an index: closest voxel or trilinear over the 8 neighbours (the
// background where a neighbour has no index). partials: d value / d uvw along x, y, z.
template <typename T>
WPI_FUNC T nvdb_index_sample(uint64 id, const vol_vec3& uvw, int32 mode, const array_t<T>& data, const T& background,
                             T* partials, int64* at, float32* weights)
{
    if (mode != VOLUME_LINEAR) {
        int64 a;
        const T r = nvdb_index_value(id, int32(floor(uvw.c[0] + 0.5f)), int32(floor(uvw.c[1] + 0.5f)),
                                     int32(floor(uvw.c[2] + 0.5f)), data, background, a);
        if (partials) partials[0] = partials[1] = partials[2] = T();
        if (at) { at[0] = a; weights[0] = 1.0f; for (int c = 1; c < 8; ++c) { at[c] = -2; weights[c] = 0.0f; } }
        return r;
    }
    const nvdb_stencil st = nvdb_stencil_at(uvw);
    typedef typename nvdb_scalar<T>::type S;   // weights in float32, applied in the data's scalar
    T r = T(), g[3] = {T(), T(), T()};
    for (int c = 0; c < 8; ++c) {
        const nvdb_corner q = nvdb_corner_of(st, c);
        const float32 *w = q.w, *s = q.s;
        int64 where;
        const T v = nvdb_index_value(id, q.x, q.y, q.z, data, background, where);
        r = r + v * S(w[0] * w[1] * w[2]);
        g[0] = g[0] + v * S(s[0] * w[1] * w[2]);
        g[1] = g[1] + v * S(w[0] * s[1] * w[2]);
        g[2] = g[2] + v * S(w[0] * w[1] * s[2]);
        if (at) { at[c] = where; weights[c] = w[0] * w[1] * w[2]; }
    }
    if (partials) { partials[0] = g[0]; partials[1] = g[1]; partials[2] = g[2]; }
    return r;
}

template <typename T>
WPI_FUNC T volume_sample_index(uint64 id, const vol_vec3& uvw, int32 mode, const array_t<T>& voxel_data, const T& background)
{
    return nvdb_index_sample(id, uvw, mode, voxel_data, background, (T*)0, (int64*)0, (float32*)0);
}
// adjoints: uvw through the trilinear weights, voxel_data (its grad array) and background
template <typename T>
WPI_FUNC void adj_volume_sample_index(uint64 id, const vol_vec3& uvw, int32 mode, const array_t<T>& voxel_data,
                                      const T& background, uint64&, vol_vec3& adj_uvw, int32&, array_t<T>&,
                                      T& adj_background, const T& adj_ret)
{
    T partials[3];
    int64 at[8];
    float32 weights[8];
    nvdb_index_sample(id, uvw, mode, voxel_data, background, partials, at, weights);
    if (mode == VOLUME_LINEAR)
        for (int k = 0; k < 3; ++k) adj_uvw.c[k] += nvdb_dot(partials[k], adj_ret);
    for (int c = 0; c < 8; ++c) {
        if (at[c] == -2) continue;   // closest: one voxel
        const T contrib = adj_ret * typename nvdb_scalar<T>::type(weights[c]);
        if (at[c] < 0) adj_background = adj_background + contrib;
        else if (voxel_data.grad) atomic_add_ptr(elem_ptr(voxel_data.grad, voxel_data, at[c]), contrib);
    }
}

// out-parameter form: writes the index-space gradient (a vec3 for scalar data, an N x 3 matrix of
// d value_i / d uvw_k for N-vector data)
template <typename S> WPI_FUNC void nvdb_set_grad(const S* p, vec_t<3, S>& grad) { grad = vec_t<3, S>(p[0], p[1], p[2]); }
template <unsigned N, typename S> WPI_FUNC void nvdb_set_grad(const vec_t<N, S>* p, mat_t<N, 3, S>& grad)
{
    for (unsigned i = 0; i < N; ++i)
        for (int k = 0; k < 3; ++k) grad.data[i][k] = p[k].c[i];
}
template <typename T, typename G>
WPI_FUNC void volume_sample_grad_index(uint64 id, const vol_vec3& uvw, int32 mode, const array_t<T>& voxel_data,
                                       const T& background, const G&, T& result, G& grad)
{
    T partials[3];
    result = nvdb_index_sample(id, uvw, mode, voxel_data, background, partials, (int64*)0, (float32*)0);
    nvdb_set_grad(partials, grad);
}

// column k of a sampled gradient's adjoint, as a value of the data type
template <typename S> WPI_FUNC S nvdb_grad_col(const vec_t<3, S>& g, int k) { return g.c[k]; }
template <unsigned N, typename S> WPI_FUNC vec_t<N, S> nvdb_grad_col(const mat_t<N, 3, S>& g, int k)
{
    vec_t<N, S> r;
    for (unsigned i = 0; i < N; ++i) r.c[i] = g.data[i][k];
    return r;
}

// adjoint of a sampled (value, gradient) pair with respect to uvw, for value volumes of type T:
// adj_uvw_m += sum over corners of dot(v, adj_ret) dW/du_m + sum_k dot(v, adj_grad[:, k]) d2W_k/du_m
template <typename T, typename G>
WPI_FUNC void nvdb_adj_sample_grad(uint64 id, const vol_vec3& uvw, int32 mode, uint32 grid_type, vol_vec3& adj_uvw,
                                   const T& adj_ret, const G& adj_grad)
{
    if (mode != VOLUME_LINEAR) return;
    const T col[3] = {nvdb_grad_col(adj_grad, 0), nvdb_grad_col(adj_grad, 1), nvdb_grad_col(adj_grad, 2)};
    const nvdb_stencil st = nvdb_stencil_at(uvw);
    for (int c = 0; c < 8; ++c) {
        const nvdb_corner q = nvdb_corner_of(st, c);
        const T v = nvdb_lookup<T>(id, q.x, q.y, q.z, grid_type);
        const float32 r = float32(nvdb_dot(v, adj_ret));
        adj_uvw.c[0] += r * q.s[0] * q.w[1] * q.w[2];
        adj_uvw.c[1] += r * q.w[0] * q.s[1] * q.w[2];
        adj_uvw.c[2] += r * q.w[0] * q.w[1] * q.s[2];
        nvdb_adj_uvw_mixed(q, float32(nvdb_dot(v, col[0])), float32(nvdb_dot(v, col[1])), float32(nvdb_dot(v, col[2])),
                           adj_uvw);
    }
}
template <int = 0>
WPI_FUNC void adj_volume_sample_grad_v(uint64 id, const vol_vec3& uvw, int32 mode, const mat_t<3, 3, float32>&, uint64&,
                                       vol_vec3& adj_uvw, int32&, mat_t<3, 3, float32>&, const vol_vec3& adj_ret,
                                       const mat_t<3, 3, float32>& adj_grad)
{
    nvdb_adj_sample_grad(id, uvw, mode, NVDB_GRID_VEC3F, adj_uvw, adj_ret, adj_grad);
}
template <typename S>
WPI_FUNC void adj_volume_sample_grad_v4(uint64 id, const vol_vec3& uvw, int32 mode, const mat_t<4, 3, S>&, uint64&,
                                        vol_vec3& adj_uvw, int32&, mat_t<4, 3, S>&, const vec_t<4, S>& adj_ret,
                                        const mat_t<4, 3, S>& adj_grad)
{
    nvdb_adj_sample_grad(id, uvw, mode, nvdb_vec4_type<S>::value, adj_uvw, adj_ret, adj_grad);
}

// The value and the gradient flow back: to uvw (the gradient and the interpolant's mixed second
// derivatives), to the voxel data (its grad array) and to the background, corner by corner.
template <typename T, typename G>
WPI_FUNC void adj_volume_sample_grad_index(uint64 id, const vol_vec3& uvw, int32 mode, const array_t<T>& voxel_data,
                                           const T& background, const G&, uint64& adj_id, vol_vec3& adj_uvw,
                                           int32& adj_mode, array_t<T>& adj_data, T& adj_background, G&,
                                           const T& adj_ret, const G& adj_grad)
{
    adj_volume_sample_index(id, uvw, mode, voxel_data, background, adj_id, adj_uvw, adj_mode, adj_data,
                            adj_background, adj_ret);
    if (mode != VOLUME_LINEAR) return;   // the closest voxel's gradient is zero
    typedef typename nvdb_scalar<T>::type S;
    const T col[3] = {nvdb_grad_col(adj_grad, 0), nvdb_grad_col(adj_grad, 1), nvdb_grad_col(adj_grad, 2)};
    const nvdb_stencil st = nvdb_stencil_at(uvw);
    for (int c = 0; c < 8; ++c) {
        const nvdb_corner q = nvdb_corner_of(st, c);
        const float32 *w = q.w, *s = q.s;
        int64 at;
        const T v = nvdb_index_value(id, q.x, q.y, q.z, voxel_data, background, at);
        // grad[:, k] = sum over corners of v * dW_k
        const T contrib = col[0] * S(s[0] * w[1] * w[2]) + col[1] * S(w[0] * s[1] * w[2]) + col[2] * S(w[0] * w[1] * s[2]);
        if (at < 0) adj_background = adj_background + contrib;
        else if (voxel_data.grad) atomic_add_ptr(elem_ptr(voxel_data.grad, voxel_data, at), contrib);
        nvdb_adj_uvw_mixed(q, float32(nvdb_dot(v, col[0])), float32(nvdb_dot(v, col[1])), float32(nvdb_dot(v, col[2])),
                           adj_uvw);
    }
}

// --- transforms (the grid's float map: world = M * index + t) ------------------------------------------
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
__device__ const float32 nvdb_identity_data[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
#else
static const float32 nvdb_identity_data[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
#endif
template <int = 0> WPI_FUNC const float32* nvdb_identity_map() { return nvdb_identity_data; }
template <int = 0> WPI_FUNC const float32* nvdb_map(uint64 id, int which)
{
    // a null handle maps through the identity (kept static so the pointer outlives the call)
    return id ? (const float32*)((const char*)id + 296) + 9 * which : nvdb_identity_map();
}

template <int = 0> WPI_FUNC vol_vec3 nvdb_apply(const float32* m, const vol_vec3& x)
{
    return vol_vec3(m[0] * x.c[0] + m[1] * x.c[1] + m[2] * x.c[2], m[3] * x.c[0] + m[4] * x.c[1] + m[5] * x.c[2],
                    m[6] * x.c[0] + m[7] * x.c[1] + m[8] * x.c[2]);
}
template <int = 0> WPI_FUNC vol_vec3 nvdb_apply_t(const float32* m, const vol_vec3& x)
{
    return vol_vec3(m[0] * x.c[0] + m[3] * x.c[1] + m[6] * x.c[2], m[1] * x.c[0] + m[4] * x.c[1] + m[7] * x.c[2],
                    m[2] * x.c[0] + m[5] * x.c[1] + m[8] * x.c[2]);
}
template <int = 0> WPI_FUNC vol_vec3 nvdb_translation(uint64 id)
{
    if (!id) return vol_vec3();
    const float32* t = (const float32*)((const char*)id + 368);
    return vol_vec3(t[0], t[1], t[2]);
}

template <int = 0> WPI_FUNC vol_vec3 volume_index_to_world(uint64 id, const vol_vec3& uvw) { return nvdb_apply(nvdb_map(id, 0), uvw) + nvdb_translation(id); }
template <int = 0> WPI_FUNC void adj_volume_index_to_world(uint64 id, const vol_vec3&, uint64&, vol_vec3& adj_uvw, const vol_vec3& adj_ret)
{
    adj_uvw += nvdb_apply_t(nvdb_map(id, 0), adj_ret);
}
template <int = 0> WPI_FUNC vol_vec3 volume_world_to_index(uint64 id, const vol_vec3& xyz)
{
    return nvdb_apply(nvdb_map(id, 1), xyz - nvdb_translation(id));
}
template <int = 0> WPI_FUNC void adj_volume_world_to_index(uint64 id, const vol_vec3&, uint64&, vol_vec3& adj_xyz, const vol_vec3& adj_ret)
{
    adj_xyz += nvdb_apply_t(nvdb_map(id, 1), adj_ret);
}
template <int = 0> WPI_FUNC vol_vec3 volume_index_to_world_dir(uint64 id, const vol_vec3& uvw) { return nvdb_apply(nvdb_map(id, 0), uvw); }
template <int = 0> WPI_FUNC void adj_volume_index_to_world_dir(uint64 id, const vol_vec3&, uint64&, vol_vec3& adj_uvw, const vol_vec3& adj_ret)
{
    adj_uvw += nvdb_apply_t(nvdb_map(id, 0), adj_ret);
}
template <int = 0> WPI_FUNC vol_vec3 volume_world_to_index_dir(uint64 id, const vol_vec3& xyz) { return nvdb_apply(nvdb_map(id, 1), xyz); }
template <int = 0> WPI_FUNC void adj_volume_world_to_index_dir(uint64 id, const vol_vec3&, uint64&, vol_vec3& adj_xyz, const vol_vec3& adj_ret)
{
    adj_xyz += nvdb_apply_t(nvdb_map(id, 1), adj_ret);
}

}  // namespace wp
