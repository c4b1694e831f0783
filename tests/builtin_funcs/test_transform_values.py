"""Transforms as warp-lang 1.19 documents them, in kernels and in Python: the constructor forms
(``(p)``, ``(p, q)``, seven components, one scalar, a copy, none), componentwise ``+``/``-`` and
scaling by a scalar (a transform is also a 7-vector), keyword arguments of builtins in kernels,
the in-place ``transform_set_*`` builtins in Python, and the reference's error messages.
References: NumPy (values) and central finite differences (gradients)."""

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.errors import CodegenError

DTYPES = [(wp.float16, np.float16, 2e-2), (wp.float32, np.float32, 1e-5), (wp.float64, np.float64, 1e-12)]
IDENTITY = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]


def _constructor_kernel(s):
    vec3, quat, tf = wp.types.vector(3, s), wp.types.quaternion(s), wp.types.transformation(s)

    def build(x: wp.array(dtype=s), out: wp.array(dtype=tf)):
        p = vec3(x[0], x[1], x[2])
        q = quat(x[3], x[4], x[5], x[6])
        out[0] = wp.transformation(p)                       # identity rotation
        out[1] = wp.transformation(p, q)
        out[2] = tf(x[0], x[1], x[2], x[3], x[4], x[5], x[6])
        out[3] = tf(x[0])                                   # fill
        out[4] = wp.types.transformation(tf(p, q))          # copy, dtype from the source
        out[5] = tf()                                       # zero in kernels (the reference's rule)
        out[6] = tf(p)
        out[7] = wp.transformation(q=q, p=p)
        # the type's own constructor by keyword (a zero transform here would be a silent error)
        out[8] = tf(p=p)
        out[9] = tf(q=q, p=p)
        out[10] = tf(p, q=q)

    return wp.Kernel(func=build, key=f"tf_build_{s.__name__}")


@pytest.mark.parametrize("s, np_t, tol", DTYPES)
def test_constructor_forms_in_kernels_against_numpy(s, np_t, tol):
    x = np.array([1.0, 2.0, 3.0, 0.5, -0.5, 0.25, 0.75], dtype=np_t)
    out = wp.zeros(11, dtype=wp.types.transformation(s))
    wp.launch(_constructor_kernel(s), 1, inputs=[wp.array(x, dtype=s), out])
    p_only = np.concatenate([x[:3], IDENTITY[3:]])
    want = np.stack([p_only, x, x, np.full(7, x[0]), x, np.zeros(7), p_only, x, p_only, x, x]).astype(np_t)
    np.testing.assert_allclose(out.numpy().astype(float), want.astype(float), atol=tol)


@wp.kernel
def _arith(a: wp.array(dtype=wp.transformd), b: wp.array(dtype=wp.transformd), s: wp.array(dtype=wp.float64),
           w: wp.array(dtype=wp.transformd), loss: wp.array(dtype=wp.float64)):
    t = (a[0] + b[0]) * s[0] - s[0] * b[0] + wp.transformd(s[0])
    u = a[0] - b[0]
    acc = wp.float64(0.0)
    for i in range(7):
        acc += w[0][i] * t[i] + u[i] * u[i]
    loss[0] = acc


def _loss(a, b, s, w):
    t = (a + b) * s - s * b + s
    return float(np.dot(w, t) + np.dot(a - b, a - b))


def test_transform_add_sub_scale_values_and_gradients():
    rng = np.random.default_rng(3)
    a, b, w = rng.normal(size=7), rng.normal(size=7), rng.normal(size=7)
    s = 0.7
    arrs = [wp.array(a.reshape(1, 7), dtype=wp.transformd, requires_grad=True),
            wp.array(b.reshape(1, 7), dtype=wp.transformd, requires_grad=True),
            wp.array([s], dtype=wp.float64, requires_grad=True)]
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_arith, 1, inputs=arrs + [wp.array(w.reshape(1, 7), dtype=wp.transformd)], outputs=[loss])
    assert loss.numpy()[0] == pytest.approx(_loss(a, b, s, w), rel=1e-12)
    tape.backward(loss)
    eps = 1e-6
    for k, base in enumerate([a, b, np.array([s])]):
        fd = np.zeros(base.size)
        for i in range(base.size):
            plus, minus = [v.copy() for v in (a, b, np.array([s]))], [v.copy() for v in (a, b, np.array([s]))]
            plus[k][i] += eps
            minus[k][i] -= eps
            fd[i] = (_loss(plus[0], plus[1], plus[2][0], w) - _loss(minus[0], minus[1], minus[2][0], w)) / (2 * eps)
        np.testing.assert_allclose(arrs[k].grad.numpy().reshape(-1), fd, rtol=1e-6, atol=1e-8)


