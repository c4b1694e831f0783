"""warp-lang's element-access builtins by name in kernels (wp.address, wp.view, wp.array_store,
wp.index, wp.indexref, wp.load, wp.store): each is the subscript or assignment it stands for,
values checked against NumPy, gradients against the same kernel written with subscripts; warp-lang's
messages for misuse, and a clear error in Python scope."""

import numpy as np
import pytest

import warp_interactive as wp

MODULE = "wpi_test_pointer_ops"


@wp.kernel(module=MODULE)
def access_kernel(a: wp.array(dtype=float), b: wp.array2d(dtype=float), c: wp.array3d(dtype=float),
                  m: wp.array(dtype=wp.mat22), out: wp.array2d(dtype=float)):
    i = wp.tid()
    x = wp.load(wp.address(a, i))
    wp.store(wp.address(a, i), x * 2.0)                 # a[i] = 2 a[i]
    wp.array_store(out, i, 0, x + 1.0)                  # out[i, 0]
    row = wp.view(b, i)                                 # b[i]: a 1d view
    wp.array_store(out, i, 1, row[1] + wp.address(b, i, 0))
    plane = wp.view(c, i)                               # c[i]: a 2d view
    wp.array_store(out, i, 2, plane[1, 0] + wp.view(c, i, 1)[1])
    v = wp.vec3(1.0, 2.0, 3.0) * x
    wp.store(wp.index(v, 1), 7.0)
    out[i, 3] = wp.index(v, 0) + wp.index(v, 1) + wp.indexref(m[i], 1, 0)
    mm = m[i]
    wp.store(wp.indexref(mm, 0), wp.vec2(5.0, 6.0))     # a matrix row
    wp.store(wp.indexref(mm, 1, 1), x)                  # an element
    m[i] = mm
    s = float(0.0)
    wp.store(s, 4.0)                                    # a local
    out[i, 4] = s


def test_values_against_numpy():
    n = 3
    rng = np.random.default_rng(0)
    a0 = rng.standard_normal(n).astype(np.float32)
    b0 = rng.standard_normal((n, 2)).astype(np.float32)
    c0 = rng.standard_normal((n, 2, 2)).astype(np.float32)
    m0 = rng.standard_normal((n, 2, 2)).astype(np.float32)
    a, b, c = wp.array(a0), wp.array(b0), wp.array(c0)
    m = wp.array(m0, dtype=wp.mat22)
    out = wp.zeros((n, 5), dtype=float)
    wp.launch(access_kernel, n, inputs=[a, b, c, m, out])
    want = np.stack([a0 + 1, b0[:, 1] + b0[:, 0], c0[:, 1, 0] + c0[:, 1, 1],
                     a0 + 7 + m0[:, 1, 0], np.full(n, 4.0)], axis=1)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(a.numpy(), 2 * a0)
    m_want = m0.copy()
    m_want[:, 0] = [5.0, 6.0]
    m_want[:, 1, 1] = a0
    np.testing.assert_allclose(m.numpy(), m_want)


@wp.kernel(module=MODULE)
def grad_named(x: wp.array2d(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    r = wp.view(x, i)
    wp.array_store(y, i, wp.load(wp.address(x, i, 0)) * r[1] + wp.sin(wp.address(x, i, 1)))


@wp.kernel(module=MODULE)
def grad_subscripts(x: wp.array2d(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    r = x[i]
    y[i] = x[i, 0] * r[1] + wp.sin(x[i, 1])


def test_gradients_match_the_subscript_form_and_the_analytic_one():
    x0 = np.random.default_rng(1).standard_normal((4, 2)).astype(np.float32)
    grads = []
    for k in (grad_named, grad_subscripts):
        x = wp.array(x0, requires_grad=True)
        y = wp.zeros(4, dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(k, 4, inputs=[x, y])
        tape.backward(grads={y: wp.ones(4, dtype=float)})
        grads.append(x.grad.numpy())
    analytic = np.stack([x0[:, 1], x0[:, 0] + np.cos(x0[:, 1])], axis=1)
    np.testing.assert_allclose(grads[0], analytic, rtol=1e-5)
    np.testing.assert_array_equal(grads[0], grads[1])


def _build(body):
    """A kernel whose body is ``body`` (one line over a 2d array ``a`` and a vec3 ``v``)."""
    src = ("def bad(a: wp.array2d(dtype=float)):\n"
           "    i = wp.tid()\n"
           "    v = wp.vec3(1.0)\n"
           f"    {body}\n")
    ns = {"wp": wp}
    import linecache
    fname = f"<pointer-ops {abs(hash(body))}>"
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
    exec(compile(src, fname, "exec"), ns)
    k = wp.kernel(ns["bad"], module="unique")
    wp.launch(k, 1, inputs=[wp.zeros((2, 2), dtype=float)])


@pytest.mark.parametrize("body, text", [
    ("x = wp.address(a, i)", r"The number of indices provided \(1\) does not match the array dimensions \(2\) for array load"),
    ("x = wp.address(v, i)", "address\\(\\) first argument must be an array"),
    ("wp.array_store(a, i, 1.0)", r"The number of indices provided \(1\) does not match the array dimensions \(2\) for array store"),
    ("x = wp.view(a, i, 0)", "Expected to call `address\\(\\)` instead of `view\\(\\)`"),
    ("x = wp.view(a, i, 0, 0)", "Trying to create an array view with 3 indices, but the array only has 2 dimension"),
    ("wp.store(1.0, 2.0)", "wp.store\\(\\) writes through wp.address\\(\\), wp.index\\(\\) or wp.indexref\\(\\)"),
    ("x = wp.index(v, 0, 1)", "wp.index\\(\\) takes a value and 1 index"),
    ("x = wp.load(a, i)", "wp.load\\(\\) takes one argument"),
])
def test_misuse_is_named(body, text):
    with pytest.raises(Exception, match=text):
        _build(body)


@pytest.mark.parametrize("name", ["address", "view", "array_store", "index", "indexref", "load", "store"])
def test_python_scope_says_kernels_only(name):
    with pytest.raises(RuntimeError, match=f"wp.{name}\\(\\) can only be called inside a @wp.kernel"):
        getattr(wp, name)(wp.zeros(2), 0)
