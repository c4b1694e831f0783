"""@wp.func_grad on every parameter kind warp-lang 1.19 documents: struct parameters
(``wp.adjoint[s.field]``, ``wp.adjoint[s.vec][k]``), array parameters (``wp.adjoint[a]`` is the
array of a's gradient: the function adds into it, no adjoint is returned), overloads of one name
with a grad each, and a custom grad that calls its own forward function (warp-lang's
``sigmoid`` example). Gradients are checked against the closed forms the custom grads state and,
where they are the true derivative, central finite differences."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.struct
class Params:
    scale: float
    offset: wp.vec3


@wp.func
def weigh(p: Params, x: wp.vec3):
    return p.scale * wp.dot(p.offset, x)


@wp.func_grad(weigh)
def adj_weigh(p: Params, x: wp.vec3, adj_ret: float):
    wp.adjoint[p.scale] += wp.dot(p.offset, x) * adj_ret
    wp.adjoint[p.offset] += x * (p.scale * adj_ret)
    wp.adjoint[p.offset][0] += 100.0 * adj_ret     # a deliberate extra: shows the component path
    wp.adjoint[x] += p.offset * (p.scale * adj_ret)


@wp.kernel
def run_weigh(ps: wp.array(dtype=Params), xs: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = weigh(ps[i], xs[i])


def test_struct_parameter_adjoints_reach_the_struct_gradient():
    rng = np.random.default_rng(5)
    n = 4
    ps_np = [(float(rng.standard_normal()), rng.standard_normal(3).astype(np.float32)) for _ in range(n)]
    ps = []
    for s, o in ps_np:
        p = Params()
        p.scale, p.offset = s, wp.vec3(*o)
        ps.append(p)
    ps = wp.array(ps, dtype=Params, requires_grad=True)
    xs_np = rng.standard_normal((n, 3)).astype(np.float32)
    xs = wp.array(xs_np, dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(n, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(run_weigh, dim=n, inputs=[ps, xs], outputs=[out])
    tape.backward(grads={out: wp.ones(n, dtype=float)})
    g = ps.grad.numpy()
    for i, (s, o) in enumerate(ps_np):
        assert g[i]["scale"] == pytest.approx(float(np.dot(o, xs_np[i])), rel=1e-5)
        np.testing.assert_allclose(g[i]["offset"], xs_np[i] * s + [100.0, 0.0, 0.0], rtol=1e-5)
        np.testing.assert_allclose(xs.grad.numpy()[i], o * s, rtol=1e-5)


# --- array parameters: wp.adjoint[a] is the gradient array -----------------------------------------
@wp.func
def square_into(i: int, xs: wp.array(dtype=float), ys: wp.array(dtype=float)):
    ys[i] = xs[i] * xs[i]


@wp.func_grad(square_into)
def adj_square_into(i: int, xs: wp.array(dtype=float), ys: wp.array(dtype=float)):
    wp.adjoint[xs][i] += 2.0 * xs[i] * wp.adjoint[ys][i]


@wp.kernel
def run_square_into(xs: wp.array(dtype=float), ys: wp.array(dtype=float)):
    square_into(wp.tid(), xs, ys)


@pytest.mark.parametrize("n", [1, 7, 64])
def test_array_parameter_adjoint_is_the_gradient_array(n):
    x = np.linspace(-2.0, 3.0, n).astype(np.float32)
    seed = np.arange(1, n + 1, dtype=np.float32)
    xs = wp.array(x, dtype=float, requires_grad=True)
    ys = wp.zeros(n, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(run_square_into, dim=n, inputs=[xs], outputs=[ys])
    tape.backward(grads={ys: wp.array(seed, dtype=float)})
    np.testing.assert_allclose(ys.numpy(), x * x, rtol=1e-6)
    np.testing.assert_allclose(xs.grad.numpy(), 2.0 * x * seed, rtol=1e-6)   # d(x^2)/dx


# --- a custom grad calling its own function -------------------------------------------------------
@wp.func
def sigmoid(x: float):
    return 1.0 / (1.0 + wp.exp(-x))


@wp.func_grad(sigmoid)
def adj_sigmoid(x: float, adj: float):
    wp.adjoint[x] += adj * sigmoid(x) * (1.0 - sigmoid(x))


@wp.kernel
def run_sigmoid(xs: wp.array(dtype=float), ys: wp.array(dtype=float)):
    i = wp.tid()
    ys[i] = sigmoid(xs[i])


def test_custom_grad_may_call_its_own_function():
    x = np.linspace(-4.0, 4.0, 9).astype(np.float32)
    xs = wp.array(x, dtype=float, requires_grad=True)
    ys = wp.zeros(9, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(run_sigmoid, dim=9, inputs=[xs], outputs=[ys])
    tape.backward(grads={ys: wp.ones(9, dtype=float)})
    h = 1e-3
    f = lambda v: 1.0 / (1.0 + np.exp(-v.astype(np.float64)))   # noqa: E731
    np.testing.assert_allclose(xs.grad.numpy(), (f(x + h) - f(x - h)) / (2 * h), rtol=1e-4, atol=1e-6)


# --- overloads of one name, a grad for each -------------------------------------------------------
@wp.func
def twice(x: float):
    return 2.0 * x


@wp.func_grad(twice)
def adj_twice_f(x: float, adj_ret: float):
    wp.adjoint[x] += 20.0 * adj_ret      # a marker: shows this grad ran, not the generated one


@wp.func
def twice(x: wp.vec2):
    return 2.0 * x


@wp.func_grad(twice)
def adj_twice_v(x: wp.vec2, adj_ret: wp.vec2):
    wp.adjoint[x] += 30.0 * adj_ret


@wp.kernel
def run_twice(a: wp.array(dtype=float), b: wp.array(dtype=wp.vec2), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = twice(a[i]) + wp.dot(twice(b[i]), wp.vec2(1.0, 1.0))


def test_each_overload_uses_its_own_custom_grad():
    a = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    b = wp.array([[1.0, 2.0], [3.0, 4.0]], dtype=wp.vec2, requires_grad=True)
    out = wp.zeros(2, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(run_twice, dim=2, inputs=[a, b], outputs=[out])
    tape.backward(grads={out: wp.ones(2, dtype=float)})
    np.testing.assert_allclose(out.numpy(), [8.0, 18.0])
    np.testing.assert_allclose(a.grad.numpy(), [20.0, 20.0])
    np.testing.assert_allclose(b.grad.numpy(), np.full((2, 2), 30.0))


def test_adjoint_of_a_name_that_is_no_parameter_is_refused():
    @wp.func
    def f(xs: wp.array(dtype=float)):
        return xs[0]

    @wp.func_grad(f)
    def adj_f(xs: wp.array(dtype=float), adj_ret: float):
        wp.adjoint[undefined_name] += adj_ret    # noqa: F821

    @wp.kernel(module="unique")
    def k(xs: wp.array(dtype=float), out: wp.array(dtype=float)):
        out[0] = f(xs)

    xs = wp.array([1.0], dtype=float, requires_grad=True)
    out = wp.zeros(1, dtype=float, requires_grad=True)
    with pytest.raises(Exception, match="wp.adjoint\\[...\\] takes the name of a parameter"):
        with wp.Tape() as tape:
            wp.launch(k, dim=1, inputs=[xs], outputs=[out])
        tape.backward(grads={out: wp.ones(1, dtype=float)})
