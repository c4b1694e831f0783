// Perlin (gradient) noise in 1 to 4 dimensions, periodic noise, and curl noise, giving the
// reference's values (warp-lang 1.19: its golden images and seeds carry over).
//
// Each lattice corner gets a pseudo-random gradient hashed from the seed and its integer
// coordinates (the reference's hash: coordinates times primes, xor'ed, the seed added to the
// last product); the noise is the corners' `gradient . offset` values blended axis by axis
// (x first) with the quintic smootherstep, so it is zero at lattice points and C2 everywhere.
// One pass carries the value, and on request its gradient and Hessian with respect to the point:
// the gradient is the adjoint of noise and the forward of curl noise, the Hessian gives curl
// noise its adjoint.
#pragma once

#include "warp_interactive/random/rand.h"

namespace wp {

namespace detail {

// `template <int = 0>` on plain functions: they are instantiated only by modules that call them,
// not once into the precompiled header and again in every build (~10 ms of each rebuild).
template <int = 0> WPI_FUNC float32 fade(float32 t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }
template <int = 0> WPI_FUNC float32 dfade(float32 t) { return 30.0f * t * t * (t * (t - 2.0f) + 1.0f); }
template <int = 0> WPI_FUNC float32 ddfade(float32 t) { return 60.0f * t * (t * (t * 2.0f - 3.0f) + 1.0f); }

// the gradient at lattice corner c: 1D a random slope in [-1, 1), else a random point of the
// cube [-0.5, 0.5)^N, normalized
template <unsigned N> WPI_FUNC void lattice_gradient(uint32 seed, const int32* c, float32* g)
{
    const uint32 primes[4] = {73856093u, 19349663u, 53471161u, 10000019u};
    uint32 h = uint32(c[N - 1]) * primes[N - 1] + seed;
    for (unsigned i = 0; i + 1 < N; ++i)
        h ^= uint32(c[i]) * primes[i];
    if (N == 1) {
        g[0] = 2.0f * randf(h) - 1.0f;
        return;
    }
    float32 len2 = 0.0f;
    for (unsigned i = 0; i < N; ++i) {
        g[i] = randf(h) - 0.5f;
        len2 += g[i] * g[i];
    }
    const float32 len = sqrt(len2);
    for (unsigned i = 0; i < N; ++i)
        g[i] = len > 0.0f ? g[i] / len : 0.0f;
}

// value, gradient and Hessian (ORDER 0, 1, 2: how many of the derivatives are carried)
template <unsigned N> struct noise_jet {
    float32 v, g[N], h[N][N];
};

// a = a + (b - a) S(u) along axis k (the reference's interpolate), with its derivatives
template <unsigned N, int ORDER>
WPI_FUNC void blend(noise_jet<N>& a, const noise_jet<N>& b, unsigned k, float32 s, float32 s1, float32 s2)
{
    const float32 diff = b.v - a.v;
    if (ORDER >= 2) {
        for (unsigned i = 0; i < N; ++i)
            for (unsigned j = 0; j < N; ++j) {
                float32 h = (b.h[i][j] - a.h[i][j]) * s + a.h[i][j];
                if (j == k)
                    h += s1 * (b.g[i] - a.g[i]);
                if (i == k)
                    h += s1 * (b.g[j] - a.g[j]);
                if (i == k && j == k)
                    h += diff * s2;
                a.h[i][j] = h;
            }
    }
    if (ORDER >= 1)
        for (unsigned i = 0; i < N; ++i)
            a.g[i] = (b.g[i] - a.g[i]) * s + (i == k ? diff * s1 : 0.0f) + a.g[i];
    a.v = diff * s + a.v;
}

// noise at cell c0/c1 (lower/upper corner per axis) and offsets f in the cell
template <unsigned N, int ORDER>
WPI_FUNC void perlin_cell(uint32 seed, const int32* c0, const int32* c1, const float32* f, noise_jet<N>& out)
{
    noise_jet<N> corner[1u << N];
    for (unsigned m = 0; m < (1u << N); ++m) {
        int32 c[N];
        float32 d[N], g[N];
        for (unsigned i = 0; i < N; ++i) {
            const bool up = (m >> i) & 1u;
            c[i] = up ? c1[i] : c0[i];
            d[i] = up ? f[i] - 1.0f : f[i];
        }
        lattice_gradient<N>(seed, c, g);
        noise_jet<N>& j = corner[m];
        j.v = 0.0f;
        for (unsigned i = 0; i < N; ++i) {
            j.v += d[i] * g[i];
            j.g[i] = g[i];
            for (unsigned k = 0; k < N; ++k)
                j.h[i][k] = 0.0f;
        }
    }
    // blend along x (corners m and m+1), then y over the x-blends, ...
    for (unsigned k = 0; k < N; ++k) {
        const float32 s = fade(f[k]), s1 = dfade(f[k]), s2 = ddfade(f[k]);
        for (unsigned m = 0; m < (1u << (N - 1 - k)); ++m) {
            corner[m] = corner[2 * m];
            blend<N, ORDER>(corner[m], corner[2 * m + 1], k, s, s1, s2);
        }
    }
    out = corner[0];
}

// noise at point p; periods (or nullptr) wrap the cell indices with C's remainder
template <unsigned N, int ORDER>
WPI_FUNC void perlin(uint32 seed, const float32* p, const int32* periods, noise_jet<N>& out)
{
    int32 c0[N], c1[N];
    float32 f[N];
    for (unsigned i = 0; i < N; ++i) {
        const float32 fl = floor(p[i]);
        f[i] = p[i] - fl;
        c0[i] = int32(fl);
        c1[i] = c0[i] + 1;
        if (periods) {
            c0[i] = mod(c0[i], periods[i]);
            c1[i] = mod(c0[i] + 1, periods[i]);
        }
    }
    perlin_cell<N, ORDER>(seed, c0, c1, f, out);
}

template <unsigned N> WPI_FUNC const float32* coords(const vec_t<N, float32>& v) { return v.c; }
template <int = 0> WPI_FUNC const float32* coords(const float32& x) { return &x; }
template <unsigned N> WPI_FUNC float32* coords(vec_t<N, float32>& v) { return v.c; }
template <int = 0> WPI_FUNC float32* coords(float32& x) { return &x; }

template <unsigned N> WPI_FUNC float32 noise_value(uint32 seed, const float32* p, const int32* periods)
{
    noise_jet<N> j;
    perlin<N, 0>(seed, p, periods, j);
    return j.v;
}
template <unsigned N>
WPI_FUNC void adj_noise_point(uint32 seed, const float32* p, const int32* periods, float32* adj_p, float32 adj_ret)
{
    noise_jet<N> j;
    perlin<N, 1>(seed, p, periods, j);
    for (unsigned i = 0; i < N; ++i)
        adj_p[i] += j.g[i] * adj_ret;
}

typedef vec_t<2, float32> noise_vec2;
typedef vec_t<3, float32> noise_vec3;
typedef vec_t<4, float32> noise_vec4;
}  // namespace detail

// --- noise(seed, p) and pnoise(seed, p, periods...): the seed is a rand_init state (not advanced)
#define WPI_NOISE(PTYPE, N)                                                                        \
    WPI_FUNC float32 noise(uint32 seed, const PTYPE& p)                                            \
    {                                                                                              \
        return detail::noise_value<N>(seed, detail::coords(p), nullptr);                           \
    }                                                                                              \
    WPI_FUNC void adj_noise(uint32 seed, const PTYPE& p, uint32&, PTYPE& adj_p, float32 adj_ret)   \
    {                                                                                              \
        detail::adj_noise_point<N>(seed, detail::coords(p), nullptr, detail::coords(adj_p), adj_ret); \
    }
WPI_NOISE(float32, 1)
WPI_NOISE(detail::noise_vec2, 2)
WPI_NOISE(detail::noise_vec3, 3)
WPI_NOISE(detail::noise_vec4, 4)
#undef WPI_NOISE

#define WPI_PNOISE(PTYPE, N, PARAMS, ADJ_PARAMS, ...)                                              \
    WPI_FUNC float32 pnoise(uint32 seed, const PTYPE& p, PARAMS)                                   \
    {                                                                                              \
        const int32 per[N] = {__VA_ARGS__};                                                        \
        return detail::noise_value<N>(seed, detail::coords(p), per);                               \
    }                                                                                              \
    WPI_FUNC void adj_pnoise(uint32 seed, const PTYPE& p, PARAMS, uint32&, PTYPE& adj_p, ADJ_PARAMS, \
                             float32 adj_ret)                                                      \
    {                                                                                              \
        const int32 per[N] = {__VA_ARGS__};                                                        \
        detail::adj_noise_point<N>(seed, detail::coords(p), per, detail::coords(adj_p), adj_ret);  \
    }
#define WPI_COMMA ,
WPI_PNOISE(float32, 1, int32 px, int32&, px)
WPI_PNOISE(detail::noise_vec2, 2, int32 px WPI_COMMA int32 py, int32& WPI_COMMA int32&, px, py)
WPI_PNOISE(detail::noise_vec3, 3, int32 px WPI_COMMA int32 py WPI_COMMA int32 pz,
           int32& WPI_COMMA int32& WPI_COMMA int32&, px, py, pz)
WPI_PNOISE(detail::noise_vec4, 4, int32 px WPI_COMMA int32 py WPI_COMMA int32 pz WPI_COMMA int32 pt,
           int32& WPI_COMMA int32& WPI_COMMA int32& WPI_COMMA int32&, px, py, pz, pt)
#undef WPI_COMMA
#undef WPI_PNOISE

}  // namespace wp

#include "warp_interactive/random/noise_curl.h"
