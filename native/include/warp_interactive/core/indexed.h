// Indexed arrays (wp.indexedarray): an array read and written through one index array per
// dimension (a null index array takes the dimension as it is). Element access, views, shape,
// bounds checks; atomic.h instantiates the atomics and the access adjoints for them too.
// Depends on core.h only.
#pragma once

#include "warp_interactive/core/core.h"

namespace wp {

// Mirrors types/arraydesc.py (IndexedArrayDesc): the underlying array's descriptor (array_t's
// fields under the same names, so the access adjoints read `a.grad`, `a.flags` for both kinds),
// then the index arrays and the indexed shape. The layout is warp-lang's indexedarray_t
// ({array_t arr; int* indices[4]; int shape[4];}).
template <typename T>
struct indexedarray_t {
    T* data;
    T* grad;
    int64 strides[4];     // bytes, of the underlying array
    int32 arr_shape[4];   // the underlying array's shape
    int32 ndim;
    int32 flags;
    int32* indices[4];    // null: the dimension is not indexed
    int32 shape[4];       // the indexed shape (an index array's length, or arr_shape)
};

// Index i of dimension d (negative counts from the end of the indexed dimension) mapped through
// that dimension's index array.
template <typename T>
WPI_FUNC int64 indexed_index(const indexedarray_t<T>& a, int d, int64 i)
{
    i = wrap_index(i, a.shape[d]);
    return a.indices[d] ? int64(a.indices[d][i]) : i;
}

template <typename T>
WPI_FUNC T* elem_ptr(T* base, const indexedarray_t<T>& a, int64 i)
{
    return (T*)((char*)base + indexed_index(a, 0, i) * a.strides[0]);
}
template <typename T>
WPI_FUNC T* elem_ptr(T* base, const indexedarray_t<T>& a, int64 i, int64 j)
{
    return (T*)((char*)base + indexed_index(a, 0, i) * a.strides[0] + indexed_index(a, 1, j) * a.strides[1]);
}
template <typename T>
WPI_FUNC T* elem_ptr(T* base, const indexedarray_t<T>& a, int64 i, int64 j, int64 k)
{
    return (T*)((char*)base + indexed_index(a, 0, i) * a.strides[0] + indexed_index(a, 1, j) * a.strides[1] +
                indexed_index(a, 2, k) * a.strides[2]);
}
template <typename T>
WPI_FUNC T* elem_ptr(T* base, const indexedarray_t<T>& a, int64 i, int64 j, int64 k, int64 l)
{
    return (T*)((char*)base + indexed_index(a, 0, i) * a.strides[0] + indexed_index(a, 1, j) * a.strides[1] +
                indexed_index(a, 2, k) * a.strides[2] + indexed_index(a, 3, l) * a.strides[3]);
}

template <typename T, typename... I>
WPI_FUNC T* address(const indexedarray_t<T>& a, I... idx) { return elem_ptr(a.data, a, int64(idx)...); }

template <typename T, typename... I>
WPI_FUNC T load(const indexedarray_t<T>& a, I... idx) { return *elem_ptr(a.data, a, int64(idx)...); }

template <typename T, typename... I>
WPI_FUNC void indexed_store(const indexedarray_t<T>& a, const T& v, I... idx) { *elem_ptr(a.data, a, int64(idx)...) = v; }
template <typename T>
WPI_FUNC void array_store(const indexedarray_t<T>& a, int64 i, const T& v) { indexed_store(a, v, i); }
template <typename T>
WPI_FUNC void array_store(const indexedarray_t<T>& a, int64 i, int64 j, const T& v) { indexed_store(a, v, i, j); }
template <typename T>
WPI_FUNC void array_store(const indexedarray_t<T>& a, int64 i, int64 j, int64 k, const T& v)
{
    indexed_store(a, v, i, j, k);
}
template <typename T>
WPI_FUNC void array_store(const indexedarray_t<T>& a, int64 i, int64 j, int64 k, int64 l, const T& v)
{
    indexed_store(a, v, i, j, k, l);
}
// the adjoint's replay of a store: an indexed array is never a thread's own stack memory
template <typename T, typename... A>
WPI_FUNC void array_store_local(const indexedarray_t<T>&, A...) {}

// a[i], a[i, j] of an indexed array of more dimensions: the indexed array of the remaining ones
// (integer indices only, as the reference: indexed arrays take no slices in kernels).
template <typename T, typename... I>
WPI_FUNC indexedarray_t<T> view(const indexedarray_t<T>& a, I... idx)
{
    const int64 ii[] = {int64(idx)...};
    const int n = int(sizeof...(I));
    int64 offset = 0;
    for (int d = 0; d < n; ++d) offset += indexed_index(a, d, ii[d]) * a.strides[d];
    indexedarray_t<T> v;
    for (int d = 0; d < 4; ++d) {
        const int s = d + n;
        v.strides[d] = s < 4 ? a.strides[s] : 0;
        v.arr_shape[d] = s < 4 ? a.arr_shape[s] : 0;
        v.indices[d] = s < 4 ? a.indices[s] : nullptr;
        v.shape[d] = s < 4 ? a.shape[s] : 0;
    }
    v.ndim = a.ndim - n;
    v.data = a.data ? (T*)((char*)a.data + offset) : nullptr;
    v.grad = a.grad ? (T*)((char*)a.grad + offset) : nullptr;
    v.flags = 0;   // as a view of an array: a store through it consumes the gradient
    return v;
}

template <typename T, typename I>
WPI_FUNC int32 array_shape(const indexedarray_t<T>& a, I k) { return a.shape[k]; }

template <typename T>
WPI_FUNC bool array_nonnull(const indexedarray_t<T>& a) { return a.data != nullptr; }

template <typename T>
WPI_FUNC int32 len(const indexedarray_t<T>& a) { return a.shape[0]; }

// Debug mode: each index in -n..n-1 of its indexed dimension, and the index it maps to inside
// the underlying array (an index array holding a bad index is reported with that index and the
// underlying shape).
template <typename T, typename... I>
WPI_FUNC bool check_bounds(const indexedarray_t<T>& a, const char* name, const char* kernel, int line, I... idx)
{
    int64 ii[] = {int64(idx)...};
    const int n = int(sizeof...(I));
    bool ok = a.data != nullptr && n <= a.ndim;
    for (int k = 0; ok && k < n; ++k) ok = ii[k] >= -int64(a.shape[k]) && ii[k] < a.shape[k];
    if (!ok) {
        record_bounds_error(name, kernel, line, ii, n, a.shape, a.ndim);
        return false;
    }
    for (int k = 0; k < n; ++k) {
        const int64 m = indexed_index(a, k, ii[k]);
        ok = ok && m >= 0 && m < a.arr_shape[k];
        ii[k] = m;
    }
    if (!ok) record_bounds_error(name, kernel, line, ii, n, a.arr_shape, a.ndim);
    return ok;
}

}  // namespace wp
