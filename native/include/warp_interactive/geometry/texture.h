// Texture sampling (wp.Texture1D/2D/3D and wp.texture_sample), in software on both targets.
//
// A texture reaches a kernel as a small struct that Python generates like a @wp.struct (see
// texture/texture.py; its fields carry the u_ prefix of generated members): the address of its texels (every mip level, one after another, each
// row-major (depth, height, width, channels) in the texture's dtype) and the integer fields read
// below by name, so one template serves the 1D, 2D and 3D structs. The rules are the reference's
// CPU sampler: texel i is centred at i + 0.5; wrap/mirror reduce the coordinate by its period,
// then address the integer indices; clamp clamps the texel coordinate; border reads 0 outside;
// 8/16-bit integers read normalized, 32-bit integers numerically. CUDA kernels run the same
// arithmetic (no hardware texture unit), so both targets give the same values.
#pragma once

namespace wp {

namespace texture_detail {

enum { U8 = 0, U16 = 1, U32 = 2, I8 = 3, I16 = 4, I32 = 5, F16 = 6, F32 = 7 };
enum { WRAP = 0, CLAMP = 1, MIRROR = 2, BORDER = 3 };
enum { CLOSEST = 0, LINEAR = 1 };

template <int = 0> WPI_FUNC int32 dtype_bytes(int32 dtype)
{
    return (dtype == U8 || dtype == I8) ? 1 : (dtype == U16 || dtype == I16 || dtype == F16) ? 2 : 4;
}

template <int = 0> WPI_FUNC float32 decode(const uint8* p, int32 dtype, int64 i)
{
    switch (dtype) {
    case U8: return float32(p[i]) / 255.0f;
    case U16: return float32(((const uint16*)p)[i]) / 65535.0f;
    case U32: return float32(((const uint32*)p)[i]);
    case I8: { float32 v = float32(((const int8*)p)[i]) / 127.0f; return v < -1.0f ? -1.0f : v; }
    case I16: { float32 v = float32(((const int16*)p)[i]) / 32767.0f; return v < -1.0f ? -1.0f : v; }
    case I32: return float32(((const int32*)p)[i]);
    case F16: return detail::half_bits_to_float(((const uint16*)p)[i]);
    default: return ((const float32*)p)[i];
    }
}

template <int = 0> WPI_FUNC int32 mip_dim(int32 base, int32 level)
{
    const int32 d = base >> level;  // each level halves, down to 1
    return d < 1 ? 1 : d;
}

// an integer texel index under an address mode (border indices stay out of range: read as 0)
template <int = 0> WPI_FUNC int64 address_index(int64 i, int32 size, int32 mode)
{
    if (mode == WRAP) {
        int64 m = i % size;
        return m < 0 ? m + size : m;
    }
    if (mode == CLAMP)
        return i < 0 ? 0 : (i >= size ? size - 1 : i);
    if (mode == MIRROR) {
        const int64 period = 2 * int64(size);
        int64 m = i % period;
        if (m < 0)
            m += period;
        return m >= size ? period - m - 1 : m;
    }
    return i;
}

// the coordinate reduced by its period (wrap, mirror) and normalized to [0, 1)
template <int = 0> WPI_FUNC float32 reduce_coord(float32 c, int32 normalized, int32 base, int32 mode)
{
    if (mode == WRAP || mode == MIRROR) {
        const float32 period = (normalized ? 1.0f : float32(base)) * (mode == MIRROR ? 2.0f : 1.0f);
        c = detail::fmod(c, period);
        if (c < 0.0f)
            c += period;
    }
    return normalized ? c : c / float32(base);
}

template <int = 0> WPI_FUNC int64 nearest_index(float32 c, int32 normalized, int32 base, int32 dim, int32 mode)
{
    float64 r = float64(c);
    if (mode == WRAP || mode == MIRROR) {
        const float64 period = (normalized ? 1.0 : float64(base)) * (mode == MIRROR ? 2.0 : 1.0);
        r = detail::fmod(r, period);
    }
    float64 t = normalized ? r * float64(dim) : r * float64(dim) / float64(base);
    if (mode != WRAP && mode != MIRROR)
        t = t < -1.0 ? -1.0 : (t > float64(dim) ? float64(dim) : t);
    return address_index(int64(detail::floor(t)), dim, mode);
}

// One mip level of a texture, as the sampler needs it.
struct level_t {
    const uint8* data;
    int32 ndim, channels, dtype, filter, normalized;
    int32 dim[3], base[3], mode[3];
};

template <typename Tex> WPI_FUNC level_t level_of(const Tex& t, int32 level)
{
    level_t l;
    l.ndim = t.u_ndim;
    l.channels = t.u_num_channels;
    l.dtype = t.u_dtype_code;
    l.filter = t.u_filter_mode;
    l.normalized = t.u_use_normalized_coords;
    l.base[0] = t.u_width;
    l.base[1] = t.u_height;
    l.base[2] = t.u_depth;
    l.mode[0] = t.u_address_mode_u;
    l.mode[1] = t.u_address_mode_v;
    l.mode[2] = t.u_address_mode_w;
    int64 offset = 0;
    for (int32 k = 0; k < level; ++k)
        offset += int64(mip_dim(t.u_width, k)) * mip_dim(t.u_height, k) * mip_dim(t.u_depth, k);
    for (int32 a = 0; a < 3; ++a)
        l.dim[a] = mip_dim(l.base[a], level);
    l.data = (const uint8*)t.u_texels + offset * t.u_num_channels * dtype_bytes(t.u_dtype_code);
    return l;
}

template <int = 0> WPI_FUNC float32 fetch(const level_t& l, const int64* idx, int32 channel)
{
    for (int32 a = 0; a < l.ndim; ++a)
        if (idx[a] < 0 || idx[a] >= l.dim[a])
            return 0.0f;
    const int64 texel = (idx[2] * l.dim[1] + idx[1]) * l.dim[0] + idx[0];
    return decode(l.data, l.dtype, texel * l.channels + channel);
}

// Channels [0, n) of one level at `coord` into out[]; with `grad`, also d out[c] / d coord[a]
// into grad[a * 4 + c] (linear filtering; closest filtering is piecewise constant), and the
// value split as anchor (the first corner, grad[16 + c]) plus residual (the weighted differences
// to it, grad[20 + c]): differences of two levels' samples then cancel the anchors exactly.
template <int = 0> WPI_FUNC void sample_level(const level_t& l, const float32* coord, int32 n, float32* out,
                                              float32* grad)
{
    int64 i0[3] = {0, 0, 0}, i1[3] = {0, 0, 0};
    float32 f[3] = {0.0f, 0.0f, 0.0f}, scale[3] = {0.0f, 0.0f, 0.0f};
    for (int32 c = 0; c < n; ++c)
        out[c] = 0.0f;
    if (grad)
        for (int32 k = 0; k < 24; ++k)
            grad[k] = 0.0f;
    if (l.filter == CLOSEST) {
        for (int32 a = 0; a < l.ndim; ++a)
            i0[a] = nearest_index(coord[a], l.normalized, l.base[a], l.dim[a], l.mode[a]);
        for (int32 c = 0; c < n && c < l.channels; ++c) {
            out[c] = fetch(l, i0, c);
            if (grad)
                grad[16 + c] = out[c];
        }
        return;
    }
    for (int32 a = 0; a < l.ndim; ++a) {
        const float32 r = reduce_coord(coord[a], l.normalized, l.base[a], l.mode[a]);
        float32 t = r * float32(l.dim[a]) - 0.5f;
        bool bounded = false;   // the coordinate was clamped: it no longer moves the result
        if (l.mode[a] == CLAMP) {
            bounded = t < 0.0f || t > float32(l.dim[a] - 1);
            t = t < 0.0f ? 0.0f : (t > float32(l.dim[a] - 1) ? float32(l.dim[a] - 1) : t);
        } else if (l.mode[a] == BORDER) {
            bounded = t < -2.0f || t > float32(l.dim[a]);
            t = t < -2.0f ? -2.0f : (t > float32(l.dim[a]) ? float32(l.dim[a]) : t);
        }
        const float32 lo = detail::floor(t);
        f[a] = t - lo;
        i0[a] = address_index(int64(lo), l.dim[a], l.mode[a]);
        i1[a] = address_index(int64(lo) + 1, l.dim[a], l.mode[a]);
        scale[a] = bounded ? 0.0f : float32(l.dim[a]) / (l.normalized ? 1.0f : float32(l.base[a]));
    }
    const int32 corners = 1 << l.ndim;
    for (int32 k = 0; k < corners; ++k) {
        int64 idx[3] = {0, 0, 0};
        float32 w = 1.0f, dw[3] = {1.0f, 1.0f, 1.0f};
        for (int32 a = 0; a < l.ndim; ++a) {
            const bool hi = (k >> a) & 1;
            idx[a] = hi ? i1[a] : i0[a];
            const float32 wa = hi ? f[a] : 1.0f - f[a];
            for (int32 b = 0; b < l.ndim; ++b)
                dw[b] *= (a == b) ? (hi ? 1.0f : -1.0f) : wa;
            w *= wa;
        }
        for (int32 c = 0; c < n && c < l.channels; ++c) {
            const float32 v = fetch(l, idx, c);
            out[c] += w * v;
            if (!grad)
                continue;
            if (k == 0) {
                grad[16 + c] = v;
                continue;
            }
            // differences to the first corner (the weights' derivatives sum to 0): exact for
            // texels that share a large offset, where sums of the texels themselves would round
            const float32 dv = v - grad[16 + c];
            for (int32 a = 0; a < l.ndim; ++a)
                grad[a * 4 + c] += dw[a] * scale[a] * dv;
            grad[20 + c] += w * dv;
        }
    }
}

// Channels [0, n) at `coord` and level of detail `lod` (mip levels blended by the mip filter);
// with `grad`, d out / d coord as above and d out / d lod into grad[12 + c] (the mip blend is
// piecewise linear in the clamped lod: level1 - level0 for 0 <= lod < levels - 1, else 0).
template <typename Tex>
WPI_FUNC void sample(const Tex& t, const float32* coord, float32 lod, int32 n, float32* out, float32* grad)
{
    const int32 levels = t.u_num_mip_levels;
    const float32 max_lod = float32(levels - 1);
    const float32 l = lod < 0.0f ? 0.0f : (lod > max_lod ? max_lod : lod);
    const int32 level0 = int32(detail::floor(l));
    if (levels <= 1 || t.u_mip_filter_mode == CLOSEST) {
        int32 nearest = int32(detail::floor(l + 0.5f));
        sample_level(level_of(t, nearest >= levels ? levels - 1 : nearest), coord, n, out, grad);
        if (grad)
            for (int32 c = 0; c < 4; ++c)
                grad[12 + c] = 0.0f;
        return;
    }
    const int32 level1 = level0 + 1 >= levels ? levels - 1 : level0 + 1;
    const float32 fl = l - float32(level0);
    sample_level(level_of(t, level0), coord, n, out, grad);
    if (grad)
        for (int32 c = 0; c < 4; ++c)
            grad[12 + c] = 0.0f;
    if (level1 == level0 || (fl == 0.0f && !grad))
        return;
    float32 out1[4], grad1[24];
    sample_level(level_of(t, level1), coord, n, out1, grad ? grad1 : (float32*)0);
    const bool lod_moves = lod >= 0.0f && lod < max_lod;
    for (int32 c = 0; c < n; ++c) {
        if (grad) {
            for (int32 a = 0; a < 3; ++a)
                grad[a * 4 + c] = grad[a * 4 + c] * (1.0f - fl) + grad1[a * 4 + c] * fl;
            float32 d = (grad1[16 + c] - grad[16 + c]) + (grad1[20 + c] - grad[20 + c]);
            if (!wp::isfinite(d))   // opposite extremes: the samples' own difference
                d = out1[c] - out[c];
            grad[12 + c] = lod_moves ? d : 0.0f;
        }
        if (fl != 0.0f)
            out[c] = out[c] * (1.0f - fl) + out1[c] * fl;
    }
}

template <typename T> struct channels_of;
template <> struct channels_of<float32> {
    enum { n = 1 };
    static WPI_FUNC float32 make(const float32* v) { return v[0]; }
    static WPI_FUNC float32 get(const float32& x, int32) { return x; }
};
template <> struct channels_of<vec_t<2, float32>> {
    enum { n = 2 };
    static WPI_FUNC vec_t<2, float32> make(const float32* v) { return vec_t<2, float32>(v[0], v[1]); }
    static WPI_FUNC float32 get(const vec_t<2, float32>& x, int32 c) { return x[c]; }
};
template <> struct channels_of<vec_t<4, float32>> {
    enum { n = 4 };
    static WPI_FUNC vec_t<4, float32> make(const float32* v) { return vec_t<4, float32>(v[0], v[1], v[2], v[3]); }
    static WPI_FUNC float32 get(const vec_t<4, float32>& x, int32 c) { return x[c]; }
};

// d loss / d coord[a] (a < 3) and d loss / d lod (a == 3) from the result's adjoint
template <typename T, typename Tex>
WPI_FUNC void sample_adjoint(const Tex& t, const float32* coord, float32 lod, const T& adj_ret, float32* d)
{
    typedef channels_of<T> C;
    float32 out[4], grad[24];
    sample(t, coord, lod, C::n, out, grad);
    for (int32 a = 0; a < 4; ++a) {
        d[a] = 0.0f;
        for (int32 c = 0; c < C::n; ++c) {   // a zero seed contributes nothing, even against inf
            const float32 seed = C::get(adj_ret, c);
            if (seed != 0.0f)
                d[a] += grad[a * 4 + c] * seed;
        }
    }
}

}  // namespace texture_detail

template <typename T, typename Tex> WPI_FUNC T texture_sample(const Tex& t, float32 u, float32 lod)
{
    float32 coord[3] = {u, 0.0f, 0.0f}, out[4];
    texture_detail::sample(t, coord, lod, texture_detail::channels_of<T>::n, out, (float32*)0);
    return texture_detail::channels_of<T>::make(out);
}

template <typename T, typename Tex>
WPI_FUNC void adj_texture_sample(const Tex& t, float32 u, float32 lod, Tex&, float32& adj_u, float32& adj_lod,
                                 const T& adj_ret)
{
    float32 coord[3] = {u, 0.0f, 0.0f}, d[4];
    texture_detail::sample_adjoint(t, coord, lod, adj_ret, d);
    adj_u += d[0];
    adj_lod += d[3];
}

template <typename T, typename Tex> WPI_FUNC T texture_sample(const Tex& t, float32 u, float32 v, float32 lod)
{
    float32 coord[3] = {u, v, 0.0f}, out[4];
    texture_detail::sample(t, coord, lod, texture_detail::channels_of<T>::n, out, (float32*)0);
    return texture_detail::channels_of<T>::make(out);
}

template <typename T, typename Tex>
WPI_FUNC void adj_texture_sample(const Tex& t, float32 u, float32 v, float32 lod, Tex&, float32& adj_u, float32& adj_v,
                                 float32& adj_lod, const T& adj_ret)
{
    float32 coord[3] = {u, v, 0.0f}, d[4];
    texture_detail::sample_adjoint(t, coord, lod, adj_ret, d);
    adj_u += d[0];
    adj_v += d[1];
    adj_lod += d[3];
}

template <typename T, typename Tex>
WPI_FUNC T texture_sample(const Tex& t, float32 u, float32 v, float32 w, float32 lod)
{
    float32 coord[3] = {u, v, w}, out[4];
    texture_detail::sample(t, coord, lod, texture_detail::channels_of<T>::n, out, (float32*)0);
    return texture_detail::channels_of<T>::make(out);
}

template <typename T, typename Tex>
WPI_FUNC void adj_texture_sample(const Tex& t, float32 u, float32 v, float32 w, float32 lod, Tex&, float32& adj_u,
                                 float32& adj_v, float32& adj_w, float32& adj_lod, const T& adj_ret)
{
    float32 coord[3] = {u, v, w}, d[4];
    texture_detail::sample_adjoint(t, coord, lod, adj_ret, d);
    adj_u += d[0];
    adj_v += d[1];
    adj_w += d[2];
    adj_lod += d[3];
}

}  // namespace wp
