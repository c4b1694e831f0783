"""Builtins called outside kernels give the same results as NumPy (and as inside kernels)."""

import numpy as np
import pytest

import warp_interactive as wp

v1 = wp.vec3(1.0, 2.0, 2.0)
v2 = wp.vec3(0.5, -1.0, 3.0)
m = wp.mat22(1.0, 2.0, 3.0, 4.0)

CASES = [
    # (call, NumPy reference, tolerance)
    (lambda: wp.sin(1.0), lambda: np.sin(np.float32(1.0)), 1e-6),
    (lambda: wp.sqrt(wp.float64(2.0)), lambda: np.sqrt(2.0), 1e-15),
    (lambda: wp.min(3, 4), lambda: 3, 0),
    (lambda: wp.clamp(wp.float64(2.5), 0.0, 1.0), lambda: 1.0, 0),
    (lambda: wp.dot(v1, v2), lambda: np.dot(np.array(v1), np.array(v2)), 1e-6),
    (lambda: wp.cross(v1, v2), lambda: np.cross(np.array(v1), np.array(v2)), 1e-6),
    (lambda: wp.normalize(v1), lambda: np.array(v1) / 3.0, 1e-6),
    (lambda: wp.length(v2), lambda: np.linalg.norm(np.array(v2)), 1e-6),
    (lambda: wp.transpose(m), lambda: np.array(m).reshape(2, 2).T.reshape(-1), 0),
    (lambda: wp.determinant(m), lambda: np.linalg.det(np.array(m).reshape(2, 2)), 1e-5),
    (lambda: wp.quat_rotate(wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), np.pi / 2), v1),
     lambda: np.array([-2.0, 1.0, 2.0]), 1e-6),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_builtin_in_python_scope_matches_numpy(case):
    call, ref, tol = CASES[case]
    got, want = call(), ref()
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                               rtol=tol, atol=tol)


def test_result_types():
    assert isinstance(wp.sin(1.0), float)
    assert isinstance(wp.min(3, 4), int)
    assert type(wp.normalize(v1)) is wp.vec3
    assert type(wp.transpose(m)) is wp.mat22
    # a second call with the same argument types reuses the compiled evaluator
    assert wp.sin(0.0) == 0.0


def test_python_scope_errors_name_the_problem():
    with pytest.raises(TypeError, match=r"Couldn.t find a function .dot. compatible"):
        wp.dot(v1, 1.0)
    with pytest.raises(TypeError, match="keyword"):
        wp.sin(x=1.0)
    with pytest.raises(TypeError, match="argument of type str"):
        wp.sin("1")
