// Arrays, launch bounds, thread indices, array access with adjoints, casts, printing and the
// debug-mode error record. Depends on scalar.h only.
#pragma once

#include "warp_interactive/core/scalar.h"


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
    // element i along the first axis, for native snippets (wp.func_native: `out[0] = v`), as
    // warp-lang's array_t offers them; generated code uses the checked accessors instead
    WPI_FUNC T& operator[](int64 i) const { return *(T*)((char*)data + i * strides[0]); }
};
// flags bit: a store's adjoint leaves the element's gradient (wp.array(retain_grad=True))
#define WPI_ARRAY_RETAIN_GRAD 1
// flags bit: the array's elements are a thread's own stack memory (a wp.fixedarray or a view of
// one): the adjoint's replay performs its stores (array_store_local, atomic_*_local), since the
// replay makes the array afresh, where it leaves other arrays' memory as the forward left it
#define WPI_ARRAY_LOCAL 2

// wp.zeros(shape=..., dtype=...) in a kernel or function: `N` zeroed elements (and their zeroed
// gradients) in the object itself, seen as a contiguous array of the shape given. A copy copies
// the elements and points at its own: a value, as a function returns it.
template <int N, typename T>
struct fixedarray_t : array_t<T> {
    T storage[N];
    T grad_storage[N];

    WPI_FUNC fixedarray_t() { init(N, 0, 0, 0); }
    WPI_FUNC explicit fixedarray_t(int32 d0, int32 d1 = 0, int32 d2 = 0, int32 d3 = 0) { init(d0, d1, d2, d3); }
    WPI_FUNC fixedarray_t(const fixedarray_t& o) { copy_from(o); }
    WPI_FUNC fixedarray_t& operator=(const fixedarray_t& o)
    {
        if (this != &o) copy_from(o);
        return *this;
    }

private:
    WPI_FUNC void init(int32 d0, int32 d1, int32 d2, int32 d3)
    {
        const int32 dims[4] = {d0, d1, d2, d3};
        int64 stride = int64(sizeof(T));
        this->ndim = d3 ? 4 : d2 ? 3 : d1 ? 2 : 1;
        for (int d = 3; d >= 0; --d) {
            this->shape[d] = d < this->ndim ? dims[d] : 0;
            this->strides[d] = d < this->ndim ? stride : 0;
            if (d < this->ndim) stride *= dims[d];
        }
        for (int i = 0; i < N; ++i) {
            storage[i] = T{};
            grad_storage[i] = T{};
        }
        this->data = storage;
        this->grad = grad_storage;
        this->flags = WPI_ARRAY_LOCAL;
    }
    WPI_FUNC void copy_from(const fixedarray_t& o)
    {
        for (int i = 0; i < N; ++i) {
            storage[i] = o.storage[i];
            grad_storage[i] = o.grad_storage[i];
        }
        for (int d = 0; d < 4; ++d) {
            this->shape[d] = o.shape[d];
            this->strides[d] = o.strides[d];
        }
        this->ndim = o.ndim;
        this->data = storage;
        this->grad = grad_storage;
        this->flags = WPI_ARRAY_LOCAL;
    }
};

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
    const int32 last = (dim.ndim > count ? dim.ndim : count) - 1;
    if (uint64(idx) <= 0x7fffffffu) {   // 32-bit unsigned division: several times cheaper
        uint32 i = uint32(idx);
        for (int32 d = last; d > k; --d) i /= uint32(dim.shape[d]);
        return int32(i % uint32(dim.shape[k]));
    }
    for (int32 d = last; d > k; --d) idx /= dim.shape[d];
    return int32(idx % dim.shape[k]);
}

// Stepped coordinates: the CPU entries of kernels that unpack `i, j[, k[, l]] = wp.tid()` divide
// once per chunk (tid_first) and then step (tid_step), instead of dividing per thread in tid_nd
// (codegen/tid_rows.py). c holds the launch's ndim coordinates, the last varying fastest.
WPI_FUNC void tid_first(const launch_bounds_t& dim, int64 idx, int32* c)
{
    for (int32 d = dim.ndim - 1; d >= 0; --d) {
        const int32 n = dim.shape[d] > 0 ? dim.shape[d] : 1;   // (an empty launch runs no thread)
        c[d] = int32(idx % n);
        idx /= n;
    }
}
WPI_FUNC void tid_step(const launch_bounds_t& dim, int32* c)
{
    for (int32 d = dim.ndim - 1; d > 0; --d) {
        if (++c[d] < dim.shape[d]) return;
        c[d] = 0;
    }
    ++c[0];
}
// One past the last innermost coordinate of the row that starts at coordinate j0, for a chunk
// with `left` threads still to run.
WPI_FUNC int32 tid_row_end(const launch_bounds_t& dim, int32 j0, int64 left)
{
    const int32 n = dim.shape[dim.ndim - 1];
    return left < int64(n - j0) ? int32(j0 + left) : n;
}

