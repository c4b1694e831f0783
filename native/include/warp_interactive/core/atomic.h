// Atomics on array elements (scalars and, component-wise, vectors/matrices/quaternions/
// transforms), the adjoints of array access, and the generic adjoint helpers codegen uses.
// Included after every composite type.
#pragma once

#include "warp_interactive/core/core.h"
#include "warp_interactive/core/indexed.h"

namespace wp {

// --- component view of any value type ---------------------------------------------------------
template <typename T> struct components { typedef T scalar; static const int n = 1; };
template <unsigned N, typename T> struct components<vec_t<N, T>> { typedef T scalar; static const int n = N; };
template <unsigned R, unsigned C, typename T> struct components<mat_t<R, C, T>> {
    typedef T scalar;
    static const int n = R * C;
};
template <typename T> struct components<quat_t<T>> { typedef T scalar; static const int n = 4; };
template <typename T> struct components<transform_t<T>> { typedef T scalar; static const int n = 7; };

// The i-th scalar of a value, in memory order (for printing).
template <typename T>
WPI_FUNC typename components<T>::scalar flat_component(const T& v, int i)
{
    return ((const typename components<T>::scalar*)&v)[i];
}

// --- scalar atomics ------------------------------------------------------------------------------
namespace detail {
template <int Size> struct uint_of_size;
template <> struct uint_of_size<1> { typedef unsigned char type; };
template <> struct uint_of_size<2> { typedef unsigned short type; };
template <> struct uint_of_size<4> { typedef unsigned int type; };
template <> struct uint_of_size<8> { typedef unsigned long long type; };

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
// CUDA has no compare-and-swap on 1 or 2 bytes: swap the aligned 32-bit word holding the value.
template <typename T, typename Op>
WPI_FUNC T atomic_rmw_narrow(T* addr, Op op)
{
    typedef typename uint_of_size<sizeof(T)>::type U;
    unsigned int* word = (unsigned int*)((unsigned long long)addr & ~3ull);
    const unsigned int shift = (unsigned int)((unsigned long long)addr & 3ull) * 8u;
    const unsigned int mask = ((1u << (sizeof(T) * 8u)) - 1u) << shift;
    unsigned int old = *(volatile unsigned int*)word;
    while (true) {
        const U bits = (U)((old & mask) >> shift);
        T oldv = *(const T*)&bits;
        T newv = op(oldv);
        const unsigned int nw = (old & ~mask) | ((unsigned int)(*(const U*)&newv) << shift);
        const unsigned int prev = atomicCAS(word, old, nw);
        if (prev == old) return oldv;
        old = prev;
    }
}
#endif

// Read-modify-write by compare-and-swap on the value's bits: works for every scalar type.
template <typename T, typename Op>
WPI_FUNC T atomic_rmw(T* addr, Op op)
{
    typedef typename uint_of_size<sizeof(T)>::type U;
    U* ua = (U*)addr;
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
    if constexpr (sizeof(T) < 4) {
        return atomic_rmw_narrow(addr, op);
    } else {
        U old = *(volatile U*)ua;
        while (true) {
            T oldv = *(T*)&old;
            T newv = op(oldv);
            U prev = atomicCAS(ua, old, *(U*)&newv);
            if (prev == old) return oldv;
            old = prev;
        }
    }
#else
    U old = __atomic_load_n(ua, __ATOMIC_RELAXED);
    while (true) {
        T oldv, newv;
        WPI_HOST_MEMCPY(&oldv, &old, sizeof(T));
        newv = op(oldv);
        U nu;
        WPI_HOST_MEMCPY(&nu, &newv, sizeof(T));
        if (__atomic_compare_exchange_n(ua, &old, nu, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return oldv;
    }
#endif
}

template <typename T> struct is_integral { static const bool value = false; };
#define WPI_INTEGRAL(T) template <> struct is_integral<T> { static const bool value = true; };
WPI_INTEGRAL(int8) WPI_INTEGRAL(uint8) WPI_INTEGRAL(int16) WPI_INTEGRAL(uint16)
WPI_INTEGRAL(int32) WPI_INTEGRAL(uint32) WPI_INTEGRAL(int64) WPI_INTEGRAL(uint64)
#undef WPI_INTEGRAL

template <typename T>
WPI_FUNC T scalar_atomic_add(T* p, T v)
{
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
    if constexpr (is_integral<T>::value && sizeof(T) >= 4) return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
    return atomic_rmw(p, [v](T old) { return T(old + v); });
}
template <> WPI_FUNC int8 scalar_atomic_add(int8* p, int8 v)
{
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#else
    return int8(0 * v + *p);  // 1-byte atomics are not offered on the device
#endif
}
template <> WPI_FUNC uint8 scalar_atomic_add(uint8* p, uint8 v)
{
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#else
    return uint8(0 * v + *p);
#endif
}
// NaN as missing, as min/max: a NaN slot takes v, a NaN v leaves the slot
template <typename T>
WPI_FUNC T scalar_atomic_min(T* p, T v) { return atomic_rmw(p, [v](T old) { return min(old, v); }); }
template <typename T>
WPI_FUNC T scalar_atomic_max(T* p, T v) { return atomic_rmw(p, [v](T old) { return max(old, v); }); }
template <typename T>
WPI_FUNC T scalar_atomic_exch(T* p, T v) { return atomic_rmw(p, [v](T) { return v; }); }
template <typename T>
WPI_FUNC T scalar_atomic_and(T* p, T v) { return atomic_rmw(p, [v](T old) { return T(old & v); }); }
template <typename T>
WPI_FUNC T scalar_atomic_or(T* p, T v) { return atomic_rmw(p, [v](T old) { return T(old | v); }); }
template <typename T>
WPI_FUNC T scalar_atomic_xor(T* p, T v) { return atomic_rmw(p, [v](T old) { return T(old ^ v); }); }
// compares values (not bits): -0.0 matches 0.0, NaN matches nothing
template <typename T>
WPI_FUNC T scalar_atomic_cas(T* p, T compare, T v)
{
    return atomic_rmw(p, [compare, v](T old) { return old == compare ? v : old; });
}
}  // namespace detail

// Component-wise on composite values: each component is atomic, the whole value is not.
#define WPI_COMPONENTWISE_ATOMIC(NAME)                                                   \
    template <typename T>                                                               \
    WPI_FUNC T NAME##_ptr(T* p, const T& v)                                             \
    {                                                                                   \
        typedef typename components<T>::scalar S;                                       \
        T old;                                                                          \
        for (int k = 0; k < components<T>::n; ++k)                                      \
            ((S*)&old)[k] = detail::scalar_##NAME(((S*)p) + k, ((const S*)&v)[k]);      \
        return old;                                                                     \
    }
WPI_COMPONENTWISE_ATOMIC(atomic_add)
WPI_COMPONENTWISE_ATOMIC(atomic_min)
WPI_COMPONENTWISE_ATOMIC(atomic_max)
WPI_COMPONENTWISE_ATOMIC(atomic_exch)
WPI_COMPONENTWISE_ATOMIC(atomic_and)
WPI_COMPONENTWISE_ATOMIC(atomic_or)
WPI_COMPONENTWISE_ATOMIC(atomic_xor)
#undef WPI_COMPONENTWISE_ATOMIC

template <typename T>
WPI_FUNC T atomic_sub_ptr(T* p, const T& v) { return atomic_add_ptr(p, T(-v)); }

// `a[i] += v` where no other thread of the launch updates the element (codegen/own_index.py,
// own_adds): the atomic's operation (old + v, per component) as a plain read and write
template <typename T>
WPI_FUNC T atomic_add_own_ptr(T* p, const T& v)
{
    typedef typename components<T>::scalar S;
    const T old = *p;
    for (int k = 0; k < components<T>::n; ++k)
        ((S*)p)[k] = S(((const S*)&old)[k] + ((const S*)&v)[k]);
    return old;
}
template <typename T>
WPI_FUNC T atomic_sub_own_ptr(T* p, const T& v) { return atomic_add_own_ptr(p, T(-v)); }
// An own-index element kept in a local across a loop (codegen/lanes_hoist.py): `a[i] += v` on
// the local is the atomic's own operation, `a[i]` reads it.
template <typename T>
WPI_FUNC T own_add_value(T x, const T& v)
{
    atomic_add_own_ptr(&x, v);
    return x;
}
template <typename T>
WPI_FUNC T own_sub_value(T x, const T& v) { return own_add_value(x, T(-v)); }
template <typename T>
WPI_FUNC T own_value(const T& x) { return x; }

// --- array atomics: atomic_OP(a, i[, j[, k[, l]]], value) -> the old value ------------------------
// On CUDA, an update of a thread's own stack array (WPI_ARRAY_LOCAL) is a plain read and write:
// CUDA's atomics do not address a thread's local memory. The CPU's atomics do, and its code stays
// free of the test (it would keep GCC from vectorising adjoint loops).
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WPI_LOCAL_PLAIN(a) ((a).flags & WPI_ARRAY_LOCAL)
#else
#define WPI_LOCAL_PLAIN(a) false
#endif
namespace detail {
template <typename T, typename Op>
WPI_FUNC T plain_rmw(T* p, const T& v, Op op)
{
    typedef typename components<T>::scalar S;
    const T old = *p;
    for (int k = 0; k < components<T>::n; ++k)
        ((S*)p)[k] = S(op(((const S*)&old)[k], ((const S*)&v)[k]));
    return old;
}
}  // namespace detail
#define WPI_PLAIN_OP(NAME, EXPR)                                                                     \
    template <typename T>                                                                            \
    WPI_FUNC T NAME##_local_ptr(T* p, const T& v)                                                    \
    {                                                                                                \
        typedef typename components<T>::scalar S;                                                    \
        return detail::plain_rmw(p, v, [](S a, S b) { return EXPR; });                               \
    }
WPI_PLAIN_OP(atomic_add, a + b)
WPI_PLAIN_OP(atomic_sub, a - b)
WPI_PLAIN_OP(atomic_min, min(a, b))
WPI_PLAIN_OP(atomic_max, max(a, b))
WPI_PLAIN_OP(atomic_exch, b)
WPI_PLAIN_OP(atomic_and, a & b)
WPI_PLAIN_OP(atomic_or, a | b)
WPI_PLAIN_OP(atomic_xor, a ^ b)
WPI_PLAIN_OP(atomic_add_own, a + b)
WPI_PLAIN_OP(atomic_sub_own, a - b)
#undef WPI_PLAIN_OP
#define WPI_ARRAY_ATOMIC(NAME, ARR)                                                                \
    template <typename T>                                                                        \
    WPI_FUNC T NAME##_at(const ARR<T>& a, T* p, const T& v)                                      \
    {                                                                                            \
        if (WPI_LOCAL_PLAIN(a)) return NAME##_local_ptr(p, v);                                   \
        return NAME##_ptr(p, v);                                                                 \
    }                                                                                            \
    template <typename T, typename I>                                                            \
    WPI_FUNC T NAME(const ARR<T>& a, I i, const T& v) { return NAME##_at(a, address(a, i), v); } \
    template <typename T, typename I, typename J>                                                \
    WPI_FUNC T NAME(const ARR<T>& a, I i, J j, const T& v) { return NAME##_at(a, address(a, i, j), v); } \
    template <typename T, typename I, typename J, typename K>                                    \
    WPI_FUNC T NAME(const ARR<T>& a, I i, J j, K k, const T& v)                              \
    {                                                                                            \
        return NAME##_at(a, address(a, i, j, k), v);                                             \
    }                                                                                            \
    template <typename T, typename I, typename J, typename K, typename L>                        \
    WPI_FUNC T NAME(const ARR<T>& a, I i, J j, K k, L l, const T& v)                         \
    {                                                                                            \
        return NAME##_at(a, address(a, i, j, k, l), v);                                          \
    }
WPI_ARRAY_ATOMIC(atomic_add, array_t)
WPI_ARRAY_ATOMIC(atomic_add, indexedarray_t)
WPI_ARRAY_ATOMIC(atomic_sub, array_t)
WPI_ARRAY_ATOMIC(atomic_sub, indexedarray_t)
WPI_ARRAY_ATOMIC(atomic_min, array_t)
WPI_ARRAY_ATOMIC(atomic_min, indexedarray_t)
WPI_ARRAY_ATOMIC(atomic_max, array_t)
WPI_ARRAY_ATOMIC(atomic_max, indexedarray_t)
WPI_ARRAY_ATOMIC(atomic_exch, array_t)
WPI_ARRAY_ATOMIC(atomic_exch, indexedarray_t)
WPI_ARRAY_ATOMIC(atomic_and, array_t)
WPI_ARRAY_ATOMIC(atomic_and, indexedarray_t)
WPI_ARRAY_ATOMIC(atomic_or, array_t)
WPI_ARRAY_ATOMIC(atomic_or, indexedarray_t)
WPI_ARRAY_ATOMIC(atomic_xor, array_t)
WPI_ARRAY_ATOMIC(atomic_xor, indexedarray_t)
WPI_ARRAY_ATOMIC(atomic_add_own, array_t)
WPI_ARRAY_ATOMIC(atomic_sub_own, array_t)
#undef WPI_ARRAY_ATOMIC

// atomic_cas(a, i[, j[, k[, l]]], compare, value) -> the old value (scalars); on a thread's own
// stack array on CUDA, the same comparison (of values) as a plain read and write (WPI_LOCAL_PLAIN)
template <typename T>
WPI_FUNC T atomic_cas_at(T* p, const T& compare, const T& v) { return detail::scalar_atomic_cas(p, compare, v); }
template <typename A, typename T>
WPI_FUNC T atomic_cas_at(const A& a, T* p, const T& compare, const T& v)
{
    if (WPI_LOCAL_PLAIN(a)) {
        const T old = *p;
        if (old == compare) *p = v;
        return old;
    }
    return detail::scalar_atomic_cas(p, compare, v);
}
// atomic_cas, and the forms the adjoint's forward replay runs instead of an atomic (in the
// replay an atomic must not write again: it only reads), for arrays and indexed arrays
#define WPI_ARRAY_CAS_REPLAY(ARR) \
template <typename T, typename I> \
WPI_FUNC T atomic_cas(const ARR<T>& a, I i, const T& c, const T& v) { return atomic_cas_at(a, address(a, i), c, v); } \
template <typename T, typename I, typename J> \
WPI_FUNC T atomic_cas(const ARR<T>& a, I i, J j, const T& c, const T& v) { return atomic_cas_at(a, address(a, i, j), c, v); } \
template <typename T, typename I, typename J, typename K> \
WPI_FUNC T atomic_cas(const ARR<T>& a, I i, J j, K k, const T& c, const T& v) \
{ \
    return atomic_cas_at(a, address(a, i, j, k), c, v); \
} \
template <typename T, typename I, typename J, typename K, typename L> \
WPI_FUNC T atomic_cas(const ARR<T>& a, I i, J j, K k, L l, const T& c, const T& v) \
{ \
    return atomic_cas_at(a, address(a, i, j, k, l), c, v); \
} \
template <typename T, typename I> \
WPI_FUNC T atomic_cas_replay(const ARR<T>& a, I i, const T&, const T&) { return load(a, i); } \
template <typename T, typename I, typename J> \
WPI_FUNC T atomic_cas_replay(const ARR<T>& a, I i, J j, const T&, const T&) { return load(a, i, j); } \
template <typename T, typename I, typename J, typename K> \
WPI_FUNC T atomic_cas_replay(const ARR<T>& a, I i, J j, K k, const T&, const T&) { return load(a, i, j, k); } \
template <typename T, typename I, typename J, typename K, typename L> \
WPI_FUNC T atomic_cas_replay(const ARR<T>& a, I i, J j, K k, L l, const T&, const T&) { return load(a, i, j, k, l); } \
 \
template <typename T, typename... I> \
WPI_FUNC T atomic_replay(const ARR<T>& a, I... idx) \
{ \
    return *address(a, idx...); \
} \
template <typename T, typename I> \
WPI_FUNC T atomic_replay(const ARR<T>& a, I i, const T&) { return load(a, i); } \
template <typename T, typename I, typename J> \
WPI_FUNC T atomic_replay(const ARR<T>& a, I i, J j, const T&) { return load(a, i, j); } \
template <typename T, typename I, typename J, typename K> \
WPI_FUNC T atomic_replay(const ARR<T>& a, I i, J j, K k, const T&) { return load(a, i, j, k); } \
template <typename T, typename I, typename J, typename K, typename L> \
WPI_FUNC T atomic_replay(const ARR<T>& a, I i, J j, K k, L l, const T&) { return load(a, i, j, k, l); }
WPI_ARRAY_CAS_REPLAY(array_t)
WPI_ARRAY_CAS_REPLAY(indexedarray_t)
#undef WPI_ARRAY_CAS_REPLAY

// The adjoint's replay of an atomic on a thread's own stack array (WPI_ARRAY_LOCAL: a
// wp.fixedarray, made afresh by the replay) performs it, so that later reads in the replay see
// what the forward saw; on any other array it only reads, as atomic_replay.
#define WPI_LOCAL_ATOMIC_REPLAY(OP)                                                                \
    template <typename T, typename... A>                                                           \
    WPI_FUNC T OP##_local(const array_t<T>& a, A... args)                                          \
    {                                                                                              \
        if (a.flags & WPI_ARRAY_LOCAL) return OP(a, args...);                                      \
        return atomic_replay(a, args...);                                                          \
    }                                                                                              \
    template <typename T, typename... A>                                                           \
    WPI_FUNC T OP##_local(const indexedarray_t<T>& a, A... args) { return atomic_replay(a, args...); }
WPI_LOCAL_ATOMIC_REPLAY(atomic_add)
WPI_LOCAL_ATOMIC_REPLAY(atomic_sub)
WPI_LOCAL_ATOMIC_REPLAY(atomic_min)
WPI_LOCAL_ATOMIC_REPLAY(atomic_max)
WPI_LOCAL_ATOMIC_REPLAY(atomic_exch)
WPI_LOCAL_ATOMIC_REPLAY(atomic_and)
WPI_LOCAL_ATOMIC_REPLAY(atomic_or)
WPI_LOCAL_ATOMIC_REPLAY(atomic_xor)
#undef WPI_LOCAL_ATOMIC_REPLAY
template <typename T, typename... A>
WPI_FUNC T atomic_cas_local(const array_t<T>& a, A... args)
{
    if (a.flags & WPI_ARRAY_LOCAL) return atomic_cas(a, args...);
    return atomic_cas_replay(a, args...);
}
template <typename T, typename... A>
WPI_FUNC T atomic_cas_local(const indexedarray_t<T>& a, A... args) { return atomic_cas_replay(a, args...); }

// --- generic adjoint helpers ------------------------------------------------------------------------
template <typename T>
WPI_FUNC void adj_accum(T& a, const T& b) { a = add(a, b); }
WPI_FUNC void adj_accum(bool&, const bool&) {}
template <typename T>
WPI_FUNC void adj_accum(transform_t<T>& a, const transform_t<T>& b)
{
    adj_accum(a.p, b.p);
    adj_accum(a.q, b.q);
}
template <typename T>
WPI_FUNC void adj_accum(array_t<T>&, const array_t<T>&) {}
template <typename T>
WPI_FUNC void adj_accum(indexedarray_t<T>&, const indexedarray_t<T>&) {}
template <int N, typename T>
WPI_FUNC void adj_accum(fixedarray_t<N, T>&, const fixedarray_t<N, T>&) {}
// adjoints of an element kept in a local across a loop (own_add_value... above)
template <typename T>
WPI_FUNC void adj_own_add_value(const T&, const T&, T& adj_x, T& adj_v, const T& adj_ret)
{
    adj_accum(adj_x, adj_ret);
    adj_accum(adj_v, adj_ret);
}
template <typename T>
WPI_FUNC void adj_own_sub_value(const T&, const T&, T& adj_x, T& adj_v, const T& adj_ret)
{
    adj_accum(adj_x, adj_ret);
    adj_accum(adj_v, T(-adj_ret));
}
template <typename T>
WPI_FUNC void adj_own_value(const T&, T& adj_x, const T& adj_ret) { adj_accum(adj_x, adj_ret); }

// dst = src in a loop: src's adjoint takes dst's, and dst's earlier value had no use after.
template <typename T>
WPI_FUNC void adj_copy(T& adj_src, T& adj_dst)
{
    adj_accum(adj_src, adj_dst);
    adj_dst = T{};
}

template <typename T>
WPI_FUNC void adj_select(bool cond, T& adj_a, T& adj_b, const T& adj_out)
{
    if (cond)
        adj_accum(adj_a, adj_out);
    else
        adj_accum(adj_b, adj_out);
}

// --- adjoints of array access (gradients live in the array's `grad` buffer) ----------------------
// A read adds its adjoint into the element's gradient (atomically: other threads may read it too).
// A store *takes* the element's gradient: the value it overwrote had no influence after it, so its
// adjoint restarts from zero (warp-lang's rule: only the last write of an element propagates).
// Taking is atomic too, so that of several threads storing into one element exactly one receives
// the adjoint. The `_own` forms are for indices that are the thread's own (wp.tid(), codegen
// proves it): no other thread touches that element, and plain reads and writes vectorise. A read
// adjoint taking `own` is plain where the entry found `own` safe (codegen/own_index.py).
// Structs (arrays of @wp.struct) get field-wise `grad_add`/`grad_take` generated beside them,
// found by argument-dependent lookup, as `adj_accum` is.
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
namespace detail {
// A value of two floats (vec2f: the complex numbers of FFTs) at an 8-byte aligned address takes
// its gradient with one 64-bit compare-and-swap or exchange instead of one per component (each a
// locked instruction: most of an FFT row's adjoint). Components get the same old + v.
template <typename T>
WPI_FUNC bool float_pair_at(const T* p)
{
    return components<T>::n == 2 && sizeof(T) == 8 && sizeof(typename components<T>::scalar) == 4 &&
           ((unsigned long long)p & 7ull) == 0;
}
}  // namespace detail
#endif
template <typename T>
WPI_FUNC void grad_add_own(T* p, const T& v) { adj_accum(*p, v); }
template <typename T>
WPI_FUNC T grad_take_own(T* p)
{
    T v = *p;
    *p = T{};
    return v;
}
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
// The only launch running, on this thread alone (core.h wpi_plain_grads): no other thread can
// touch a gradient, which then takes its additions plainly (a locked instruction per component
// was most of a stencil's or an FFT's adjoint). The same arithmetic: results are the same bits.
WPI_FUNC bool launch_alone() { return __atomic_load_n(::wpi_plain_grads, __ATOMIC_RELAXED) == 1; }
#endif
template <typename T>
WPI_FUNC void grad_add(T* p, const T& v)
{
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
    if (launch_alone()) return grad_add_own(p, v);
    if constexpr (components<T>::n == 2 && sizeof(T) == 8) {
        if (detail::float_pair_at(p)) {
            typedef typename components<T>::scalar S;
            detail::atomic_rmw(p, [&v](T old) {
                T r = old;
                for (int k = 0; k < 2; ++k) ((S*)&r)[k] = S(((const S*)&old)[k] + ((const S*)&v)[k]);
                return r;
            });
            return;
        }
    }
#endif
    atomic_add_ptr(p, v);
}
WPI_FUNC void grad_add(bool*, const bool&) {}
template <typename T>
WPI_FUNC void grad_add(array_t<T>*, const array_t<T>&) {}
template <typename T>
WPI_FUNC void grad_add(indexedarray_t<T>*, const indexedarray_t<T>&) {}
template <typename T>
WPI_FUNC T grad_take(T* p)
{
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
    if (launch_alone()) return grad_take_own(p);
    if constexpr (components<T>::n == 2 && sizeof(T) == 8) {
        if (detail::float_pair_at(p)) {
            const unsigned long long bits = __atomic_exchange_n((unsigned long long*)p, 0ull, __ATOMIC_RELAXED);
            T r;
            WPI_HOST_MEMCPY(&r, &bits, sizeof(T));
            return r;
        }
    }
#endif
    return atomic_exch_ptr(p, T{});
}
WPI_FUNC bool grad_take(bool*) { return false; }
template <typename T>
WPI_FUNC array_t<T> grad_take(array_t<T>*) { return array_t<T>{}; }
template <typename T>
WPI_FUNC indexedarray_t<T> grad_take(indexedarray_t<T>*) { return indexedarray_t<T>{}; }

namespace detail {
// the bytes [lo, hi) an array's buffer at `base` spans, from its shape and strides
template <typename T, typename A, typename Shape>
WPI_FUNC void byte_span(int64 base, const A& a, const Shape& shape, int64& lo, int64& hi)
{
    lo = hi = base;
    for (int k = 0; k < a.ndim; ++k) {
        const int64 span = int64(shape[k] > 0 ? shape[k] - 1 : 0) * a.strides[k];
        (span < 0 ? lo : hi) += span;
    }
    hi += int64(sizeof(T));
}
template <typename T>
WPI_FUNC void grad_extent(const array_t<T>& a, int64& lo, int64& hi)
{
    byte_span<T>(int64(a.grad), a, a.shape, lo, hi);
}
// an indexed array's gradient is its underlying array's (its extent is the whole of that array)
template <typename T>
WPI_FUNC void grad_extent(const indexedarray_t<T>& a, int64& lo, int64& hi)
{
    byte_span<T>(int64(a.grad), a, a.arr_shape, lo, hi);
}
template <typename T>
WPI_FUNC void data_extent(const array_t<T>& a, int64& lo, int64& hi)
{
    byte_span<T>(int64(a.data), a, a.shape, lo, hi);
}
template <typename T>
WPI_FUNC void data_extent(const indexedarray_t<T>& a, int64& lo, int64& hi)
{
    byte_span<T>(int64(a.data), a, a.arr_shape, lo, hi);
}
}  // namespace detail

// Whether two arrays' gradient buffers share no byte. A kernel's backward takes the plain
// (non-atomic) adjoint of its own-index reads of an array only when every other array parameter's
// gradient is disjoint from it: the same buffer passed twice would let another thread's atomic
// meet this thread's plain update.
template <typename A, typename B>
WPI_FUNC bool grad_disjoint(const A& a, const B& b)
{
    if (!a.grad || !b.grad) return true;
    int64 alo, ahi, blo, bhi;
    detail::grad_extent(a, alo, ahi);
    detail::grad_extent(b, blo, bhi);
    return ahi <= blo || bhi <= alo;
}

// Whether two arrays' data buffers share no byte. A lanes body keeps an own-index element in a
// local across a loop (codegen/lanes_hoist.py) only where no other array parameter reaches it.
template <typename A, typename B>
WPI_FUNC bool data_disjoint(const A& a, const B& b)
{
    if (!a.data || !b.data) return true;
    int64 alo, ahi, blo, bhi;
    detail::data_extent(a, alo, ahi);
    detail::data_extent(b, blo, bhi);
    return ahi <= blo || bhi <= alo;
}

namespace detail {
// atomic_min / atomic_max: the element's gradient goes to each value that equals the element's
// final value, component by component (every tied value gets it, as the reference does)
template <typename T>
WPI_FUNC void adj_minmax(const T& final_value, const T& grad, const T& v, T& adj_v)
{
    typedef typename components<T>::scalar S;
    for (int k = 0; k < components<T>::n; ++k) {
        const S f = ((const S*)&final_value)[k], x = ((const S*)&v)[k];
        if (f == x || (isnan(f) && isnan(x)))
            ((S*)&adj_v)[k] += ((const S*)&grad)[k];
    }
}
}  // namespace detail

#define WPI_ARRAY_ADJ(ARR, IDX_T, IDX_P, IDX_A, IDX_ADJ)                                            \
    template <typename T, IDX_T>                                                                    \
    WPI_FUNC void adj_load(const ARR<T>& a, IDX_P, ARR<T>&, IDX_ADJ, const T& adj_ret)      \
    {                                                                                               \
        if (a.grad && WPI_LOCAL_PLAIN(a)) grad_add_own(elem_ptr(a.grad, a, IDX_A), adj_ret);        \
        else if (a.grad) grad_add(elem_ptr(a.grad, a, IDX_A), adj_ret);                             \
    }                                                                                               \
    template <typename T, IDX_T>                                                                    \
    WPI_FUNC void adj_load_own(const ARR<T>& a, IDX_P, ARR<T>&, IDX_ADJ, const T& adj_ret)  \
    {                                                                                               \
        if (a.grad) grad_add_own(elem_ptr(a.grad, a, IDX_A), adj_ret);                              \
    }                                                                                               \
    template <typename T, IDX_T>                                                                    \
    WPI_FUNC void adj_load(const ARR<T>& a, IDX_P, ARR<T>&, IDX_ADJ, const T& adj_ret,      \
                           bool own)                                                                \
    {                                                                                               \
        if (a.grad && (own || WPI_LOCAL_PLAIN(a))) grad_add_own(elem_ptr(a.grad, a, IDX_A), adj_ret); \
        else if (a.grad) grad_add(elem_ptr(a.grad, a, IDX_A), adj_ret);                             \
    }                                                                                               \
    template <typename T, IDX_T>                                                                    \
    WPI_FUNC void adj_array_store(const ARR<T>& a, IDX_P, const T&, ARR<T>&, IDX_ADJ,       \
                                  T& adj_v)                                                         \
    {                                                                                               \
        if (a.grad && (a.flags & WPI_ARRAY_RETAIN_GRAD))                                            \
            adj_accum(adj_v, *elem_ptr(a.grad, a, IDX_A));                                          \
        else if (a.grad && WPI_LOCAL_PLAIN(a))                                                      \
            adj_accum(adj_v, grad_take_own(elem_ptr(a.grad, a, IDX_A)));                            \
        else if (a.grad)                                                                            \
            adj_accum(adj_v, grad_take(elem_ptr(a.grad, a, IDX_A)));                                \
    }                                                                                               \
    template <typename T, IDX_T>                                                                    \
    WPI_FUNC void adj_array_store_own(const ARR<T>& a, IDX_P, const T&, ARR<T>&, IDX_ADJ,   \
                                      T& adj_v)                                                     \
    {                                                                                               \
        if (a.grad && (a.flags & WPI_ARRAY_RETAIN_GRAD))                                            \
            adj_accum(adj_v, *elem_ptr(a.grad, a, IDX_A));                                          \
        else if (a.grad)                                                                            \
            adj_accum(adj_v, grad_take_own(elem_ptr(a.grad, a, IDX_A)));                            \
    }                                                                                               \
    template <typename T, IDX_T>                                                                    \
    WPI_FUNC void adj_atomic_add(const ARR<T>& a, IDX_P, const T&, ARR<T>&, IDX_ADJ,        \
                                 T& adj_v, const T&)                                                \
    {                                                                                               \
        if (a.grad) adj_accum(adj_v, *elem_ptr(a.grad, a, IDX_A));                                  \
    }                                                                                               \
    template <typename T, IDX_T>                                                                    \
    WPI_FUNC void adj_atomic_sub(const ARR<T>& a, IDX_P, const T&, ARR<T>&, IDX_ADJ,        \
                                 T& adj_v, const T&)                                                \
    {                                                                                               \
        if (a.grad) adj_accum(adj_v, T(-*elem_ptr(a.grad, a, IDX_A)));                              \
    }                                                                                               \
    template <typename T, IDX_T>                                                                    \
    WPI_FUNC void adj_atomic_min(const ARR<T>& a, IDX_P, const T& v, ARR<T>&, IDX_ADJ,      \
                                 T& adj_v, const T&)                                                \
    {                                                                                               \
        if (a.grad) detail::adj_minmax(*elem_ptr(a.data, a, IDX_A), *elem_ptr(a.grad, a, IDX_A), v, adj_v); \
    }                                                                                               \
    template <typename T, IDX_T>                                                                    \
    WPI_FUNC void adj_atomic_max(const ARR<T>& a, IDX_P, const T& v, ARR<T>&, IDX_ADJ,      \
                                 T& adj_v, const T&)                                                \
    {                                                                                               \
        if (a.grad) detail::adj_minmax(*elem_ptr(a.data, a, IDX_A), *elem_ptr(a.grad, a, IDX_A), v, adj_v); \
    }                                                                                               \
    template <typename T, IDX_T>                                                                    \
    WPI_FUNC void adj_view(const ARR<T>&, IDX_P, ARR<T>&, IDX_ADJ, const ARR<T>&) {}

#define WPI_COMMA ,
// One kind of array (plain or indexed) at 1 to 4 indices.
#define WPI_ARRAY_ADJ_1_TO_4(ARR)                                                                   \
    WPI_ARRAY_ADJ(ARR, typename I, I i, int64(i), I&)                                               \
    WPI_ARRAY_ADJ(ARR, typename I WPI_COMMA typename J, I i WPI_COMMA J j,                          \
                  int64(i) WPI_COMMA int64(j), I& WPI_COMMA J&)                                     \
    WPI_ARRAY_ADJ(ARR, typename I WPI_COMMA typename J WPI_COMMA typename K,                        \
                  I i WPI_COMMA J j WPI_COMMA K k,                                                  \
                  int64(i) WPI_COMMA int64(j) WPI_COMMA int64(k), I& WPI_COMMA J& WPI_COMMA K&)     \
    WPI_ARRAY_ADJ(ARR, typename I WPI_COMMA typename J WPI_COMMA typename K WPI_COMMA typename L,    \
                  I i WPI_COMMA J j WPI_COMMA K k WPI_COMMA L l,                                    \
                  int64(i) WPI_COMMA int64(j) WPI_COMMA int64(k) WPI_COMMA int64(l),                \
                  I& WPI_COMMA J& WPI_COMMA K& WPI_COMMA L&)
WPI_ARRAY_ADJ_1_TO_4(array_t)
WPI_ARRAY_ADJ_1_TO_4(indexedarray_t)
#undef WPI_ARRAY_ADJ_1_TO_4
#undef WPI_COMMA
#undef WPI_ARRAY_ADJ

}  // namespace wp
