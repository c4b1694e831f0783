"""Dof mappers (``fem.SymmetricTensorMapper``, ``fem.SkewSymmetricTensorMapper``) and
``fem.NonconformingField``.

Mapped spaces: a linear tensor field interpolated into a DG1 space with a mapper must store
the dofs the documented conventions give (computed here in NumPy from the tensor at each
node), read back as the same tensors, and, since both maps are orthonormal for the half
Frobenius product, the mapped mass matrix must be twice the scalar mass matrix times the
identity block. Nonconforming fields: a linear field of one grid, integrated over the cells
and the boundary of a second, partly overlapping geometry, must give the exact piecewise
integral (field inside the first geometry, the background value outside), computed here by
1-D/2-D Gauss quadrature in NumPy."""

import math

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem

from tests.fem.test_fem_lookup import make_mesh

R2 = math.sqrt(2.0)
R3 = math.sqrt(3.0)


def _sym_voigt(T):
    if T.shape == (2, 2):
        return np.array([T[0, 0] / R2, T[1, 1] / R2, T[0, 1]])
    return np.array([T[0, 0] / R2, T[1, 1] / R2, T[2, 2] / R2, T[1, 2], T[0, 2], T[0, 1]])


def _sym_db16(T):
    if T.shape == (2, 2):
        return np.array([(T[0, 0] + T[1, 1]) / 2, (T[0, 0] - T[1, 1]) / 2, T[0, 1]])
    tr = np.trace(T)
    return np.array([tr / math.sqrt(6.0), (T[0, 0] - T[1, 1]) / 2, (T[2, 2] - tr / 3) * R3 / 2,
                     T[1, 2], T[0, 2], T[0, 1]])


def _skew(T):
    if T.shape == (2, 2):
        return np.array([T[1, 0]])
    return np.array([T[2, 1], T[0, 2], T[1, 0]])    # the axial vector: T x = cross(w, x)


@wp.func
def tensor2(x: wp.vec2, kind: int):
    a = 1.0 + x[0] - 2.0 * x[1]
    b = 0.5 * x[0] + x[1]
    c = 3.0 * x[1] - x[0]
    if kind == 2:
        return wp.mat22(0.0, -b, b, 0.0)
    return wp.mat22(a, b, b, c)


@wp.func
def tensor3(x: wp.vec3, kind: int):
    a = 1.0 + x[0] - 2.0 * x[2]
    b = 0.5 * x[0] + x[1]
    c = 3.0 * x[1] - x[0]
    d = x[2] + 0.25
    e = x[0] * 2.0 - x[2]
    f = 0.5 - x[1]
    if kind == 2:
        return wp.mat33(0.0, -c, b, c, 0.0, -a, -b, a, 0.0)
    return wp.mat33(a, f, e, f, b, d, e, d, c)


@fem.integrand
def tensor_at(s: fem.Sample, domain: fem.Domain, kind: int):
    return tensor2(domain(s), kind)


@fem.integrand
def tensor3_at(s: fem.Sample, domain: fem.Domain, kind: int):
    return tensor3(domain(s), kind)


@fem.integrand
def tensor_mass(s: fem.Sample, sig: fem.Field, tau: fem.Field):
    return wp.ddot(tau(s), sig(s))


