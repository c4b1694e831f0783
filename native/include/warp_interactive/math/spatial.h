// Spatial (6D) vectors vec_t<6, T> = (top, bottom) = (angular, linear) and 6x6 matrices.
#pragma once

#include "warp_interactive/math/transform.h"

namespace wp {

template <typename T> WPI_FUNC vec_t<6, T> spatial_vector(const vec_t<3, T>& top, const vec_t<3, T>& bottom)
{
    return vec_t<6, T>(top.c[0], top.c[1], top.c[2], bottom.c[0], bottom.c[1], bottom.c[2]);
}
template <typename T>
WPI_FUNC void adj_spatial_vector(const vec_t<3, T>&, const vec_t<3, T>&, vec_t<3, T>& adj_top, vec_t<3, T>& adj_bottom,
                                 const vec_t<6, T>& adj_ret)
{
    for (unsigned i = 0; i < 3; ++i) {
        adj_top.c[i] += adj_ret.c[i];
        adj_bottom.c[i] += adj_ret.c[i + 3];
    }
}

template <typename T> WPI_FUNC vec_t<3, T> spatial_top(const vec_t<6, T>& a) { return vec_t<3, T>(a.c[0], a.c[1], a.c[2]); }
template <typename T> WPI_FUNC void adj_spatial_top(const vec_t<6, T>&, vec_t<6, T>& adj_a, const vec_t<3, T>& adj_ret)
{
    for (unsigned i = 0; i < 3; ++i)
        adj_a.c[i] += adj_ret.c[i];
}

template <typename T> WPI_FUNC vec_t<3, T> spatial_bottom(const vec_t<6, T>& a) { return vec_t<3, T>(a.c[3], a.c[4], a.c[5]); }
template <typename T> WPI_FUNC void adj_spatial_bottom(const vec_t<6, T>&, vec_t<6, T>& adj_a, const vec_t<3, T>& adj_ret)
{
    for (unsigned i = 0; i < 3; ++i)
        adj_a.c[i + 3] += adj_ret.c[i];
}

template <typename T> WPI_FUNC T spatial_dot(const vec_t<6, T>& a, const vec_t<6, T>& b) { return dot(a, b); }
template <typename T>
WPI_FUNC void adj_spatial_dot(const vec_t<6, T>& a, const vec_t<6, T>& b, vec_t<6, T>& adj_a, vec_t<6, T>& adj_b, T adj_ret)
{
    adj_dot(a, b, adj_a, adj_b, adj_ret);
}

// motion cross product: (wa x wb, va x wb + wa x vb) for a = (wa, va), b = (wb, vb)
template <typename T> WPI_FUNC vec_t<6, T> spatial_cross(const vec_t<6, T>& a, const vec_t<6, T>& b)
{
    const vec_t<3, T> wa = spatial_top(a), va = spatial_bottom(a), wb = spatial_top(b), vb = spatial_bottom(b);
    return spatial_vector(cross(wa, wb), cross(va, wb) + cross(wa, vb));
}
template <typename T>
WPI_FUNC void adj_spatial_cross(const vec_t<6, T>& a, const vec_t<6, T>& b, vec_t<6, T>& adj_a, vec_t<6, T>& adj_b,
                                const vec_t<6, T>& adj_ret)
{
    const vec_t<3, T> wa = spatial_top(a), va = spatial_bottom(a), wb = spatial_top(b), vb = spatial_bottom(b);
    const vec_t<3, T> gw = spatial_top(adj_ret), gv = spatial_bottom(adj_ret);
    vec_t<3, T> adj_wa, adj_va, adj_wb, adj_vb;
    adj_cross(wa, wb, adj_wa, adj_wb, gw);
    adj_cross(va, wb, adj_va, adj_wb, gv);
    adj_cross(wa, vb, adj_wa, adj_vb, gv);
    adj_a += spatial_vector(adj_wa, adj_va);
    adj_b += spatial_vector(adj_wb, adj_vb);
}

// force cross product: (wa x wb + va x vb, wa x vb)
template <typename T> WPI_FUNC vec_t<6, T> spatial_cross_dual(const vec_t<6, T>& a, const vec_t<6, T>& b)
{
    const vec_t<3, T> wa = spatial_top(a), va = spatial_bottom(a), wb = spatial_top(b), vb = spatial_bottom(b);
    return spatial_vector(cross(wa, wb) + cross(va, vb), cross(wa, vb));
}
template <typename T>
WPI_FUNC void adj_spatial_cross_dual(const vec_t<6, T>& a, const vec_t<6, T>& b, vec_t<6, T>& adj_a, vec_t<6, T>& adj_b,
                                     const vec_t<6, T>& adj_ret)
{
    const vec_t<3, T> wa = spatial_top(a), va = spatial_bottom(a), wb = spatial_top(b), vb = spatial_bottom(b);
    const vec_t<3, T> gw = spatial_top(adj_ret), gv = spatial_bottom(adj_ret);
    vec_t<3, T> adj_wa, adj_va, adj_wb, adj_vb;
    adj_cross(wa, wb, adj_wa, adj_wb, gw);
    adj_cross(va, vb, adj_va, adj_vb, gw);
    adj_cross(wa, vb, adj_wa, adj_vb, gv);
    adj_a += spatial_vector(adj_wa, adj_va);
    adj_b += spatial_vector(adj_wb, adj_vb);
}

// the 6x6 block matrix [[R, 0], [S, R]]
template <typename T> WPI_FUNC mat_t<6, 6, T> spatial_adjoint(const mat_t<3, 3, T>& R, const mat_t<3, 3, T>& S)
{
    mat_t<6, 6, T> m;
    for (unsigned i = 0; i < 3; ++i)
        for (unsigned j = 0; j < 3; ++j) {
            m.data[i][j] = R.data[i][j];
            m.data[i + 3][j + 3] = R.data[i][j];
            m.data[i + 3][j] = S.data[i][j];
        }
    return m;
}
template <typename T>
WPI_FUNC void adj_spatial_adjoint(const mat_t<3, 3, T>&, const mat_t<3, 3, T>&, mat_t<3, 3, T>& adj_R, mat_t<3, 3, T>& adj_S,
                                  const mat_t<6, 6, T>& adj_ret)
{
    for (unsigned i = 0; i < 3; ++i)
        for (unsigned j = 0; j < 3; ++j) {
            adj_R.data[i][j] += adj_ret.data[i][j] + adj_ret.data[i + 3][j + 3];
            adj_S.data[i][j] += adj_ret.data[i + 3][j];
        }
}

}  // namespace wp
