// float32 sin, cos and exp for the host compiler, written so that GCC vectorises them.
//
// libm's sinf/expf are calls: a loop that calls them (an elementwise kernel's unit-stride
// forward, a lane-blocked body, a backward body) runs one element per call, and the calls were
// two thirds of an elementwise kernel's forward + backward. These are plain arithmetic the
// vectoriser turns into AVX2 code, evaluated in double precision: the float result is the
// correctly rounded value except in rare near-halfway cases (error below 0.501 ulp, the same
// class as glibc's own, which also works in double).
//
// Same values everywhere: only IEEE double operations, each rounded once (the CPU build passes
// -ffp-contract=off -mno-fma), so the scalar and the vectorised code of any loop, and AVX2 and
// AVX-512 machines, give the same bits. Not under -ffast-math, which may reassociate the
// argument reduction: those builds keep libm (scalar.h).
//
// sin/cos: the argument is reduced by n * pi/2 with pi/2 in four parts (Cody-Waite; the first
// three have 24 significant bits, so n * part is exact for n < 2^29), accurate to ~2^-95 for
// |x| <= 2^28; larger arguments (and inf/nan) go to libm through `sin_wide`/`cos_wide`, whose
// OpenMP SIMD clones (-fopenmp-simd) let a vectorised loop call them for 8 lanes at once.
#pragma once

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__) && !defined(__FAST_MATH__)
#define WPI_HOST_VECTOR_MATH 1

namespace wp {
namespace detail {

WPI_FUNC uint64_t f64_bits(double x) { return __builtin_bit_cast(uint64_t, x); }
WPI_FUNC double f64_from_bits(uint64_t b) { return __builtin_bit_cast(double, b); }

// adding 1.5 * 2^52 to an integral double puts the integer, two's complement, in the low bits
constexpr double round_shift = 0x1.8p52;
constexpr float reduce_limit = 0x1p28f;

// the reduced argument r in [-pi/4, pi/4] and the quadrant n mod 4 of x = n * pi/2 + r
WPI_FUNC double reduce_pio2(float x, uint64_t& quadrant)
{
    const double xd = x;
    const double n = __builtin_rint(xd * 0x1.45f306dc9c883p-1);
    quadrant = f64_bits(n + round_shift);
    double r = xd - n * 0x1.921fb6p+0;       // exact (Sterbenz)
    r = r - n * -0x1.777a5cp-25;
    r = r - n * -0x1.ee59dap-50;
    r = r - n * 0x1.98a2e03707345p-77;
    return n == 0.0 ? xd : r;                // x itself for n = 0: sin(-0) = -0
}

// sin and cos on [-pi/4, pi/4]: Taylor series to r^13 / r^14 (truncation below 2^-45 relative),
// evaluated in Estrin's scheme: Horner's chain of dependent multiply-adds kept the vectorised
// loop waiting on latency
WPI_FUNC double sin_poly(double r, double z)
{
    const double z2 = z * z;
    const double p = (-1.0 / 6.0 + z * (1.0 / 120.0)) + z2 * (-1.0 / 5040.0 + z * (1.0 / 362880.0)) +
                     (z2 * z2) * (-1.0 / 39916800.0 + z * (1.0 / 6227020800.0));
    return r * (1.0 + z * p);     // not r + r * z * p, which gives +0 for r = -0
}

WPI_FUNC double cos_poly(double z)
{
    const double z2 = z * z, z4 = z2 * z2;
    const double p = (-0.5 + z * (1.0 / 24.0)) + z2 * (-1.0 / 720.0 + z * (1.0 / 40320.0)) +
                     z4 * ((-1.0 / 3628800.0 + z * (1.0 / 479001600.0)) + z2 * (-1.0 / 87178291200.0));
    return 1.0 + z * p;
}

// quadrant q of sin: S, C, -S, -C (cos is quadrant q + 1); selected with bit operations
WPI_FUNC float sincos_quadrant(double r, uint64_t q)
{
    const double r2 = r * r;
    const double v = (q & 1) ? cos_poly(r2) : sin_poly(r, r2);
    return float(f64_from_bits(f64_bits(v) ^ ((q & 2) << 62)));
}

// libm for the arguments the reduction does not cover; a vectorised loop calls the SIMD clone
#pragma omp declare simd notinbranch
__attribute__((noinline)) static float sin_wide(float x, float near)
{
    return __builtin_fabsf(x) <= reduce_limit ? near : __builtin_sinf(x);
}

#pragma omp declare simd notinbranch
__attribute__((noinline)) static float cos_wide(float x, float near)
{
    return __builtin_fabsf(x) <= reduce_limit ? near : __builtin_cosf(x);
}

WPI_FUNC float host_sinf(float x)
{
    uint64_t q;
    const double r = reduce_pio2(x, q);
    return sin_wide(x, sincos_quadrant(r, q));
}

WPI_FUNC float host_cosf(float x)
{
    uint64_t q;
    const double r = reduce_pio2(x, q);
    return cos_wide(x, sincos_quadrant(r, q + 1));
}

// exp(x) = 2^k e^r, r = x - k ln 2 in [-ln2/2, ln2/2] (ln 2 in two parts, the first of 32 bits:
// k ln2_hi is exact), e^r by its Taylor series to r^11 (truncation below 2^-47, Estrin's
// scheme); 2^k is made from k's bits. x is clamped to [-120, 89] first: beyond, the float result is 0 or inf anyway
// (e^-120 is below half the least subnormal, e^89 above the largest float), and 2^k stays a
// normal double. A NaN passes the clamp and gives NaN.
WPI_FUNC float host_expf(float x)
{
    double xd = x;
    xd = xd < -120.0 ? -120.0 : xd;
    xd = xd > 89.0 ? 89.0 : xd;
    const double k = __builtin_rint(xd * 0x1.71547652b82fep+0);
    const double r = (xd - k * 0x1.62e42ffp-1) - k * -0x1.718432a1b0e26p-35;
    const double r2 = r * r, r4 = r2 * r2;
    const double p = ((1.0 + r) + r2 * (0.5 + r * (1.0 / 6.0))) +
                     r4 * ((1.0 / 24.0 + r * (1.0 / 120.0)) + r2 * (1.0 / 720.0 + r * (1.0 / 5040.0))) +
                     (r4 * r4) * ((1.0 / 40320.0 + r * (1.0 / 362880.0)) +
                                  r2 * (1.0 / 3628800.0 + r * (1.0 / 39916800.0)));
    const double scale = f64_from_bits((f64_bits(k + round_shift) + 1023) << 52);
    return float(p * scale);
}

}  // namespace detail
}  // namespace wp

#endif
