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