@fem.integrand
def scalar_mass(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


def _reference_tensor(x, kind):
    if x.shape[0] == 2:
        a, b, c = 1 + x[0] - 2 * x[1], 0.5 * x[0] + x[1], 3 * x[1] - x[0]
        return np.array([[0, -b], [b, 0]]) if kind == 2 else np.array([[a, b], [b, c]])
    a, b, c = 1 + x[0] - 2 * x[2], 0.5 * x[0] + x[1], 3 * x[1] - x[0]
    d, e, f = x[2] + 0.25, 2 * x[0] - x[2], 0.5 - x[1]
    if kind == 2:
        return np.array([[0, -c, b], [c, 0, -a], [-b, a, 0]])
    return np.array([[a, f, e], [f, b, d], [e, d, c]])


MAPPERS = {
    "sym2_voigt": (2, lambda M: fem.SymmetricTensorMapper(M), _sym_voigt, 0),
    "sym2_db16": (2, lambda M: fem.SymmetricTensorMapper(M, fem.SymmetricTensorMapper.Mapping.DB16), _sym_db16, 0),
    "skew2": (2, lambda M: fem.SkewSymmetricTensorMapper(M), _skew, 2),
    "sym3_voigt": (3, lambda M: fem.SymmetricTensorMapper(M), _sym_voigt, 0),
    "sym3_db16": (3, lambda M: fem.SymmetricTensorMapper(M, fem.SymmetricTensorMapper.Mapping.DB16), _sym_db16, 0),
    "skew3": (3, lambda M: fem.SkewSymmetricTensorMapper(M), _skew, 2),
}


@pytest.mark.parametrize("name", list(MAPPERS))
def test_mapped_space_dofs_values_and_mass(name):
    dim, make, to_dofs, kind = MAPPERS[name]
    M = wp.mat22 if dim == 2 else wp.mat33
    geo = fem.Grid2D(res=wp.vec2i(2)) if dim == 2 else fem.Grid3D(res=wp.vec3i(1, 1, 2))
    mapper = make(M)
    space = fem.make_polynomial_space(geo, degree=1, discontinuous=True, dof_mapper=mapper)
    assert space.dtype == M and space.dof_dtype == mapper.dof_dtype
    assert space.value_size == mapper.DOF_SIZE
    field = space.make_field()
    assert field.dof_values.dtype == mapper.dof_dtype
    integrand = tensor_at if dim == 2 else tensor3_at
    fem.interpolate(integrand, dest=field, values={"kind": kind})

    nodes = space.node_positions().numpy().astype(np.float64)
    expected = np.array([to_dofs(_reference_tensor(x, kind)) for x in nodes])
    got = field.dof_values.numpy().reshape(len(nodes), -1)
    np.testing.assert_allclose(got, expected, atol=2e-6)

    # the mapped field reads back as the tensors (interpolated into an unmapped tensor space)
    plain = fem.make_polynomial_space(geo, degree=1, discontinuous=True, dtype=M).make_field()
    fem.interpolate(field, dest=plain)
    ref = np.array([_reference_tensor(x, kind) for x in nodes])
    np.testing.assert_allclose(plain.dof_values.numpy(), ref, atol=2e-6)

    # orthonormal maps: the tensor mass matrix is 2 x the scalar one, times the identity block
    n = mapper.DOF_SIZE
    mass = fem.integrate(tensor_mass, fields={"sig": fem.make_trial(space), "tau": fem.make_test(space)},
                         output_dtype=wp.float64)
    scalar = fem.make_polynomial_space(geo, degree=1, discontinuous=True)
    smass = fem.integrate(scalar_mass, fields={"u": fem.make_trial(scalar), "v": fem.make_test(scalar)},
                          output_dtype=wp.float64)
    assert mass.block_shape == (n, n) or (n == 1 and mass.block_shape == (1, 1))
    dense = _dense(mass, n)
    np.testing.assert_allclose(dense, 2.0 * np.kron(_dense(smass, 1), np.eye(n)), atol=1e-7)


def _dense(A, n):
    rows, cols = A.offsets.numpy(), A.columns.numpy()
    vals = A.values.numpy().reshape(-1, n, n)
    out = np.zeros((A.nrow * n, A.ncol * n))
    for r in range(A.nrow):
        for k in range(rows[r], rows[r + 1]):
            out[r * n:(r + 1) * n, cols[k] * n:(cols[k] + 1) * n] += vals[k]
    return out


@pytest.mark.parametrize("dtype, message", [(wp.vec3, "Unsupported value dtype"), (wp.mat33, None)])
def test_skew_and_symmetric_mapper_dtypes(dtype, message):
    if message is None:
        assert fem.SymmetricTensorMapper(dtype).DOF_SIZE == 6 and fem.SkewSymmetricTensorMapper(dtype).DOF_SIZE == 3
        return
    for cls in (fem.SymmetricTensorMapper, fem.SkewSymmetricTensorMapper):
        with pytest.raises(ValueError, match=message):
            cls(dtype)


# -- nonconforming fields -------------------------------------------------------------------

@wp.func
def linear2(x: wp.vec2):
    return wp.vec2(1.0 + 2.0 * x[0] + 3.0 * x[1], x[0] - x[1])


@fem.integrand
def linear_at(s: fem.Sample, domain: fem.Domain):
    return linear2(domain(s))


@fem.integrand
def component_sum(s: fem.Sample, u: fem.Field):
    v = u(s)
    return v[0] + 2.0 * v[1]


BACKGROUND = 7.0


def _reference_integral(on_boundary):
    """Integral of u0 + 2 u1 over the cells (or the boundary) of [0.5, 1.5] x [0.25, 0.75],
    u = linear2 inside the unit square and (7, 7) outside."""
    g, w = np.polynomial.legendre.leggauss(4)

    def f(x, y):
        inside = (x <= 1.0) & (y <= 1.0)
        u0, u1 = 1 + 2 * x + 3 * y, x - y
        return np.where(inside, u0 + 2 * u1, 3 * BACKGROUND)

    def segment(a, b):
        t, tw = 0.5 * (g + 1), 0.5 * w
        p = a[None, :] + t[:, None] * (b - a)[None, :]
        return np.linalg.norm(b - a) * np.sum(tw * f(p[:, 0], p[:, 1]))

    if on_boundary:
        xs, ys = [0.5, 1.0, 1.5], [0.25, 0.75]
        total = 0.0
        for y in ys:
            total += sum(segment(np.array([xs[i], y]), np.array([xs[i + 1], y])) for i in range(2))
        total += segment(np.array([0.5, 0.25]), np.array([0.5, 0.75])) + segment(np.array([1.5, 0.25]),
                                                                                 np.array([1.5, 0.75]))
        return total
    total = 0.0
    for x0 in (0.5, 1.0):     # the two cells left and right of x = 1
        t, tw = 0.5 * (g + 1), 0.5 * w
        X, Y = np.meshgrid(x0 + 0.5 * t, 0.25 + 0.5 * t, indexing="ij")
        total += 0.25 * np.sum(np.outer(tw, tw) * f(X, Y))
    return total


@pytest.mark.parametrize("source", ["grid", "tri"])
@pytest.mark.parametrize("on_boundary", [False, True])
def test_nonconforming_field_integrals(source, on_boundary):
    if source == "grid":
        geo1 = fem.Grid2D(res=wp.vec2i(4))
    else:
        geo1 = make_mesh("tri", res=4)[0]
        geo1.build_bvh()
    space = fem.make_polynomial_space(geo1, degree=1, dtype=wp.vec2)
    u = space.make_field()
    fem.interpolate(linear_at, dest=u)
    geo2 = fem.Grid2D(res=wp.vec2i(2, 1), bounds_lo=wp.vec2(0.5, 0.25), bounds_hi=wp.vec2(1.5, 0.75))
    domain = fem.BoundarySides(geo2) if on_boundary else fem.Cells(geo2)
    nc = fem.NonconformingField(domain, u, background=BACKGROUND)
    got = fem.integrate(component_sum, fields={"u": nc}, quadrature=fem.RegularQuadrature(domain, order=3))
    assert got == pytest.approx(_reference_integral(on_boundary), rel=1e-5)


def test_nonconforming_field_needs_a_lookup():
    geo1 = make_mesh("tri", res=2)[0]     # no BVH built
    u = fem.make_polynomial_space(geo1, degree=1, dtype=wp.vec2).make_field()
    geo2 = fem.Grid2D(res=wp.vec2i(1))
    nc = fem.NonconformingField(fem.Cells(geo2), u)
    with pytest.raises(RuntimeError, match="does not support global cell lookups"):
        fem.integrate(component_sum, fields={"u": nc})
