// Standalone test of the builtin math headers: values, and every adjoint against central finite
// differences in double.
//   g++ -std=c++17 -Wall -I native/include native/tests_cpp/test_math.cpp -o test_math && ./test_math
#include "warp_interactive/math/spatial.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

using wp::float32;
using wp::float64;
using wp::half;
using wp::int32;
using wp::int64;
using wp::int8;
using wp::uint32;
using wp::uint8;

typedef wp::vec_t<2, double> vec2;
typedef wp::vec_t<3, double> vec3;
typedef wp::vec_t<4, double> vec4;
typedef wp::vec_t<6, double> vec6;
typedef wp::mat_t<2, 2, double> mat22;
typedef wp::mat_t<2, 3, double> mat23;
typedef wp::mat_t<3, 2, double> mat32;
typedef wp::mat_t<3, 3, double> mat33;
typedef wp::mat_t<4, 4, double> mat44;
typedef wp::mat_t<6, 6, double> mat66;
typedef wp::quat_t<double> quat;
typedef wp::transform_t<double> transform;

static const double kPi = 3.14159265358979323846;

static int g_passed = 0, g_failed = 0;

static void check(bool ok, const char* what, double got = 0, double want = 0)
{
    if (ok) {
        ++g_passed;
    } else {
        ++g_failed;
        std::printf("FAIL %s (got %.17g, want %.17g)\n", what, got, want);
    }
}

static void check_near(const char* what, double got, double want, double tol = 1e-12)
{
    check(std::fabs(got - want) <= tol * (1.0 + std::fabs(want)), what, got, want);
}

// ---------------------------------------------------------------------------------------------
// every tested type is a standard-layout aggregate of doubles: view it as a flat array

template <typename X> constexpr int ndof() { return int(sizeof(X) / sizeof(double)); }

template <typename X> static void put(const X& x, std::vector<double>& out)
{
    const double* p = reinterpret_cast<const double*>(&x);
    out.insert(out.end(), p, p + ndof<X>());
}

template <typename X> static void get(X& x, const double*& p)
{
    std::memcpy(static_cast<void*>(&x), p, sizeof(X));
    p += ndof<X>();
}

template <typename X> static std::vector<double> flat(const X& x)
{
    std::vector<double> v;
    put(x, v);
    return v;
}

template <typename X> static void check_all_near(const char* what, const X& got, const X& want, double tol = 1e-12)
{
    const std::vector<double> a = flat(got), b = flat(want);
    for (size_t i = 0; i < a.size(); ++i)
        check_near(what, a[i], b[i], tol);
}

static std::mt19937_64 g_rng(1234);

static double rnd(double lo = -1.0, double hi = 1.0) { return std::uniform_real_distribution<double>(lo, hi)(g_rng); }

template <typename X> static X random_value()
{
    X x;
    double* p = reinterpret_cast<double*>(&x);
    for (int i = 0; i < ndof<X>(); ++i)
        p[i] = rnd();
    return x;
}

// Checks adj(args..., adj_args&..., adj_ret) against central differences of dot(adj_ret, f(args...)).
template <typename F, typename FA, typename... Args>
static void grad_check(const char* name, F f, FA adj, const Args&... args)
{
    typedef decltype(f(args...)) R;
    const R g = random_value<R>();

    std::tuple<Args...> adj_args{};  // zero, as codegen's `T adj = {};`
    std::apply([&](auto&... a) { adj(args..., a..., g); }, adj_args);
    std::vector<double> analytic;
    std::apply([&](const auto&... a) { (put(a, analytic), ...); }, adj_args);

    std::vector<double> x0;
    (put(args, x0), ...);
    auto eval = [&](const std::vector<double>& x) {
        std::tuple<Args...> t;
        const double* p = x.data();
        std::apply([&](auto&... a) { (get(a, p), ...); }, t);
        const std::vector<double> r = flat(std::apply(f, t)), gv = flat(g);
        double s = 0.0;
        for (size_t i = 0; i < r.size(); ++i)
            s += r[i] * gv[i];
        return s;
    };

    const double h = 1e-6;
    bool ok = true;
    for (size_t i = 0; i < x0.size(); ++i) {
        std::vector<double> xp = x0, xm = x0;
        xp[i] += h;
        xm[i] -= h;
        const double fd = (eval(xp) - eval(xm)) / (2.0 * h);
        if (!(std::fabs(analytic[i] - fd) <= 1e-6 * (1.0 + std::fabs(fd)))) {
            std::printf("FAIL adj_%s: d/dx[%zu] analytic %.12g, finite difference %.12g\n", name, i, analytic[i], fd);
            ok = false;
        }
    }
    if (ok)
        ++g_passed;
    else
        ++g_failed;
}

#define FWD(fn) [](const auto&... a) { return wp::fn(a...); }
#define ADJ(fn) [](auto&&... a) { wp::adj_##fn(a...); }
#define GRAD(fn, ...) grad_check(#fn, FWD(fn), ADJ(fn), __VA_ARGS__)

// ---------------------------------------------------------------------------------------------
// half

static uint16_t half_bits(float f)
{
    const half h(f);
    return h.bits;
}

