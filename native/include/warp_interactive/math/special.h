// Scalar and vector builtins beyond the basic library: copysign, erfinv/erfcinv, bit_count, unot,
// div_approx, the vector norms (l1, l2, Huber, pseudo-Huber) and smooth_normalize,
// inverse_approx and the 2x2 SVD. Each forward function sits directly above its adjoint.
//
// div_approx / inverse_approx are exact on every target (the reference uses faster, less exact
// GPU intrinsics and falls back to exact division on the CPU): one result everywhere.
#pragma once

#include "warp_interactive/math/quat.h"

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WPI_XLIBM32(fn) ::fn##f
#define WPI_XLIBM64(fn) ::fn
#else
#define WPI_XLIBM32(fn) WPI_HOST_LIBM32(fn)
#define WPI_XLIBM64(fn) WPI_HOST_LIBM64(fn)
#endif

namespace wp {

// ---------------------------------------------------------------------------------------------
// copysign: |x| with the sign bit of y (also of -0.0 and NaN)

WPI_FUNC float32 copysign(float32 x, float32 y) { return WPI_XLIBM32(copysign)(x, y); }
WPI_FUNC float64 copysign(float64 x, float64 y) { return WPI_XLIBM64(copysign)(x, y); }
WPI_FUNC half copysign(half x, half y)
{
    half r;
    r.bits = uint16((x.bits & 0x7fffu) | (y.bits & 0x8000u));
    return r;
}
WPI_FUNC bfloat16 copysign(bfloat16 x, bfloat16 y)
{
    bfloat16 r;
    r.bits = uint16((x.bits & 0x7fffu) | (y.bits & 0x8000u));
    return r;
}
template <typename T> WPI_FUNC void adj_copysign(T x, T y, T& adj_x, T& adj_y, T adj_ret)
{
    // d/dx = +1 where x and the result have the same sign, else -1; y only picks a sign
    const bool flip = (copysign(T(1), x) != copysign(T(1), y));
    adj_x += flip ? -adj_ret : adj_ret;
    (void)adj_y;
}

// ---------------------------------------------------------------------------------------------
// erfinv / erfcinv: a starting point from Giles' single-precision approximation ("Approximating
// the erfinv function", GPU Gems 2011), then Newton steps on erf (erfc near 1 - x = 0, where
// erf(y) - x loses every digit) until the last step no longer changes y.

namespace detail {

// w = -log((1 - x)(1 + x)), passed in so that erfcinv can compute it from c = 1 - x exactly
template <typename T> WPI_FUNC T erfinv_guess(T x, T w)
{
    T p;
    if (w < T(5)) {
        w = w - T(2.5);
        p = T(2.81022636e-08);
        p = T(3.43273939e-07) + p * w;
        p = T(-3.5233877e-06) + p * w;
        p = T(-4.39150654e-06) + p * w;
        p = T(0.00021858087) + p * w;
        p = T(-0.00125372503) + p * w;
        p = T(-0.00417768164) + p * w;
        p = T(0.246640727) + p * w;
        p = T(1.50140941) + p * w;
    } else {
        w = sqrt(w) - T(3);
        p = T(-0.000200214257);
        p = T(0.000100950558) + p * w;
        p = T(0.00134934322) + p * w;
        p = T(-0.00367342844) + p * w;
        p = T(0.00573950773) + p * w;
        p = T(-0.0076224613) + p * w;
        p = T(0.00943887047) + p * w;
        p = T(1.00167406) + p * w;
        p = T(2.83297682) + p * w;
    }
    return p * x;
}

// refine y > 0 with erfc(y) = c by Newton steps on log(erfc(y)) - log(c), which stay well
// scaled in the far tail where erfc(y) itself is tiny
template <typename T> WPI_FUNC T erfc_newton(T y, T c)
{
    const T log_c = log(c);
    for (int k = 0; k < 8; ++k) {
        const T e = erfc(y);
        if (!(e > T(0))) {   // underflow: y is too far out
            y = y * T(0.99);
            continue;
        }
        const T step = (log(e) - log_c) / (-T(1.12837916709551257390) * exp(-y * y) / e);
        y -= step;
        if (!(abs(step) > abs(y) * epsilon(T(0))))
            break;
    }
    return y;
}

// a start for erfc(y) = c, c <= 0.5 (x = 1 - c): Giles' approximation where it holds, else the
// asymptotic erfc(y) ~ exp(-y^2) / (y sqrt(pi)) solved by fixed-point steps
template <typename T> WPI_FUNC T erfc_tail_guess(T x, T c)
{
    const T w = -log(c * (T(2) - c));
    if (w < T(30))
        return erfinv_guess(x, w);
    T y = sqrt(-log(c));
    for (int k = 0; k < 3; ++k)
        y = sqrt(-log(c * y * T(1.77245385090551602730)));
    return y;
}

}  // namespace detail

template <typename T> WPI_FUNC T erfinv_impl(T x)
{
    if (x <= T(-1) || x >= T(1))
        return x == T(1) ? T(detail::bits_float(0x7f800000u)) : (x == T(-1) ? -T(detail::bits_float(0x7f800000u)) : T(detail::bits_float(0x7fc00000u)));
    if (x != x)
        return x;
    const T y = detail::erfinv_guess(x, -log((T(1) - x) * (T(1) + x)));
    // erf(y) = x  <=>  erfc(y) = 1 - x; for |x| < 0.5, 1 - x is exact enough and erf is the
    // better-conditioned residual, so refine on erf there
    if (abs(x) < T(0.5)) {
        T z = y;
        for (int k = 0; k < 3; ++k) {
            const T step = (erf(z) - x) / (T(1.12837916709551257390) * exp(-z * z));
            z -= step;
            if (!(abs(step) > abs(z) * detail::epsilon(T(0))))
                break;
        }
        return z;
    }
    return x > T(0) ? detail::erfc_newton(y, T(1) - x) : -detail::erfc_newton(-y, T(1) + x);
}
WPI_FUNC float32 erfinv(float32 x) { return erfinv_impl(x); }
WPI_FUNC float64 erfinv(float64 x) { return erfinv_impl(x); }
WPI_FUNC half erfinv(half x) { return half(erfinv_impl(float32(x))); }
WPI_FUNC bfloat16 erfinv(bfloat16 x) { return bfloat16(erfinv_impl(float32(x))); }
template <typename T> WPI_FUNC void adj_erfinv(T x, T& adj_x, T adj_ret)
{
    const T y = erfinv(x);
    adj_x += adj_ret * T(0.88622692545275801365) * exp(y * y);   // sqrt(pi) / 2
}

template <typename T> WPI_FUNC T erfcinv_impl(T c)
{
    if (c <= T(0) || c >= T(2))
        return c == T(0) ? T(detail::bits_float(0x7f800000u)) : (c == T(2) ? -T(detail::bits_float(0x7f800000u)) : T(detail::bits_float(0x7fc00000u)));
    if (c != c)
        return c;
    if (c > T(0.5) && c < T(1.5))
        return erfinv_impl(T(1) - c);   // 1 - c exact here (Sterbenz)
    // the small tail: erfinv(1 - c) would lose c's digits in 1 - c; refine on erfc directly
    if (c <= T(0.5))
        return detail::erfc_newton(detail::erfc_tail_guess(T(1) - c, c), c);
    return -detail::erfc_newton(detail::erfc_tail_guess(c - T(1), T(2) - c), T(2) - c);
}
WPI_FUNC float32 erfcinv(float32 x) { return erfcinv_impl(x); }
WPI_FUNC float64 erfcinv(float64 x) { return erfcinv_impl(x); }
WPI_FUNC half erfcinv(half x) { return half(erfcinv_impl(float32(x))); }
WPI_FUNC bfloat16 erfcinv(bfloat16 x) { return bfloat16(erfcinv_impl(float32(x))); }
template <typename T> WPI_FUNC void adj_erfcinv(T x, T& adj_x, T adj_ret)
{
    const T y = erfcinv(x);
    adj_x -= adj_ret * T(0.88622692545275801365) * exp(y * y);
}

// ---------------------------------------------------------------------------------------------
// bit_count: set bits of the two's-complement pattern

template <typename T> WPI_FUNC int32 bit_count(T x)
{
    uint64 u = uint64(x);
    if (sizeof(T) < 8)
        u &= (uint64(1) << (8 * sizeof(T))) - 1;   // a negative narrow value: its own width only
    int32 n = 0;
    for (; u; u &= u - 1)
        ++n;
    return n;
}
template <typename T> WPI_FUNC void adj_bit_count(T, T&, int32) {}

// ---------------------------------------------------------------------------------------------
// unot: logical not (zero, false and null arrays are false)

template <typename T> WPI_FUNC bool unot(T x) { return x == T(0); }
WPI_FUNC bool unot(bool x) { return !x; }
template <typename T> WPI_FUNC bool unot(const array_t<T>& a) { return a.data == nullptr; }
template <typename T> WPI_FUNC void adj_unot(const T&, T&, bool) {}

// ---------------------------------------------------------------------------------------------
// div_approx: exact division (see the top of the file)

template <typename A, typename B> WPI_FUNC auto div_approx(const A& a, const B& b) -> decltype(div(a, b))
{
    return div(a, b);
}
template <typename A, typename B, typename R>
WPI_FUNC void adj_div_approx(const A& a, const B& b, A& adj_a, B& adj_b, const R& adj_ret)
{
    adj_div(a, b, adj_a, adj_b, adj_ret);
}

// scalar / matrix and scalar / quaternion: component-wise
template <unsigned R, unsigned C, typename T> WPI_FUNC mat_t<R, C, T> div(T s, const mat_t<R, C, T>& m)
{
    mat_t<R, C, T> r;
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j)
            r.data[i][j] = div(s, m.data[i][j]);   // integers: as scalars (x / 0 == 0)
    return r;
}
template <unsigned R, unsigned C, typename T>
WPI_FUNC void adj_div(T s, const mat_t<R, C, T>& m, T& adj_s, mat_t<R, C, T>& adj_m, const mat_t<R, C, T>& adj_ret)
{
    if (detail::is_int<T>::value) return;
    for (unsigned i = 0; i < R; ++i)
        for (unsigned j = 0; j < C; ++j) {
            const T inv = T(1) / m.data[i][j];
            adj_s += adj_ret.data[i][j] * inv;
            adj_m.data[i][j] -= adj_ret.data[i][j] * s * inv * inv;
        }
}
template <typename T> WPI_FUNC quat_t<T> div(T s, const quat_t<T>& q)
{
    return quat_t<T>(s / q.x, s / q.y, s / q.z, s / q.w);
}
template <typename T>
WPI_FUNC void adj_div(T s, const quat_t<T>& q, T& adj_s, quat_t<T>& adj_q, const quat_t<T>& adj_ret)
{
    for (unsigned i = 0; i < 4; ++i) {
        const T inv = T(1) / detail::comp(q, i);
        adj_s += detail::comp(adj_ret, i) * inv;
        detail::comp(adj_q, i) -= detail::comp(adj_ret, i) * s * inv * inv;
    }
}

