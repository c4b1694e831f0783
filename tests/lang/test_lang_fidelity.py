"""Kernel-language forms warp-lang 1.19 accepts (the compat2 follow-up of issues 15/16):
warp's own types named without the module (``vec3(...)`` in a kernel), a ``@wp.func`` named as
an operator overloading it (``a + b`` on structs calls the user's ``add``), the tuple form of
``quat_to_axis_angle``. References: NumPy on the same values, Python's own arithmetic."""

import math

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.errors import CodegenError

# --- warp's types named bare --------------------------------------------------------------------
# (not imported here: the kernel below names them bare)
@wp.kernel
def k_bare_types(out: wp.array(dtype=float), out_d: wp.array(dtype=wp.float64),
                 out_u: wp.array(dtype=wp.uint8)):
    v = vec3(1.0, 2.0, 3.0)            # noqa: F821  (resolved from warp's namespace)
    m = mat22(1.0, 2.0, 3.0, 4.0)      # noqa: F821
    out[0] = wp.dot(v, v)
    out[1] = m[1, 0]
    out_d[0] = float64(2.5) * float64(2.0)   # noqa: F821
    out_u[0] = uint8(250) + uint8(10)        # noqa: F821  (wraps, as uint8 arithmetic does)


def test_bare_type_names_construct_warp_types():
    out, out_d, out_u = wp.zeros(2, dtype=float), wp.zeros(1, dtype=wp.float64), wp.zeros(1, dtype=wp.uint8)
    wp.launch(k_bare_types, dim=1, inputs=[out, out_d, out_u])
    assert out.numpy().tolist() == [14.0, 3.0]
    assert out_d.numpy()[0] == 5.0
    assert out_u.numpy()[0] == np.uint8(np.uint16(260) & 0xFF)


def test_undefined_bare_name_is_still_an_error():
    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=float)):
        out[0] = vec7(1.0)   # noqa: F821

    with pytest.raises(CodegenError, match="name 'vec7' is not defined"):
        wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=float)])


# --- operators overloaded by @wp.func -------------------------------------------------------------
@wp.struct
class Cplx:
    re: float
    im: float


@wp.func
def add(a: Cplx, b: Cplx) -> Cplx:
    return Cplx(a.re + b.re, a.im + b.im)


@wp.func
def mul(a: Cplx, b: Cplx) -> Cplx:
    return Cplx(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)


@wp.kernel
def k_cplx(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    a = Cplx(x[0], x[1])
    b = Cplx(x[2], x[3])
    c = a + b
    d = a * b
    d *= c                              # augmented assignment goes through the same operator
    out[0] = c.re
    out[1] = c.im
    out[2] = d.re
    out[3] = d.im
    out[4] = x[0] + x[1] * 2.0          # floats: add/mul do not take them, the builtin applies


CASES = [(1.0, 2.0, 3.0, 4.0), (-0.5, 0.25, 2.0, -3.0), (0.0, 0.0, 1.5, 1.5)]


@pytest.mark.parametrize("vals", CASES)
def test_operator_overload_by_user_function_matches_complex(vals):
    x = wp.array(np.array(vals, dtype=np.float32))
    out = wp.zeros(5, dtype=float)
    wp.launch(k_cplx, dim=1, inputs=[x, out])
    a, b = complex(vals[0], vals[1]), complex(vals[2], vals[3])
    c, d = a + b, a * b * (a + b)
    np.testing.assert_allclose(out.numpy(), [c.real, c.imag, d.real, d.imag, vals[0] + vals[1] * 2.0],
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("vals", CASES)
def test_operator_overload_gradient(vals):
    x = wp.array(np.array(vals, dtype=np.float32), requires_grad=True)
    out = wp.zeros(5, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k_cplx, dim=1, inputs=[x, out])
    tape.backward(grads={out: wp.array(np.array([1, 0, 0, 0, 0], dtype=np.float32))})
    # d(re(a + b))/dx = [1, 0, 1, 0]
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 0.0, 1.0, 0.0])


