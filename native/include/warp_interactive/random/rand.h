// Random numbers: a PCG hash of a 32-bit state, and the sampling functions built on it.
//
// Every draw replaces `state` by its hash and maps the new state to a number, so a state
// initialised from (seed, thread index) gives the same sequence on every target. Statements are
// sequenced explicitly (never two draws in one argument list: C++ leaves that order open).
// Random functions have no gradient; their adjoints do nothing.
#pragma once

#include "warp_interactive/core/core.h"
#include "warp_interactive/math/vec.h"

namespace wp {

namespace detail {

// PCG-RXS-M-XS 32-bit hash (Jarzynski & Olano, "Hash Functions for GPU Rendering", 2020)
WPI_FUNC uint32 pcg_hash(uint32 x)
{
    const uint32 state = x * 747796405u + 2891336453u;
    const uint32 word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// the top 24 bits of the state as a float in [0, 1)
WPI_FUNC float32 unit_float(uint32 s) { return float32(s >> 8) * (1.0f / 16777216.0f); }

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
WPI_FUNC float32 lgamma32(float32 x) { return ::lgammaf(x); }
#else
WPI_FUNC float32 lgamma32(float32 x) { return __builtin_lgammaf(x); }
#endif

// a function, not a namespace-scope float constant: CUDA device code cannot read the latter
WPI_FUNC float32 two_pi() { return 6.28318530717958647692f; }

}  // namespace detail

WPI_FUNC uint32 rand_init(int32 seed) { return detail::pcg_hash(uint32(seed)); }
WPI_FUNC void adj_rand_init(int32, int32&, uint32) {}

WPI_FUNC uint32 rand_init(int32 seed, int32 offset)
{
    return detail::pcg_hash(uint32(seed) + detail::pcg_hash(uint32(offset)));
}
WPI_FUNC void adj_rand_init(int32, int32, int32&, int32&, uint32) {}

WPI_FUNC int32 randi(uint32& state)
{
    state = detail::pcg_hash(state);
    return int32(state);
}
WPI_FUNC void adj_randi(uint32&, uint32&, int32) {}

// in [lo, hi); hi <= lo gives lo
WPI_FUNC int32 randi(uint32& state, int32 lo, int32 hi)
{
    state = detail::pcg_hash(state);
    if (hi <= lo)
        return lo;
    const uint32 span = uint32(hi) - uint32(lo);
    return int32(uint32(lo) + state % span);
}
WPI_FUNC void adj_randi(uint32&, int32, int32, uint32&, int32&, int32&, int32) {}

WPI_FUNC uint32 randu(uint32& state)
{
    state = detail::pcg_hash(state);
    return state;
}
WPI_FUNC void adj_randu(uint32&, uint32&, uint32) {}

// in [lo, hi); hi <= lo gives lo
WPI_FUNC uint32 randu(uint32& state, uint32 lo, uint32 hi)
{
    state = detail::pcg_hash(state);
    return hi <= lo ? lo : lo + state % (hi - lo);
}
WPI_FUNC void adj_randu(uint32&, uint32, uint32, uint32&, uint32&, uint32&, uint32) {}

WPI_FUNC float32 randf(uint32& state)
{
    state = detail::pcg_hash(state);
    return detail::unit_float(state);
}
WPI_FUNC void adj_randf(uint32&, uint32&, float32) {}

WPI_FUNC float32 randf(uint32& state, float32 lo, float32 hi) { return lo + (hi - lo) * randf(state); }
WPI_FUNC void adj_randf(uint32&, float32, float32, uint32&, float32&, float32&, float32) {}

// Box-Muller, drawing u1 then u2 as warp-lang 1.19 does (so a seed gives warp-lang's sequence);
// randf is in [0, 1 - 2^-24], so u1 + 5.96e-8 (2^-24 rounded down) is in (0, 1): finite logarithm
WPI_FUNC float32 randn(uint32& state)
{
    const float32 u1 = randf(state) + 5.96e-8f;
    const float32 u2 = randf(state);
    return sqrt(-2.0f * log(u1)) * cos(detail::two_pi() * u2);
}
WPI_FUNC void adj_randn(uint32&, uint32&, float32) {}

// the first index i with cdf[i] > u, u uniform in [0, 1) (binary search)
WPI_FUNC int32 sample_cdf(uint32& state, const array_t<float32>& cdf)
{
    const float32 u = randf(state);
    int32 lo = 0, hi = cdf.shape[0] - 1;
    while (lo < hi) {
        const int32 mid = lo + (hi - lo) / 2;
        if (load(cdf, mid) > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}
WPI_FUNC void adj_sample_cdf(uint32&, const array_t<float32>&, uint32&, array_t<float32>&, int32) {}

// barycentric (u, v) of a uniform point in a triangle: u = 1 - sqrt(r1), v = r2 sqrt(r1)
WPI_FUNC vec_t<2, float32> sample_triangle(uint32& state)
{
    const float32 r = sqrt(randf(state));
    const float32 v = randf(state) * r;
    return vec_t<2, float32>(1.0f - r, v);
}
WPI_FUNC void adj_sample_triangle(uint32&, uint32&, const vec_t<2, float32>&) {}

WPI_FUNC vec_t<2, float32> sample_unit_ring(uint32& state)
{
    const float32 theta = detail::two_pi() * randf(state);
    return vec_t<2, float32>(cos(theta), sin(theta));
}
WPI_FUNC void adj_sample_unit_ring(uint32&, uint32&, const vec_t<2, float32>&) {}

WPI_FUNC vec_t<2, float32> sample_unit_disk(uint32& state)
{
    const float32 r = sqrt(randf(state));
    const float32 theta = detail::two_pi() * randf(state);
    return vec_t<2, float32>(r * cos(theta), r * sin(theta));
}
WPI_FUNC void adj_sample_unit_disk(uint32&, uint32&, const vec_t<2, float32>&) {}

// z uniform in [-1, 1] and a uniform azimuth give a uniform point on the sphere (Archimedes)
WPI_FUNC vec_t<3, float32> sample_unit_sphere_surface(uint32& state)
{
    const float32 z = 1.0f - 2.0f * randf(state);
    const float32 r = sqrt(max(0.0f, 1.0f - z * z));
    const float32 phi = detail::two_pi() * randf(state);
    return vec_t<3, float32>(r * cos(phi), r * sin(phi), z);
}
WPI_FUNC void adj_sample_unit_sphere_surface(uint32&, uint32&, const vec_t<3, float32>&) {}

// a direction times a radius cbrt(u): uniform in volume
WPI_FUNC vec_t<3, float32> sample_unit_sphere(uint32& state)
{
    const vec_t<3, float32> d = sample_unit_sphere_surface(state);
    return d * cbrt(randf(state));
}
WPI_FUNC void adj_sample_unit_sphere(uint32&, uint32&, const vec_t<3, float32>&) {}

WPI_FUNC vec_t<3, float32> sample_unit_hemisphere_surface(uint32& state)
{
    const float32 z = randf(state);
    const float32 r = sqrt(max(0.0f, 1.0f - z * z));
    const float32 phi = detail::two_pi() * randf(state);
    return vec_t<3, float32>(r * cos(phi), r * sin(phi), z);
}
WPI_FUNC void adj_sample_unit_hemisphere_surface(uint32&, uint32&, const vec_t<3, float32>&) {}

WPI_FUNC vec_t<3, float32> sample_unit_hemisphere(uint32& state)
{
    const vec_t<3, float32> d = sample_unit_hemisphere_surface(state);
    return d * cbrt(randf(state));
}
WPI_FUNC void adj_sample_unit_hemisphere(uint32&, uint32&, const vec_t<3, float32>&) {}

WPI_FUNC vec_t<2, float32> sample_unit_square(uint32& state)
{
    const float32 x = randf(state) - 0.5f;
    const float32 y = randf(state) - 0.5f;
    return vec_t<2, float32>(x, y);
}
WPI_FUNC void adj_sample_unit_square(uint32&, uint32&, const vec_t<2, float32>&) {}

WPI_FUNC vec_t<3, float32> sample_unit_cube(uint32& state)
{
    const float32 x = randf(state) - 0.5f;
    const float32 y = randf(state) - 0.5f;
    const float32 z = randf(state) - 0.5f;
    return vec_t<3, float32>(x, y, z);
}
WPI_FUNC void adj_sample_unit_cube(uint32&, uint32&, const vec_t<3, float32>&) {}

// Poisson counts: Knuth's product of uniforms for lam < 10, else Hörmann's transformed
// rejection with squeeze (PTRS, "The transformed rejection method for generating Poisson
// random variables", 1993), whose cost does not grow with lam.
WPI_FUNC uint32 poisson(uint32& state, float32 lam)
{
    if (!(lam > 0.0f))
        return 0u;
    if (lam < 10.0f) {
        const float32 limit = exp(-lam);
        uint32 k = 0;
        float32 p = randf(state);
        while (p > limit) {
            ++k;
            p *= randf(state);
        }
        return k;
    }
    const float32 slam = sqrt(lam), loglam = log(lam);
    const float32 b = 0.931f + 2.53f * slam;
    const float32 a = -0.059f + 0.02483f * b;
    const float32 inv_alpha = 1.1239f + 1.1328f / (b - 3.4f);
    const float32 vr = 0.9277f - 3.6224f / (b - 2.0f);
    while (true) {
        const float32 u = randf(state) - 0.5f;
        const float32 v = randf(state);
        const float32 us = 0.5f - abs(u);
        const float32 k = floor((2.0f * a / us + b) * u + lam + 0.43f);
        if (us >= 0.07f && v <= vr)
            return uint32(k);
        if (k < 0.0f || (us < 0.013f && v > us))
            continue;
        if (log(v) + log(inv_alpha) - log(a / (us * us) + b) <= -lam + k * loglam - detail::lgamma32(k + 1.0f))
            return uint32(k);
    }
}
WPI_FUNC void adj_poisson(uint32&, float32, uint32&, float32&, uint32) {}

}  // namespace wp