// ---------------------------------------------------------------------------------------------
// vector norms

template <unsigned N, typename T> WPI_FUNC T norm_l1(const vec_t<N, T>& v)
{
    T s = T(0);
    for (unsigned i = 0; i < N; ++i)
        s += abs(v.c[i]);
    return s;
}
template <unsigned N, typename T> WPI_FUNC void adj_norm_l1(const vec_t<N, T>& v, vec_t<N, T>& adj_v, T adj_ret)
{
    for (unsigned i = 0; i < N; ++i)
        adj_v.c[i] += v.c[i] < T(0) ? -adj_ret : (v.c[i] > T(0) ? adj_ret : T(0));
}

template <unsigned N, typename T> WPI_FUNC T norm_l2(const vec_t<N, T>& v) { return length(v); }
template <unsigned N, typename T> WPI_FUNC void adj_norm_l2(const vec_t<N, T>& v, vec_t<N, T>& adj_v, T adj_ret)
{
    adj_length(v, adj_v, adj_ret);
}

// Huber: |v|^2 / 2 inside |v| <= delta, delta (|v| - delta / 2) outside
template <unsigned N, typename T> WPI_FUNC T norm_huber(const vec_t<N, T>& v, T delta)
{
    const T a = length_sq(v);
    if (a <= delta * delta)
        return T(0.5) * a;
    return delta * (sqrt(a) - T(0.5) * delta);
}
template <unsigned N, typename T>
WPI_FUNC void adj_norm_huber(const vec_t<N, T>& v, T delta, vec_t<N, T>& adj_v, T& adj_delta, T adj_ret)
{
    const T a = length_sq(v);
    if (a <= delta * delta) {
        adj_v += v * adj_ret;
        return;
    }
    const T l = sqrt(a);
    adj_v += v * (adj_ret * delta / l);
    adj_delta += adj_ret * (l - delta);
}
template <unsigned N, typename T> WPI_FUNC T norm_huber(const vec_t<N, T>& v) { return norm_huber(v, T(1)); }
template <unsigned N, typename T> WPI_FUNC void adj_norm_huber(const vec_t<N, T>& v, vec_t<N, T>& adj_v, T adj_ret)
{
    T adj_delta = T(0);
    adj_norm_huber(v, T(1), adj_v, adj_delta, adj_ret);
}