@wp.kernel
def _ctor_grad(x: wp.array(dtype=float), w: wp.array(dtype=float), loss: wp.array(dtype=float)):
    a = wp.transform(x[0])
    b = wp.transformation(x[1], x[2], x[3], x[4], x[5], x[6], x[7])
    c = wp.transformation(wp.vec3(x[1], x[2], x[3]))
    acc = float(0.0)
    for i in range(7):
        acc += w[i] * a[i] + w[i + 7] * b[i] + w[i + 14] * c[i]
    loss[0] = acc


def test_constructor_gradients_match_the_linear_weights():
    """Each constructor is linear in its arguments: the gradient is the weights they feed."""
    rng = np.random.default_rng(4)
    w = rng.normal(size=21).astype(np.float32)
    x = wp.array(rng.normal(size=8).astype(np.float32), requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_ctor_grad, 1, inputs=[x, wp.array(w)], outputs=[loss])
    tape.backward(loss)
    want = np.zeros(8)
    want[0] = w[:7].sum()
    want[1:8] += w[7:14]
    want[1:4] += w[14:17]
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("body, message", [
    ("wp.transform(1.0, 2.0)", r"incompatible number of values given \(2\) when constructing a transform; expected 0, 1, or 7"),
    ("wp.transformation(1.0, 2.0, 3.0)", r"incompatible number of values given \(3\)"),
    ("wp.transformd(wp.transform(1.0))", r"copy constructing a transform requires matching source and target "
                                         r"dtypes, got `float32` and `float64`"),
    ("wp.expect_near(1.0, 1.0, tol=0.1)", r"expect_near\(\).*tol.*tolerance"),
    # keywords the reference refuses (they were ignored, giving a zero value)
    ("wp.transform(q=wp.quat_identity())", r"got an unexpected keyword argument 'q'"),
    ("wp.vec3(x=1.0)", r"got an unexpected keyword argument 'x'"),
    ("wp.mat22(m00=1.0)", r"got an unexpected keyword argument 'm00'"),
    ("wp.quatd(w=wp.float64(1.0))", r"got an unexpected keyword argument 'w'"),
    ("max(1.0, 2.0, key=3)", r"max\(\) got an unexpected keyword argument 'key'"),
    ("print(1.0, end='')", r"print\(\) got an unexpected keyword argument 'end'"),
    ("wp.float64(1.0, dtype=float)", r"float64\(\) got an unexpected keyword argument 'dtype'"),
])
def test_refused_constructions_name_the_problem(tmp_path, body, message):
    src = tmp_path / "refused_kernel.py"
    src.write_text(f"import warp_interactive as wp\n\n@wp.kernel(module='unique')\ndef k():\n    {body}\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"refused_{abs(hash(body))}", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(CodegenError, match=message) as info:
        wp.launch(mod.k, 1)
    assert "refused_kernel.py" in str(info.value) and "line 5" in str(info.value)


@wp.kernel
def _near(a: wp.array(dtype=wp.vec3d), b: wp.array(dtype=wp.vec3d), t: wp.array(dtype=wp.float64)):
    wp.expect_near(a[0], b=b[0], tolerance=t[0])
    wp.expect_near(b[0], a[0], tolerance=t[0])


def test_builtin_keyword_arguments_in_kernels(capfd):
    a = wp.array([wp.vec3d(1.0, 2.0, 3.0)], dtype=wp.vec3d)
    b = wp.array([wp.vec3d(1.0, 2.0, 3.5)], dtype=wp.vec3d)
    wp.launch(_near, 1, inputs=[a, b, wp.array([1.0], dtype=wp.float64)])
    wp.synchronize()
    assert "expect_near" not in capfd.readouterr().out
    wp.launch(_near, 1, inputs=[a, b, wp.array([0.1], dtype=wp.float64)])
    wp.synchronize()
    assert capfd.readouterr().out.count("expect_near") == 2


# --- Python scope ----------------------------------------------------------------------------------
COMPONENTS = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]