static void test_half()
{
    // every half converts to float and back unchanged (NaNs become the quiet NaN)
    bool roundtrip = true;
    for (uint32_t b = 0; b < 0x10000u; ++b) {
        half h;
        h.bits = uint16_t(b);
        const float f = float(h);
        const bool nan = (b & 0x7c00u) == 0x7c00u && (b & 0x3ffu);
        const uint16_t back = half(f).bits;
        if (nan ? !(std::isnan(f) && (back & 0x7fffu) == 0x7e00u) : back != b)
            roundtrip = false;
    }
    check(roundtrip, "half: bits -> float -> bits");

    check(half_bits(1.0f) == 0x3c00, "half(1)");
    check(half_bits(-2.0f) == 0xc000, "half(-2)");
    check(half_bits(65504.0f) == 0x7bff, "half(max)");
    check(half_bits(65519.99f) == 0x7bff, "half(65519.99) rounds down to max");
    check(half_bits(65520.0f) == 0x7c00, "half(65520) rounds to inf");
    check(half_bits(INFINITY) == 0x7c00 && half_bits(-INFINITY) == 0xfc00, "half(inf)");
    check(half_bits(5.9604645e-8f) == 0x0001, "half(smallest subnormal)");
    check(half_bits(2.9802322e-8f) == 0x0000, "half(2^-25) ties to even zero");
    check(half_bits(2.9802326e-8f) == 0x0001, "half(just above 2^-25)");
    check(half_bits(-0.0f) == 0x8000, "half(-0)");
    check(half_bits(1.0f + 1.0f / 2048.0f) == 0x3c00, "half(1 + ulp/2) ties to even");
    check(half_bits(1.0f + 3.0f / 2048.0f) == 0x3c02, "half(1 + 3 ulp/2) ties to even");
    check(std::isnan(float(half(NAN))), "half(nan)");

#ifdef __FLT16_MANT_DIG__
    // float -> half against the compiler's _Float16 on random bit patterns
    bool same = true;
    std::uniform_int_distribution<uint32_t> bits;
    for (int i = 0; i < 2000000; ++i) {
        uint32_t u = bits(g_rng);
        if (i % 2)  // concentrate on the half range
            u = (u & 0x83ffffffu) | ((0x60u + (u >> 24) % 0x20u) << 23);
        float f;
        std::memcpy(&f, &u, 4);
        if (std::isnan(f))
            continue;
        const _Float16 ref = _Float16(f);
        uint16_t rb;
        std::memcpy(&rb, &ref, 2);
        if (rb != half_bits(f)) {
            std::printf("half(%a): 0x%04x, _Float16 0x%04x\n", double(f), half_bits(f), rb);
            same = false;
            break;
        }
    }
    check(same, "half(float) matches _Float16 rounding");
#endif

    const half a(1.5f), b(-0.25f);
    check(float(a + b) == 1.25f && float(a * b) == -0.375f && float(a / b) == -6.0f && float(a - b) == 1.75f, "half arithmetic");
    check(b < a && a > b && a != b && !(a == b) && a >= a && b <= b, "half comparisons");
    check(float(wp::sqrt(half(4.0f))) == 2.0f && float(wp::abs(b)) == 0.25f && float(-a) == -1.5f, "half math");
    check(double(a) == 1.5 && int32(half(-3.0f)) == -3 && uint8(half(7.0f)) == 7, "half casts");
    check(float(wp::floordiv(half(7.0f), half(-2.0f))) == -4.0f && float(wp::mod(half(7.0f), half(-2.0f))) == 1.0f, "half floordiv/mod (truncated remainder)");
}

// ---------------------------------------------------------------------------------------------
// scalars

static void test_int_ops()
{
    const int32 imin = std::numeric_limits<int32>::min();
    check(wp::div(7, 2) == 3 && wp::div(-7, 2) == -3 && wp::div(7, 0) == 0 && wp::div(imin, -1) == imin, "int div");
    check(wp::floordiv(7, 2) == 3 && wp::floordiv(-7, 2) == -4 && wp::floordiv(7, -2) == -4 && wp::floordiv(-7, -2) == 3,
          "int floordiv");
    check(wp::floordiv(6, -2) == -3 && wp::floordiv(5, 0) == 0 && wp::floordiv(imin, -1) == imin, "int floordiv edge cases");
    check(wp::mod(7, 3) == 1 && wp::mod(-7, 3) == -1 && wp::mod(7, -3) == 1 && wp::mod(-7, -3) == -1 && wp::mod(6, -3) == 0,
          "int mod (C's truncated remainder, as warp-lang)");
    check(wp::mod(5, 0) == 0 && wp::mod(imin, -1) == 0, "int mod edge cases");
    check(wp::mod(uint32(7), uint32(3)) == 1 && wp::floordiv(uint32(7), uint32(2)) == 3 && wp::div(uint32(7), uint32(0)) == 0,
          "unsigned div/mod");
    check(wp::floordiv(int8(-7), int8(2)) == -4 && wp::mod(int8(-7), int8(2)) == -1, "int8 floordiv/mod");
    check(wp::pow(3, 4) == 81 && wp::pow(-2, 3) == -8 && wp::pow(5, 0) == 1 && wp::pow(2, -1) == 0 && wp::pow(-1, -3) == -1 &&
              wp::pow(int64(2), int64(40)) == (int64(1) << 40) && wp::pow(int32(3), int32(20)) == int32(-808182895) &&
              wp::pow(int8(-3), int8(3)) == -27 && wp::pow(uint8(2), uint8(9)) == 0,
          "int pow");
    check(wp::bit_and(12, 10) == 8 && wp::bit_or(12, 10) == 14 && wp::bit_xor(12, 10) == 6 && wp::lshift(1, 4) == 16 &&
              wp::rshift(-16, 2) == -4 && wp::invert(0) == -1 && wp::invert(uint8(1)) == 254,
          "bit ops");
    check(wp::abs(-3) == 3 && wp::sign(-3) == -1 && wp::sign(0) == 1 && wp::min(2, -1) == -1 && wp::max(2, -1) == 2 &&
              wp::clamp(5, 0, 3) == 3,
          "int abs/sign/min/max/clamp");
    check(wp::lt(1, 2) && wp::le(2, 2) && wp::gt(3, 2) && wp::ge(2, 2) && wp::eq(2, 2) && wp::ne(1, 2), "int comparisons");
    check(!wp::isnan(3) && !wp::isinf(3) && wp::isfinite(3), "int classification");

    // integer adjoints are ignored
    int32 ai = 0, bi = 0;
    wp::adj_add(1, 2, ai, bi, 5);
    wp::adj_mul(1, 2, ai, bi, 5);
    wp::adj_pow(1, 2, ai, bi, 5);
    wp::adj_max(1, 2, ai, bi, 5);
    double ad = 0.0;
    wp::adj_cast<double, int32>(3, ai, 1.0);
    wp::adj_cast<int32, double>(3.5, ad, 1);
    check(ai == 0 && bi == 0 && ad == 0.0, "integer adjoints are ignored");
}