// pseudo-Huber: delta sqrt(1 + |v|^2 / delta^2)
template <unsigned N, typename T> WPI_FUNC T norm_pseudo_huber(const vec_t<N, T>& v, T delta)
{
    return delta * sqrt(T(1) + length_sq(v) / (delta * delta));
}
template <unsigned N, typename T>
WPI_FUNC void adj_norm_pseudo_huber(const vec_t<N, T>& v, T delta, vec_t<N, T>& adj_v, T& adj_delta, T adj_ret)
{
    const T a = length_sq(v);
    const T r = sqrt(T(1) + a / (delta * delta));
    adj_v += v * (adj_ret / (delta * r));
    adj_delta += adj_ret * (r - a / (delta * delta * r));
}
template <unsigned N, typename T> WPI_FUNC T norm_pseudo_huber(const vec_t<N, T>& v) { return norm_pseudo_huber(v, T(1)); }
template <unsigned N, typename T> WPI_FUNC void adj_norm_pseudo_huber(const vec_t<N, T>& v, vec_t<N, T>& adj_v, T adj_ret)
{
    T adj_delta = T(0);
    adj_norm_pseudo_huber(v, T(1), adj_v, adj_delta, adj_ret);
}

// v / pseudo-Huber norm: smooth at zero (unlike normalize)
template <unsigned N, typename T> WPI_FUNC vec_t<N, T> smooth_normalize(const vec_t<N, T>& v, T delta)
{
    return v / norm_pseudo_huber(v, delta);
}
template <unsigned N, typename T>
WPI_FUNC void adj_smooth_normalize(const vec_t<N, T>& v, T delta, vec_t<N, T>& adj_v, T& adj_delta,
                                   const vec_t<N, T>& adj_ret)
{
    const T h = norm_pseudo_huber(v, delta);
    // r = v / h: adj_v += adj_ret / h, adj_h = -(adj_ret . v) / h^2, then through h(v, delta)
    adj_v += adj_ret / h;
    adj_norm_pseudo_huber(v, delta, adj_v, adj_delta, -dot(adj_ret, v) / (h * h));
}
template <unsigned N, typename T> WPI_FUNC vec_t<N, T> smooth_normalize(const vec_t<N, T>& v)
{
    return smooth_normalize(v, T(1));
}
template <unsigned N, typename T>
WPI_FUNC void adj_smooth_normalize(const vec_t<N, T>& v, vec_t<N, T>& adj_v, const vec_t<N, T>& adj_ret)
{
    T adj_delta = T(0);
    adj_smooth_normalize(v, T(1), adj_v, adj_delta, adj_ret);
}