# --- quat_to_axis_angle as a tuple --------------------------------------------------------------
@wp.kernel
def k_axis_angle(q: wp.array(dtype=wp.quat), axis: wp.array(dtype=wp.vec3), angle: wp.array(dtype=float),
                 axis2: wp.array(dtype=wp.vec3), angle2: wp.array(dtype=float)):
    i = wp.tid()
    a, th = wp.quat_to_axis_angle(q[i])
    axis[i] = a
    angle[i] = th
    t = wp.quat_to_axis_angle(q[i])
    axis2[i] = t[0]
    angle2[i] = t[1] + float(len(t) - 2)


def _axis_angle_ref(q):
    """Unit quaternion (x, y, z, w) -> (axis, angle in [0, pi]): the axis flips with w < 0."""
    v, w = np.asarray(q[:3], dtype=np.float64), float(q[3])
    if w < 0.0:
        v, w = -v, -w
    return v / np.linalg.norm(v), 2.0 * math.acos(min(1.0, w))


def test_quat_to_axis_angle_tuple_matches_reference():
    rng = np.random.default_rng(3)
    qs = rng.normal(size=(16, 4))
    qs /= np.linalg.norm(qs, axis=1, keepdims=True)
    q = wp.array(qs.astype(np.float32), dtype=wp.quat)
    outs = [wp.zeros(16, dtype=wp.vec3), wp.zeros(16, dtype=float), wp.zeros(16, dtype=wp.vec3),
            wp.zeros(16, dtype=float)]
    wp.launch(k_axis_angle, dim=16, inputs=[q] + outs)
    for i in range(16):
        axis, angle = _axis_angle_ref(qs[i])
        np.testing.assert_allclose(outs[0].numpy()[i], axis, atol=1e-5)
        np.testing.assert_allclose(outs[1].numpy()[i], angle, atol=1e-5)
        np.testing.assert_array_equal(outs[2].numpy()[i], outs[0].numpy()[i])
        assert outs[3].numpy()[i] == outs[1].numpy()[i]


def test_quat_to_axis_angle_tuple_refuses_a_vector():
    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=float)):
        a, th = wp.quat_to_axis_angle(wp.vec4(0.0, 0.0, 0.0, 1.0))
        out[0] = th

    with pytest.raises(CodegenError, match="quat_to_axis_angle"):
        wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=float)])


def test_operator_function_body_uses_the_builtin(tmp_path):
    # inside the user's `add`, `a + b` is the builtin (no recursion); elsewhere floats go to it
    src = ("import warp_interactive as wp\n\n@wp.func\ndef add(a: float, b: float) -> float:\n"
           "    return a + b + 0.5\n\n@wp.kernel(module='unique')\n"
           "def k(out: wp.array(dtype=float)):\n    out[0] = 1.0 + 2.0 * out[1]\n")
    path = tmp_path / "float_add.py"
    path.write_text(src)
    ns = {}
    exec(compile(src, str(path), "exec"), ns)
    out = wp.zeros(2, dtype=float)
    wp.launch(ns["k"], dim=1, inputs=[out])
    assert out.numpy()[0] == 1.5


# --- starred arguments --------------------------------------------------------------------------
@wp.kernel
def k_starred(arr: wp.array(dtype=float), out: wp.array(dtype=float)):
    v = wp.vec4(1.0, 2.0, 3.0, 4.0)
    m = wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
    q = wp.quat(0.1, 0.2, 0.3, 0.4)
    t = (5.0, 6.0)
    a = wp.vec4(*v[1:3], *t)                 # 2 3 5 6
    b = wp.vec2(*v[-2:])                     # 3 4
    c = wp.vec3(*m[1])                       # a row: 4 5 6
    r = wp.matrix_from_rows(*m[::2])         # rows 0 and 2
    e = wp.vec3(*arr[1:6:2])                 # arr[1], arr[3], arr[5]
    f = wp.vec4(*q)
    out[0] = wp.dot(a, wp.vec4(1.0, 10.0, 100.0, 1000.0))
    out[1] = b[0] * 10.0 + b[1]
    out[2] = wp.dot(c, wp.vec3(1.0, 10.0, 100.0))
    out[3] = r[1, 0] * 10.0 + r[0, 2]
    out[4] = wp.dot(e, wp.vec3(1.0, 10.0, 100.0))
    out[5] = wp.max(*f[2:])


