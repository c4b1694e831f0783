// Perlin (gradient) noise in 1 to 4 dimensions, periodic noise, and curl noise.
//
// Each lattice point gets a pseudo-random gradient hashed from (seed, its integer coordinates);
// the noise is the quintic-weighted blend of the corner gradients dotted with the offsets to
// the corners, so it is zero at lattice points and smooth (C2) everywhere. The value and its
// gradient with respect to the point come from one pass, which gives the adjoints and the curl.
#pragma once

#include "rand.h"

namespace wp {

namespace detail {

// `template <int = 0>` on plain functions: they are instantiated only by modules that call them,
// not once into the precompiled header and again in every build (~10 ms of each rebuild).
template <int = 0> WPI_FUNC float32 fade(float32 t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }
template <int = 0> WPI_FUNC float32 dfade(float32 t) { return 30.0f * t * t * (t * (t - 2.0f) + 1.0f); }

// noise of the N-dimensional point p; periods (or nullptr) wrap the lattice per axis;
// writes d noise / d p to grad
template <unsigned N>
WPI_FUNC float32 perlin(uint32 seed, const float32* p, const int32* periods, float32* grad)
{
    int32 cell[N];
    float32 f[N], w0[N], w1[N], dw[N];
    for (unsigned i = 0; i < N; ++i) {
        const float32 fl = floor(p[i]);
        cell[i] = int32(fl);
        f[i] = p[i] - fl;
        w1[i] = fade(f[i]);
        w0[i] = 1.0f - w1[i];
        dw[i] = dfade(f[i]);
        grad[i] = 0.0f;
    }
    float32 value = 0.0f;
    for (unsigned corner = 0; corner < (1u << N); ++corner) {
        uint32 h = seed;
        for (unsigned i = 0; i < N; ++i) {
            int32 c = cell[i] + int32((corner >> i) & 1u);
            if (periods && periods[i] > 0) {   // wrap into [0, period) (mod keeps the sign of c)
                c = mod(c, periods[i]);
                if (c < 0)
                    c += periods[i];
            }
            h = pcg_hash(h + uint32(c));
        }
        float32 g[N], weight = 1.0f, d = 0.0f;
        for (unsigned i = 0; i < N; ++i) {
            h = pcg_hash(h);
            g[i] = unit_float(h) * 2.0f - 1.0f;
            const unsigned bit = (corner >> i) & 1u;
            d += g[i] * (f[i] - float32(bit));
            weight *= bit ? w1[i] : w0[i];
        }
        value += weight * d;
        for (unsigned j = 0; j < N; ++j) {
            // d(weight)/d f_j: the j-th factor replaced by its derivative
            float32 dwj = ((corner >> j) & 1u) ? dw[j] : -dw[j];
            for (unsigned i = 0; i < N; ++i)
                if (i != j)
                    dwj *= ((corner >> i) & 1u) ? w1[i] : w0[i];
            grad[j] += dwj * d + weight * g[j];
        }
    }
    return value;
}

template <unsigned N> WPI_FUNC const float32* coords(const vec_t<N, float32>& v) { return v.c; }
template <int = 0> WPI_FUNC const float32* coords(const float32& x) { return &x; }

// seed of the k-th independent potential of a curl-noise field
template <int = 0> WPI_FUNC uint32 potential_seed(uint32 seed, unsigned k) { return pcg_hash(seed ^ (0x9e3779b9u * (k + 1u))); }

// sum over octaves of the gradients of K potentials at p (N-dimensional): grads[k][i]
template <unsigned N, unsigned K>
WPI_FUNC void octave_gradients(uint32 seed, const float32* p, uint32 octaves, float32 lacunarity, float32 gain,
                               float32 (&grads)[K][N])
{
    for (unsigned k = 0; k < K; ++k)
        for (unsigned i = 0; i < N; ++i)
            grads[k][i] = 0.0f;
    float32 freq = 1.0f, amp = 1.0f;
    for (uint32 o = 0; o < octaves; ++o) {
        float32 q[N], g[N];
        for (unsigned i = 0; i < N; ++i)
            q[i] = p[i] * freq;
        for (unsigned k = 0; k < K; ++k) {
            perlin<N>(potential_seed(seed, k), q, nullptr, g);
            for (unsigned i = 0; i < N; ++i)
                grads[k][i] += amp * freq * g[i];
        }
        freq *= lacunarity;
        amp *= gain;
    }
}

}  // namespace detail

namespace detail {
typedef vec_t<2, float32> noise_vec2;
typedef vec_t<3, float32> noise_vec3;
typedef vec_t<4, float32> noise_vec4;

template <unsigned N> WPI_FUNC void add_scaled(float32* adj, const float32* g, float32 s)
{
    for (unsigned i = 0; i < N; ++i)
        adj[i] += g[i] * s;
}
}  // namespace detail

// --- noise(seed, p) and pnoise(seed, p, periods...): the seed is a rand_init state (not advanced)
#define WPI_NOISE(PTYPE, N)                                                                        \
    WPI_FUNC float32 noise(uint32 seed, const PTYPE& p)                                            \
    {                                                                                              \
        float32 g[N];                                                                              \
        return detail::perlin<N>(seed, detail::coords(p), nullptr, g);                             \
    }                                                                                              \
    WPI_FUNC void adj_noise(uint32 seed, const PTYPE& p, uint32&, PTYPE& adj_p, float32 adj_ret)   \
    {                                                                                              \
        float32 g[N];                                                                              \
        detail::perlin<N>(seed, detail::coords(p), nullptr, g);                                    \
        detail::add_scaled<N>((float32*)&adj_p, g, adj_ret);                                       \
    }
WPI_NOISE(float32, 1)
WPI_NOISE(detail::noise_vec2, 2)
WPI_NOISE(detail::noise_vec3, 3)
WPI_NOISE(detail::noise_vec4, 4)
#undef WPI_NOISE

template <int = 0> WPI_FUNC float32 pnoise(uint32 seed, float32 x, int32 px)
{
    float32 g[1];
    const int32 per[1] = {px};
    return detail::perlin<1>(seed, &x, per, g);
}
template <int = 0> WPI_FUNC void adj_pnoise(uint32 seed, float32 x, int32 px, uint32&, float32& adj_x, int32&, float32 adj_ret)
{
    float32 g[1];
    const int32 per[1] = {px};
    detail::perlin<1>(seed, &x, per, g);
    adj_x += g[0] * adj_ret;
}

template <int = 0> WPI_FUNC float32 pnoise(uint32 seed, const detail::noise_vec2& p, int32 px, int32 py)
{
    float32 g[2];
    const int32 per[2] = {px, py};
    return detail::perlin<2>(seed, p.c, per, g);
}
template <int = 0> WPI_FUNC void adj_pnoise(uint32 seed, const detail::noise_vec2& p, int32 px, int32 py, uint32&, detail::noise_vec2& adj_p,
                         int32&, int32&, float32 adj_ret)
{
    float32 g[2];
    const int32 per[2] = {px, py};
    detail::perlin<2>(seed, p.c, per, g);
    detail::add_scaled<2>(adj_p.c, g, adj_ret);
}

template <int = 0> WPI_FUNC float32 pnoise(uint32 seed, const detail::noise_vec3& p, int32 px, int32 py, int32 pz)
{
    float32 g[3];
    const int32 per[3] = {px, py, pz};
    return detail::perlin<3>(seed, p.c, per, g);
}
template <int = 0> WPI_FUNC void adj_pnoise(uint32 seed, const detail::noise_vec3& p, int32 px, int32 py, int32 pz, uint32&,
                         detail::noise_vec3& adj_p, int32&, int32&, int32&, float32 adj_ret)
{
    float32 g[3];
    const int32 per[3] = {px, py, pz};
    detail::perlin<3>(seed, p.c, per, g);
    detail::add_scaled<3>(adj_p.c, g, adj_ret);
}

template <int = 0> WPI_FUNC float32 pnoise(uint32 seed, const detail::noise_vec4& p, int32 px, int32 py, int32 pz, int32 pt)
{
    float32 g[4];
    const int32 per[4] = {px, py, pz, pt};
    return detail::perlin<4>(seed, p.c, per, g);
}
template <int = 0> WPI_FUNC void adj_pnoise(uint32 seed, const detail::noise_vec4& p, int32 px, int32 py, int32 pz, int32 pt, uint32&,
                         detail::noise_vec4& adj_p, int32&, int32&, int32&, int32&, float32 adj_ret)
{
    float32 g[4];
    const int32 per[4] = {px, py, pz, pt};
    detail::perlin<4>(seed, p.c, per, g);
    detail::add_scaled<4>(adj_p.c, g, adj_ret);
}

// --- curl noise: divergence-free fields from noise potentials (no gradient) --------------------------
// 2D: the rotated gradient (d psi/dy, -d psi/dx) of one potential psi
template <int = 0> WPI_FUNC detail::noise_vec2 curlnoise(uint32 seed, const detail::noise_vec2& p, uint32 octaves = 1u,
                                      float32 lacunarity = 2.0f, float32 gain = 0.5f)
{
    float32 g[1][2];
    detail::octave_gradients<2, 1>(seed, p.c, octaves, lacunarity, gain, g);
    return detail::noise_vec2(g[0][1], -g[0][0]);
}
// 3D (and 4D with t as a fourth coordinate): curl of the vector potential (psi0, psi1, psi2)
template <unsigned N>
WPI_FUNC detail::noise_vec3 curl3(uint32 seed, const vec_t<N, float32>& p, uint32 octaves, float32 lacunarity,
                                  float32 gain)
{
    float32 g[3][N];
    detail::octave_gradients<N, 3>(seed, p.c, octaves, lacunarity, gain, g);
    return detail::noise_vec3(g[2][1] - g[1][2], g[0][2] - g[2][0], g[1][0] - g[0][1]);
}
template <int = 0> WPI_FUNC detail::noise_vec3 curlnoise(uint32 seed, const detail::noise_vec3& p, uint32 octaves = 1u,
                                      float32 lacunarity = 2.0f, float32 gain = 0.5f)
{
    return curl3(seed, p, octaves, lacunarity, gain);
}
template <int = 0> WPI_FUNC detail::noise_vec3 curlnoise(uint32 seed, const detail::noise_vec4& p, uint32 octaves = 1u,
                                      float32 lacunarity = 2.0f, float32 gain = 0.5f)
{
    return curl3(seed, p, octaves, lacunarity, gain);
}

}  // namespace wp
