"""Tuple values in kernels, as warp-lang 1.19 has them: tuple literals and a @wp.func's
several results bound to a name, indexed with build-time integers (negative from the end),
``len`` and ``wp.static(len(t))`` as constants, unpacking, ``range(len(t))`` unrolled, tuples
joined after an ``if`` and carried by a dynamic loop; gradients flow through their elements.
References: Python on the same values, central finite differences."""

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.errors import CodegenError


@wp.func
def two(x: int, y: float):
    return (x * 123, y * 1.5)


@wp.kernel
def k_basics(out: wp.array(dtype=float), ints: wp.array(dtype=int)):
    tid = wp.tid()
    t = (1, 2.5, wp.vec3(1.0, 2.0, 3.0), tid)
    ints[0] = len(t)
    ints[1] = wp.static(len(t))
    ints[2] = t[0] + t[-1]
    out[0] = t[1] + t[2][2]
    a, b, c, d = t
    out[1] = b * c[1] + float(a + d)
    u = two(4, 8.0)
    s = float(0.0)
    for i in range(len(u)):           # unrolled: u[i] at a build-time index
        s += float(u[i])
    out[2] = s


def test_tuple_basics_match_python():
    out, ints = wp.zeros(3, dtype=float), wp.zeros(3, dtype=int)
    wp.launch(k_basics, dim=1, inputs=[out, ints])
    t = (1, 2.5, (1.0, 2.0, 3.0), 0)
    assert list(ints.numpy()) == [4, 4, t[0] + t[-1]]
    np.testing.assert_allclose(out.numpy(), [2.5 + 3.0, 2.5 * 2.0 + 1, 4 * 123 + 8.0 * 1.5])


@wp.kernel
def k_control(n: int, flag: int, out: wp.array(dtype=float)):
    p = (1.0, 2.0)
    if flag > 0:
        p = (3.0, 4.0)
    q = (0.0, 1.0)
    for _ in range(n):                 # a tuple carried by a dynamic loop
        q = (q[1], q[0] + q[1])
    out[0] = p[0] * 10.0 + p[1]
    out[1] = q[0]


def _fib(n):
    q = (0.0, 1.0)
    for _ in range(n):
        q = (q[1], q[0] + q[1])
    return q[0]


@pytest.mark.parametrize("n,flag", [(0, 0), (1, 1), (10, 0), (17, 3)])
def test_tuples_through_if_and_dynamic_loops(n, flag):
    out = wp.zeros(2, dtype=float)
    wp.launch(k_control, dim=1, inputs=[n, flag, out])
    p = (3.0, 4.0) if flag > 0 else (1.0, 2.0)
    np.testing.assert_allclose(out.numpy(), [p[0] * 10 + p[1], _fib(n)])


@wp.kernel
def k_grad(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    t = (wp.sin(x[0]), x[1] * x[1])
    acc = wp.float64(0.0)
    for i in range(wp.static(len(t))):
        acc += t[i] * wp.float64(i + 1)
    out[0] = acc


def test_gradients_flow_through_tuple_elements():
    xs = np.array([0.3, -1.7])
    x = wp.array(xs, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k_grad, dim=1, inputs=[x, out])
    tape.backward(out)
    assert out.numpy()[0] == pytest.approx(np.sin(xs[0]) + 2 * xs[1] ** 2)
    np.testing.assert_allclose(x.grad.numpy(), [np.cos(xs[0]), 4 * xs[1]], rtol=1e-12)


@pytest.mark.parametrize("body,message", [
    ("t = (1.0, 2.0)\n    out[0] = t[i]", r"a tuple is indexed with one integer known when the kernel "
                                           r"is built"),
    ("t = (1.0, 2.0)\n    out[0] = t[2]", r"tuple index 2 is out of range for a tuple of 2 values"),
    ("t = (1.0, 2.0)\n    if i > 0:\n        t = 3.0\n    out[0] = t", r"variable 't' is a tuple on one "
                                                                     r"path through the if"),
])
def test_tuple_misuse_is_a_clear_error(tmp_path, body, message):
    import importlib.util
    src = tmp_path / "k_tuple_bad.py"
    src.write_text("import warp_interactive as wp\n"
                   "@wp.kernel(module='unique')\n"
                   "def k(out: wp.array(dtype=float), i: int):\n"
                   f"    {body}\n")
    spec = importlib.util.spec_from_file_location("k_tuple_bad", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(CodegenError, match=message) as info:
        wp.launch(mod.k, dim=1, inputs=[wp.zeros(1, dtype=float), 1])
    assert "k_tuple_bad.py" in str(info.value)