// --- array access ------------------------------------------------------------------------------
// A negative index counts from the end of its axis (a[-1] is the last element), as in Python and
// the reference; the debug-mode bounds check accepts -n..n-1.
WPI_FUNC int64 wrap_index(int64 i, int32 n) { return i < 0 ? i + n : i; }

template <typename T>
WPI_FUNC T* elem_ptr(T* base, const array_t<T>& a, int64 i)
{
    return (T*)((char*)base + wrap_index(i, a.shape[0]) * a.strides[0]);
}
template <typename T>
WPI_FUNC T* elem_ptr(T* base, const array_t<T>& a, int64 i, int64 j)
{
    return (T*)((char*)base + wrap_index(i, a.shape[0]) * a.strides[0] + wrap_index(j, a.shape[1]) * a.strides[1]);
}
template <typename T>
WPI_FUNC T* elem_ptr(T* base, const array_t<T>& a, int64 i, int64 j, int64 k)
{
    return (T*)((char*)base + wrap_index(i, a.shape[0]) * a.strides[0] + wrap_index(j, a.shape[1]) * a.strides[1] +
                wrap_index(k, a.shape[2]) * a.strides[2]);
}
template <typename T>
WPI_FUNC T* elem_ptr(T* base, const array_t<T>& a, int64 i, int64 j, int64 k, int64 l)
{
    return (T*)((char*)base + wrap_index(i, a.shape[0]) * a.strides[0] + wrap_index(j, a.shape[1]) * a.strides[1] +
                wrap_index(k, a.shape[2]) * a.strides[2] + wrap_index(l, a.shape[3]) * a.strides[3]);
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
// the adjoint's replay of a store: only into a thread's own stack array (WPI_ARRAY_LOCAL)
template <typename T, typename... A>
WPI_FUNC void array_store_local(const array_t<T>& a, A... args)
{
    if (a.flags & WPI_ARRAY_LOCAL) array_store(a, args...);
}

// --- views and slices ----------------------------------------------------------------------------
// a[start:stop:step] in a kernel; an omitted start/stop is one of these sentinels (its meaning
// depends on the sign of a step known only at run time).
#define WPI_SLICE_BEGIN 2147483647
#define WPI_SLICE_END (-2147483647 - 1)
struct slice_t {
    int32 start;
    int32 stop;
    int32 step;
};
WPI_FUNC slice_t make_slice(int32 start, int32 stop, int32 step) { return {start, stop, step}; }

WPI_FUNC void record_slice_step_error();   // below: a zero step is a run-time error

// A slice bound clamped into the axis as Python's slice.indices does.
WPI_FUNC int64 slice_bound(int64 b, int32 n, int64 step)
{
    if (b < 0) {
        b += n;
        if (b < 0) b = step < 0 ? -1 : 0;
    } else if (b >= n) {
        b = step < 0 ? n - 1 : n;
    }
    return b;
}

// One index of a view: an integer drops its axis (negative counts from the end), a slice keeps
// it with the slice's length and a stride scaled by its step.
template <typename T, typename I>
WPI_FUNC void view_axis(const array_t<T>& a, int d, array_t<T>& v, int& od, int64& offset, I i)
{
    offset += wrap_index(int64(i), a.shape[d]) * a.strides[d];
}
template <typename T>
WPI_FUNC void view_axis(const array_t<T>& a, int d, array_t<T>& v, int& od, int64& offset, slice_t s)
{
    int64 step = s.step, n = a.shape[d], count = 0;
    if (step == 0) {
        record_slice_step_error();
        step = 1;
    }
    int64 start = s.start == WPI_SLICE_BEGIN ? (step < 0 ? n - 1 : 0) : slice_bound(s.start, a.shape[d], step);
    int64 stop = s.stop == WPI_SLICE_END ? (step < 0 ? -1 : n) : slice_bound(s.stop, a.shape[d], step);
    if (s.step == 0)
        count = 0;
    else if (step > 0 && start < stop)
        count = (stop - start - 1) / step + 1;
    else if (step < 0 && start > stop)
        count = (start - stop - 1) / (-step) + 1;
    offset += (count ? start : 0) * a.strides[d];
    v.shape[od] = int32(count);
    v.strides[od] = a.strides[d] * step;
    ++od;
}

// a[i], a[i, j:k], a[::2, 1]...: a view of the same memory (and gradient) with the integer-indexed
// axes dropped; the axes not indexed are kept as they are.
template <typename T, typename... A>
WPI_FUNC array_t<T> view(const array_t<T>& a, A... args)
{
    array_t<T> v;
    int d = 0, od = 0;
    int64 offset = 0;
    int expand[] = {(view_axis(a, d++, v, od, offset, args), 0)...};
    (void)expand;
    for (; d < a.ndim && d < 4; ++d, ++od) {
        v.shape[od] = a.shape[d];
        v.strides[od] = a.strides[d];
    }
    for (int k = od; k < 4; ++k) {
        v.shape[k] = 0;
        v.strides[k] = 0;
    }
    v.ndim = od;
    v.data = a.data ? (T*)((char*)a.data + offset) : nullptr;
    v.grad = a.grad ? (T*)((char*)a.grad + offset) : nullptr;
    v.flags = a.flags & WPI_ARRAY_LOCAL;   // a store through a view consumes its gradient (no retain_grad)
    return v;
}

// wp.array(ptr=..., shape=(...), dtype=...) in a kernel: a contiguous array over external memory
// (no gradient).
template <typename T, typename... I>
WPI_FUNC array_t<T> array_from_ptr(uint64 ptr, I... shape)
{
    array_t<T> v;
    const int32 dims[] = {int32(shape)...};
    const int n = int(sizeof...(I));
    int64 stride = int64(sizeof(T));
    for (int d = 3; d >= 0; --d) {
        v.shape[d] = d < n ? dims[d] : 0;
        v.strides[d] = d < n ? stride : 0;
        if (d < n) stride *= dims[d];
    }
    v.data = (T*)ptr;
    v.grad = nullptr;
    v.ndim = n;
    v.flags = 0;
    return v;
}

template <typename T>
WPI_FUNC uint64 array_ptr(const array_t<T>& a) { return uint64(a.data); }

// wp.address_of(...): the address of a local (the variable itself, so a native snippet writing
// through it changes what the next read sees) or of an array element, plus a field/component
// byte offset
template <typename T>
WPI_FUNC uint64 address_of_value(int64 offset, T& x) { return uint64((char*)&x + offset); }
template <typename A, typename... I>
WPI_FUNC uint64 address_of_elem(int64 offset, const A& a, I... idx) { return uint64((char*)address(a, idx...) + offset); }

template <typename T, typename I>
WPI_FUNC int32 array_shape(const array_t<T>& a, I k) { return a.shape[k]; }

// `wp.adjoint[a]` in a @wp.func_grad function: the array of a's gradient (same shape and strides;
// no memory when a has no gradient), which the function reads or adds into
template <typename T>
WPI_FUNC array_t<T> array_grad(const array_t<T>& a)
{
    array_t<T> g = a;
    g.data = a.grad;
    g.grad = nullptr;
    g.flags = 0;
    return g;
}

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

// A zero slice step known only at run time (a constant one is a build error): recorded like a
// failed bounds check, in every mode, and raised by the runtime after the launch.
WPI_FUNC void record_slice_step_error()
{
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
    if (__atomic_exchange_n(&g_error.set, 1, __ATOMIC_ACQ_REL)) return;
    snprintf(g_error.message, sizeof(g_error.message), "slice step cannot be zero (an array slice in a kernel)");
#else
    ::printf("slice step cannot be zero\n");
    const int64 zero = 0;
    const int32 shape = 0;
    record_bounds_error("slice step cannot be zero", "", 0, &zero, 1, &shape, 0);
#endif
}

template <typename I>
WPI_FUNC int64 bounds_index(I i) { return int64(i); }
WPI_FUNC int64 bounds_index(const slice_t& s) { return s.start; }
template <typename I>
WPI_FUNC bool bounds_ok(I i, int32 n) { return int64(i) >= -int64(n) && int64(i) < n; }
WPI_FUNC bool bounds_ok(const slice_t&, int32) { return true; }   // slices are clamped
template <typename I>
WPI_FUNC bool is_slice_index(I) { return false; }
WPI_FUNC bool is_slice_index(const slice_t&) { return true; }

// Debug mode: each index in -n..n-1 of its axis (negative ones count from the end).
template <typename T, typename... I>
WPI_FUNC bool check_bounds(const array_t<T>& a, const char* name, const char* kernel, int line, I... idx)
{
    const int64 ii[] = {bounds_index(idx)...};
    const int n = int(sizeof...(I));
    int d = 0;
    const bool in[] = {bounds_ok(idx, a.shape[d++ & 3])...};
    bool any_slice = false;
    const bool sl[] = {(any_slice = any_slice || is_slice_index(idx))...};
    (void)sl;
    bool ok = (a.data != nullptr || any_slice) && n <= a.ndim;
    for (int k = 0; ok && k < n; ++k) ok = in[k];
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

// whether a range loop runs at most 1024 iterations (never for step 0: that loop spins,
// and only its polled copy can be stopped)
template <typename T>
WPI_FUNC bool range_short(T start, T stop, T step)
{
    return step != 0 && range_count(start, stop, step) <= 1024;
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

// --- Ctrl-C inside a CPU kernel ------------------------------------------------------------------
// Generated code polls on the back-edge of every dynamic loop (every 1024 iterations of any loop
// of the function: a counter, so hot loops and lane bodies keep their speed) and after each call
// of a user function that polls; when the launch was interrupted the function returns at once
// (memory written so far stays as it is). The runtime hands each loaded module the two hooks of
// its native launcher (native/src/interrupt.h); a module that was not given them never stops.
//   WPI_LOOP_TICKS;                       declares the counter (functions with a dynamic loop)
//   if (WPI_LOOP_STOP()) return ...;      at the top of a loop body (while loops, reverse loops)
//   for (...; cond && !WPI_STOPPED; ...) { WPI_LOOP_POLL(); ... }  if (WPI_STOPPED) return ...;
//                                         a forward range loop: one exit, so g++ keeps its state
//                                         in registers (a return inside cost n-body 40%)
//   if (WPI_CALL_STOP()) return ...;      after a call of a user function that polls
// CUDA has no such flag: there the conditions are false and the counter does not exist.
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
namespace {
int wpi_no_stop() { return 0; }
const int wpi_not_stopping = 0;
const int* wpi_no_flag() { return &wpi_not_stopping; }
int (*wpi_poll_stop)() = &wpi_no_stop;
const int* (*wpi_poll_arm)() = &wpi_no_flag;
const int* wpi_stopping = &wpi_not_stopping;
}  // namespace
extern "C" WPI_EXPORT void wpi_set_interrupt_hooks(void* poll, const void* stopping, void* arm)
{
    wpi_poll_stop = poll ? (int (*)())poll : &wpi_no_stop;
    wpi_stopping = stopping ? (const int*)stopping : &wpi_not_stopping;
    wpi_poll_arm = arm ? (const int* (*)())arm : &wpi_no_flag;
}
// The launcher's flag (native/src/thread_pool.h plain_gradients_flag): 1 while this thread runs a
// chunk of the only launch in progress, alone, so gradients may take their additions with plain
// reads and writes (atomic.h grad_add). A module not given it always adds atomically.
namespace {
const int wpi_never_plain = 0;
const int* wpi_plain_grads = &wpi_never_plain;
}  // namespace
extern "C" WPI_EXPORT void wpi_set_plain_flag(const void* flag)
{
    wpi_plain_grads = flag ? (const int*)flag : &wpi_never_plain;
}
// an innermost loop with a small body also has a tick-free copy for at most 1024 iterations
// (range_short) (codegen/polls.py): `#if WPI_POLLS  if (wp::range_short(...)) {...} else  #endif`
#define WPI_POLLS 1
#define WPI_LOOP_TICKS uint32_t _wpi_ticks __attribute__((unused)) = 0; bool _wpi_stop __attribute__((unused)) = false
#define WPI_LOOP_STOP() (__builtin_expect((++_wpi_ticks & 1023u) == 0, 0) && wpi_poll_stop())
#define WPI_LOOP_POLL() if (__builtin_expect((++_wpi_ticks & 1023u) == 0, 0)) _wpi_stop = wpi_poll_stop()
#define WPI_STOPPED _wpi_stop
// Kernel bodies read the flag of their launch through a pointer taken once, at their start: a
// call inside a hot loop (even one never taken) makes g++ keep the loop's vector values in
// memory (n-body: 6.7 ms instead of 4.7 ms); a load does not (5.1 ms).
#define WPI_KERNEL_TICKS WPI_LOOP_TICKS; const int* const _wpi_flag = wpi_poll_arm()
#define WPI_KLOOP_STOP() \
    (__builtin_expect((++_wpi_ticks & 1023u) == 0, 0) && __atomic_load_n(_wpi_flag, __ATOMIC_RELAXED))
#define WPI_KLOOP_POLL() \
    if (__builtin_expect((++_wpi_ticks & 1023u) == 0, 0)) _wpi_stop = __atomic_load_n(_wpi_flag, __ATOMIC_RELAXED)
#define WPI_KCALL_STOP() __builtin_expect(__atomic_load_n(_wpi_flag, __ATOMIC_RELAXED) != 0, 0)
#define WPI_CALL_STOP() \
    (__builtin_expect(__atomic_load_n(wpi_stopping, __ATOMIC_RELAXED) != 0, 0) && wpi_poll_stop())
#else
#define WPI_LOOP_TICKS (void)0
#define WPI_LOOP_STOP() false
#define WPI_LOOP_POLL() (void)0
#define WPI_STOPPED false
#define WPI_KERNEL_TICKS (void)0
#define WPI_KLOOP_STOP() false
#define WPI_KLOOP_POLL() (void)0
#define WPI_KCALL_STOP() false
#define WPI_CALL_STOP() false
#endif

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
// --- lazy strided entries (build/strided.py) ---------------------------------------------------
// A straight-line kernel's CPU forward entry holds only the unit-stride loop (the body inlined
// into a second, plain loop was ~40% of a module's compile time). Any other launch (an array
// whose innermost stride is not its element size, indices past int32) calls wpi_run_strided:
// the first call asks the runtime's resolver, with the GIL, for the plain loop's entry (a small
// library it builds or finds in the cache) and keeps it in the kernel's slot. When it cannot be
// had, nothing runs on the strided memory: a launch from Python's main thread is stopped through
// its stopping flag (as Ctrl-C stops it) and the launch site raises the resolver's reason
// (strided.py); any other launch cannot report it, so the process stops, saying why.
namespace {
typedef void (*wpi_entry_fn)(const void*, const void*, int64_t, int64_t);
void* (*wpi_strided_resolver)(void*, const char*) = nullptr;
void* wpi_strided_ctx = nullptr;
}  // namespace
extern "C" WPI_EXPORT void wpi_set_strided_resolver(void* resolver, void* ctx)
{
    wpi_strided_ctx = ctx;
    __atomic_store_n(&wpi_strided_resolver, (void* (*)(void*, const char*))resolver, __ATOMIC_RELEASE);
}
__attribute__((noinline)) static void wpi_run_strided(void** slot, const char* kernel, const void* args,
                                                      const void* dim, int64_t begin, int64_t end)
{
    void* fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!fn) {
        void* (*resolve)(void*, const char*) = __atomic_load_n(&wpi_strided_resolver, __ATOMIC_ACQUIRE);
        fn = resolve ? resolve(wpi_strided_ctx, kernel) : nullptr;
        if (!fn) {   // never run the unit-stride loop on strided memory
            const int* flag = wpi_poll_arm();
            if (flag == wpi_stopping && flag != &wpi_not_stopping) {
                __atomic_store_n(const_cast<int*>(flag), 1, __ATOMIC_RELAXED);
                return;
            }
            if (resolve) resolve(wpi_strided_ctx, nullptr);   // prints the reason
            WPI_HOST_PRINTF("warp_interactive: no strided entry for kernel %s (see the message above)\n", kernel);
            __builtin_trap();
        }
        __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
    }
    ((wpi_entry_fn)fn)(args, dim, begin, end);
}
#endif

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
