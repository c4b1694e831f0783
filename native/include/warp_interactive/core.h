// Arrays, launch bounds, thread indices, array access with adjoints, casts, printing and the
// debug-mode error record. Depends on scalar.h only.
#pragma once

#include "scalar.h"


#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WPI_EXPORT
#else
#define WPI_EXPORT __attribute__((visibility("default")))
#endif

namespace wp {

// Mirrors types/arraydesc.py (ArrayDesc) and launch.py's bounds record: keep in sync.
template <typename T>
struct array_t {
    T* data;
    T* grad;
    int64 strides[4];  // bytes
    int32 shape[4];
    int32 ndim;
    int32 flags;  // WPI_ARRAY_RETAIN_GRAD
};
// flags bit: a store's adjoint leaves the element's gradient (wp.array(retain_grad=True))
#define WPI_ARRAY_RETAIN_GRAD 1

struct launch_bounds_t {
    int32 shape[4];
    int32 ndim;
    int32 pad;
    int64 size;
};

// --- thread indices ----------------------------------------------------------------------------
WPI_FUNC int32 tid(int64 idx, const launch_bounds_t&) { return int32(idx); }

// Index k of the launch grid (the last dimension varies fastest). `count` is how many indices the
// kernel unpacks: fewer than the launch has dimensions is fine (`i, j = wp.tid()` in a tiled
// launch of [M, N, block_dim]); they are the leading ones.
WPI_FUNC int32 tid_nd(int64 idx, const launch_bounds_t& dim, int32 k, int32 count)
{
    for (int32 d = (dim.ndim > count ? dim.ndim : count) - 1; d > k; --d) idx /= dim.shape[d];
    return int32(idx % dim.shape[k]);
}

// --- array access ------------------------------------------------------------------------------
template <typename T>
WPI_FUNC T* elem_ptr(T* base, const array_t<T>& a, int64 i)
{
    return (T*)((char*)base + i * a.strides[0]);
}
template <typename T>
WPI_FUNC T* elem_ptr(T* base, const array_t<T>& a, int64 i, int64 j)
{
    return (T*)((char*)base + i * a.strides[0] + j * a.strides[1]);
}
template <typename T>
WPI_FUNC T* elem_ptr(T* base, const array_t<T>& a, int64 i, int64 j, int64 k)
{
    return (T*)((char*)base + i * a.strides[0] + j * a.strides[1] + k * a.strides[2]);
}
template <typename T>
WPI_FUNC T* elem_ptr(T* base, const array_t<T>& a, int64 i, int64 j, int64 k, int64 l)
{
    return (T*)((char*)base + i * a.strides[0] + j * a.strides[1] + k * a.strides[2] + l * a.strides[3]);
}

template <typename T, typename... I>
WPI_FUNC T* address(const array_t<T>& a, I... idx) { return elem_ptr(a.data, a, int64(idx)...); }

template <typename T, typename... I>
WPI_FUNC T load(const array_t<T>& a, I... idx) { return *elem_ptr(a.data, a, int64(idx)...); }

template <typename T>
WPI_FUNC void array_store(const array_t<T>& a, int64 i, const T& v) { *elem_ptr(a.data, a, i) = v; }
template <typename T>
WPI_FUNC void array_store(const array_t<T>& a, int64 i, int64 j, const T& v) { *elem_ptr(a.data, a, i, j) = v; }
template <typename T>
WPI_FUNC void array_store(const array_t<T>& a, int64 i, int64 j, int64 k, const T& v)
{
    *elem_ptr(a.data, a, i, j, k) = v;
}
template <typename T>
WPI_FUNC void array_store(const array_t<T>& a, int64 i, int64 j, int64 k, int64 l, const T& v)
{
    *elem_ptr(a.data, a, i, j, k, l) = v;
}

// A view drops the leading dimension: a[i] of an n-d array is an (n-1)-d array.
template <typename T, typename I>
WPI_FUNC array_t<T> view(const array_t<T>& a, I i)
{
    array_t<T> v;
    v.data = elem_ptr(a.data, a, int64(i));
    v.grad = a.grad ? elem_ptr(a.grad, a, int64(i)) : nullptr;
    for (int d = 0; d < 3; ++d) {
        v.shape[d] = a.shape[d + 1];
        v.strides[d] = a.strides[d + 1];
    }
    v.shape[3] = 0;
    v.strides[3] = 0;
    v.ndim = a.ndim - 1;
    v.flags = a.flags;
    return v;
}
template <typename T, typename I, typename... J>
WPI_FUNC array_t<T> view(const array_t<T>& a, I i, J... rest) { return view(view(a, i), rest...); }

template <typename T, typename I>
WPI_FUNC int32 array_shape(const array_t<T>& a, I k) { return a.shape[k]; }

// `if a:` in a kernel: an array is true when it has memory (a None argument has none)
template <typename T>
WPI_FUNC bool array_nonnull(const array_t<T>& a) { return a.data != nullptr; }

template <typename T>
WPI_FUNC int32 len(const array_t<T>& a) { return a.shape[0]; }

// --- debug-mode bounds checks ------------------------------------------------------------------
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
// libc's snprintf (see prelude.h: no <cstdio>); found first by unqualified calls inside wp
template <typename... A>
WPI_FUNC int snprintf(char* buf, size_t size, const char* fmt, A... args)
{
    return WPI_HOST_SNPRINTF(buf, size, fmt, args...);
}

namespace {
// One record per generated module (each module is one translation unit); the first failure wins.
struct error_record_t {
    int set;
    char message[512];
};
error_record_t g_error = {0, {0}};
}  // namespace

WPI_FUNC void record_bounds_error(const char* arr, const char* kernel, int line, const int64* idx,
                                  int n, const int32* shape, int ndim)
{
    if (__atomic_exchange_n(&g_error.set, 1, __ATOMIC_ACQ_REL)) return;
    char idx_s[128], shape_s[128];
    int p = 0, q = 0;
    for (int d = 0; d < n; ++d) p += snprintf(idx_s + p, sizeof(idx_s) - p, d ? ", %lld" : "%lld", (long long)idx[d]);
    for (int d = 0; d < ndim; ++d) q += snprintf(shape_s + q, sizeof(shape_s) - q, d ? ", %d" : "%d", shape[d]);
    snprintf(g_error.message, sizeof(g_error.message),
             "index out of bounds in kernel '%s' (line %d): array '%s' indexed with [%s], shape (%s%s)",
             kernel, line, arr, idx_s, shape_s, ndim == 1 ? "," : "");
}
#else
}  // namespace wp
// CUDA: the module's first bounds error (debug mode), read back and cleared by the host after
// each launch (runtime/cuda/modules.py mirrors this layout in _ErrorRecord: keep in sync).
struct wpi_cuda_error_record_t {
    int set;
    int line;
    int n;
    int ndim;
    long long idx[4];
    int shape[4];
    char array[64];
    char kernel[128];
};
extern "C" {
__device__ wpi_cuda_error_record_t wpi_cuda_error;
}
namespace wp {
WPI_FUNC void copy_name(char* dst, const char* src, int cap)
{
    int i = 0;
    for (; src && src[i] && i < cap - 1; ++i) dst[i] = src[i];
    dst[i] = 0;
}
WPI_FUNC void record_bounds_error(const char* arr, const char* kernel, int line, const int64* idx,
                                  int n, const int32* shape, int ndim)
{
    if (atomicExch(&wpi_cuda_error.set, 1)) return;
    wpi_cuda_error.line = line;
    wpi_cuda_error.n = n < 4 ? n : 4;
    wpi_cuda_error.ndim = ndim < 4 ? ndim : 4;
    for (int d = 0; d < 4; ++d) {
        wpi_cuda_error.idx[d] = d < n ? idx[d] : 0;
        wpi_cuda_error.shape[d] = d < ndim ? shape[d] : 0;
    }
    copy_name(wpi_cuda_error.array, arr, 64);
    copy_name(wpi_cuda_error.kernel, kernel, 128);
    __threadfence_system();
}
#endif

template <typename T, typename... I>
WPI_FUNC bool check_bounds(const array_t<T>& a, const char* name, const char* kernel, int line, I... idx)
{
    const int64 ii[] = {int64(idx)...};
    const int n = int(sizeof...(I));
    bool ok = a.data != nullptr && n <= a.ndim;
    for (int d = 0; ok && d < n; ++d) ok = ii[d] >= 0 && ii[d] < a.shape[d];
    if (!ok) record_bounds_error(name, kernel, line, ii, n, a.shape, a.ndim);
    return ok;
}

// A vector/matrix component index that is not a build-time constant (debug mode): recorded like
// an array index, with the value's type as the "array" and its component count as the shape.
template <typename I>
WPI_FUNC bool check_component(I i, int32 n, const char* name, const char* kernel, int line)
{
    const int64 ii = int64(i);
    if (ii >= 0 && ii < n) return true;
    const int32 shape[1] = {n};
    record_bounds_error(name, kernel, line, &ii, 1, shape, 1);
    return false;
}

// --- truth values (conditions may be any scalar, as in Python) ---------------------------------
template <typename T>
WPI_FUNC bool nonzero_bool(T x) { return x != T(0); }
WPI_FUNC bool nonzero_bool(bool x) { return x; }
template <typename T>
WPI_FUNC bool bool_not(T x) { return !nonzero_bool(x); }
WPI_FUNC bool bool_and(bool a, bool b) { return a && b; }

// --- loops ---------------------------------------------------------------------------------------
template <typename T>
WPI_FUNC bool range_continues(T i, T stop, T step) { return step > 0 ? i < stop : i > stop; }

template <typename T>
WPI_FUNC int64 range_count(T start, T stop, T step)
{
    if (step > 0) return start < stop ? (int64(stop) - start + step - 1) / step : 0;
    return start > stop ? (int64(start) - stop - step - 1) / (-int64(step)) : 0;
}

// reversed(range(start, stop, step)) runs from the last value down to start (step -step); an
// empty range (or step 0) becomes [start, start), which runs no iteration either way
template <typename T>
WPI_FUNC T range_reversed_start(T start, T stop, T step)
{
    int64 n = step == 0 ? 0 : range_count(start, stop, step);
    return n > 0 ? T(start + (n - 1) * int64(step)) : start;
}

template <typename T>
WPI_FUNC T range_reversed_stop(T start, T stop, T step)
{
    int64 n = step == 0 ? 0 : range_count(start, stop, step);
    return n > 0 ? T(start - step) : start;
}

// --- printing ------------------------------------------------------------------------------------
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WPI_PRINTF ::printf
#else
#define WPI_PRINTF WPI_HOST_PRINTF
#endif
template <typename... A>
WPI_FUNC void printf(const char* fmt, A... args) { WPI_PRINTF(fmt, args...); }

}  // namespace wp

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
// The module's first recorded run-time error (debug mode), cleared by reading it.
extern "C" WPI_EXPORT const char* wpi_get_error()
{
    static char out[512];
    if (!__atomic_load_n(&wp::g_error.set, __ATOMIC_ACQUIRE)) return nullptr;
    WPI_HOST_MEMCPY(out, wp::g_error.message, sizeof(out));
    __atomic_store_n(&wp::g_error.set, 0, __ATOMIC_RELEASE);
    return out;
}
#endif