static void test_scalar_values()
{
    check_near("floordiv(1, 0.1) == floor(1 / 0.1) == 10 (warp-lang)", wp::floordiv(1.0, 0.1), 10.0);
    check_near("mod(1, 0.1) (fmod)", wp::mod(1.0, 0.1), 0.09999999999999995);
    check_near("floordiv(-7.5, 2)", wp::floordiv(-7.5, 2.0), -4.0);
    check_near("mod(-7.5, 2)", wp::mod(-7.5, 2.0), -1.5);
    check_near("mod(7.5, -2)", wp::mod(7.5, -2.0), 1.5);
    check_near("floordiv(7.5f, -2f)", wp::floordiv(7.5f, -2.0f), -4.0);
    check_near("mod(-1e-20, 1) == -1e-20 (sign of a)", wp::mod(-1e-20, 1.0), -1e-20);
    check_near("round(2.5)", wp::round(2.5), 3.0);
    check_near("round(-2.5)", wp::round(-2.5), -3.0);
    check_near("rint(2.5)", wp::rint(2.5), 2.0);
    check_near("rint(3.5f)", wp::rint(3.5f), 4.0);
    check_near("trunc(-2.7)", wp::trunc(-2.7), -2.0);
    check_near("frac(-2.75)", wp::frac(-2.75), -0.75);
    check_near("floor/ceil", wp::floor(-1.5) + wp::ceil(1.2), 0.0);
    check_near("step", wp::step(-1.0) + 2 * wp::step(1.0) + 4 * wp::step(0.0), 1.0);
    check_near("nonzero", wp::nonzero(-3.0) + 2 * wp::nonzero(0.0), 1.0);
    check_near("sign(0.0)", wp::sign(0.0), 1.0);
    check_near("abs(-0.0) sign bit", std::signbit(wp::abs(-0.0)) ? 1.0 : 0.0, 0.0);
    check_near("smoothstep mid", wp::smoothstep(0.0, 2.0, 1.0), 0.5);
    check_near("smoothstep clamped", wp::smoothstep(0.0, 2.0, 3.0), 1.0);
    check_near("lerp", wp::lerp(1.0, 3.0, 0.25), 1.5);
    check_near("degrees", wp::degrees(kPi), 180.0);
    check_near("radians", wp::radians(90.0f), kPi / 2, 1e-7);
    check_near("cbrt", wp::cbrt(-27.0), -3.0);
    check_near("log2/log10", wp::log2(8.0) + wp::log10(1000.0f), 6.0, 1e-7);
    check_near("erf(0.5)", wp::erf(0.5), 0.5204998778130465);
    check_near("erfc(0.5f)", wp::erfc(0.5f), 0.4795001221869535, 1e-7);
    check_near("atan2", wp::atan2(1.0, -1.0), 3 * kPi / 4);
    check_near("pow float", wp::pow(2.0f, 0.5f), std::sqrt(2.0), 1e-7);
    check(wp::isnan(NAN) && wp::isnan(double(NAN)) && !wp::isnan(1.0f) && wp::isinf(-INFINITY) && !wp::isfinite(INFINITY) &&
              wp::isfinite(1.0) && wp::isnan(half(NAN)),
          "float classification");
    check(wp::cast<int32>(-2.7) == -2 && wp::cast<float>(half(0.5f)) == 0.5f && float(wp::cast<half>(3)) == 3.0f, "casts");
    check(wp::lt(1.0, 2.0) && !wp::gt(1.0f, 2.0f) && wp::eq(half(1.0f), half(1.0f)), "float comparisons");
}

static void test_scalar_grads()
{
    const double a = 0.7, b = -1.3, p = 1.9;
    GRAD(add, a, b);
    GRAD(sub, a, b);
    GRAD(mul, a, b);
    GRAD(div, a, b);
    GRAD(mod, 5.3, 1.7);
    GRAD(mod, -5.3, 1.7);
    GRAD(mod, 5.3, -1.7);
    GRAD(mod, -5.3, -1.7);
    GRAD(floordiv, 5.3, 1.7);
    GRAD(pow, p, b);
    GRAD(neg, a);
    GRAD(pos, a);
    GRAD(abs, b);
    GRAD(abs, a);
    GRAD(sign, b);
    GRAD(min, a, b);
    GRAD(min, b, a);
    GRAD(max, a, b);
    GRAD(max, b, a);
    GRAD(clamp, a, b, p);
    GRAD(clamp, b, -1.0, p);
    GRAD(clamp, 2.5, b, p);
    GRAD(sqrt, p);
    GRAD(cbrt, b);
    GRAD(exp, a);
    GRAD(log, p);
    GRAD(log2, p);
    GRAD(log10, p);
    GRAD(sin, a);
    GRAD(cos, a);
    GRAD(tan, a);
    GRAD(asin, a);
    GRAD(acos, a);
    GRAD(atan, b);
    GRAD(atan2, a, b);
    GRAD(atan2, b, a);
    GRAD(sinh, a);
    GRAD(cosh, b);
    GRAD(tanh, a);
    GRAD(floor, 1.5);
    GRAD(ceil, 1.5);
    GRAD(round, 1.3);
    GRAD(rint, 1.3);
    GRAD(trunc, -1.5);
    GRAD(frac, -1.25);
    GRAD(step, a);
    GRAD(nonzero, a);
    GRAD(lerp, a, b, 0.3);
    GRAD(smoothstep, -0.5, 1.5, 0.2);
    GRAD(smoothstep, 1.5, -0.5, 0.2);
    GRAD(smoothstep, -0.5, 1.5, 2.0);
    GRAD(degrees, a);
    GRAD(radians, a);
    GRAD(erf, a);
    GRAD(erfc, b);
    grad_check("cast", [](double x) { return wp::cast<double>(x); },
               [](double x, double& adj_x, double g) { wp::adj_cast<double>(x, adj_x, g); }, a);
}

// ---------------------------------------------------------------------------------------------
// vectors

