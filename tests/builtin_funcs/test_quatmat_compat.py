"""Matrix and quaternion behaviours warp-lang 1.19 documents and its test_mat / test_quat rely on:
``quat_from_matrix`` of a 4x4 matrix (its upper-left 3x3 block), and the 3x3 / 2x2
decompositions on float16 matrices (computed in float32, rounded once), with their gradients.
References: SciPy's rotations, NumPy's linear algebra, and the float32 computation of the same
builtin (the float16 result must be it, rounded)."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import warp_interactive as wp

N = 16


def _same_sign(q, ref):
    return q * np.sign(np.sum(q * ref, -1, keepdims=True))


@wp.kernel
def _quat_of_mat44(m: wp.array(dtype=wp.mat44d), out: wp.array(dtype=wp.quatd)):
    i = wp.tid()
    out[i] = wp.quat_from_matrix(m[i])


@wp.kernel
def _quat_of_mat44_loss(m: wp.array(dtype=wp.mat44d), w: wp.array(dtype=wp.quatd),
                        loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.dot(wp.quat_from_matrix(m[i]), w[i]))


def _rigid44(rng, n):
    m = rng.uniform(-3, 3, (n, 4, 4))   # the block outside the rotation is ignored: noise there
    m[:, :3, :3] = Rotation.random(n, random_state=7).as_matrix()
    return m


def test_quat_from_matrix_of_4x4_is_the_rotation_of_its_upper_block():
    m = _rigid44(np.random.default_rng(0), N)
    out = wp.zeros(N, dtype=wp.quatd)
    wp.launch(_quat_of_mat44, N, inputs=[wp.array(m, dtype=wp.mat44d)], outputs=[out])
    ref = Rotation.from_matrix(m[:, :3, :3]).as_quat()
    np.testing.assert_allclose(_same_sign(out.numpy(), ref), ref, atol=1e-12)


def test_quat_from_matrix_of_4x4_gradient_matches_finite_differences():
    rng = np.random.default_rng(1)
    m, w = _rigid44(rng, 2), rng.normal(size=(2, 4))

    def loss_of(mv):
        loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
        ma = wp.array(mv, dtype=wp.mat44d, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(_quat_of_mat44_loss, 2, inputs=[ma, wp.array(w, dtype=wp.quatd)], outputs=[loss])
        return loss, ma, tape

    loss, ma, tape = loss_of(m)
    tape.backward(loss)
    grad, fd, h = ma.grad.numpy(), np.zeros_like(m), 1e-6
    for idx in np.ndindex(*m.shape):
        mp, mm = m.copy(), m.copy()
        mp[idx] += h
        mm[idx] -= h
        fd[idx] = (loss_of(mp)[0].numpy()[0] - loss_of(mm)[0].numpy()[0]) / (2 * h)
    np.testing.assert_allclose(grad, fd, atol=1e-6)
    assert not grad[:, 3, :].any() and not grad[:, :, 3].any()   # the rest of the matrix: no effect


def test_quat_from_matrix_refuses_other_shapes_naming_them():
    @wp.kernel(module="unique")   # its own module: the build error must not reach the others
    def bad(m: wp.array(dtype=wp.mat22)):
        wp.quat_from_matrix(m[0])

    with pytest.raises(wp.errors.CodegenError, match=r"3x3 or 4x4 matrix, got mat22f"):
        wp.launch(bad, 1, inputs=[wp.zeros(1, dtype=wp.mat22)])


# --- float16 decompositions ------------------------------------------------------------------------
@wp.kernel
def _svd3_h(a: wp.array(dtype=wp.mat33h), u: wp.array(dtype=wp.mat33h), s: wp.array(dtype=wp.vec3h),
            v: wp.array(dtype=wp.mat33h)):
    i = wp.tid()
    uu, ss, vv = wp.svd3(a[i])
    u[i], s[i], v[i] = uu, ss, vv


@wp.kernel
def _svd3_f(a: wp.array(dtype=wp.mat33f), u: wp.array(dtype=wp.mat33f), s: wp.array(dtype=wp.vec3f),
            v: wp.array(dtype=wp.mat33f)):
    i = wp.tid()
    uu, ss, vv = wp.svd3(a[i])
    u[i], s[i], v[i] = uu, ss, vv


@wp.kernel
def _svd2_h(a: wp.array(dtype=wp.mat22h), u: wp.array(dtype=wp.mat22h), s: wp.array(dtype=wp.vec2h),
            v: wp.array(dtype=wp.mat22h)):
    i = wp.tid()
    uu, ss, vv = wp.svd2(a[i])
    u[i], s[i], v[i] = uu, ss, vv


@wp.kernel
def _svd2_f(a: wp.array(dtype=wp.mat22f), u: wp.array(dtype=wp.mat22f), s: wp.array(dtype=wp.vec2f),
            v: wp.array(dtype=wp.mat22f)):
    i = wp.tid()
    uu, ss, vv = wp.svd2(a[i])
    u[i], s[i], v[i] = uu, ss, vv


@wp.kernel
def _qr3_h(a: wp.array(dtype=wp.mat33h), q: wp.array(dtype=wp.mat33h), r: wp.array(dtype=wp.mat33h)):
    i = wp.tid()
    qq, rr = wp.qr3(a[i])
    q[i], r[i] = qq, rr


@wp.kernel
def _qr3_f(a: wp.array(dtype=wp.mat33f), q: wp.array(dtype=wp.mat33f), r: wp.array(dtype=wp.mat33f)):
    i = wp.tid()
    qq, rr = wp.qr3(a[i])
    q[i], r[i] = qq, rr


@wp.kernel
def _eig3_h(a: wp.array(dtype=wp.mat33h), q: wp.array(dtype=wp.mat33h), d: wp.array(dtype=wp.vec3h)):
    i = wp.tid()
    qq, dd = wp.eig3(a[i])
    q[i], d[i] = qq, dd


@wp.kernel
def _eig3_f(a: wp.array(dtype=wp.mat33f), q: wp.array(dtype=wp.mat33f), d: wp.array(dtype=wp.vec3f)):
    i = wp.tid()
    qq, dd = wp.eig3(a[i])
    q[i], d[i] = qq, dd


def _inputs(name, rng):
    n = 2 if name == "svd2" else 3
    a = rng.uniform(-2, 2, (N, n, n))
    if name == "eig3":
        a = a + np.swapaxes(a, 1, 2)
    if name == "qr3":
        a = a + 4 * np.eye(3)
    return a.astype(np.float16)


def _rebuild(name, outs):
    if name in ("svd3", "svd2"):
        u, s, v = outs
        return np.einsum("nij,nj,nkj->nik", u, s, v)
    if name == "qr3":
        return outs[0] @ outs[1]
    q, d = outs
    return np.einsum("nij,nj,nkj->nik", q, d, q)


# name -> (float16 kernel, float32 kernel, output dtypes (half, float))
DECOMPOSITIONS = {
    "svd3": (_svd3_h, _svd3_f, ((wp.mat33h, wp.mat33f), (wp.vec3h, wp.vec3f), (wp.mat33h, wp.mat33f))),
    "svd2": (_svd2_h, _svd2_f, ((wp.mat22h, wp.mat22f), (wp.vec2h, wp.vec2f), (wp.mat22h, wp.mat22f))),
    "qr3": (_qr3_h, _qr3_f, ((wp.mat33h, wp.mat33f), (wp.mat33h, wp.mat33f))),
    "eig3": (_eig3_h, _eig3_f, ((wp.mat33h, wp.mat33f), (wp.vec3h, wp.vec3f))),
}


def _run(kernel, a, mat_t, out_types):
    outs = [wp.zeros(N, dtype=t) for t in out_types]
    wp.launch(kernel, N, inputs=[wp.array(a, dtype=mat_t)], outputs=outs)
    return [o.numpy() for o in outs]


@pytest.mark.parametrize("name", sorted(DECOMPOSITIONS))
def test_float16_decomposition_is_the_float32_one_rounded(name):
    k_half, k_float, types = DECOMPOSITIONS[name]
    a = _inputs(name, np.random.default_rng(2))
    mat_h, mat_f = (wp.mat22h, wp.mat22f) if name == "svd2" else (wp.mat33h, wp.mat33f)
    outs_h = _run(k_half, a, mat_h, [t[0] for t in types])
    outs_f = _run(k_float, a.astype(np.float32), mat_f, [t[1] for t in types])
    for oh, of in zip(outs_h, outs_f):
        assert oh.dtype == np.float16
        np.testing.assert_array_equal(oh, of.astype(np.float16))
    # and the factors rebuild A to half precision
    np.testing.assert_allclose(_rebuild(name, [o.astype(np.float64) for o in outs_h]), a, atol=2e-2 * 4)


@wp.kernel
def _svd3_loss_h(a: wp.array(dtype=wp.mat33h), w: wp.array(dtype=wp.vec3h), loss: wp.array(dtype=wp.float16)):
    i = wp.tid()
    u, s, v = wp.svd3(a[i])
    wp.atomic_add(loss, 0, wp.dot(s, w[i]) + u[0, 1] * v[2, 0])


@wp.kernel
def _svd3_loss_f(a: wp.array(dtype=wp.mat33f), w: wp.array(dtype=wp.vec3f), loss: wp.array(dtype=wp.float32)):
    i = wp.tid()
    u, s, v = wp.svd3(a[i])
    wp.atomic_add(loss, 0, wp.dot(s, w[i]) + u[0, 1] * v[2, 0])


@wp.kernel
def _qr3_loss_h(a: wp.array(dtype=wp.mat33h), w: wp.array(dtype=wp.vec3h), loss: wp.array(dtype=wp.float16)):
    i = wp.tid()
    q, r = wp.qr3(a[i])
    wp.atomic_add(loss, 0, wp.dot(wp.get_diag(r), w[i]) + q[1, 2])


@wp.kernel
def _qr3_loss_f(a: wp.array(dtype=wp.mat33f), w: wp.array(dtype=wp.vec3f), loss: wp.array(dtype=wp.float32)):
    i = wp.tid()
    q, r = wp.qr3(a[i])
    wp.atomic_add(loss, 0, wp.dot(wp.get_diag(r), w[i]) + q[1, 2])


@wp.kernel
def _eig3_loss_h(a: wp.array(dtype=wp.mat33h), w: wp.array(dtype=wp.vec3h), loss: wp.array(dtype=wp.float16)):
    i = wp.tid()
    q, d = wp.eig3(a[i])
    wp.atomic_add(loss, 0, wp.dot(d, w[i]))


@wp.kernel
def _eig3_loss_f(a: wp.array(dtype=wp.mat33f), w: wp.array(dtype=wp.vec3f), loss: wp.array(dtype=wp.float32)):
    i = wp.tid()
    q, d = wp.eig3(a[i])
    wp.atomic_add(loss, 0, wp.dot(d, w[i]))


def _grad(kernel, a, w, mat_t, vec_t, scalar):
    aa = wp.array(a, dtype=mat_t, requires_grad=True)
    loss = wp.zeros(1, dtype=scalar, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, len(a), inputs=[aa, wp.array(w, dtype=vec_t)], outputs=[loss])
    tape.backward(loss)
    return aa.grad.numpy().astype(np.float64)


@pytest.mark.parametrize("name, k_half, k_float", [("svd3", _svd3_loss_h, _svd3_loss_f),
                                                    ("qr3", _qr3_loss_h, _qr3_loss_f),
                                                    ("eig3", _eig3_loss_h, _eig3_loss_f)])
def test_float16_decomposition_gradient_is_the_float32_one(name, k_half, k_float):
    rng = np.random.default_rng(3)
    a, w = _inputs(name, rng)[:4], rng.uniform(-1, 1, (4, 3)).astype(np.float16)
    g_half = _grad(k_half, a, w, wp.mat33h, wp.vec3h, wp.float16)
    g_float = _grad(k_float, a.astype(np.float32), w.astype(np.float32), wp.mat33f, wp.vec3f, wp.float32)
    assert np.abs(g_float).max() > 0.1   # the loss depends on A
    np.testing.assert_allclose(g_half, g_float, rtol=2e-3, atol=2e-3 * np.abs(g_float).max())


# --- quaternion formulas as the reference defines them (values and gradients off the unit sphere) ---
def _np_quat_rotate(q, v):
    u, w = q[:, :3], q[:, 3:]
    return v * (2 * w * w - 1) + 2 * u * np.sum(u * v, -1, keepdims=True) + 2 * w * np.cross(u, v)


@wp.kernel
def _rotate_both(q: wp.array(dtype=wp.quatd), v: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.vec3d),
                 out_inv: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    out[i] = wp.quat_rotate(q[i], v[i])
    out_inv[i] = wp.quat_rotate_inv(q[i], v[i])


def test_quat_rotate_is_the_reference_formula_also_for_non_unit_quaternions():
    rng = np.random.default_rng(4)
    q = rng.normal(size=(N, 4)) * rng.uniform(0.5, 2.0, (N, 1))   # not normalized
    v = rng.normal(size=(N, 3))
    out, out_inv = wp.zeros(N, dtype=wp.vec3d), wp.zeros(N, dtype=wp.vec3d)
    wp.launch(_rotate_both, N, inputs=[wp.array(q, dtype=wp.quatd), wp.array(v, dtype=wp.vec3d)],
              outputs=[out, out_inv])
    np.testing.assert_allclose(out.numpy(), _np_quat_rotate(q, v), atol=1e-12)
    conj = q * np.array([-1, -1, -1, 1])
    np.testing.assert_allclose(out_inv.numpy(), _np_quat_rotate(conj, v), atol=1e-12)


@wp.kernel
def _axis_angle(q: wp.array(dtype=wp.quatd), axis: wp.array(dtype=wp.vec3d), angle: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a = wp.vec3d()
    t = wp.float64(0.0)
    wp.quat_to_axis_angle(q[i], a, t)
    axis[i] = a
    angle[i] = t


@pytest.mark.parametrize("q, axis, angle", [
    ((0.0, 0.0, np.sin(0.3), np.cos(0.3)), (0.0, 0.0, 1.0), 0.6),
    ((0.0, 0.0, np.sin(0.3), -np.cos(0.3)), (0.0, 0.0, -1.0), 0.6),       # w < 0: the shorter way
    ((np.sin(1.2), 0.0, 0.0, np.cos(1.2)), (1.0, 0.0, 0.0), 2.4),
    ((np.sin(1.8), 0.0, 0.0, np.cos(1.8)), (-1.0, 0.0, 0.0), 2 * np.pi - 3.6),  # 3.6 > pi: the other way
    ((0.0, 1.0, 0.0, 0.0), (0.0, 1.0, 0.0), np.pi),
    ((0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0), 0.0),
    ((0.0, 0.0, 0.0, -1.0), (0.0, 0.0, 0.0), 0.0),
])
def test_quat_to_axis_angle_gives_the_angle_in_0_pi(q, axis, angle):
    qa = wp.array(np.array([q]), dtype=wp.quatd)
    ax, an = wp.zeros(1, dtype=wp.vec3d), wp.zeros(1, dtype=wp.float64)
    wp.launch(_axis_angle, 1, inputs=[qa], outputs=[ax, an])
    np.testing.assert_allclose(ax.numpy()[0], axis, atol=1e-12)
    np.testing.assert_allclose(an.numpy()[0], angle, atol=1e-12)


def _np_qmul(a, b):
    av, aw, bv, bw = a[:3], a[3], b[:3], b[3]
    return np.concatenate([aw * bv + bw * av + np.cross(av, bv), [aw * bw - av @ bv]])


def _np_slerp(q0, q1, t):
    """The reference's definition: q0 * from_axis_angle(to_axis_angle(q0^-1 q1), t angle)."""
    rel = _np_qmul(q0 * np.array([-1, -1, -1, 1]), q1)
    u = rel[:3] * (-1 if rel[3] < 0 else 1)
    n = np.linalg.norm(u)
    axis, angle = u / n, 2 * np.arctan2(n, abs(rel[3]))
    return _np_qmul(q0, np.concatenate([axis * np.sin(t * angle / 2), [np.cos(t * angle / 2)]]))