// ---------------------------------------------------------------------------------------------
// inverse_approx: the exact inverse (see the top of the file)

template <unsigned N, typename T> WPI_FUNC mat_t<N, N, T> inverse_approx(const mat_t<N, N, T>& m) { return inverse(m); }
template <unsigned N, typename T>
WPI_FUNC void adj_inverse_approx(const mat_t<N, N, T>& m, mat_t<N, N, T>& adj_m, const mat_t<N, N, T>& adj_ret)
{
    adj_inverse(m, adj_m, adj_ret);
}

// ---------------------------------------------------------------------------------------------
// svd2: A = U diag(sigma) V^T for 2x2 matrices. One Jacobi rotation V makes the columns of A V
// orthogonal (it diagonalizes A^T A exactly); their lengths are sigma, descending.

template <typename T>
WPI_FUNC void svd2(const mat_t<2, 2, T>& A, mat_t<2, 2, T>& U, vec_t<2, T>& sigma, mat_t<2, 2, T>& V)
{
    const T alpha = A.data[0][0] * A.data[0][0] + A.data[1][0] * A.data[1][0];
    const T beta = A.data[0][1] * A.data[0][1] + A.data[1][1] * A.data[1][1];
    const T gamma = A.data[0][0] * A.data[0][1] + A.data[1][0] * A.data[1][1];
    T c = T(1), s = T(0);
    if (gamma != T(0))
        detail::jacobi_angle(alpha, beta, gamma, c, s);
    vec_t<2, T> v0(c, -s), v1(s, c);            // the rotation's columns, as rotate_cols uses them
    vec_t<2, T> u0 = mul(A, v0), u1 = mul(A, v1);
    T s0 = length(u0), s1 = length(u1);
    if (s0 < s1) {
        const vec_t<2, T> tv = v0, tu = u0;
        const T ts = s0;
        v0 = v1, u0 = u1, s0 = s1;
        v1 = -tv, u1 = -tu, s1 = ts;            // keep det(V) = +1
    }
    sigma = vec_t<2, T>(s0, s1);
    V = matrix_from_cols(v0, v1);
    if (!(s0 > T(0))) {
        U = identity<2, T>();
        return;
    }
    u0 = u0 / s0;
    // a (numerically) zero second singular value: complete the basis
    u1 = s1 > s0 * detail::epsilon(T(0)) ? u1 / s1 : vec_t<2, T>(-u0.c[1], u0.c[0]);
    U = matrix_from_cols(u0, u1);
}
// Townsend (2016), as adj_svd3
template <typename T>
WPI_FUNC void adj_svd2(const mat_t<2, 2, T>& A, const mat_t<2, 2, T>& U, const vec_t<2, T>& sigma, const mat_t<2, 2, T>& V,
                       mat_t<2, 2, T>& adj_A, mat_t<2, 2, T>& adj_U, vec_t<2, T>& adj_sigma, mat_t<2, 2, T>& adj_V)
{
    detail::adj_svd_square(U, sigma, V, adj_A, adj_U, adj_sigma, adj_V);
}
// float16 SVDs (2x2 and 3x3): computed in float32 and rounded once, like eig3/qr3 in mat.h;
// the adjoint recomputes the float32 decomposition from A rather than widen rounded outputs.
namespace detail {
template <typename T> WPI_FUNC void svd_n(const mat_t<2, 2, T>& A, mat_t<2, 2, T>& U, vec_t<2, T>& s, mat_t<2, 2, T>& V)
{
    svd2(A, U, s, V);
}
template <typename T> WPI_FUNC void svd_n(const mat_t<3, 3, T>& A, mat_t<3, 3, T>& U, vec_t<3, T>& s, mat_t<3, 3, T>& V)
{
    svd3(A, U, s, V);
}
template <unsigned N>
WPI_FUNC void svd_half(const mat_t<N, N, half>& A, mat_t<N, N, half>& U, vec_t<N, half>& sigma, mat_t<N, N, half>& V)
{
    mat_t<N, N, float32> u, v;
    vec_t<N, float32> s;
    svd_n(widen(A), u, s, v);
    U = narrow(u), sigma = narrow(s), V = narrow(v);
}
template <unsigned N>
WPI_FUNC void adj_svd_half(const mat_t<N, N, half>& A, mat_t<N, N, half>& adj_A, mat_t<N, N, half>& adj_U,
                           vec_t<N, half>& adj_sigma, mat_t<N, N, half>& adj_V)
{
    const mat_t<N, N, float32> a = widen(A);
    mat_t<N, N, float32> u, v, adj_a, adj_u = widen(adj_U), adj_v = widen(adj_V);
    vec_t<N, float32> s, adj_s = widen(adj_sigma);
    svd_n(a, u, s, v);
    adj_svd_square(u, s, v, adj_a, adj_u, adj_s, adj_v);
    adj_A += narrow(adj_a);
    adj_U = mat_t<N, N, half>(), adj_sigma = vec_t<N, half>(), adj_V = mat_t<N, N, half>();
}
}  // namespace detail