static void test_vec()
{
    const vec3 a(1.0, -2.0, 0.5), b(0.3, 0.4, -1.2);
    check_all_near("cross", wp::cross(a, b), vec3(2.2, 1.35, 1.0));
    check_near("dot", wp::dot(a, b), -1.1);
    check_near("length", wp::length(vec2(3.0, 4.0)), 5.0);
    check_all_near("normalize(0)", wp::normalize(vec3()), vec3());
    check_all_near("div(s, v)", wp::div(2.0, vec2(4.0, -8.0)), vec2(0.5, -0.25));
    check(wp::argmin(a) == 1 && wp::argmax(a) == 0 && wp::len(a) == 3, "argmin/argmax/len");
    check(wp::eq(a, a) && wp::ne(a, b) && !wp::eq(a, b), "vec eq/ne");
    check_all_near("assign", wp::assign(a, 1, 7.0), vec3(1.0, 7.0, 0.5));
    check_near("extract", wp::extract(a, 2), 0.5);
    check_all_near("fill ctor", vec4(2.5), vec4(2.5, 2.5, 2.5, 2.5));
    check_all_near("cast ctor", vec3(wp::vec_t<3, float>(a)), a);
    check_all_near("N=6 ctor", wp::spatial_top(vec6(1, 2, 3, 4, 5, 6)), vec3(1, 2, 3));
    check(wp::vec_t<3, int32>(1, 2, 3) == wp::vec_t<3, int32>(vec3(1.5, 2.5, 3.5)), "int vector cast truncates");

    const vec6 s6 = random_value<vec6>(), t6 = random_value<vec6>();
    grad_check("vec_t(2 components)", [](double x, double y) { return vec2(x, y); }, ADJ(vec_t), 0.1, 0.2);
    grad_check("vec_t(3 components)", [](double x, double y, double z) { return vec3(x, y, z); }, ADJ(vec_t), 0.1, 0.2, 0.3);
    grad_check("vec_t(6 components)", [](double x0, double x1, double x2, double x3, double x4, double x5) {
        return vec6(x0, x1, x2, x3, x4, x5);
    }, ADJ(vec_t), 1.0, 2.0, 3.0, 4.0, 5.0, 6.0);
    grad_check("vec_t(fill)", [](double s) { return vec4(s); }, ADJ(vec_t), 0.4);
    grad_check("vec_t(cast)", [](const vec3& v) { return vec3(v); }, ADJ(vec_t), a);
    {
        // float -> double cast: the adjoint flows back in float
        wp::vec_t<3, float> vf(1.0f, 2.0f, 3.0f), adj_vf;
        wp::adj_vec_t(vf, adj_vf, vec3(1.0, 2.0, 3.0));
        check(adj_vf == vf, "adj_vec_t(float -> double cast)");
        wp::adj_vec_t(vec3());
    }
    GRAD(add, a, b);
    GRAD(sub, a, b);
    GRAD(neg, a);
    GRAD(pos, a);
    GRAD(mul, a, 1.7);
    GRAD(mul, -0.6, b);
    GRAD(div, a, 1.7);
    GRAD(div, 1.3, b);
    GRAD(dot, a, b);
    GRAD(dot, s6, t6);
    GRAD(cross, a, b);
    GRAD(length, a);
    GRAD(length_sq, a);
    GRAD(normalize, a);
    GRAD(normalize, s6);
    GRAD(cw_mul, a, b);
    GRAD(cw_div, a, b);
    GRAD(min, a, b);
    GRAD(max, a, b);
    GRAD(abs, a);
    GRAD(lerp, a, b, 0.3);
    grad_check("extract", [](const vec3& v) { return wp::extract(v, 1); },
               [](const vec3& v, vec3& adj_v, double g) {
                   int32 adj_i = 0;
                   wp::adj_extract(v, 1, adj_v, adj_i, g);
               },
               a);
    grad_check("assign", [](const vec3& v, double x) { return wp::assign(v, 2, x); },
               [](const vec3& v, double x, vec3& adj_v, double& adj_x, const vec3& g) {
                   int32 adj_i = 0;
                   wp::adj_assign(v, 2, x, adj_v, adj_i, adj_x, g);
               },
               a, 0.9);
    vec3 adj;
    uint32 ret = 0;
    wp::adj_argmin(a, adj, ret);
    wp::adj_argmax(a, adj, ret);
    wp::adj_len(a, adj, 3);
    wp::adj_eq(a, b, adj, adj, true);
    check(adj == vec3(), "argmin/argmax/len/eq adjoints are no-ops");
}

// ---------------------------------------------------------------------------------------------
// matrices

static mat33 random_rotation()
{
    return wp::quat_to_matrix(wp::normalize(random_value<quat>()));
}

template <unsigned N> static void check_orthogonal(const char* what, const wp::mat_t<N, N, double>& q, double tol)
{
    check_all_near(what, wp::mul(wp::transpose(q), q), wp::identity<N, double>(), tol);
}

static bool upper_triangular(const mat33& r)
{
    return r.data[1][0] == 0.0 && r.data[2][0] == 0.0 && r.data[2][1] == 0.0;
}

static void test_decompositions()
{
    // eig3 of symmetric matrices, with repeated eigenvalues too
    const mat33 rot = random_rotation();
    const mat33 cases[] = {
        random_value<mat33>(),
        wp::mul(wp::mul(rot, wp::diag(vec3(2.0, 1.0, 2.0))), wp::transpose(rot)),
        wp::identity<3, double>(),
        mat33(),
        wp::mul(wp::mul(rot, wp::diag(vec3(0.0, 1e-9, 5.0))), wp::transpose(rot)),
    };
    for (const mat33& m : cases) {
        const mat33 sym = (m + wp::transpose(m)) * 0.5;
        mat33 q;
        vec3 d;
        wp::eig3(m, q, d);
        check_orthogonal("eig3: Q orthogonal", q, 1e-13);
        check_all_near("eig3: Q diag(d) Q^T", wp::mul(wp::mul(q, wp::diag(d)), wp::transpose(q)), sym, 1e-13);
        check(d.c[0] <= d.c[1] && d.c[1] <= d.c[2], "eig3: ascending");
    }

    // svd3, including rank-deficient matrices
    const vec3 u = random_value<vec3>(), v = random_value<vec3>();
    const mat33 svd_cases[] = {
        random_value<mat33>(),
        wp::outer(u, v),                                              // rank 1
        wp::outer(u, v) + wp::outer(v, u),                            // rank 2
        mat33(),                                                      // zero
        wp::mul(rot, wp::diag(vec3(1e-3, 3.0, 1e-300))),              // tiny singular value
        wp::identity<3, double>() * -1.0,                             // det -1
        mat33(1, 2, 3, 4, 5, 6, 7, 8, 9),                             // singular
    };
    for (const mat33& m : svd_cases) {
        mat33 U, V;
        vec3 s;
        wp::svd3(m, U, s, V);
        check_orthogonal("svd3: U orthogonal", U, 1e-13);
        check_orthogonal("svd3: V orthogonal", V, 1e-13);
        check_all_near("svd3: U diag(s) V^T", wp::mul(wp::mul(U, wp::diag(s)), wp::transpose(V)), m, 1e-13);
        check(s.c[0] >= s.c[1] && s.c[1] >= s.c[2] && s.c[2] >= 0.0, "svd3: descending, non-negative");
    }
    {
        mat33 U, V;
        vec3 s;
        wp::svd3(wp::diag(vec3(1.0, 3.0, 2.0)), U, s, V);
        check_all_near("svd3: singular values", s, vec3(3.0, 2.0, 1.0), 1e-14);
    }

    for (const mat33& m : svd_cases) {
        mat33 Q, R;
        wp::qr3(m, Q, R);
        check_orthogonal("qr3: Q orthogonal", Q, 1e-13);
        check_all_near("qr3: Q R", wp::mul(Q, R), m, 1e-13);
        check(upper_triangular(R) && R.data[0][0] >= 0 && R.data[1][1] >= 0 && R.data[2][2] >= 0, "qr3: R upper, diag >= 0");
    }

    // single precision
    const wp::mat_t<3, 3, float> mf(random_value<mat33>());
    wp::mat_t<3, 3, float> Uf, Vf, Qf, Rf;
    wp::vec_t<3, float> sf;
    wp::svd3(mf, Uf, sf, Vf);
    check_all_near("svd3 float", mat33(wp::mul(wp::mul(Uf, wp::diag(sf)), wp::transpose(Vf))), mat33(mf), 1e-5);
    wp::qr3(mf, Qf, Rf);
    check_all_near("qr3 float", mat33(wp::mul(Qf, Rf)), mat33(mf), 1e-5);
    wp::eig3(mf, Qf, sf);
    check_all_near("eig3 float", mat33(wp::mul(wp::mul(Qf, wp::diag(sf)), wp::transpose(Qf))),
                   mat33((mf + wp::transpose(mf)) * 0.5f), 1e-5);
}