@pytest.mark.parametrize("make, want", [
    (lambda T: T(), IDENTITY),
    (lambda T: T(1.5), [1.5] * 7),
    (lambda T: T(np.float32(1.5)), [1.5] * 7),
    (lambda T: T(True), [1.0] * 7),
    (lambda T: T(*COMPONENTS), COMPONENTS),
    (lambda T: T((1.0, 2.0, 3.0)), [1.0, 2.0, 3.0] + IDENTITY[3:]),
    (lambda T: T((1.0, 2.0, 3.0), (4.0, 5.0, 6.0, 7.0)), COMPONENTS),
    (lambda T: T(p=(1.0, 2.0, 3.0), q=(4.0, 5.0, 6.0, 7.0)), COMPONENTS),
    (lambda T: T(q=(4.0, 5.0, 6.0, 7.0)), [0.0, 0.0, 0.0, 4.0, 5.0, 6.0, 7.0]),
    (lambda T: T(wp.transformd(*COMPONENTS)), COMPONENTS),
    (lambda T: T(wp.transformh(*COMPONENTS)), COMPONENTS),
    (lambda T: T(np.arange(1.0, 8.0)), COMPONENTS),
    # float16 parts: their values, not the bits their ctypes buffers hold
    (lambda T: T(wp.vec3h(1.0, 2.0, 3.0), wp.quath(4.0, 5.0, 6.0, 7.0)), COMPONENTS),
    (lambda T: T(wp.vec3h(1.0, 2.0, 3.0)), [1.0, 2.0, 3.0] + IDENTITY[3:]),
])
@pytest.mark.parametrize("T", [wp.transformh, wp.transformf, wp.transformd])
def test_python_constructor_forms(T, make, want):
    assert [float(c) for c in make(T)] == want


@pytest.mark.parametrize("make, message", [
    (lambda T: T(object()), "Invalid argument in transformation constructor: expected a scalar value, got object"),
    (lambda T: T(1.5, 2.5), "Invalid argument 'p' in transformation constructor: expected a sequence, got float"),
    (lambda T: T((1.0, 2.0, 3.0), 1.0), "Invalid argument 'q' in transformation constructor: expected a sequence, got float"),
    (lambda T: T(q=1.0), "Invalid argument 'q' in transformation constructor: expected a sequence, got float"),
    (lambda T: T(*COMPONENTS, q=(0.0, 0.0, 0.0, 1.0)), "multiple values for argument 'q'"),
    (lambda T: T(*COMPONENTS, pos=(1.0, 2.0, 3.0)), "got an unexpected keyword argument 'pos'"),
])
def test_python_constructor_errors(make, message):
    with pytest.raises(TypeError) as info:
        make(wp.transformf)
    assert str(info.value) == message


@pytest.mark.parametrize("T", [wp.transformh, wp.transformf, wp.transformd,
                               wp.types.transformation(dtype=wp.float32)])
def test_python_set_parts_change_the_value_itself(T):
    t = T()
    wp.transform_set_translation(t, wp.types.vector(3, T._wp_scalar_type_)(1.0, 2.0, 3.0))
    wp.transform_set_rotation(t, wp.types.quaternion(T._wp_scalar_type_)(0.0, 1.0, 0.0, 0.0))
    assert list(t) == [1.0, 2.0, 3.0, 0.0, 1.0, 0.0, 0.0]
    t.p = (4.0, 5.0, 6.0)
    t.q = wp.quat(0.0, 0.0, 0.0, 1.0)
    assert list(t) == [4.0, 5.0, 6.0, 0.0, 0.0, 0.0, 1.0]
    with pytest.raises(ValueError, match="needs 3 components, got 2"):
        t.p = (1.0, 2.0)


def test_python_identity_types():
    assert type(wp.transform_identity()) is wp.transformf
    assert type(wp.transform_identity(dtype=wp.float64)) is wp.transformd
    assert type(wp.quat_identity()) is wp.quatf


# --- vector % vector ---------------------------------------------------------------------------------
@wp.kernel
def _vmod(a: wp.array(dtype=wp.vec4d), b: wp.array(dtype=wp.vec4d), out: wp.array(dtype=wp.vec4d),
          ai: wp.array(dtype=wp.vec3i), bi: wp.array(dtype=wp.vec3i), outi: wp.array(dtype=wp.vec3i)):
    out[0] = a[0] % b[0]
    v = ai[0]
    v %= bi[0]
    outi[0] = v


def test_vector_mod_matches_the_scalar_rule_componentwise():
    """Componentwise, as the scalar ``%`` (warp-lang's truncated remainder: the sign of a)."""
    a, b = np.array([7.5, -7.5, 7.5, 1.0]), np.array([2.0, 2.0, -2.0, 3.0])
    ai, bi = np.array([7, -7, 7], dtype=np.int32), np.array([3, 3, -3], dtype=np.int32)
    out, outi = wp.zeros(1, dtype=wp.vec4d), wp.zeros(1, dtype=wp.vec3i)
    wp.launch(_vmod, 1, inputs=[wp.array([a], dtype=wp.vec4d), wp.array([b], dtype=wp.vec4d), out,
                                wp.array([ai], dtype=wp.vec3i), wp.array([bi], dtype=wp.vec3i), outi])
    np.testing.assert_array_equal(out.numpy()[0], np.fmod(a, b))
    np.testing.assert_array_equal(outi.numpy()[0], np.fmod(ai, bi))