def test_starred_arguments_match_python_unpacking():
    x = np.arange(8, dtype=np.float32) * 2.0
    arr, out = wp.array(x, requires_grad=True), wp.zeros(6, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k_starred, dim=1, inputs=[arr, out])
    v, t, m = [1.0, 2.0, 3.0, 4.0], (5.0, 6.0), np.arange(1.0, 10.0).reshape(3, 3)
    a = [*v[1:3], *t]
    rows = m[::2]
    e = [*x[1:6:2]]
    expected = [a[0] + 10 * a[1] + 100 * a[2] + 1000 * a[3], v[-2] * 10 + v[-1],
                m[1] @ [1, 10, 100], rows[1, 0] * 10 + rows[0, 2], np.dot(e, [1, 10, 100]), 0.4]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    # the array elements are loads: their adjoints reach the array's gradient
    tape.backward(grads={out: wp.array(np.array([0, 0, 0, 0, 1, 0], dtype=np.float32))})
    np.testing.assert_allclose(arr.grad.numpy(), [0, 1, 0, 10, 0, 100, 0, 0])


@pytest.mark.parametrize("body, text", [
    ("v = wp.vec3(*arr[:n])", "Slice component must be a compile-time constant"),
    ("v = wp.vec3(*arr[0:])", "requires explicit upper bound"),
    ("v = wp.vec3(*arr[:-3])", "cannot be negative for arrays"),
    ("v = wp.vec3(*arr[5:2:-1])", "step cannot be negative"),
    ("v = wp.vec3(*arr)", "only if they are sliced"),
    ("x = 42\n    v = wp.vec3(*x)", "Starred expressions are only supported for"),
    ("v = wp.vec3(*wp.vec3(1.0, 2.0, 3.0)[3:])", "empty sequence"),
])
def test_starred_errors(body, text, tmp_path):
    src = (f"import warp_interactive as wp\n\n@wp.kernel(module='unique')\n"
           f"def k(arr: wp.array(dtype=float), n: int):\n    {body}\n")
    path = tmp_path / "starred_case.py"
    path.write_text(src)
    ns = {}
    exec(compile(src, str(path), "exec"), ns)
    with pytest.raises(CodegenError, match=text) as info:
        wp.launch(ns["k"], dim=1, inputs=[wp.zeros(8, dtype=float), 3])
    assert "starred_case.py" in str(info.value)   # the user's file and line


# --- Python-scope vector attributes and tape seeds ------------------------------------------------
@pytest.mark.parametrize("t, name", [(wp.vec3, "xy"), (wp.vec3, "xyz"), (wp.vec2, "z"), (wp.vec2, "w"),
                                     (wp.quat, "xw")])
def test_swizzles_are_refused_in_python(t, name):
    v = t()
    with pytest.raises(AttributeError, match=rf"'{t.__name__}' object has no attribute '{name}'$"):
        getattr(v, name)
    with pytest.raises(AttributeError, match=rf"no attribute '{name}'$"):
        setattr(v, name, 9.0)
    assert list(v) == [0.0] * len(v)
    v.foo = 3       # other attributes are plain Python attributes, as in warp-lang
    assert v.foo == 3


@wp.kernel
def k_scale(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * float(i)


def test_grads_seed_an_array_without_requires_grad():
    x = wp.array(np.ones(4, dtype=np.float32), requires_grad=True)
    y = wp.zeros(4, dtype=float)          # no gradient of its own: the seed becomes it
    tape = wp.Tape()
    with tape:
        wp.launch(k_scale, dim=4, inputs=[x, y])
    seed = wp.array(np.ones(4, dtype=np.float32))
    tape.backward(grads={y: seed})
    assert y.grad is seed
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 1.0, 2.0, 3.0])