static void test_mat()
{
    const mat33 m(2, 0, 1, 1, 3, 0, 0, 1, 4);
    check_near("det3", wp::determinant(m), 25.0);
    check_near("det2", wp::determinant(mat22(1, 2, 3, 4)), -2.0);
    check_near("det4", wp::determinant(mat44(1, 0, 2, 0, 0, 3, 0, 1, 2, 0, 5, 0, 0, 1, 0, 2)), 5.0);
    check_all_near("inverse2", wp::mul(mat22(1, 2, 3, 4), wp::inverse(mat22(1, 2, 3, 4))), wp::identity<2, double>());
    check_all_near("inverse3", wp::mul(m, wp::inverse(m)), wp::identity<3, double>(), 1e-14);
    const mat44 r4 = random_value<mat44>();
    check_all_near("inverse4", wp::mul(r4, wp::inverse(r4)), wp::identity<4, double>(), 1e-12);
    check_all_near("inverse(singular) = 0", wp::inverse(mat33(1, 2, 3, 2, 4, 6, 0, 1, 0)), mat33());
    check_near("trace", wp::trace(m), 9.0);
    check_all_near("transpose", wp::transpose(mat23(1, 2, 3, 4, 5, 6)), mat32(1, 4, 2, 5, 3, 6));
    check_all_near("mat * vec", wp::mul(mat23(1, 2, 3, 4, 5, 6), vec3(1, 0, -1)), vec2(-2, -2));
    check_all_near("vec * mat", wp::mul(vec2(1, -1), mat23(1, 2, 3, 4, 5, 6)), vec3(-3, -3, -3));
    check_all_near("mat * mat", wp::mul(mat23(1, 2, 3, 4, 5, 6), mat32(1, 0, 0, 1, 1, 1)), mat22(4, 5, 10, 11));
    check_all_near("skew", wp::mul(wp::skew(vec3(1, 2, 3)), vec3(-1, 0.5, 2)), wp::cross(vec3(1, 2, 3), vec3(-1, 0.5, 2)));
    check_all_near("rows", wp::matrix_from_rows(vec2(1, 2), vec2(3, 4), vec2(5, 6)), mat32(1, 2, 3, 4, 5, 6));
    check_all_near("cols", wp::matrix_from_cols(vec3(1, 2, 3), vec3(4, 5, 6)), mat32(1, 4, 2, 5, 3, 6));
    check_all_near("extract row", wp::extract(m, 1), vec3(1, 3, 0));
    check_near("extract entry", wp::extract(m, 2, 1), 1.0);
    check_all_near("assign entry", wp::assign(mat22(), 1, 0, 5.0), mat22(0, 0, 5, 0));
    check_all_near("assign row", wp::assign(mat22(), 0, vec2(1, 2)), mat22(1, 2, 0, 0));
    check_all_near("diag / get_diag", wp::get_diag(wp::diag(vec3(1, 2, 3))), vec3(1, 2, 3));
    check_near("ddot", wp::ddot(mat22(1, 2, 3, 4), mat22(1, 1, 1, -1)), 2.0);
    check(wp::eq(m, m) && wp::ne(m, wp::transpose(m)), "mat eq/ne");
    check_all_near("mat fill", mat22(3.0), mat22(3, 3, 3, 3));

    const mat33 a = random_value<mat33>(), b = random_value<mat33>();
    const mat23 c = random_value<mat23>();
    const mat32 d = random_value<mat32>();
    const vec3 v = random_value<vec3>();
    const vec2 w = random_value<vec2>();
    grad_check("mat_t(components)", [](double x0, double x1, double x2, double x3) { return mat22(x0, x1, x2, x3); },
               ADJ(mat_t), 1.0, 2.0, 3.0, 4.0);
    grad_check("mat_t(components 2x3)", [](double x0, double x1, double x2, double x3, double x4, double x5) {
        return mat23(x0, x1, x2, x3, x4, x5);
    }, ADJ(mat_t), 1.0, 2.0, 3.0, 4.0, 5.0, 6.0);
    grad_check("mat_t(fill)", [](double s) { return mat23(s); }, ADJ(mat_t), 0.5);
    grad_check("mat_t(cast)", [](const mat23& x) { return mat23(x); }, ADJ(mat_t), c);
    grad_check("matrix_from_rows", [](const vec3& r0, const vec3& r1) { return wp::matrix_from_rows(r0, r1); },
               ADJ(matrix_from_rows), v, -v);
    grad_check("matrix_from_rows(4)", [](const vec2& r0, const vec2& r1, const vec2& r2, const vec2& r3) {
        return wp::matrix_from_rows(r0, r1, r2, r3);
    }, ADJ(matrix_from_rows), w, -w, w * 2.0, w * 3.0);
    grad_check("matrix_from_cols", [](const vec3& c0, const vec3& c1, const vec3& c2) { return wp::matrix_from_cols(c0, c1, c2); },
               ADJ(matrix_from_cols), v, -v, v * 2.0);
    GRAD(add, a, b);
    GRAD(sub, a, b);
    GRAD(neg, c);
    GRAD(pos, c);
    GRAD(mul, c, 1.3);
    GRAD(mul, -0.4, c);
    GRAD(div, c, 1.3);
    GRAD(mul, c, v);
    GRAD(mul, w, c);
    GRAD(mul, a, b);
    GRAD(mul, c, d);
    GRAD(mul, d, c);
    GRAD(outer, w, v);
    GRAD(ddot, a, b);
    GRAD(transpose, c);
    GRAD(diag, v);
    GRAD(get_diag, a);
    GRAD(trace, a);
    GRAD(skew, v);
    GRAD(determinant, random_value<mat22>());
    GRAD(determinant, a);
    GRAD(determinant, random_value<mat44>());
    GRAD(inverse, random_value<mat22>());
    GRAD(inverse, a);
    GRAD(inverse, random_value<mat44>());
    grad_check("extract(m, i)", [](const mat23& x) { return wp::extract(x, 1); },
               [](const mat23& x, mat23& adj_x, const vec3& g) {
                   int32 adj_i = 0;
                   wp::adj_extract(x, 1, adj_x, adj_i, g);
               },
               c);
    grad_check("extract(m, i, j)", [](const mat23& x) { return wp::extract(x, 1, 2); },
               [](const mat23& x, mat23& adj_x, double g) {
                   int32 adj_i = 0, adj_j = 0;
                   wp::adj_extract(x, 1, 2, adj_x, adj_i, adj_j, g);
               },
               c);
    grad_check("assign(m, i, j, x)", [](const mat23& x, double s) { return wp::assign(x, 0, 2, s); },
               [](const mat23& x, double s, mat23& adj_x, double& adj_s, const mat23& g) {
                   int32 adj_i = 0, adj_j = 0;
                   wp::adj_assign(x, 0, 2, s, adj_x, adj_i, adj_j, adj_s, g);
               },
               c, 0.7);
    grad_check("assign(m, i, row)", [](const mat23& x, const vec3& r) { return wp::assign(x, 1, r); },
               [](const mat23& x, const vec3& r, mat23& adj_x, vec3& adj_r, const mat23& g) {
                   int32 adj_i = 0;
                   wp::adj_assign(x, 1, r, adj_x, adj_i, adj_r, g);
               },
               c, v);
    mat33 adj_m;
    wp::adj_identity(wp::identity<3, double>());
    wp::adj_mat_t(adj_m);
    check(adj_m == mat33(), "identity / zero-ctor adjoints are no-ops");

    test_decompositions();
}

