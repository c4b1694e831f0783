// Curl noise: divergence-free fields from Perlin noise potentials, summed over octaves (each
// `lacunarity` times the frequency and `gain` times the amplitude of the last), with the
// reference's potentials: 2D rotates one potential's gradient, (-dpsi/dy, dpsi/dx); 3D and 4D take
// the curl of three potentials whose seeds follow one another (rand_init(seed, 10019689), then
// rand_init(that, 13112221), and the next octave goes on from there).
//
// The adjoint is analytic, through the potentials' Hessians; it also gives d/d lacunarity and
// d/d gain (the reference leaves those zero).
#pragma once

#include "warp_interactive/random/noise.h"

namespace wp {

namespace detail {

// One octave's contribution: curl[c] = sum_j J[c][j] over the potentials' gradients; each output
// component is a difference of two gradient entries: +grad[kp][ip] - grad[km][im].
template <unsigned N> struct curl_terms;
template <> struct curl_terms<2> {
    static constexpr unsigned K = 1, OUT = 2;
    WPI_FUNC static void pick(unsigned c, unsigned& kp, unsigned& ip, unsigned& km, unsigned& im)
    {   // (-g1, g0): (0 - g1) and (g0 - 0); an index N marks "no term"
        kp = 0, ip = c == 0 ? 2u : 0u, km = 0, im = c == 0 ? 1u : 2u;
    }
};
template <unsigned N> struct curl_terms {
    static constexpr unsigned K = 3, OUT = 3;
    WPI_FUNC static void pick(unsigned c, unsigned& kp, unsigned& ip, unsigned& km, unsigned& im)
    {   // (g3.y - g2.z, g1.z - g3.x, g2.x - g1.y) with potentials numbered 0, 1, 2
        const unsigned table[3][4] = {{2, 1, 1, 2}, {0, 2, 2, 0}, {1, 0, 0, 1}};
        kp = table[c][0], ip = table[c][1], km = table[c][2], im = table[c][3];
    }
};

template <unsigned N, int ORDER>
WPI_FUNC void curl_octave(uint32& seed, const float32* pt, noise_jet<N> (&jets)[curl_terms<N>::K])
{
    for (unsigned k = 0; k < curl_terms<N>::K; ++k) {
        if (k == 1)
            seed = rand_init(int32(seed), 10019689);
        else if (k == 2)
            seed = rand_init(int32(seed), 13112221);
        perlin<N, ORDER>(seed, pt, nullptr, jets[k]);
    }
}

// entry i of jets[k]'s gradient (ORDER 1) or of row i of its Hessian times vec (ORDER 2)
template <unsigned N> WPI_FUNC float32 curl_entry(const noise_jet<N>* jets, unsigned k, unsigned i)
{
    return i < N ? jets[k].g[i] : 0.0f;
}

template <unsigned N>
WPI_FUNC void curl_forward(uint32 seed, const float32* p, uint32 octaves, float32 lacunarity, float32 gain,
                           float32* out)
{
    typedef curl_terms<N> C;
    float32 sum[C::K][N] = {};
    float32 freq = 1.0f, amp = 1.0f;
    for (uint32 o = 0; o < octaves; ++o) {
        float32 pt[N];
        for (unsigned i = 0; i < N; ++i)
            pt[i] = freq * p[i];
        noise_jet<N> jets[C::K];
        curl_octave<N, 1>(seed, pt, jets);
        for (unsigned k = 0; k < C::K; ++k)
            for (unsigned i = 0; i < N; ++i)
                sum[k][i] += amp * jets[k].g[i];
        amp *= gain;
        freq *= lacunarity;
    }
    for (unsigned c = 0; c < C::OUT; ++c) {
        unsigned kp, ip, km, im;
        C::pick(c, kp, ip, km, im);
        out[c] = (ip < N ? sum[kp][ip] : 0.0f) - (im < N ? sum[km][im] : 0.0f);
    }
}

// adjoint: per octave, d curl / d pt is the curl pattern over Hessian rows; pt = freq * p
template <unsigned N>
WPI_FUNC void curl_adjoint(uint32 seed, const float32* p, uint32 octaves, float32 lacunarity, float32 gain,
                           const float32* adj_ret, float32* adj_p, float32& adj_lac, float32& adj_gain)
{
    typedef curl_terms<N> C;
    float32 freq = 1.0f, amp = 1.0f, dfreq = 0.0f, damp = 0.0f;   // d freq / d lac, d amp / d gain
    for (uint32 o = 0; o < octaves; ++o) {
        float32 pt[N];
        for (unsigned i = 0; i < N; ++i)
            pt[i] = freq * p[i];
        noise_jet<N> jets[C::K];
        curl_octave<N, 2>(seed, pt, jets);
        float32 dpt[N] = {};    // d (adj_ret . curl) / d pt, this octave, before amp
        float32 curl_dot = 0.0f;
        for (unsigned c = 0; c < C::OUT; ++c) {
            unsigned kp, ip, km, im;
            C::pick(c, kp, ip, km, im);
            curl_dot += adj_ret[c] * (curl_entry<N>(jets, kp, ip) - curl_entry<N>(jets, km, im));
            for (unsigned j = 0; j < N; ++j) {
                const float32 hp = ip < N ? jets[kp].h[ip][j] : 0.0f;
                const float32 hm = im < N ? jets[km].h[im][j] : 0.0f;
                dpt[j] += adj_ret[c] * (hp - hm);
            }
        }
        float32 along_p = 0.0f;
        for (unsigned j = 0; j < N; ++j) {
            adj_p[j] += amp * freq * dpt[j];
            along_p += dpt[j] * p[j];
        }
        adj_lac += amp * dfreq * along_p;
        adj_gain += damp * curl_dot;
        damp = damp * gain + amp;
        dfreq = dfreq * lacunarity + freq;
        amp *= gain;
        freq *= lacunarity;
    }
}
}  // namespace detail

#define WPI_CURLNOISE(PTYPE, RTYPE, N)                                                             \
    WPI_FUNC RTYPE curlnoise(uint32 seed, const PTYPE& p, uint32 octaves = 1u, float32 lacunarity = 2.0f, \
                             float32 gain = 0.5f)                                                  \
    {                                                                                              \
        RTYPE r;                                                                                   \
        detail::curl_forward<N>(seed, p.c, octaves, lacunarity, gain, r.c);                        \
        return r;                                                                                  \
    }                                                                                              \
    WPI_FUNC void adj_curlnoise(uint32 seed, const PTYPE& p, uint32 octaves, float32 lacunarity, float32 gain, \
                                uint32&, PTYPE& adj_p, uint32&, float32& adj_lac, float32& adj_gain,  \
                                const RTYPE& adj_ret)                                              \
    {                                                                                              \
        detail::curl_adjoint<N>(seed, p.c, octaves, lacunarity, gain, adj_ret.c, adj_p.c, adj_lac, adj_gain); \
    }                                                                                              \
    WPI_FUNC void adj_curlnoise(uint32 seed, const PTYPE& p, uint32 octaves, float32 lacunarity, uint32& adj_s, \
                                PTYPE& adj_p, uint32& adj_o, float32& adj_lac, const RTYPE& adj_ret) \
    {                                                                                              \
        float32 adj_gain = 0.0f;                                                                   \
        adj_curlnoise(seed, p, octaves, lacunarity, 0.5f, adj_s, adj_p, adj_o, adj_lac, adj_gain, adj_ret); \
    }                                                                                              \
    WPI_FUNC void adj_curlnoise(uint32 seed, const PTYPE& p, uint32 octaves, uint32& adj_s, PTYPE& adj_p, \
                                uint32& adj_o, const RTYPE& adj_ret)                              \
    {                                                                                              \
        float32 adj_lac = 0.0f, adj_gain = 0.0f;                                                   \
        adj_curlnoise(seed, p, octaves, 2.0f, 0.5f, adj_s, adj_p, adj_o, adj_lac, adj_gain, adj_ret); \
    }                                                                                              \
    WPI_FUNC void adj_curlnoise(uint32 seed, const PTYPE& p, uint32& adj_s, PTYPE& adj_p, const RTYPE& adj_ret) \
    {                                                                                              \
        uint32 adj_o = 0u;                                                                         \
        float32 adj_lac = 0.0f, adj_gain = 0.0f;                                                   \
        adj_curlnoise(seed, p, 1u, 2.0f, 0.5f, adj_s, adj_p, adj_o, adj_lac, adj_gain, adj_ret);   \
    }
WPI_CURLNOISE(detail::noise_vec2, detail::noise_vec2, 2)
WPI_CURLNOISE(detail::noise_vec3, detail::noise_vec3, 3)
WPI_CURLNOISE(detail::noise_vec4, detail::noise_vec3, 4)
#undef WPI_CURLNOISE

}  // namespace wp