WPI_FUNC void svd2(const mat_t<2, 2, half>& A, mat_t<2, 2, half>& U, vec_t<2, half>& sigma, mat_t<2, 2, half>& V)
{
    detail::svd_half(A, U, sigma, V);
}
WPI_FUNC void adj_svd2(const mat_t<2, 2, half>& A, const mat_t<2, 2, half>&, const vec_t<2, half>&, const mat_t<2, 2, half>&,
                       mat_t<2, 2, half>& adj_A, mat_t<2, 2, half>& adj_U, vec_t<2, half>& adj_sigma, mat_t<2, 2, half>& adj_V)
{
    detail::adj_svd_half(A, adj_A, adj_U, adj_sigma, adj_V);
}
WPI_FUNC void svd3(const mat_t<3, 3, half>& A, mat_t<3, 3, half>& U, vec_t<3, half>& sigma, mat_t<3, 3, half>& V)
{
    detail::svd_half(A, U, sigma, V);
}
WPI_FUNC void adj_svd3(const mat_t<3, 3, half>& A, const mat_t<3, 3, half>&, const vec_t<3, half>&, const mat_t<3, 3, half>&,
                       mat_t<3, 3, half>& adj_A, mat_t<3, 3, half>& adj_U, vec_t<3, half>& adj_sigma, mat_t<3, 3, half>& adj_V)
{
    detail::adj_svd_half(A, adj_A, adj_U, adj_sigma, adj_V);
}

}  // namespace wp

#undef WPI_XLIBM32
#undef WPI_XLIBM64
