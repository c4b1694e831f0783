// Small dense linear algebra over flat float arrays, one thread doing a whole problem:
// dense_gemm / dense_chol / dense_subs / dense_solve and their batched forms (warp-lang's
// hidden "Utility" builtins). Matrices are row-major in a 1D float array; an element is reached
// through the array's stride, and gradients through its `grad` buffer (atomically: several
// threads may share one). Included after atomic.h (grad_add).
#pragma once

#include "warp_interactive/core/atomic.h"

namespace wp {

namespace dense {
// element i of a 1D array's buffer `base` (its data or its grad), through the array's stride
WPI_FUNC float& at(const array_t<float>& a, float* base, int64 i)
{
    return *(float*)((char*)base + i * a.strides[0]);
}
WPI_FUNC float& at(const array_t<float>& a, int64 i) { return at(a, a.data, i); }
WPI_FUNC int32 at(const array_t<int32>& a, int64 i) { return *(int32*)((char*)a.data + i * a.strides[0]); }

// the (i, j) entry of a rows x cols row-major matrix, or of its transpose when `t`
WPI_FUNC int64 index(bool t, int32 rows, int32 cols, int32 i, int32 j)
{
    return t ? int64(j) * rows + i : int64(i) * cols + j;
}

// C (m x n, at offset c0) = or += op(A) (m x p) * op(B) (p x n); op = transpose when t1/t2.
// `a_base`/`b_base`/`c_base` pick the data or grad buffer of each array.
WPI_FUNC void gemm(int32 m, int32 n, int32 p, bool t1, bool t2, const array_t<float>& A, float* a_base,
                   int64 a0, const array_t<float>& B, float* b_base, int64 b0, const array_t<float>& C,
                   float* c_base, int64 c0, bool add, bool atomic)
{
    for (int32 i = 0; i < m; ++i)
        for (int32 j = 0; j < n; ++j) {
            float sum = 0.0f;
            for (int32 k = 0; k < p; ++k)
                sum += at(A, a_base, a0 + index(t1, m, p, i, k)) * at(B, b_base, b0 + index(t2, p, n, k, j));
            float& c = at(C, c_base, c0 + int64(i) * n + j);
            if (atomic)
                grad_add(&c, sum);
            else
                c = add ? c + sum : sum;
        }
}

// the gradients of C = op(A) op(B) for C's gradient: A's (+= dC op(B)^T, op-transposed back)
// and B's (+= op(A)^T dC, op-transposed back)
WPI_FUNC void adj_gemm(int32 m, int32 n, int32 p, bool t1, bool t2, const array_t<float>& A, int64 a0,
                       const array_t<float>& B, int64 b0, const array_t<float>& C, int64 c0)
{
    if (!C.grad)
        return;
    for (int32 i = 0; i < m; ++i)
        for (int32 k = 0; k < p; ++k) {
            float s = 0.0f;   // (dC op(B)^T)[i, k]
            for (int32 j = 0; j < n; ++j)
                s += at(C, C.grad, c0 + int64(i) * n + j) * at(B, b0 + index(t2, p, n, k, j));
            if (A.grad)
                grad_add(&at(A, A.grad, a0 + index(t1, m, p, i, k)), s);
        }
    for (int32 k = 0; k < p; ++k)
        for (int32 j = 0; j < n; ++j) {
            float s = 0.0f;   // (op(A)^T dC)[k, j]
            for (int32 i = 0; i < m; ++i)
                s += at(A, a0 + index(t1, m, p, i, k)) * at(C, C.grad, c0 + int64(i) * n + j);
            if (B.grad)
                grad_add(&at(B, B.grad, b0 + index(t2, p, n, k, j)), s);
        }
}

// L (n x n at l0) = the lower Cholesky factor of A + regularization * I (A at a0)
WPI_FUNC void chol(int32 n, const array_t<float>& A, int64 a0, float regularization, const array_t<float>& L,
                   int64 l0)
{
    for (int32 j = 0; j < n; ++j) {
        float s = at(A, a0 + int64(j) * n + j) + regularization;
        for (int32 k = 0; k < j; ++k) {
            const float r = at(L, l0 + int64(j) * n + k);
            s -= r * r;
        }
        s = sqrt(s);
        at(L, l0 + int64(j) * n + j) = s;
        const float inv = 1.0f / s;
        for (int32 i = j + 1; i < n; ++i) {
            float t = at(A, a0 + int64(i) * n + j);
            for (int32 k = 0; k < j; ++k)
                t -= at(L, l0 + int64(i) * n + k) * at(L, l0 + int64(j) * n + k);
            at(L, l0 + int64(i) * n + j) = t * inv;
        }
    }
}

// x = (L L^T)^-1 b: forward then backward substitution (b's buffer `b_base`, x's `x_base`)
WPI_FUNC void subs(int32 n, const array_t<float>& L, int64 l0, const array_t<float>& b, float* b_base, int64 b0,
                   const array_t<float>& x, float* x_base, int64 x0)
{
    for (int32 i = 0; i < n; ++i) {
        float s = at(b, b_base, b0 + i);
        for (int32 j = 0; j < i; ++j)
            s -= at(L, l0 + int64(i) * n + j) * at(x, x_base, x0 + j);
        at(x, x_base, x0 + i) = s / at(L, l0 + int64(i) * n + i);
    }
    for (int32 i = n - 1; i >= 0; --i) {
        float s = at(x, x_base, x0 + i);
        for (int32 j = i + 1; j < n; ++j)
            s -= at(L, l0 + int64(j) * n + i) * at(x, x_base, x0 + j);
        at(x, x_base, x0 + i) = s / at(L, l0 + int64(i) * n + i);
    }
}
}  // namespace dense

WPI_FUNC void dense_gemm(int32 m, int32 n, int32 p, int32 t1, int32 t2, const array_t<float>& A,
                         const array_t<float>& B, const array_t<float>& C)
{
    dense::gemm(m, n, p, t1 != 0, t2 != 0, A, A.data, 0, B, B.data, 0, C, C.data, 0, false, false);
}
WPI_FUNC void adj_dense_gemm(int32 m, int32 n, int32 p, int32 t1, int32 t2, const array_t<float>& A,
                             const array_t<float>& B, const array_t<float>& C, int32&, int32&, int32&, int32&,
                             int32&, array_t<float>&, array_t<float>&, array_t<float>&)
{
    dense::adj_gemm(m, n, p, t1 != 0, t2 != 0, A, 0, B, 0, C, 0);
}

WPI_FUNC void dense_chol(int32 n, const array_t<float>& A, float regularization, const array_t<float>& L)
{
    dense::chol(n, A, 0, regularization, L, 0);
}

WPI_FUNC void dense_subs(int32 n, const array_t<float>& L, const array_t<float>& b, const array_t<float>& x)
{
    dense::subs(n, L, 0, b, b.data, 0, x, x.data, 0);
}

// x = A^-1 b given A's Cholesky factor L (A is read only by the adjoint)
WPI_FUNC void dense_solve(int32 n, const array_t<float>&, const array_t<float>& L, const array_t<float>& b,
                          const array_t<float>& x)
{
    dense::subs(n, L, 0, b, b.data, 0, x, x.data, 0);
}
// as warp-lang: b's gradient is SET to A^-1 dx (dx: x's gradient; A symmetric), then
// dA -= db x^T (Giles, "Collected matrix derivative results", 2.3.1). L is not differentiated.
WPI_FUNC void adj_dense_solve(int32 n, const array_t<float>& A, const array_t<float>& L, const array_t<float>& b,
                              const array_t<float>& x, int32&, array_t<float>&, array_t<float>&,
                              array_t<float>&, array_t<float>&)
{
    if (!x.grad || !b.grad)
        return;
    dense::subs(n, L, 0, x, x.grad, 0, b, b.grad, 0);
    if (!A.grad)
        return;
    for (int32 i = 0; i < n; ++i)
        for (int32 j = 0; j < n; ++j)
            grad_add(&dense::at(A, A.grad, int64(i) * n + j), -dense::at(b, b.grad, i) * dense::at(x, j));
}

// --- batched forms: the thread with linear launch index `batch` solves problem `batch` --------
WPI_FUNC void dense_gemm_batched(int64 batch, const launch_bounds_t&, const array_t<int32>& m,
                                 const array_t<int32>& n, const array_t<int32>& p, int32 t1, int32 t2,
                                 const array_t<int32>& A_start, const array_t<int32>& B_start,
                                 const array_t<int32>& C_start, const array_t<float>& A,
                                 const array_t<float>& B, const array_t<float>& C)
{
    dense::gemm(dense::at(m, batch), dense::at(n, batch), dense::at(p, batch), t1 != 0, t2 != 0, A, A.data,
                dense::at(A_start, batch), B, B.data, dense::at(B_start, batch), C, C.data,
                dense::at(C_start, batch), false, false);
}

WPI_FUNC void dense_chol_batched(int64 batch, const launch_bounds_t&, const array_t<int32>& A_start,
                                 const array_t<int32>& A_dim, const array_t<float>& A, float regularization,
                                 const array_t<float>& L)
{
    const int64 a0 = dense::at(A_start, batch);
    dense::chol(dense::at(A_dim, batch), A, a0, regularization, L, a0);
}

WPI_FUNC void dense_solve_batched(int64 batch, const launch_bounds_t&, const array_t<int32>& b_start,
                                  const array_t<int32>& A_start, const array_t<int32>& A_dim,
                                  const array_t<float>&, const array_t<float>& L, const array_t<float>& b,
                                  const array_t<float>& x)
{
    const int64 b0 = dense::at(b_start, batch);
    dense::subs(dense::at(A_dim, batch), L, dense::at(A_start, batch), b, b.data, b0, x, x.data, b0);
}
}  // namespace wp