@wp.kernel
def _slerp_loss(q0: wp.array(dtype=wp.quatd), q1: wp.array(dtype=wp.quatd), t: wp.array(dtype=wp.float64),
                w: wp.array(dtype=wp.quatd), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.dot(wp.quat_slerp(q0[i], q1[i], t[i]), w[i]))


def test_quat_slerp_values_and_gradients_off_the_unit_sphere():
    rng = np.random.default_rng(5)
    q0, q1 = rng.normal(size=4) * 1.3, rng.normal(size=4) * 0.8   # not normalized
    t, w = 0.37, rng.normal(size=4)
    args = [q0, q1, np.array([t])]

    def run(values):
        arrays = [wp.array(values[0][None], dtype=wp.quatd, requires_grad=True),
                  wp.array(values[1][None], dtype=wp.quatd, requires_grad=True),
                  wp.array(values[2], dtype=wp.float64, requires_grad=True)]
        loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(_slerp_loss, 1, inputs=arrays + [wp.array(w[None], dtype=wp.quatd)], outputs=[loss])
        return loss, arrays, tape

    loss, arrays, tape = run(args)
    assert loss.numpy()[0] == pytest.approx(_np_slerp(q0, q1, t) @ w, abs=1e-12)
    tape.backward(loss)
    h = 1e-6
    for k, a in enumerate(arrays):
        grad = a.grad.numpy().reshape(-1)
        for c in range(grad.size):
            plus, minus = [x.copy() for x in args], [x.copy() for x in args]
            plus[k][c] += h
            minus[k][c] -= h
            fd = (run(plus)[0].numpy()[0] - run(minus)[0].numpy()[0]) / (2 * h)
            assert grad[c] == pytest.approx(fd, abs=1e-6), (k, c)