// ---------------------------------------------------------------------------------------------
// quaternions and transforms

static quat random_unit_quat() { return wp::normalize(random_value<quat>()); }

static void test_quat()
{
    const vec3 axis = wp::normalize(vec3(1.0, 2.0, -0.5));
    const double angle = 0.8;
    const quat q = wp::quat_from_axis_angle(axis, angle);
    const vec3 x(0.3, -1.0, 2.0);
    // Rodrigues' formula
    const vec3 rx = x * std::cos(angle) + wp::cross(axis, x) * std::sin(angle) + axis * (wp::dot(axis, x) * (1 - std::cos(angle)));
    check_all_near("quat_rotate", wp::quat_rotate(q, x), rx, 1e-14);
    check_all_near("quat_to_matrix", wp::mul(wp::quat_to_matrix(q), x), rx, 1e-14);
    check_all_near("quat_rotate_inv", wp::quat_rotate_inv(q, rx), x, 1e-14);
    check_all_near("q * q^-1", wp::mul(q, wp::quat_inverse(q)), wp::quat_identity<double>(), 1e-15);
    check_all_near("quat(v, w)", quat(vec3(1, 2, 3), 4.0), quat(1, 2, 3, 4));
    check_all_near("quat default is zero", quat(), quat(0, 0, 0, 0));
    check_all_near("quat cast", quat(wp::quat_t<float>(q)), q, 1e-7);
    check_near("extract(q, 3)", wp::extract(q, 3), q.w);
    check_all_near("assign(q, 0)", wp::assign(quat(1, 2, 3, 4), 0, 9.0), quat(9, 2, 3, 4));
    check(wp::eq(q, q) && wp::ne(q, wp::quat_identity<double>()), "quat eq/ne");
    {
        vec3 ax;
        double an;
        wp::quat_to_axis_angle(q, ax, an);
        check_all_near("quat_to_axis_angle axis", ax, axis, 1e-14);
        check_near("quat_to_axis_angle angle", an, angle, 1e-14);
        wp::quat_to_axis_angle(wp::quat_identity<double>(), ax, an);
        check(an == 0.0 && ax == vec3(), "quat_to_axis_angle(identity)");
    }
    // rpy: roll about x, then pitch about y, then yaw about z
    const double roll = 0.3, pitch = -0.7, yaw = 1.1;
    const quat rpy = wp::quat_rpy(roll, pitch, yaw);
    const mat33 rz = wp::quat_to_matrix(wp::quat_from_axis_angle(vec3(0, 0, 1), yaw));
    const mat33 ry = wp::quat_to_matrix(wp::quat_from_axis_angle(vec3(0, 1, 0), pitch));
    const mat33 rxm = wp::quat_to_matrix(wp::quat_from_axis_angle(vec3(1, 0, 0), roll));
    check_all_near("quat_rpy", wp::quat_to_matrix(rpy), wp::mul(wp::mul(rz, ry), rxm), 1e-14);

    // quat_from_matrix: all four branches (trace, x, y, z dominant), compared up to sign
    const quat branch_cases[] = {random_unit_quat(), wp::normalize(quat(0.9, 0.1, 0.2, 0.1)),
                                 wp::normalize(quat(0.1, -0.9, 0.2, 0.1)), wp::normalize(quat(0.2, 0.1, 0.9, -0.1)),
                                 quat(1, 0, 0, 0), wp::normalize(quat(0.0, 1.0, 1.0, 0.0))};
    for (const quat& qc : branch_cases) {
        const quat r = wp::quat_from_matrix(wp::quat_to_matrix(qc));
        check_all_near("quat_from_matrix", wp::dot(r, qc) < 0 ? -r : r, qc, 1e-14);
        GRAD(quat_from_matrix, wp::quat_to_matrix(qc) + random_value<mat33>() * 0.01);
    }

    // slerp
    const quat q0 = random_unit_quat(), q1 = random_unit_quat();
    check_all_near("slerp(0)", wp::quat_slerp(q0, q1, 0.0), q0, 1e-14);
    const quat q1s = wp::dot(q0, q1) < 0 ? -q1 : q1;
    check_all_near("slerp(1)", wp::quat_slerp(q0, q1, 1.0), q1s, 1e-14);
    const quat mid = wp::quat_slerp(q0, q1, 0.5);
    check_near("slerp(0.5) unit", wp::length(mid), 1.0, 1e-14);
    check_near("slerp(0.5) halfway", wp::dot(mid, q0), wp::dot(mid, q1s), 1e-14);
    check_all_near("slerp(q, q)", wp::quat_slerp(q0, q0, 0.3), q0, 1e-14);

    const quat a = random_value<quat>(), b = random_value<quat>();
    const vec3 v = random_value<vec3>();
    grad_check("quat_t(x, y, z, w)", [](double x0, double x1, double x2, double x3) { return quat(x0, x1, x2, x3); },
               ADJ(quat_t), 0.1, 0.2, 0.3, 0.4);
    grad_check("quat_t(v, w)", [](const vec3& u, double s) { return quat(u, s); }, ADJ(quat_t), v, 0.4);
    grad_check("quat_t(cast)", [](const quat& x) { return quat(x); }, ADJ(quat_t), a);
    GRAD(add, a, b);
    GRAD(sub, a, b);
    GRAD(neg, a);
    GRAD(dot, a, b);
    GRAD(mul, a, b);
    GRAD(mul, a, 0.7);
    GRAD(mul, 0.7, a);
    GRAD(div, a, 0.7);
    GRAD(length, a);
    GRAD(length_sq, a);
    GRAD(normalize, a);
    GRAD(quat_inverse, a);
    GRAD(quat_rotate, a, v);
    GRAD(quat_rotate_inv, a, v);
    GRAD(quat_to_matrix, a);
    GRAD(quat_from_axis_angle, v, 0.9);
    GRAD(quat_rpy, roll, pitch, yaw);
    GRAD(quat_slerp, q0, q1, 0.3);
    GRAD(quat_slerp, q0, -q1, 0.6);
    GRAD(quat_slerp, a, b, 0.6);
    grad_check("quat_to_axis_angle",
               [](const quat& x) {
                   vec3 ax;
                   double an;
                   wp::quat_to_axis_angle(x, ax, an);
                   return vec4(ax.c[0], ax.c[1], ax.c[2], an);
               },
               [](const quat& x, quat& adj_x, const vec4& g) {
                   vec3 ax, adj_ax(g.c[0], g.c[1], g.c[2]);
                   double an, adj_an = g.c[3];
                   wp::quat_to_axis_angle(x, ax, an);
                   wp::adj_quat_to_axis_angle(x, ax, an, adj_x, adj_ax, adj_an);
               },
               a);
    grad_check("extract(q, i)", [](const quat& x) { return wp::extract(x, 2); },
               [](const quat& x, quat& adj_x, double g) {
                   int32 adj_i = 0;
                   wp::adj_extract(x, 2, adj_x, adj_i, g);
               },
               a);
    grad_check("assign(q, i, x)", [](const quat& x, double s) { return wp::assign(x, 3, s); },
               [](const quat& x, double s, quat& adj_x, double& adj_s, const quat& g) {
                   int32 adj_i = 0;
                   wp::adj_assign(x, 3, s, adj_x, adj_i, adj_s, g);
               },
               a, 0.2);
}

