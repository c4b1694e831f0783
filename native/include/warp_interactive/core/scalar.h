// Scalar types (including half) and the scalar builtins with their adjoints.
//
// Conventions (see docs/internals.md):
// - every builtin is `wp::NAME(args...)`; its adjoint `wp::adj_NAME(args..., adj_args&..., adj_ret)`
//   accumulates into the adjoints with +=, and sits directly below the forward function.
// - integer adjoints are accepted and ignored (`if (detail::is_int<T>::value) return;`).
// - the generic templates add/sub/neg/pos/eq/ne also serve vec_t/mat_t/quat_t through
//   their operators; shapes that need a different rule (mat*mat, quat*quat, ...) overload them.
#pragma once

#ifndef WPI_FUNC
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WPI_FUNC inline __device__
#else
#define WPI_FUNC inline
#endif
#endif

// warp-lang's public macro for functions callable from kernels on either target, which headers
// written for warp-lang (wp.ModuleBuildOptions preambles, func_native snippets) use
#ifndef CUDA_CALLABLE
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define CUDA_CALLABLE __host__ __device__
#else
#define CUDA_CALLABLE
#endif
#endif

#include "warp_interactive/core/prelude.h"
#include "warp_interactive/core/host_math.h"

#if defined(__CUDACC_RTC__)
// NVRTC has no <cstdint>: the fixed-width names generated code uses.
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#endif