# --- determinants --------------------------------------------------------------------------------------
@wp.kernel
def _det4(m: wp.array(dtype=wp.mat44f), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    out[i] = wp.determinant(m[i])


def test_float32_4x4_determinant_is_accurate_under_cancellation():
    """Large entries, small determinant: the minors are accumulated in float64, as the reference."""
    rng = np.random.default_rng(6)
    m = rng.uniform(-100, 100, (N, 4, 4)).astype(np.float32)
    m[:, 3] = m[:, 0] + m[:, 1] - m[:, 2] + rng.uniform(-0.01, 0.01, (N, 4)).astype(np.float32)
    out = wp.zeros(N, dtype=wp.float32)
    wp.launch(_det4, N, inputs=[wp.array(m, dtype=wp.mat44f)], outputs=[out])
    np.testing.assert_allclose(out.numpy(), np.linalg.det(m.astype(np.float64)), rtol=1e-5)


# --- Python scope ------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, key, type_name, expected", [
    (wp.quat(1.0, 2.0, 3.0, 4.0), slice(1, None), "vec3f", [2.0, 3.0, 4.0]),
    (wp.quat(1.0, 2.0, 3.0, 4.0), slice(None, None, -2), "vec2f", [4.0, 2.0]),
    (wp.quat(1.0, 2.0, 3.0, 4.0), slice(123, None), "vec0f", []),
    (wp.vec4d(1.0, 2.0, 3.0, 4.0), slice(None, 2), "vec2d", [1.0, 2.0]),
    (wp.mat33(*range(9)), slice(1, None), "mat23f", [[3, 4, 5], [6, 7, 8]]),
    (wp.mat33(*range(9)), (slice(1, None), slice(None, 2)), "mat22f", [[3, 4], [6, 7]]),
    (wp.mat33(*range(9)), (slice(None), 1), "vec3f", [1, 4, 7]),
    (wp.mat33(*range(9)), slice(5, None), "mat00f", []),
    (wp.mat22h(1.0, 2.0, 3.0, 4.0), (slice(None), 0), "vec2h", [1.0, 3.0]),
])
def test_python_scope_slices_are_warp_values(value, key, type_name, expected):
    s = value[key]
    assert type(s).__name__ == type_name
    np.testing.assert_array_equal(_values(s).reshape(-1), np.array(expected, dtype=float).reshape(-1))