static void test_transform()
{
    const transform t(random_value<vec3>(), random_unit_quat()), u(random_value<vec3>(), random_unit_quat());
    const vec3 x = random_value<vec3>();
    check_all_near("transform default is zero", transform(), transform(vec3(), quat()));
    check_all_near("transform_identity", wp::transform_identity<double>(), transform(vec3(), quat(0, 0, 0, 1)));
    check_all_near("transform_point", wp::transform_point(t, x), wp::quat_rotate(t.q, x) + t.p);
    check_all_near("transform_multiply", wp::transform_point(wp::transform_multiply(t, u), x),
                   wp::transform_point(t, wp::transform_point(u, x)), 1e-14);
    check_all_near("transform_inverse", wp::transform_point(wp::transform_inverse(t), wp::transform_point(t, x)), x, 1e-14);
    check_all_near("mul(t, t^-1)", wp::mul(t, wp::transform_inverse(t)), wp::transform_identity<double>(), 1e-14);
    check_near("extract(t, 4)", wp::extract(t, 4), t.q.y);
    check_all_near("transform_vector", wp::transform_vector(t, x), wp::quat_rotate(t.q, x));
    check(sizeof(transform) == 7 * sizeof(double) && sizeof(wp::transform_t<float>) == 28, "transform layout");

    const transform a(random_value<vec3>(), random_value<quat>()), b(random_value<vec3>(), random_value<quat>());
    grad_check("transform_t(p, q)", [](const vec3& p, const quat& q) { return transform(p, q); }, ADJ(transform_t), x, t.q);
    grad_check("transform_t(cast)", [](const transform& s) { return transform(s); }, ADJ(transform_t), a);
    GRAD(transform_get_translation, a);
    GRAD(transform_get_rotation, a);
    GRAD(transform_multiply, a, b);
    GRAD(mul, a, b);
    GRAD(transform_point, a, x);
    GRAD(transform_vector, a, x);
    GRAD(transform_inverse, a);
    for (int i = 0; i < 7; ++i)
        grad_check("extract(t, i)", [i](const transform& s) { return wp::extract(s, i); },
                   [i](const transform& s, transform& adj_s, double g) {
                       int adj_i = 0;
                       wp::adj_extract(s, i, adj_s, adj_i, g);
                   },
                   a);
}

static void test_spatial()
{
    const vec6 a = random_value<vec6>(), b = random_value<vec6>();
    const vec3 wa = wp::spatial_top(a), va = wp::spatial_bottom(a), wb = wp::spatial_top(b), vb = wp::spatial_bottom(b);
    check_all_near("spatial_vector", wp::spatial_vector(wa, va), a);
    check_all_near("spatial_cross", wp::spatial_cross(a, b), wp::spatial_vector(wp::cross(wa, wb), wp::cross(va, wb) + wp::cross(wa, vb)));
    // the force cross product is minus the transpose of the motion one: a x* f = -(a x)^T f
    const vec6 f = random_value<vec6>();
    check_near("spatial_cross_dual duality", wp::spatial_dot(wp::spatial_cross_dual(a, f), b), -wp::spatial_dot(f, wp::spatial_cross(a, b)),
               1e-14);
    const mat33 R = random_rotation(), S = random_value<mat33>();
    check_all_near("spatial_adjoint", wp::mul(wp::spatial_adjoint(R, S), a),
                   wp::spatial_vector(wp::mul(R, wa), wp::mul(S, wa) + wp::mul(R, va)), 1e-14);

    GRAD(spatial_vector, wa, vb);
    GRAD(spatial_top, a);
    GRAD(spatial_bottom, a);
    GRAD(spatial_dot, a, b);
    GRAD(spatial_cross, a, b);
    GRAD(spatial_cross_dual, a, b);
    GRAD(spatial_adjoint, R, S);
    GRAD(mul, random_value<mat66>(), a);
}

// ---------------------------------------------------------------------------------------------
// instantiate forward and adjoint code in single and half precision (compile coverage, spot values)

