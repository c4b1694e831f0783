"""Test and trial functions evaluated once per quadrature point (fem/field/at_point.py): an
integrand that evaluates them at a sample other than the quadrature point (here the cell
centre) must get their values there, not the ones cached at the quadrature point. Reference:
the closed forms of Q1 shape functions on a rectangular grid, summed cell by cell in NumPy."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem

RES = (3, 2)
LO, HI = (0.0, 0.0), (1.5, 0.5)


@fem.integrand
def centre_value(s: fem.Sample, u: fem.Field, v: fem.Field):
    c = fem.Sample(s.element_index, wp.vec3(0.5, 0.5, 0.0), s.qp_index, s.qp_weight, s.test_dof, s.trial_dof)
    return u(c) * v(s)


@fem.integrand
def centre_grad(s: fem.Sample, u: fem.Field, v: fem.Field):
    c = fem.Sample(s.element_index, wp.vec3(0.5, 0.5, 0.0), s.qp_index, s.qp_weight, s.test_dof, s.trial_dof)
    return wp.dot(fem.grad(u, c), fem.grad(v, s))


@fem.integrand
def centre_test_value(s: fem.Sample, u: fem.Field, v: fem.Field):
    c = fem.Sample(s.element_index, wp.vec3(0.5, 0.5, 0.0), s.qp_index, s.qp_weight, s.test_dof, s.trial_dof)
    return u(s) * v(c)


@fem.integrand
def centre_vector_value(s: fem.Sample, u: fem.Field, v: fem.Field):
    c = fem.Sample(s.element_index, wp.vec3(0.5, 0.5, 0.0), s.qp_index, s.qp_weight, s.test_dof, s.trial_dof)
    return wp.dot(u(c), v(s)) + fem.div(u, c) * fem.div(v, s)


def dense(A):
    nnz = int(A.offsets.numpy()[A.nrow])
    br, bc = A.block_shape
    vals = A.values.numpy()[:nnz].reshape(nnz, br, bc)
    out = np.zeros((A.nrow * br, A.ncol * bc))
    offs, cols = A.offsets.numpy(), A.columns.numpy()
    for r in range(A.nrow):
        for j in range(offs[r], offs[r + 1]):
            out[r * br:(r + 1) * br, cols[j] * bc:(cols[j] + 1) * bc] += vals[j]
    return out


def reference(kind):
    """(test node, trial node) sums over cells of the closed-form cell integrals."""
    h = [(HI[a] - LO[a]) / RES[a] for a in range(2)]
    n = (RES[0] + 1) * (RES[1] + 1)
    out = np.zeros((n, n))
    local = [(0, 0), (0, 1), (1, 0), (1, 1)]
    for x in range(RES[0]):
        for y in range(RES[1]):
            nodes = [(x + a) * (RES[1] + 1) + (y + b) for a, b in local]
            centre_grad = [np.array([(2 * a - 1) / (2 * h[0]), (2 * b - 1) / (2 * h[1])]) for a, b in local]
            for i, ni in enumerate(nodes):          # test node
                for j, nj in enumerate(nodes):      # trial node
                    if kind == "value":             # phi_j(centre) * int phi_i
                        out[ni, nj] += 0.25 * h[0] * h[1] / 4
                    else:                           # grad phi_j(centre) . int grad phi_i
                        out[ni, nj] += h[0] * h[1] * centre_grad[j] @ centre_grad[i]
    return out


@pytest.fixture(scope="module")
def space():
    geo = fem.Grid2D(res=wp.vec2i(*RES), bounds_lo=wp.vec2(*LO), bounds_hi=wp.vec2(*HI))
    return fem.make_polynomial_space(geo, degree=1)


@pytest.mark.parametrize("integrand,kind,transpose", [
    (centre_value, "value", False),
    (centre_grad, "grad", False),
    (centre_test_value, "value", True),
])
def test_moved_sample_gets_the_basis_there(space, integrand, kind, transpose):
    A = fem.integrate(integrand, fields={"u": fem.make_trial(space), "v": fem.make_test(space)})
    ref = reference(kind)
    np.testing.assert_allclose(dense(A), ref.T if transpose else ref, rtol=1e-5, atol=1e-6)


def test_moved_sample_of_vector_fields_per_component():
    geo = fem.Grid2D(res=wp.vec2i(*RES), bounds_lo=wp.vec2(*LO), bounds_hi=wp.vec2(*HI))
    space = fem.make_polynomial_space(geo, degree=1, dtype=wp.vec2)
    A = dense(fem.integrate(centre_vector_value, fields={"u": fem.make_trial(space), "v": fem.make_test(space)}))
    value = reference("value")
    h = [(HI[a] - LO[a]) / RES[a] for a in range(2)]
    # div(u)(centre) * div(v): component c of the test, d of the trial: d_c phi_i * d_d phi_j
    n = value.shape[0]
    ref = np.zeros((2 * n, 2 * n))
    local = [(0, 0), (0, 1), (1, 0), (1, 1)]
    for x in range(RES[0]):
        for y in range(RES[1]):
            nodes = [(x + a) * (RES[1] + 1) + (y + b) for a, b in local]
            g = [np.array([(2 * a - 1) / (2 * h[0]), (2 * b - 1) / (2 * h[1])]) for a, b in local]
            for i, ni in enumerate(nodes):
                for j, nj in enumerate(nodes):
                    for c in range(2):
                        for d in range(2):
                            ref[2 * ni + c, 2 * nj + d] += h[0] * h[1] * g[i][c] * g[j][d]
    for c in range(2):
        ref[c::2, c::2] += value
    np.testing.assert_allclose(A, ref, rtol=1e-5, atol=1e-6)