def _values(c):
    """Components read one by one (np.array() of a float16 value gives its bits, as in warp-lang)."""
    return np.array([_values(x) if hasattr(x, "_shape_") else float(x) for x in c])


@pytest.mark.parametrize("dtype", [wp.float16, wp.float32, wp.float64, wp.int32])
def test_python_scope_vector_times_matrix_is_the_row_vector_product(dtype):
    m = wp.types.matrix((3, 3), dtype)(((-1, 2, 3), (4, -5, 6), (7, 8, -9)))
    v = wp.types.vector(3, dtype)(5, 5, 5)
    ref = np.array([5, 5, 5]) @ np.array(((-1, 2, 3), (4, -5, 6), (7, 8, -9)))
    for r in (v * m, v @ m):
        assert type(r) is type(v)
        np.testing.assert_array_equal(_values(r), ref)
    np.testing.assert_array_equal(_values(m * v), np.array(((-1, 2, 3), (4, -5, 6), (7, 8, -9))) @ [5, 5, 5])


# --- slices of matrices in kernels ---------------------------------------------------------------------
mat00 = wp.types.matrix((0, 0), float)


@wp.kernel(module="unique")
def _empty_matrix_slices(out: wp.array(dtype=wp.int32)):
    m = wp.matrix_from_rows(wp.vec4(1.0, 2.0, 3.0, 4.0), wp.vec4(5.0, 6.0, 7.0, 8.0))
    empty = mat00()
    out[0] = wp.where(m[5:] == empty, 1, 0)          # 0 rows x 4 columns: the 0x0 matrix
    out[1] = wp.where(m[:, :-123] == empty, 1, 0)    # 2 rows x 0 columns: the 0x0 matrix


