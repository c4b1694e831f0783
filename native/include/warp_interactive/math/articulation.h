// Dense matrices of a kinematic chain (the articulated-body helpers of the reference):
// spatial_jacobian and spatial_mass write into flat float arrays. Each forward function sits
// directly above its adjoint; the adjoints move the output array's gradient back to the inputs'.
#pragma once

#include "warp_interactive/core/atomic.h"

namespace wp {

// J (joint_count * 6 rows, one column per degree of freedom of the chain, row major from J_start):
// the 6 rows of joint i hold, in the columns of i and of each of its ancestors a, the motion
// subspace S of a's degrees of freedom (S indexed by joint_qd_start[a] + k).
template <typename T, typename Visit>
WPI_FUNC void chain_jacobian_walk(const array_t<vec_t<6, T> >& S, const array_t<int32>& parents,
                                  const array_t<int32>& qd_start, int32 joint_start, int32 joint_count, int32 J_start,
                                  Visit visit)
{
    const int32 dof0 = load(qd_start, joint_start);
    const int32 ndof = load(qd_start, joint_start + joint_count) - dof0;
    for (int32 i = 0; i < joint_count; ++i) {
        for (int32 j = joint_start + i; j >= 0; j = load(parents, j)) {
            const int32 first = load(qd_start, j), count = load(qd_start, j + 1) - first;
            for (int32 k = 0; k < count; ++k) {
                const int32 col = first - dof0 + k;
                for (int32 r = 0; r < 6; ++r)
                    visit(first + k, r, J_start + (i * 6 + r) * ndof + col);
            }
        }
    }
    (void)S;
}

template <typename T>
WPI_FUNC void spatial_jacobian(const array_t<vec_t<6, T> >& S, const array_t<int32>& parents, const array_t<int32>& qd_start,
                               int32 joint_start, int32 joint_count, int32 J_start, const array_t<T>& J)
{
    chain_jacobian_walk(S, parents, qd_start, joint_start, joint_count, J_start,
                           [&](int32 s, int32 r, int32 at) { *elem_ptr(J.data, J, at) = load(S, s).c[r]; });
}
template <typename T>
WPI_FUNC void adj_spatial_jacobian(const array_t<vec_t<6, T> >& S, const array_t<int32>& parents,
                                   const array_t<int32>& qd_start, int32 joint_start, int32 joint_count, int32 J_start,
                                   const array_t<T>& J, array_t<vec_t<6, T> >&, array_t<int32>&, array_t<int32>&, int32&,
                                   int32&, int32&, array_t<T>&)
{
    if (!S.grad || !J.grad)
        return;
    chain_jacobian_walk(S, parents, qd_start, joint_start, joint_count, J_start, [&](int32 s, int32 r, int32 at) {
        vec_t<6, T> g;
        g.c[r] = *elem_ptr(J.grad, J, at);
        grad_add(elem_ptr(S.grad, S, s), g);
    });
}

// M (joint_count * 6 square, row major from M_start): block-diagonal, block l = I_s[joint_start + l]
template <typename T>
WPI_FUNC void spatial_mass(const array_t<mat_t<6, 6, T> >& I_s, int32 joint_start, int32 joint_count, int32 M_start,
                           const array_t<T>& M)
{
    const int32 stride = joint_count * 6;
    for (int32 l = 0; l < joint_count; ++l) {
        const mat_t<6, 6, T> I = load(I_s, joint_start + l);
        for (int32 i = 0; i < 6; ++i)
            for (int32 j = 0; j < 6; ++j)
                *elem_ptr(M.data, M, M_start + (l * 6 + i) * stride + l * 6 + j) = I.data[i][j];
    }
}
template <typename T>
WPI_FUNC void adj_spatial_mass(const array_t<mat_t<6, 6, T> >& I_s, int32 joint_start, int32 joint_count, int32 M_start,
                               const array_t<T>& M, array_t<mat_t<6, 6, T> >&, int32&, int32&, int32&, array_t<T>&)
{
    if (!I_s.grad || !M.grad)
        return;
    const int32 stride = joint_count * 6;
    for (int32 l = 0; l < joint_count; ++l) {
        mat_t<6, 6, T> g;
        for (int32 i = 0; i < 6; ++i)
            for (int32 j = 0; j < 6; ++j)
                g.data[i][j] = *elem_ptr(M.grad, M, M_start + (l * 6 + i) * stride + l * 6 + j);
        grad_add(elem_ptr(I_s.grad, I_s, joint_start + l), g);
    }
}

}  // namespace wp