template <typename T> static void instantiate_scalar()
{
    T x(0.5f), y(2.0f), ax(0.0f), ay(0.0f), az(0.0f);
    T r = wp::add(x, y) + wp::sub(x, y) + wp::mul(x, y) + wp::div(x, y) + wp::floordiv(y, x) + wp::mod(y, x) + wp::pow(y, x) +
          wp::neg(x) + wp::pos(x) + wp::abs(x) + wp::sign(x) + wp::min(x, y) + wp::max(x, y) + wp::clamp(x, x, y) + wp::sqrt(y) +
          wp::cbrt(y) + wp::exp(x) + wp::log(y) + wp::log2(y) + wp::log10(y) + wp::sin(x) + wp::cos(x) + wp::tan(x) +
          wp::asin(x) + wp::acos(x) + wp::atan(x) + wp::atan2(x, y) + wp::sinh(x) + wp::cosh(x) + wp::tanh(x) + wp::floor(x) +
          wp::ceil(x) + wp::round(x) + wp::rint(x) + wp::trunc(x) + wp::frac(x) + wp::step(x) + wp::nonzero(x) +
          wp::lerp(x, y, x) + wp::smoothstep(x, y, x) + wp::degrees(x) + wp::radians(x) + wp::erf(x) + wp::erfc(x);
    check(wp::isfinite(r) && !wp::isnan(r) && !wp::isinf(r), "single/half precision scalar builtins");
    const T g(1.0f);
    wp::adj_add(x, y, ax, ay, g);
    wp::adj_sub(x, y, ax, ay, g);
    wp::adj_mul(x, y, ax, ay, g);
    wp::adj_div(x, y, ax, ay, g);
    wp::adj_floordiv(x, y, ax, ay, g);
    wp::adj_mod(x, y, ax, ay, g);
    wp::adj_pow(x, y, ax, ay, g);
    wp::adj_neg(x, ax, g);
    wp::adj_pos(x, ax, g);
    wp::adj_abs(x, ax, g);
    wp::adj_sign(x, ax, g);
    wp::adj_min(x, y, ax, ay, g);
    wp::adj_max(x, y, ax, ay, g);
    wp::adj_clamp(x, x, y, ax, ay, az, g);
    wp::adj_sqrt(y, ay, g);
    wp::adj_cbrt(y, ay, g);
    wp::adj_exp(x, ax, g);
    wp::adj_log(y, ay, g);
    wp::adj_log2(y, ay, g);
    wp::adj_log10(y, ay, g);
    wp::adj_sin(x, ax, g);
    wp::adj_cos(x, ax, g);
    wp::adj_tan(x, ax, g);
    wp::adj_asin(x, ax, g);
    wp::adj_acos(x, ax, g);
    wp::adj_atan(x, ax, g);
    wp::adj_atan2(x, y, ax, ay, g);
    wp::adj_sinh(x, ax, g);
    wp::adj_cosh(x, ax, g);
    wp::adj_tanh(x, ax, g);
    wp::adj_floor(x, ax, g);
    wp::adj_ceil(x, ax, g);
    wp::adj_round(x, ax, g);
    wp::adj_rint(x, ax, g);
    wp::adj_trunc(x, ax, g);
    wp::adj_frac(x, ax, g);
    wp::adj_step(x, ax, g);
    wp::adj_nonzero(x, ax, g);
    wp::adj_lerp(x, y, x, ax, ay, az, g);
    wp::adj_smoothstep(x, y, x, ax, ay, az, g);
    wp::adj_degrees(x, ax, g);
    wp::adj_radians(x, ax, g);
    wp::adj_erf(x, ax, g);
    wp::adj_erfc(x, ax, g);
    wp::adj_lt(x, y, ax, ay, true);
    wp::adj_isnan(x, ax, false);
    check(wp::isfinite(ax) && wp::isfinite(ay) && wp::isfinite(az), "single/half precision scalar adjoints");
}

static void instantiate_float_composites()
{
    typedef wp::vec_t<3, float> vec3f;
    typedef wp::mat_t<3, 3, float> mat33f;
    typedef wp::quat_t<float> quatf;
    typedef wp::transform_t<float> transformf;
    const vec3f a(1.0f, 2.0f, 3.0f), b(-1.0f, 0.5f, 2.0f);
    vec3f adj_a, adj_b, adj_r;
    float adj_s = 0.0f;
    wp::adj_cross(a, b, adj_a, adj_b, a);
    wp::adj_normalize(a, adj_a, b);
    wp::adj_vec_t(1.0f, 2.0f, 3.0f, adj_s, adj_s, adj_s, a);
    const mat33f m = wp::outer(a, b) + wp::identity<3, float>();
    mat33f adj_m;
    wp::adj_inverse(m, adj_m, m);
    wp::adj_determinant(m, adj_m, 1.0f);
    wp::adj_mul(m, a, adj_m, adj_a, b);
    const quatf q = wp::quat_from_axis_angle(a, 0.3f);
    quatf adj_q;
    wp::adj_quat_rotate(q, a, adj_q, adj_a, b);
    wp::adj_quat_from_matrix(wp::quat_to_matrix(q), adj_m, q);
    wp::adj_quat_slerp(q, wp::quat_identity<float>(), 0.5f, adj_q, adj_q, adj_s, q);
    const transformf t(a, q);
    transformf adj_t = {};
    wp::adj_transform_inverse(t, adj_t, t);
    wp::adj_transform_point(t, a, adj_t, adj_r, b);
    const wp::vec_t<6, float> s6 = wp::spatial_vector(a, b);
    wp::vec_t<6, float> adj_6;
    wp::adj_spatial_cross(s6, s6, adj_6, adj_6, s6);
    check(wp::isfinite(adj_s) && wp::isfinite(adj_a.c[0]) && wp::isfinite(adj_m.data[0][0]) && wp::isfinite(adj_q.w) &&
              wp::isfinite(adj_t.p.c[0]) && wp::isfinite(adj_6.c[0]),
          "single precision composite adjoints");

    typedef wp::vec_t<3, half> vec3h;
    const vec3h h(half(1.0f), half(2.0f), half(2.0f));
    check(float(wp::length(h)) == 3.0f && float(wp::dot(h, h)) == 9.0f, "half vectors");
}

int main()
{
    test_half();
    test_int_ops();
    test_scalar_values();
    test_scalar_grads();
    test_vec();
    test_mat();
    test_quat();
    test_transform();
    test_spatial();
    instantiate_scalar<float>();
    instantiate_scalar<double>();
    instantiate_scalar<half>();
    instantiate_float_composites();
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