def test_an_empty_matrix_slice_is_the_0x0_matrix():
    out = wp.zeros(2, dtype=wp.int32)
    wp.launch(_empty_matrix_slices, 1, outputs=[out])
    np.testing.assert_array_equal(out.numpy(), [1, 1])


@wp.kernel(module="unique")
def _slice_overwrite(x: wp.array(dtype=wp.vec2d), y: wp.array(dtype=wp.types.matrix((2, 3), wp.float64)),
                     z: wp.array(dtype=wp.mat44d)):
    i = wp.tid()
    m = z[i]
    m[0, :2] = x[i]
    m[:2, 1:] = y[i]          # overwrites m[0, 1], the copy of x[1]
    m[:2, 3] += x[i][:2]
    m[2:, 3] -= x[i][0:]
    z[i] = m


def test_a_component_overwritten_by_a_slice_assignment_gets_no_gradient():
    """x[1] reaches z only through m[1, 3] (+) and m[3, 3] (-): its gradient is 0 (finite
    differences agree). warp-lang 1.19 keeps the overwritten copy's adjoint and reports 1."""
    def run(xv):
        x = wp.array(xv[None], dtype=wp.vec2d, requires_grad=True)
        y = wp.ones(1, dtype=wp.types.matrix((2, 3), wp.float64), requires_grad=True)
        z = wp.zeros(1, dtype=wp.mat44d, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(_slice_overwrite, 1, inputs=[x, y], outputs=[z])
        return x, z, tape

    x0 = np.array([1.0, 1.0])
    x, z, tape = run(x0)
    z.grad = wp.ones_like(z)
    tape.backward()
    fd = [(run(x0 + h)[1].numpy().sum() - run(x0 - h)[1].numpy().sum()) / 2e-6
          for h in (np.array([1e-6, 0.0]), np.array([0.0, 1e-6]))]
    np.testing.assert_allclose(x.grad.numpy()[0], fd, atol=1e-8)
    np.testing.assert_allclose(x.grad.numpy()[0], [1.0, 0.0], atol=1e-12)
