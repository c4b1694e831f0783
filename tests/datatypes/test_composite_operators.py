"""Python-scope operators on warp values as warp-lang 1.19 defines them: ``transform * transform``
is ``transform_multiply``; operands of two different scalar types are refused with warp-lang's
text (kernels refuse them too); Python and NumPy numbers adapt to the warp value's type."""

import itertools

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import warp_interactive as wp


def reference_transform_multiply(a, b):
    """(p_a + R(q_a) p_b, q_a q_b) for unit quaternions, from SciPy's rotations (x, y, z, w)."""
    ra, rb = Rotation.from_quat(a[3:]), Rotation.from_quat(b[3:])
    return np.concatenate([a[:3] + ra.apply(b[:3]), (ra * rb).as_quat(canonical=False)])


def values(t):
    return np.array([float(x) for x in t])


TYPES = [(wp.transformf, 1e-5), (wp.transformd, 1e-12), (wp.transformh, 5e-3)]


@pytest.mark.parametrize("ttype,tol", TYPES, ids=lambda t: getattr(t, "__name__", ""))
@pytest.mark.parametrize("seed", range(4))
def test_transform_product_is_transform_multiply(ttype, tol, seed):
    rng = np.random.default_rng(seed)
    a = np.concatenate([rng.uniform(-2, 2, 3), Rotation.random(random_state=seed).as_quat()])
    b = np.concatenate([rng.uniform(-2, 2, 3), Rotation.random(random_state=seed + 10).as_quat()])
    ta, tb = ttype(*a), ttype(*b)
    a, b = values(ta), values(tb)   # as stored (np.array of a half value gives its bits)
    got = ta * tb
    assert type(got) is ttype
    np.testing.assert_allclose(values(got), reference_transform_multiply(a, b), atol=tol * 10, rtol=tol)
    np.testing.assert_allclose(values(got), values(wp.transform_multiply(ta, tb)), atol=tol * 10)


def test_transform_product_off_the_unit_sphere_is_warp_langs_formula():
    """warp-lang's documented example (test_func): quaternions that are not unit."""
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(4.0, 5.0, 6.0, 7.0))
    assert list(t * wp.transform(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0)) == \
        [396.0, 432.0, 720.0, 56.0, 70.0, 84.0, -28.0]


def test_transform_scaling_and_sums_stay_componentwise():
    t = wp.transformf(1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0)
    assert list(t * 2.0) == list(2.0 * t) == [2.0, 4.0, 6.0, 0.0, 0.0, 0.0, 2.0]
    assert list(t + t) == [2.0, 4.0, 6.0, 0.0, 0.0, 0.0, 2.0]


VALUES = {
    "vec3": lambda s: wp.types.vector(3, s)(1, 2, 3),
    "mat22": lambda s: wp.types.matrix((2, 2), s)(1, 2, 3, 4),
    "quat": lambda s: wp.types.quaternion(s)(0, 0, 0, 1),
    "transform": lambda s: wp.types.transformation(s)(),
}
OPS = [("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
       ("div", lambda a, b: a / b), ("mul", lambda a, b: a @ b)]
MIXED = [(wp.float32, wp.float64), (wp.float64, wp.float16), (wp.float16, wp.float32)]


def _name(v):
    return type(v).__name__


@pytest.mark.parametrize("kind", ["vec3", "mat22", "quat", "transform"])
@pytest.mark.parametrize("sa,sb", MIXED, ids=lambda t: t.__name__)
@pytest.mark.parametrize("op,fn", OPS, ids=["add", "sub", "mul", "div", "matmul"])
def test_mixed_scalar_types_are_refused(kind, sa, sb, op, fn):
    a, b = VALUES[kind](sa), VALUES[kind](sb)
    message = f"^Couldn't find a function '{op}' compatible with the arguments '{_name(a)}, {_name(b)}'$"
    with pytest.raises(RuntimeError, match=message):
        fn(a, b)
    with pytest.raises(TypeError, match=message):
        fn(a, b)


@pytest.mark.parametrize("sa,sb", MIXED, ids=lambda t: t.__name__)
def test_warp_scalars_of_another_type_are_refused_both_sides(sa, sb):
    v, s = wp.types.vector(3, sa)(1, 2, 3), sb(2.0)
    with pytest.raises(RuntimeError, match=f"'mul' compatible with the arguments '{_name(v)}, {sb.__name__}'"):
        v * s
    with pytest.raises(RuntimeError, match=f"'mul' compatible with the arguments '{sb.__name__}, {_name(v)}'"):
        s * v
    with pytest.raises(RuntimeError, match="'add' compatible"):
        s + v


@pytest.mark.parametrize("scalar", [wp.float16, wp.float32, wp.float64])
@pytest.mark.parametrize("other", [2.0, 2, np.float64(2.0), np.float32(2.0)], ids=repr)
def test_numbers_adapt_to_the_warp_type(scalar, other):
    v = wp.types.vector(3, scalar)(1, 2, 3)
    for got, want in [(v * other, [2, 4, 6]), (other * v, [2, 4, 6]), (v + other, [3, 4, 5]),
                      (v / other, [0.5, 1, 1.5]), (v - other, [-1, 0, 1])]:
        assert type(got) is type(v)
        np.testing.assert_array_equal(values(got), want)
    assert type(v * scalar(2.0)) is type(v)


@pytest.mark.parametrize("sa,sb", list(itertools.product([wp.float32, wp.float64], repeat=2)),
                         ids=lambda t: t.__name__)
def test_matrix_vector_products_need_one_scalar_type(sa, sb):
    m = wp.types.matrix((2, 2), sa)(1, 2, 3, 4)
    v = wp.types.vector(2, sb)(1, 2)
    if sa is sb:
        assert list(m * v) == [5.0, 11.0] and list(v * m) == [7.0, 10.0]
    else:
        with pytest.raises(RuntimeError, match="'mul' compatible"):
            m * v
        with pytest.raises(RuntimeError, match="'mul' compatible"):
            v * m