namespace wp {

#if defined(__CUDACC_RTC__)
typedef signed char int8;
typedef unsigned char uint8;
typedef short int16;
typedef unsigned short uint16;
typedef int int32;
typedef unsigned int uint32;
typedef long long int64;
typedef unsigned long long uint64;
#else
typedef int8_t int8;
typedef uint8_t uint8;
typedef int16_t int16;
typedef uint16_t uint16;
typedef int32_t int32;
typedef uint32_t uint32;
typedef int64_t int64;
typedef uint64_t uint64;
#endif
typedef float float32;
typedef double float64;

// ---------------------------------------------------------------------------------------------
// half: IEEE binary16 stored as its bit pattern; arithmetic is done in float.

namespace detail {

WPI_FUNC uint32 float_bits(float32 f)
{
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
    return __float_as_uint(f);
#else
    uint32 u;
    WPI_HOST_MEMCPY(&u, &f, sizeof(u));
    return u;
#endif
}

WPI_FUNC float32 bits_float(uint32 u)
{
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
    return __uint_as_float(u);
#else
    float32 f;
    WPI_HOST_MEMCPY(&f, &u, sizeof(f));
    return f;
#endif
}

// Drops the low `shift` bits of m, rounding to nearest with ties to even.
WPI_FUNC uint32 shift_round_even(uint32 m, uint32 shift)
{
    const uint32 halfway = 1u << (shift - 1);
    const uint32 rest = m & ((1u << shift) - 1u);
    uint32 r = m >> shift;
    if (rest > halfway || (rest == halfway && (r & 1u)))
        ++r;
    return r;
}

WPI_FUNC uint16 float_to_half_bits(float32 f)
{
    const uint32 x = float_bits(f);
    const uint32 sign = (x >> 16) & 0x8000u;
    const uint32 mag = x & 0x7fffffffu;
    if (mag >= 0x7f800000u)  // inf stays inf, NaN becomes a quiet NaN
        return uint16(sign | (mag > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (mag >= 0x477ff000u)  // >= 65520 = halfway between 65504 (max half) and 2^16: rounds to inf
        return uint16(sign | 0x7c00u);
    if (mag < 0x33000000u)   // <= 2^-25 (half the smallest subnormal): rounds to zero
        return uint16(sign);
    if (mag < 0x38800000u) {
        // half subnormal: value = k * 2^-24 where k = significand * 2^(e - 150 + 24)
        const uint32 e = mag >> 23;
        const uint32 significand = (mag & 0x7fffffu) | 0x800000u;
        return uint16(sign | shift_round_even(significand, 126u - e));
    }
    // normal: rebias the exponent (127 -> 15) and round the 23-bit mantissa to 10 bits;
    // a carry out of the mantissa correctly bumps the exponent
    return uint16(sign | shift_round_even(mag - 0x38000000u, 13u));
}

WPI_FUNC float32 half_bits_to_float(uint16 h)
{
    const uint32 sign = uint32(h & 0x8000u) << 16;
    const uint32 e = (h >> 10) & 0x1fu;
    const uint32 m = h & 0x3ffu;
    if (e == 0x1fu)
        return bits_float(sign | 0x7f800000u | (m << 13));
    if (e == 0u) {
        const float32 mag = float32(m) * 5.9604644775390625e-8f;  // m * 2^-24, exact
        return sign ? -mag : mag;
    }
    return bits_float(sign | ((e + 112u) << 23) | (m << 13));
}

// bfloat16: float32's top 16 bits, rounded to nearest with ties to even. Every NaN stays a
// NaN: its quiet bit is set before the payload is cut, so no NaN turns into an infinity.
WPI_FUNC uint16 float_to_bfloat16_bits(float32 f)
{
    const uint32 x = float_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return uint16((x | 0x00400000u) >> 16);
    return uint16((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);  // a carry bumps the exponent (to inf at most)
}

WPI_FUNC float32 bfloat16_bits_to_float(uint16 b) { return bits_float(uint32(b) << 16); }

}  // namespace detail

struct half {
    uint16 bits;

    WPI_FUNC half() : bits(0) {}
    WPI_FUNC explicit half(float32 f) : bits(detail::float_to_half_bits(f)) {}
    // to float, and through float to any other arithmetic type
    template <typename U> WPI_FUNC explicit operator U() const { return U(detail::half_bits_to_float(bits)); }
};

// bfloat16 (brain float): 8 exponent bits as float32, 7 mantissa bits; stored as its bit pattern,
// arithmetic is done in float and rounded back, as for half.
struct bfloat16 {
    uint16 bits;

    WPI_FUNC bfloat16() : bits(0) {}
    WPI_FUNC explicit bfloat16(float32 f) : bits(detail::float_to_bfloat16_bits(f)) {}
    template <typename U> WPI_FUNC explicit operator U() const { return U(detail::bfloat16_bits_to_float(bits)); }
};

// The operators of the 16-bit float types: computed in float32, rounded to the type.
#define WPI_LOWP_OPERATORS(T)                                                                       \
    WPI_FUNC T operator+(T a, T b) { return T(float32(a) + float32(b)); }                          \
    WPI_FUNC T operator-(T a, T b) { return T(float32(a) - float32(b)); }                          \
    WPI_FUNC T operator*(T a, T b) { return T(float32(a) * float32(b)); }                          \
    WPI_FUNC T operator/(T a, T b) { return T(float32(a) / float32(b)); }                          \
    WPI_FUNC T operator-(T a)                                                                       \
    {                                                                                               \
        T r;                                                                                        \
        r.bits = uint16(a.bits ^ 0x8000u);                                                          \
        return r;                                                                                   \
    }                                                                                               \
    WPI_FUNC T operator+(T a) { return a; }                                                         \
    WPI_FUNC T& operator+=(T& a, T b) { return a = a + b; }                                         \
    WPI_FUNC T& operator-=(T& a, T b) { return a = a - b; }                                         \
    WPI_FUNC T& operator*=(T& a, T b) { return a = a * b; }                                         \
    WPI_FUNC T& operator/=(T& a, T b) { return a = a / b; }                                         \
    WPI_FUNC bool operator<(T a, T b) { return float32(a) < float32(b); }                           \
    WPI_FUNC bool operator<=(T a, T b) { return float32(a) <= float32(b); }                         \
    WPI_FUNC bool operator>(T a, T b) { return float32(a) > float32(b); }                           \
    WPI_FUNC bool operator>=(T a, T b) { return float32(a) >= float32(b); }                         \
    WPI_FUNC bool operator==(T a, T b) { return float32(a) == float32(b); }                         \
    WPI_FUNC bool operator!=(T a, T b) { return float32(a) != float32(b); }
WPI_LOWP_OPERATORS(half)
WPI_LOWP_OPERATORS(bfloat16)
#undef WPI_LOWP_OPERATORS

namespace detail {

template <typename T> struct is_int { static const bool value = false; };
template <> struct is_int<bool> { static const bool value = true; };
template <> struct is_int<int8> { static const bool value = true; };
template <> struct is_int<uint8> { static const bool value = true; };
template <> struct is_int<int16> { static const bool value = true; };
template <> struct is_int<uint16> { static const bool value = true; };
template <> struct is_int<int32> { static const bool value = true; };
template <> struct is_int<uint32> { static const bool value = true; };
template <> struct is_int<int64> { static const bool value = true; };
template <> struct is_int<uint64> { static const bool value = true; };

template <typename T> WPI_FUNC bool is_signed() { return T(-1) < T(0); }

// Truncating integer division that never traps: x / 0 gives (0, 0) and x / -1 wraps like the
// hardware would for every other quotient (INT_MIN / -1 would otherwise raise SIGFPE).
template <typename T> WPI_FUNC void divmod_trunc(T a, T b, T& q, T& r)
{
    if (b == T(0)) {
        q = r = T(0);
    } else if (is_signed<T>() && b == T(-1)) {
        q = T(uint64(0) - uint64(a));
        r = T(0);
    } else {
        q = T(a / b);
        r = T(a % b);
    }
}

}  // namespace detail

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WPI_LIBM32(fn) ::fn##f
#define WPI_LIBM64(fn) ::fn
#else
#define WPI_LIBM32(fn) WPI_HOST_LIBM32(fn)
#define WPI_LIBM64(fn) WPI_HOST_LIBM64(fn)
#endif

// float32 / float64 overloads that call the libm function of matching precision; half and
// bfloat16 go through float.
#define WPI_UNARY_MATH(fn)                                                                          \
    WPI_FUNC float32 fn(float32 x) { return WPI_LIBM32(fn)(x); }                                    \
    WPI_FUNC float64 fn(float64 x) { return WPI_LIBM64(fn)(x); }                                    \
    WPI_FUNC half fn(half x) { return half(WPI_LIBM32(fn)(float32(x))); }                           \
    WPI_FUNC bfloat16 fn(bfloat16 x) { return bfloat16(WPI_LIBM32(fn)(float32(x))); }

// sin, cos, exp of float32 on the host: vectorisable arithmetic (host_math.h), else libm
#if defined(WPI_HOST_VECTOR_MATH)
#define WPI_MATH32(fn) detail::host_##fn##f
#else
#define WPI_MATH32(fn) WPI_LIBM32(fn)
#endif
#define WPI_UNARY_MATH_V(fn)                                                                        \
    WPI_FUNC float32 fn(float32 x) { return WPI_MATH32(fn)(x); }                                    \
    WPI_FUNC float64 fn(float64 x) { return WPI_LIBM64(fn)(x); }                                    \
    WPI_FUNC half fn(half x) { return half(WPI_MATH32(fn)(float32(x))); }                           \
    WPI_FUNC bfloat16 fn(bfloat16 x) { return bfloat16(WPI_MATH32(fn)(float32(x))); }

#define WPI_BINARY_MATH(fn)                                                                         \
    WPI_FUNC float32 fn(float32 a, float32 b) { return WPI_LIBM32(fn)(a, b); }                      \
    WPI_FUNC float64 fn(float64 a, float64 b) { return WPI_LIBM64(fn)(a, b); }                      \
    WPI_FUNC half fn(half a, half b) { return half(WPI_LIBM32(fn)(float32(a), float32(b))); }       \
    WPI_FUNC bfloat16 fn(bfloat16 a, bfloat16 b) { return bfloat16(WPI_LIBM32(fn)(float32(a), float32(b))); }

namespace detail {

WPI_FUNC float32 fmod(float32 a, float32 b) { return WPI_LIBM32(fmod)(a, b); }
WPI_FUNC float64 fmod(float64 a, float64 b) { return WPI_LIBM64(fmod)(a, b); }
WPI_FUNC float32 floor(float32 x) { return WPI_LIBM32(floor)(x); }
WPI_FUNC float64 floor(float64 x) { return WPI_LIBM64(floor)(x); }

// The truncated quotient of the float remainder: fmod(a, b) == a - b * trunc_quot(a, b) exactly
// (a - fmod(a, b) is an exact multiple of b: the division is an integer up to rounding, so round).
WPI_FUNC float32 trunc_quot(float32 a, float32 b) { return WPI_LIBM32(round)((a - fmod(a, b)) / b); }
WPI_FUNC float64 trunc_quot(float64 a, float64 b) { return WPI_LIBM64(round)((a - fmod(a, b)) / b); }
WPI_FUNC float32 trunc_quot(half a, half b) { return trunc_quot(float32(a), float32(b)); }
WPI_FUNC float32 trunc_quot(bfloat16 a, bfloat16 b) { return trunc_quot(float32(a), float32(b)); }

template <typename T> struct is_scalar { static const bool value = is_int<T>::value; };
template <> struct is_scalar<half> { static const bool value = true; };
template <> struct is_scalar<bfloat16> { static const bool value = true; };
template <> struct is_scalar<float32> { static const bool value = true; };
template <> struct is_scalar<float64> { static const bool value = true; };

// Return types that restrict an overload (to integers, to non-integers, to scalars).
template <bool Cond, typename R = void> struct enable_if {};
template <typename R> struct enable_if<true, R> { typedef R type; };
template <typename T> struct if_int : enable_if<is_int<T>::value> {};
template <typename T> struct if_float : enable_if<!is_int<T>::value> {};
template <typename T, typename R = void> struct if_scalar : enable_if<is_scalar<T>::value, R> {};

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// arithmetic

template <typename T> WPI_FUNC T add(T a, T b) { return a + b; }
template <typename T> WPI_FUNC void adj_add(T, T, T& adj_a, T& adj_b, T adj_ret)
{
    if (detail::is_int<T>::value) return;
    adj_a += adj_ret;
    adj_b += adj_ret;
}

template <typename T> WPI_FUNC T sub(T a, T b) { return a - b; }
template <typename T> WPI_FUNC void adj_sub(T, T, T& adj_a, T& adj_b, T adj_ret)
{
    if (detail::is_int<T>::value) return;
    adj_a += adj_ret;
    adj_b -= adj_ret;
}

// scalars only: the products of composite types are overloads of their own
template <typename T> WPI_FUNC typename detail::if_scalar<T, T>::type mul(T a, T b) { return a * b; }
template <typename T> WPI_FUNC typename detail::if_scalar<T>::type adj_mul(T a, T b, T& adj_a, T& adj_b, T adj_ret)
{
    if (detail::is_int<T>::value) return;
    adj_a += b * adj_ret;
    adj_b += a * adj_ret;
}

// integers: truncating, x / 0 == 0
template <typename T> WPI_FUNC T div(T a, T b)
{
    T q, r;
    detail::divmod_trunc(a, b, q, r);
    return q;
}
WPI_FUNC float32 div(float32 a, float32 b) { return a / b; }
WPI_FUNC float64 div(float64 a, float64 b) { return a / b; }
WPI_FUNC half div(half a, half b) { return a / b; }
WPI_FUNC bfloat16 div(bfloat16 a, bfloat16 b) { return a / b; }
template <typename T> WPI_FUNC void adj_div(T a, T b, T& adj_a, T& adj_b, T adj_ret)
{
    if (detail::is_int<T>::value) return;
    adj_a += adj_ret / b;
    adj_b -= adj_ret * a / (b * b);
}

// Floor division as the reference defines it: integers round the quotient down (x // 0 == 0
// here, where the reference traps); floats are floor(a / b), rounding a / b first.
template <typename T> WPI_FUNC T floordiv(T a, T b)
{
    T q, r;
    detail::divmod_trunc(a, b, q, r);
    if (r != T(0) && ((r < T(0)) != (b < T(0))))
        q = T(q - T(1));
    return q;
}
WPI_FUNC float32 floordiv(float32 a, float32 b) { return detail::floor(a / b); }
WPI_FUNC float64 floordiv(float64 a, float64 b) { return detail::floor(a / b); }
WPI_FUNC half floordiv(half a, half b) { return half(detail::floor(float32(a / b))); }
WPI_FUNC bfloat16 floordiv(bfloat16 a, bfloat16 b) { return bfloat16(detail::floor(float32(a / b))); }
template <typename T> WPI_FUNC void adj_floordiv(T, T, T&, T&, T) {}

// The truncated remainder, as C's % and fmod and the reference's mod: the result has the sign
// of a (-7 % 3 == -1, mod(-1.75, 1.0) == -0.75); integers: x % 0 == 0 (the reference traps).
template <typename T> WPI_FUNC T mod(T a, T b)
{
    T q, r;
    detail::divmod_trunc(a, b, q, r);
    return r;
}
WPI_FUNC float32 mod(float32 a, float32 b) { return detail::fmod(a, b); }
WPI_FUNC float64 mod(float64 a, float64 b) { return detail::fmod(a, b); }
WPI_FUNC half mod(half a, half b) { return half(detail::fmod(float32(a), float32(b))); }
WPI_FUNC bfloat16 mod(bfloat16 a, bfloat16 b) { return bfloat16(detail::fmod(float32(a), float32(b))); }
// integers have no adjoint; an overload of its own, since the float formula has no integer form
template <typename T> WPI_FUNC typename detail::if_int<T>::type adj_mod(T, T, T&, T&, T) {}
// mod(a, b) = a - b * trunc(a / b), the quotient piecewise constant: d/da = 1, d/db = -trunc(a / b)
// (the reference leaves d/db at zero; this is the derivative finite differences measure)
template <typename T>
WPI_FUNC typename detail::enable_if<detail::is_scalar<T>::value && !detail::is_int<T>::value>::type
adj_mod(T a, T b, T& adj_a, T& adj_b, T adj_ret)
{
    adj_a += adj_ret;
    adj_b -= adj_ret * T(detail::trunc_quot(a, b));
}

template <typename T> WPI_FUNC T neg(T a) { return -a; }
template <typename T> WPI_FUNC void adj_neg(T, T& adj_a, T adj_ret)
{
    if (detail::is_int<T>::value) return;
    adj_a -= adj_ret;
}

template <typename T> WPI_FUNC T pos(T a) { return a; }
template <typename T> WPI_FUNC void adj_pos(T, T& adj_a, T adj_ret)
{
    if (detail::is_int<T>::value) return;
    adj_a += adj_ret;
}

// ---------------------------------------------------------------------------------------------
// comparisons (no gradient)

template <typename T> WPI_FUNC bool lt(T a, T b) { return a < b; }
template <typename T> WPI_FUNC void adj_lt(T, T, T&, T&, bool) {}

template <typename T> WPI_FUNC bool le(T a, T b) { return a <= b; }
template <typename T> WPI_FUNC void adj_le(T, T, T&, T&, bool) {}

template <typename T> WPI_FUNC bool gt(T a, T b) { return a > b; }
template <typename T> WPI_FUNC void adj_gt(T, T, T&, T&, bool) {}

template <typename T> WPI_FUNC bool ge(T a, T b) { return a >= b; }
template <typename T> WPI_FUNC void adj_ge(T, T, T&, T&, bool) {}

template <typename T> WPI_FUNC bool eq(const T& a, const T& b) { return a == b; }
template <typename T> WPI_FUNC void adj_eq(const T&, const T&, T&, T&, bool) {}

template <typename T> WPI_FUNC bool ne(const T& a, const T& b) { return a != b; }
template <typename T> WPI_FUNC void adj_ne(const T&, const T&, T&, T&, bool) {}

// ---------------------------------------------------------------------------------------------
// bitwise (integers only, no gradient)

template <typename T> WPI_FUNC T bit_and(T a, T b) { return T(a & b); }
template <typename T> WPI_FUNC void adj_bit_and(T, T, T&, T&, T) {}

template <typename T> WPI_FUNC T bit_or(T a, T b) { return T(a | b); }
template <typename T> WPI_FUNC void adj_bit_or(T, T, T&, T&, T) {}

template <typename T> WPI_FUNC T bit_xor(T a, T b) { return T(a ^ b); }
template <typename T> WPI_FUNC void adj_bit_xor(T, T, T&, T&, T) {}

template <typename T> WPI_FUNC T lshift(T a, T b) { return T(a << b); }
template <typename T> WPI_FUNC void adj_lshift(T, T, T&, T&, T) {}

template <typename T> WPI_FUNC T rshift(T a, T b) { return T(a >> b); }
template <typename T> WPI_FUNC void adj_rshift(T, T, T&, T&, T) {}

template <typename T> WPI_FUNC T invert(T a) { return T(~a); }
template <typename T> WPI_FUNC void adj_invert(T, T&, T) {}

// ---------------------------------------------------------------------------------------------
// abs, sign, min, max, clamp

template <typename T> WPI_FUNC T abs(T x) { return x < T(0) ? T(-x) : x; }
WPI_FUNC float32 abs(float32 x) { return WPI_LIBM32(fabs)(x); }
WPI_FUNC float64 abs(float64 x) { return WPI_LIBM64(fabs)(x); }
WPI_FUNC half abs(half x)
{
    x.bits = uint16(x.bits & 0x7fffu);
    return x;
}
WPI_FUNC bfloat16 abs(bfloat16 x)
{
    x.bits = uint16(x.bits & 0x7fffu);
    return x;
}
template <typename T> WPI_FUNC void adj_abs(T x, T& adj_x, T adj_ret)
{
    if (detail::is_int<T>::value) return;
    if (x < T(0))
        adj_x -= adj_ret;
    else
        adj_x += adj_ret;
}

// -1 for x < 0, +1 otherwise (also for 0)
template <typename T> WPI_FUNC T sign(T x) { return x < T(0) ? T(-1) : T(1); }
template <typename T> WPI_FUNC void adj_sign(T, T&, T) {}

// min / max / clamp on floats treat NaN as missing, as C's fmin/fmax (and warp-lang 1.19) do:
// the non-NaN operand wins, NaN only when both are NaN. `x == x` is false only for NaN (and
// always true for integers), so one template serves every scalar type.
// The comparison picks with a select (GCC emits a compare and blend) and only the NaN test
// branches (never taken on numbers): nested `?:` made GCC branch on the comparison, which a
// neighbour loop's `max(w, 0)` mispredicts half the time.
template <typename T> WPI_FUNC T min(T a, T b) { const T r = b < a ? b : a; return a == a ? r : b; }
// the gradient goes to the operand the forward picked; ties go to b (warp-lang's rule)
template <typename T> WPI_FUNC void adj_min(T a, T b, T& adj_a, T& adj_b, T adj_ret)
{
    if (detail::is_int<T>::value) return;
    if (a == a && (!(b == b) || a < b))
        adj_a += adj_ret;
    else
        adj_b += adj_ret;
}

template <typename T> WPI_FUNC T max(T a, T b) { const T r = a < b ? b : a; return a == a ? r : b; }
template <typename T> WPI_FUNC void adj_max(T a, T b, T& adj_a, T& adj_b, T adj_ret)
{
    if (detail::is_int<T>::value) return;
    if (a == a && (!(b == b) || b < a))
        adj_a += adj_ret;
    else
        adj_b += adj_ret;
}

// clamp(x, lo, hi) is min(max(lo, x), hi), NaN-as-missing included: clamp(NaN, lo, hi) is
// min(lo, hi); inverted bounds give hi. The adjoint is the chain rule through both.
template <typename T> WPI_FUNC T clamp(T x, T lo, T hi) { return min(max(lo, x), hi); }
template <typename T> WPI_FUNC void adj_clamp(T x, T lo, T hi, T& adj_x, T& adj_lo, T& adj_hi, T adj_ret)
{
    if (detail::is_int<T>::value) return;
    T adj_m = T(0);
    adj_min(max(lo, x), hi, adj_m, adj_hi, adj_ret);
    adj_max(lo, x, adj_lo, adj_x, adj_m);
}

// ---------------------------------------------------------------------------------------------
// powers, exponentials, logarithms

WPI_UNARY_MATH(sqrt)
template <typename T> WPI_FUNC void adj_sqrt(T x, T& adj_x, T adj_ret) { adj_x += adj_ret / (T(2) * sqrt(x)); }
// the same adjoints from the forward result (codegen/body.py passes it where the result's variable
// still holds it): no second sqrt/exp, and no recomputation for GCC's PRE to move into a lane
// loop's latch, which kept that loop from being vectorised (n-body backward: 2x)
template <typename T> WPI_FUNC void adj_sqrt_of(T ret, T& adj_x, T adj_ret) { adj_x += adj_ret / (T(2) * ret); }

WPI_UNARY_MATH(cbrt)
template <typename T> WPI_FUNC void adj_cbrt(T x, T& adj_x, T adj_ret)
{
    const T c = cbrt(x);
    adj_x += adj_ret / (T(3) * c * c);
}

WPI_UNARY_MATH_V(exp)
template <typename T> WPI_FUNC void adj_exp(T x, T& adj_x, T adj_ret) { adj_x += adj_ret * exp(x); }
template <typename T> WPI_FUNC void adj_exp_of(T ret, T& adj_x, T adj_ret) { adj_x += adj_ret * ret; }

WPI_UNARY_MATH(log)
template <typename T> WPI_FUNC void adj_log(T x, T& adj_x, T adj_ret) { adj_x += adj_ret / x; }

WPI_UNARY_MATH(log2)
template <typename T> WPI_FUNC void adj_log2(T x, T& adj_x, T adj_ret)
{
    adj_x += adj_ret / (x * T(0.693147180559945309417));  // ln 2
}

WPI_UNARY_MATH(log10)
template <typename T> WPI_FUNC void adj_log10(T x, T& adj_x, T adj_ret)
{
    adj_x += adj_ret / (x * T(2.30258509299404568402));  // ln 10
}

// integers: exponentiation by squaring, wrapping on overflow (computed in uint64, where
// wrapping is defined); a negative exponent gives trunc(1 / a^-b)
template <typename T> WPI_FUNC T pow(T a, T b)
{
    if (b < T(0))
        return a == T(1) ? T(1) : (a == T(-1) ? ((b & T(1)) ? a : T(1)) : T(0));
    uint64 r = 1, base = uint64(a);
    for (; b != T(0); b = T(b >> 1)) {
        if (b & T(1))
            r *= base;
        base *= base;
    }
    return T(r);
}
WPI_BINARY_MATH(pow)
template <typename T> WPI_FUNC typename detail::if_int<T>::type adj_pow(T, T, T&, T&, T) {}
template <typename T>
WPI_FUNC typename detail::if_float<T>::type adj_pow(T a, T b, T& adj_a, T& adj_b, T adj_ret)
{
    adj_a += adj_ret * b * pow(a, b - T(1));
    if (a > T(0))  // d/db a^b = log(a) a^b, defined for a > 0 only
        adj_b += adj_ret * log(a) * pow(a, b);
}

// ---------------------------------------------------------------------------------------------
// trigonometric and hyperbolic

// declared ahead: adj_sin and adj_sinh call them (no <cmath> declares a global cos to fall back on)
#define WPI_DECLARE_UNARY_MATH(fn)                                                                  \
    WPI_FUNC float32 fn(float32 x);                                                                 \
    WPI_FUNC float64 fn(float64 x);                                                                 \
    WPI_FUNC half fn(half x);                                                                       \
    WPI_FUNC bfloat16 fn(bfloat16 x);
WPI_DECLARE_UNARY_MATH(cos)
WPI_DECLARE_UNARY_MATH(cosh)
#undef WPI_DECLARE_UNARY_MATH

WPI_UNARY_MATH_V(sin)
template <typename T> WPI_FUNC void adj_sin(T x, T& adj_x, T adj_ret) { adj_x += adj_ret * cos(x); }

WPI_UNARY_MATH_V(cos)
template <typename T> WPI_FUNC void adj_cos(T x, T& adj_x, T adj_ret) { adj_x -= adj_ret * sin(x); }

WPI_UNARY_MATH(tan)
template <typename T> WPI_FUNC void adj_tan(T x, T& adj_x, T adj_ret)
{
    const T t = tan(x);
    adj_x += adj_ret * (T(1) + t * t);
}

WPI_UNARY_MATH(asin)
template <typename T> WPI_FUNC void adj_asin(T x, T& adj_x, T adj_ret) { adj_x += adj_ret / sqrt(T(1) - x * x); }

WPI_UNARY_MATH(acos)
template <typename T> WPI_FUNC void adj_acos(T x, T& adj_x, T adj_ret) { adj_x -= adj_ret / sqrt(T(1) - x * x); }

WPI_UNARY_MATH(atan)
template <typename T> WPI_FUNC void adj_atan(T x, T& adj_x, T adj_ret) { adj_x += adj_ret / (T(1) + x * x); }

WPI_BINARY_MATH(atan2)
template <typename T> WPI_FUNC void adj_atan2(T y, T x, T& adj_y, T& adj_x, T adj_ret)
{
    const T s = adj_ret / (x * x + y * y);
    adj_y += x * s;
    adj_x -= y * s;
}

WPI_UNARY_MATH(sinh)
template <typename T> WPI_FUNC void adj_sinh(T x, T& adj_x, T adj_ret) { adj_x += adj_ret * cosh(x); }

WPI_UNARY_MATH(cosh)
template <typename T> WPI_FUNC void adj_cosh(T x, T& adj_x, T adj_ret) { adj_x += adj_ret * sinh(x); }

WPI_UNARY_MATH(tanh)
template <typename T> WPI_FUNC void adj_tanh(T x, T& adj_x, T adj_ret)
{
    const T t = tanh(x);
    adj_x += adj_ret * (T(1) - t * t);
}

// ---------------------------------------------------------------------------------------------
// rounding (piecewise constant: zero gradient, except frac)

WPI_UNARY_MATH(floor)
template <typename T> WPI_FUNC void adj_floor(T, T&, T) {}

WPI_UNARY_MATH(ceil)
template <typename T> WPI_FUNC void adj_ceil(T, T&, T) {}

// halfway cases away from zero
WPI_UNARY_MATH(round)
template <typename T> WPI_FUNC void adj_round(T, T&, T) {}

// halfway cases to even
WPI_UNARY_MATH(rint)
template <typename T> WPI_FUNC void adj_rint(T, T&, T) {}

WPI_UNARY_MATH(trunc)
template <typename T> WPI_FUNC void adj_trunc(T, T&, T) {}

// fractional part with the sign of x: x - trunc(x)
template <typename T> WPI_FUNC T frac(T x) { return x - trunc(x); }
template <typename T> WPI_FUNC void adj_frac(T, T& adj_x, T adj_ret) { adj_x += adj_ret; }

// ---------------------------------------------------------------------------------------------
// step functions and interpolation

// 1 for x < 0, else 0
template <typename T> WPI_FUNC T step(T x) { return x < T(0) ? T(1) : T(0); }
template <typename T> WPI_FUNC void adj_step(T, T&, T) {}

// 1 for x != 0, else 0
template <typename T> WPI_FUNC T nonzero(T x) { return x != T(0) ? T(1) : T(0); }
template <typename T> WPI_FUNC void adj_nonzero(T, T&, T) {}

template <typename T> WPI_FUNC T lerp(T a, T b, T t) { return a * (T(1) - t) + b * t; }
template <typename T> WPI_FUNC void adj_lerp(T a, T b, T t, T& adj_a, T& adj_b, T& adj_t, T adj_ret)
{
    adj_a += adj_ret * (T(1) - t);
    adj_b += adj_ret * t;
    adj_t += adj_ret * (b - a);
}

// Hermite step 3t^2 - 2t^3 of t = (x - edge0) / (edge1 - edge0) clamped to [0, 1]
template <typename T> WPI_FUNC T smoothstep(T edge0, T edge1, T x)
{
    const T t = clamp((x - edge0) / (edge1 - edge0), T(0), T(1));
    return t * t * (T(3) - T(2) * t);
}
template <typename T>
WPI_FUNC void adj_smoothstep(T edge0, T edge1, T x, T& adj_edge0, T& adj_edge1, T& adj_x, T adj_ret)
{
    const T w = edge1 - edge0;
    const T t = (x - edge0) / w;
    if (!(t > T(0) && t < T(1)))
        return;
    const T dt = adj_ret * T(6) * t * (T(1) - t);
    adj_x += dt / w;
    adj_edge0 += dt * (x - edge1) / (w * w);
    adj_edge1 -= dt * (x - edge0) / (w * w);
}

// ---------------------------------------------------------------------------------------------
// classification

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WPI_CLASSIFY(fn)                                                                            \
    WPI_FUNC bool fn(float32 x) { return ::fn(x); }                                                 \
    WPI_FUNC bool fn(float64 x) { return ::fn(x); }                                                 \
    WPI_FUNC bool fn(half x) { return ::fn(float32(x)); }                                           \
    WPI_FUNC bool fn(bfloat16 x) { return ::fn(float32(x)); }
#else
#define WPI_CLASSIFY(fn)                                                                            \
    WPI_FUNC bool fn(float32 x) { return WPI_HOST_CLASSIFY(fn)(x); }                                \
    WPI_FUNC bool fn(float64 x) { return WPI_HOST_CLASSIFY(fn)(x); }                                \
    WPI_FUNC bool fn(half x) { return WPI_HOST_CLASSIFY(fn)(float32(x)); }                          \
    WPI_FUNC bool fn(bfloat16 x) { return WPI_HOST_CLASSIFY(fn)(float32(x)); }
#endif

// integers are never NaN or infinite
template <typename T> WPI_FUNC bool isnan(T) { return false; }
WPI_CLASSIFY(isnan)
template <typename T> WPI_FUNC void adj_isnan(T, T&, bool) {}

template <typename T> WPI_FUNC bool isinf(T) { return false; }
WPI_CLASSIFY(isinf)
template <typename T> WPI_FUNC void adj_isinf(T, T&, bool) {}

template <typename T> WPI_FUNC bool isfinite(T) { return true; }
WPI_CLASSIFY(isfinite)
template <typename T> WPI_FUNC void adj_isfinite(T, T&, bool) {}

// ---------------------------------------------------------------------------------------------
// angles and special functions

template <typename T> WPI_FUNC T degrees(T x) { return x * T(57.295779513082320876798); }
template <typename T> WPI_FUNC void adj_degrees(T, T& adj_x, T adj_ret) { adj_x += adj_ret * T(57.295779513082320876798); }

template <typename T> WPI_FUNC T radians(T x) { return x * T(0.017453292519943295769237); }
template <typename T> WPI_FUNC void adj_radians(T, T& adj_x, T adj_ret) { adj_x += adj_ret * T(0.017453292519943295769237); }

WPI_UNARY_MATH(erf)
template <typename T> WPI_FUNC void adj_erf(T x, T& adj_x, T adj_ret)
{
    adj_x += adj_ret * T(1.12837916709551257390) * exp(-x * x);  // 2 / sqrt(pi)
}

WPI_UNARY_MATH(erfc)
template <typename T> WPI_FUNC void adj_erfc(T x, T& adj_x, T adj_ret)
{
    adj_x -= adj_ret * T(1.12837916709551257390) * exp(-x * x);
}

// ---------------------------------------------------------------------------------------------
// casts: wp::cast<To>(x); the gradient passes through only between floating-point types

template <typename To, typename From> WPI_FUNC To cast(From x) { return To(x); }
template <typename To, typename From> WPI_FUNC void adj_cast(From, From& adj_x, To adj_ret)
{
    if (detail::is_int<To>::value || detail::is_int<From>::value) return;
    adj_x += From(adj_ret);
}

#undef WPI_CLASSIFY
#undef WPI_UNARY_MATH
#undef WPI_BINARY_MATH
#undef WPI_LIBM32
#undef WPI_LIBM64

}  // namespace wp
