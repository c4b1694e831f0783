// Utility builtins over any value type: select / where, NaN and infinity tests of composites.
// Included after atomic.h (uses components<T>).
#pragma once

#include "warp_interactive/core/atomic.h"

namespace wp {

namespace detail {
template <typename C> WPI_FUNC bool truth(C c) { return c != C(0); }
WPI_FUNC bool truth(bool c) { return c; }
template <typename T> WPI_FUNC bool truth(const array_t<T>& a) { return a.data != nullptr; }
template <typename T> WPI_FUNC bool truth(const indexedarray_t<T>& a) { return a.data != nullptr; }
}  // namespace detail

// select(cond, value_if_false, value_if_true)
template <typename C, typename T> WPI_FUNC T select(const C& cond, const T& a, const T& b)
{
    return detail::truth(cond) ? b : a;
}
template <typename C, typename T>
WPI_FUNC void adj_select(const C& cond, const T&, const T&, C&, T& adj_a, T& adj_b, const T& adj_ret)
{
    if (detail::truth(cond))
        adj_accum(adj_b, adj_ret);
    else
        adj_accum(adj_a, adj_ret);
}

// where(cond, value_if_true, value_if_false)
template <typename C, typename T> WPI_FUNC T where(const C& cond, const T& a, const T& b)
{
    return detail::truth(cond) ? a : b;
}
template <typename C, typename T>
WPI_FUNC void adj_where(const C& cond, const T&, const T&, C&, T& adj_a, T& adj_b, const T& adj_ret)
{
    if (detail::truth(cond))
        adj_accum(adj_a, adj_ret);
    else
        adj_accum(adj_b, adj_ret);
}

// the first index i in [lo, hi) with a[i] >= v in a sorted 1D array; hi - 1 when every element
// is smaller (the closest element, as the reference: never past the range), lo for an empty range
template <typename T> WPI_FUNC int32 lower_bound(const array_t<T>& a, int32 lo, int32 hi, T v)
{
    hi -= 1;
    while (lo < hi) {
        const int32 mid = lo + (hi - lo) / 2;
        if (load(a, mid) < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
template <typename T> WPI_FUNC void adj_lower_bound(const array_t<T>&, int32, int32, T, array_t<T>&, int32&, int32&, T&, int32) {}
template <typename T> WPI_FUNC int32 lower_bound(const array_t<T>& a, T v) { return lower_bound(a, 0, a.shape[0], v); }
template <typename T> WPI_FUNC void adj_lower_bound(const array_t<T>&, T, array_t<T>&, T&, int32) {}

// len: components of a quaternion / transform, rows of a matrix
template <typename T> WPI_FUNC int32 len(const quat_t<T>&) { return 4; }
template <typename T> WPI_FUNC void adj_len(const quat_t<T>&, quat_t<T>&, int32) {}
template <typename T> WPI_FUNC int32 len(const transform_t<T>&) { return 7; }
template <typename T> WPI_FUNC void adj_len(const transform_t<T>&, transform_t<T>&, int32) {}
template <unsigned R, unsigned C, typename T> WPI_FUNC int32 len(const mat_t<R, C, T>&) { return int32(R); }
template <unsigned R, unsigned C, typename T> WPI_FUNC void adj_len(const mat_t<R, C, T>&, mat_t<R, C, T>&, int32) {}

// --- expect_eq / expect_neq / expect_near: print a line when the expectation fails -------------------------
namespace detail {
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
// Device printf has no snprintf to format a line first, but one printf call is printed whole: the
// format string is assembled for the type's component count and all values go in one call
// (device printf takes at most 32 arguments, so types of over 16 components print piecewise).
WPI_FUNC int append_text(char* fmt, int p, const char* s)
{
    while (*s) fmt[p++] = *s++;
    return p;
}
template <typename T> WPI_FUNC int append_components(char* fmt, int p)
{
    p = append_text(fmt, p, "[");
    for (int k = 0; k < components<T>::n; ++k) p = append_text(fmt, p, k ? " %g" : "%g");
    return append_text(fmt, p, "]");
}
template <typename T> WPI_FUNC void print_components(const T& v)
{
    printf("[");
    for (int k = 0; k < components<T>::n; ++k)
        printf(k ? " %g" : "%g", double(float64(flat_component(v, k))));
    printf("]");
}
template <typename T> WPI_FUNC void expect_failed(const char* what, const T& a, const T& b)
{
    constexpr int n = components<T>::n;
    if constexpr (n > 16) {
        printf("%s failed: ", what);
        print_components(a);
        printf(" vs ");
        print_components(b);
        printf("\n");
    } else {
    char fmt[32 + 16 * 3 * 2 + 16];
    int p = append_text(fmt, 0, what);
    p = append_text(fmt, p, " failed: ");
    p = append_components<T>(fmt, p);
    p = append_text(fmt, p, " vs ");
    p = append_components<T>(fmt, p);
    p = append_text(fmt, p, "\n");
    fmt[p] = 0;
    double v[32] = {};
    for (int k = 0; k < n && k < 16; ++k) {
        v[k] = double(float64(flat_component(a, k)));
        v[n + k] = double(float64(flat_component(b, k)));
    }
    printf(fmt, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12],
           v[13], v[14], v[15], v[16], v[17], v[18], v[19], v[20], v[21], v[22], v[23], v[24],
           v[25], v[26], v[27], v[28], v[29], v[30], v[31]);
    }
}
#else
template <typename T> WPI_FUNC int format_components(char* buf, int size, int n, const T& v)
{
    n += snprintf(buf + n, size - n, "[");
    for (int k = 0; k < components<T>::n && n < size; ++k)
        n += snprintf(buf + n, size - n, k ? " %g" : "%g", double(float64(flat_component(v, k))));
    return n < size ? n + snprintf(buf + n, size - n, "]") : n;
}
// The whole line is formatted first and printed by one call: threads print at the same time, and
// a line written piecewise would interleave with theirs.
template <typename T> WPI_FUNC void expect_failed(const char* what, const T& a, const T& b)
{
    char buf[2048];
    const int size = int(sizeof(buf));
    int n = snprintf(buf, size, "%s failed: ", what);
    n = format_components(buf, size, n, a);
    if (n < size) n += snprintf(buf + n, size - n, " vs ");
    if (n < size) format_components(buf, size, n, b);
    printf("%s\n", buf);
}
#endif
}  // namespace detail

template <typename T> WPI_FUNC void expect_eq(const T& a, const T& b)
{
    if (!(a == b))
        detail::expect_failed("expect_eq", a, b);
}
template <typename T> WPI_FUNC void adj_expect_eq(const T&, const T&, T&, T&) {}

template <typename T> WPI_FUNC void expect_neq(const T& a, const T& b)
{
    if (a == b)
        detail::expect_failed("expect_neq", a, b);
}
template <typename T> WPI_FUNC void adj_expect_neq(const T&, const T&, T&, T&) {}

// every component within tolerance
template <typename T, typename S> WPI_FUNC void expect_near(const T& a, const T& b, S tolerance)
{
    for (int k = 0; k < components<T>::n; ++k)
        if (!(abs(flat_component(a, k) - flat_component(b, k)) <= tolerance)) {
            detail::expect_failed("expect_near", a, b);
            return;
        }
}
template <typename T, typename S> WPI_FUNC void adj_expect_near(const T&, const T&, S, T&, T&, S&) {}
template <typename T> WPI_FUNC void expect_near(const T& a, const T& b)
{
    expect_near(a, b, typename components<T>::scalar(1.0e-6));
}
template <typename T> WPI_FUNC void adj_expect_near(const T&, const T&, T&, T&) {}

// any component NaN / any infinite / all finite
#define WPI_CLASSIFY_COMPOSITE(TEMPLATE, TYPE)                                                     \
    TEMPLATE WPI_FUNC bool isnan(const TYPE& v)                                                    \
    {                                                                                              \
        for (int k = 0; k < components<TYPE>::n; ++k)                                              \
            if (isnan(flat_component(v, k))) return true;                                         \
        return false;                                                                              \
    }                                                                                              \
    TEMPLATE WPI_FUNC void adj_isnan(const TYPE&, TYPE&, bool) {}                                  \
    TEMPLATE WPI_FUNC bool isinf(const TYPE& v)                                                    \
    {                                                                                              \
        for (int k = 0; k < components<TYPE>::n; ++k)                                              \
            if (isinf(flat_component(v, k))) return true;                                         \
        return false;                                                                              \
    }                                                                                              \
    TEMPLATE WPI_FUNC void adj_isinf(const TYPE&, TYPE&, bool) {}                                  \
    TEMPLATE WPI_FUNC bool isfinite(const TYPE& v)                                                 \
    {                                                                                              \
        for (int k = 0; k < components<TYPE>::n; ++k)                                              \
            if (!isfinite(flat_component(v, k))) return false;                                     \
        return true;                                                                               \
    }                                                                                              \
    TEMPLATE WPI_FUNC void adj_isfinite(const TYPE&, TYPE&, bool) {}

#define WPI_COMMA ,
WPI_CLASSIFY_COMPOSITE(template <unsigned N WPI_COMMA typename T>, vec_t<N WPI_COMMA T>)
WPI_CLASSIFY_COMPOSITE(template <unsigned R WPI_COMMA unsigned C WPI_COMMA typename T>, mat_t<R WPI_COMMA C WPI_COMMA T>)
WPI_CLASSIFY_COMPOSITE(template <typename T>, quat_t<T>)
#undef WPI_COMMA
#undef WPI_CLASSIFY_COMPOSITE

// the number of threads in the launch's block: on the CPU 1, or the lanes of a cooperative block
// (cpu_blocks.h)
WPI_FUNC int32 block_dim()
{
#if defined(__CUDA_ARCH__)
    return cuda_block_active() ? block_width() : int32(blockDim.x);   // a cooperative block: its full width
#else
    return block_width();
#endif
}
WPI_FUNC void adj_block_dim(int32) {}

}  // namespace wp
