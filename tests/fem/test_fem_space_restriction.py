"""Space restrictions (``fem.make_space_restriction``), fields on space partitions and
``at_node`` of test fields, against brute force on a grid's lattice: the nodes a restriction
holds and the elements of each, values and gradients of a partition's field equal to the whole
space's field with the nodes outside the partition set to zero, integrals over a restriction's
test field equal to the subdomain integrals renumbered."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem

from tests.fem.test_fem_partitions import MASK, NX, NY, _partition, _q_nodes

RNG = np.random.default_rng(3)
DOMAIN_MASK = np.zeros(NX * NY, dtype=np.int32)
DOMAIN_MASK[[1, 6, 7, 12]] = 1                  # some of the partition's cells


def _points(n=200):
    return RNG.uniform([0.0, 0.0], [1.0, 1.0], (n, 2)).astype(np.float32)


@pytest.mark.parametrize("degree", [1, 2])
@pytest.mark.parametrize("with_halo", [True, False])
@pytest.mark.parametrize("domain_kind", ["partition", "subdomain"])
def test_restriction_nodes_and_their_elements(degree, with_halo, domain_kind):
    geo, part = _partition()
    space = fem.make_polynomial_space(geo, degree=degree)
    sp = fem.make_space_partition(space.topology, geometry_partition=part, with_halo=with_halo)
    if domain_kind == "partition":
        domain, cells = None, np.nonzero(MASK)[0]
    else:
        domain = fem.Subdomain(fem.Cells(geo), element_mask=wp.array(DOMAIN_MASK, dtype=int))
        cells = np.nonzero(DOMAIN_MASK)[0]
    r = fem.make_space_restriction(space_partition=sp, domain=domain)
    to_local = {g: i for i, g in enumerate(sp.space_node_indices().numpy().tolist())}
    expected = sorted(to_local[n] for n in set().union(*[_q_nodes(c, degree) for c in cells]))
    assert r.node_partition_indices().numpy().tolist() == expected and r.node_count() == len(expected)
    # each restricted node lists the domain elements holding it
    offsets, rows = r.partition_element_offsets().numpy(), r.node_element_indices().numpy()
    assert len(offsets) == sp.node_count() + 1 and r.total_node_element_count() == len(rows)
    for local in range(sp.node_count()):
        got = sorted(rows[offsets[local]:offsets[local + 1], 0].tolist())
        want = sorted(e for e, c in enumerate(cells) if sp.space_node_indices().numpy()[local] in _q_nodes(c, degree))
        assert got == want


@fem.integrand
def _rhs(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    x = domain(s)
    return (1.0 + x[0] * x[1]) * v(s)


def test_test_field_on_a_restriction_gives_the_subdomain_integrals_renumbered():
    geo, part = _partition()
    space = fem.make_polynomial_space(geo, degree=2)
    sp = fem.make_space_partition(space.topology, geometry_partition=part, with_halo=False)
    r = fem.make_space_restriction(space_partition=sp)
    sub = fem.Subdomain(fem.Cells(geo), element_mask=wp.array(MASK, dtype=int))
    full = fem.integrate(_rhs, fields={"v": fem.make_test(space, domain=sub)}).numpy()
    got = fem.integrate(_rhs, fields={"v": fem.make_test(space, space_restriction=r)}).numpy()
    np.testing.assert_allclose(got, full[sp.space_node_indices().numpy()], rtol=1e-6, atol=1e-9)


@fem.integrand
def _value(s: fem.Sample, f: fem.Field):
    return f(s)


@fem.integrand
def _grad(s: fem.Sample, f: fem.Field):
    return fem.grad(f, s)


@pytest.mark.parametrize("degree, dtype", [(1, float), (2, float), (2, wp.vec2), (0, float)])
@pytest.mark.parametrize("with_halo", [True, False])
def test_a_partition_field_is_the_whole_field_with_outside_nodes_zero(degree, dtype, with_halo):
    geo, part = _partition()
    space = fem.make_polynomial_space(geo, degree=degree, dtype=dtype, discontinuous=degree == 0)
    sp = fem.make_space_partition(space.topology, geometry_partition=part, with_halo=with_halo)
    shape = (space.node_count(),) + ((2,) if dtype is wp.vec2 else ())
    values = RNG.standard_normal(shape).astype(np.float32)
    idx = sp.space_node_indices().numpy()
    masked = np.zeros_like(values)
    masked[idx] = values[idx]
    whole, local = space.make_field(), space.make_field(sp)
    whole.dof_values = masked
    assert local.dof_values.shape[0] == sp.node_count() and local.space_partition is sp
    local.dof_values = values[idx]
    pic = fem.PicQuadrature(fem.Cells(geo), wp.array(_points(), dtype=wp.vec2))
    out_dtype = wp.vec2 if dtype is wp.vec2 else float
    for integrand, dt in ((_value, out_dtype), (_grad, wp.mat22 if dtype is wp.vec2 else wp.vec2)):
        if degree == 0 and integrand is _grad:
            continue
        a, b = wp.zeros(pic.total_point_count(), dtype=dt), wp.zeros(pic.total_point_count(), dtype=dt)
        fem.interpolate(integrand, dest=a, at=pic, fields={"f": local})
        fem.interpolate(integrand, dest=b, at=pic, fields={"f": whole})
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)
        assert np.abs(b.numpy()).max() > 0.1


def test_interpolating_into_a_partition_field_is_refused():
    geo, part = _partition()
    space = fem.make_polynomial_space(geo, degree=1)
    local = space.make_field(fem.make_space_partition(space.topology, geometry_partition=part))
    with pytest.raises(NotImplementedError, match="into a field on a space partition"):
        fem.interpolate(_value, dest=local, fields={"f": space.make_field()})


@fem.integrand
def _node_position_form(s: fem.Sample, domain: fem.Domain, u: fem.Field, c: wp.vec2):
    return wp.dot(domain(fem.at_node(u, s)), c) * u(s)


@fem.integrand
def _basis_integral(s: fem.Sample, u: fem.Field):
    return u(s)


@pytest.mark.parametrize("degree", [1, 2])
def test_at_node_of_a_test_field_is_the_node_of_its_dof(degree):
    geo = fem.Grid2D(res=wp.vec2i(NX, NY))
    space = fem.make_polynomial_space(geo, degree=degree)
    pic = fem.PicQuadrature(fem.Cells(geo), wp.array(_points(400), dtype=wp.vec2))
    test = fem.make_test(space)
    c = wp.vec2(0.7, -1.3)
    got = fem.integrate(_node_position_form, quadrature=pic, fields={"u": test}, values={"c": c}).numpy()
    weights = fem.integrate(_basis_integral, quadrature=pic, fields={"u": test}).numpy()
    # node (a, b) of the Q_k lattice sits at (a / (k NX), b / (k NY))
    a, b = np.divmod(np.arange(space.node_count()), degree * NY + 1)
    x = np.stack([a / (degree * NX), b / (degree * NY)], axis=1)
    np.testing.assert_allclose(got, (x @ np.array([0.7, -1.3])) * weights, rtol=1e-5, atol=1e-7)
