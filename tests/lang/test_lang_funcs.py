"""@wp.func features warp-lang 1.19 has: default and keyword arguments in kernels and in
Python scope, Python-scope overload choice by argument types, ``wp.grad(f)(x)`` in forward code
(against analytic derivatives and central differences), functions bound to local names,
``inspect.signature`` and typing overloads of ``wp.func``; ``expect_near``'s default tolerance and
adjoint launches whose ``adj_inputs`` entries are None (the array's own ``.grad``)."""

import inspect
import math
import typing

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.errors import CodegenError


@wp.func
def with_defaults(a: int = 123, b: int = 234) -> int:
    return a * 1000 + b


@wp.func
def scaled(x: float, scale: float = 2.0, offset: wp.vec2 = wp.vec2(1.0, -1.0)):
    return x * scale + offset[0] - offset[1]


@wp.kernel
def k_defaults(out: wp.array(dtype=int), fout: wp.array(dtype=float)):
    out[0] = with_defaults()
    out[1] = with_defaults(111)
    out[2] = with_defaults(111, 222)
    out[3] = with_defaults(a=111)
    out[4] = with_defaults(b=111)
    out[5] = with_defaults(b=5, a=6)
    fout[0] = scaled(1.5)
    fout[1] = scaled(1.5, offset=wp.vec2(0.0, 0.0))
    fout[2] = scaled(1.5, 3.0)


CALLS = [((), {}), ((111,), {}), ((111, 222), {}), ((), {"a": 111}), ((), {"b": 111}),
         ((), {"b": 5, "a": 6})]


def _with_defaults_py(a=123, b=234):
    return a * 1000 + b


def test_defaults_and_keywords_in_kernels_match_python():
    out, fout = wp.zeros(6, dtype=int), wp.zeros(3, dtype=float)
    wp.launch(k_defaults, dim=1, inputs=[out, fout])
    assert list(out.numpy()) == [_with_defaults_py(*a, **kw) for a, kw in CALLS]
    np.testing.assert_allclose(fout.numpy(), [1.5 * 2 + 2, 1.5 * 2, 1.5 * 3 + 2])


@pytest.mark.parametrize("args,kwargs", CALLS)
def test_defaults_and_keywords_in_python_scope(args, kwargs):
    assert with_defaults(*args, **kwargs) == _with_defaults_py(*args, **kwargs)


def test_unknown_keyword_is_a_clear_error():
    @wp.kernel(module="unique")
    def k_bad(out: wp.array(dtype=int)):
        out[0] = with_defaults(c=1)

    with pytest.raises(CodegenError, match=r"no overload of with_defaults\(\) accepts \(c=int32\)"):
        wp.launch(k_bad, dim=1, inputs=[wp.zeros(1, dtype=int)])


@wp.func
def plus_one(x: int):
    return x + 1


@wp.func
def plus_one(x: float):  # noqa: F811  (an overload)
    return x + 1.5


@wp.func
def plus_one(x: wp.vec3):  # noqa: F811
    return x + wp.vec3(1.0, 0.0, 0.0)


@wp.func
def only_f64(x: wp.float64):
    return x


@pytest.mark.parametrize("arg,expected", [(1, 2), (1.0, 2.5), (wp.vec3(1.0, 2.0, 3.0), [2.0, 2.0, 3.0])])
def test_python_scope_call_picks_the_overload_by_argument_type(arg, expected):
    got = plus_one(arg)
    assert (list(got) if isinstance(expected, list) else got) == expected


def test_python_scope_call_without_a_fitting_overload_raises():
    assert float(only_f64(wp.float64(1.5)).value) == 1.5
    with pytest.raises(RuntimeError, match=r"^Error calling function 'only_f64', no overload found "
                                           r"for arguments \(1.0,\)$"):
        only_f64(1.0)      # a Python float is a float32 value, as in the reference


def test_signature_and_typing_overloads():
    assert list(inspect.signature(with_defaults).parameters) == ["a", "b"]
    assert inspect.signature(with_defaults).parameters["a"].default == 123
    assert len(typing.get_overloads(wp.func)) >= 2


# --- wp.grad(f)(x) in forward code ------------------------------------------------------------
@wp.func
def cube_sin(x: wp.float64):
    return x * x * x + wp.sin(x)


@wp.func
def two_args(x: wp.float64, y: wp.float64):
    return x * wp.exp(y) + y * y


@wp.func
def uses_grad(x: wp.float64):
    g = wp.grad(cube_sin)      # bound to a local name, called later
    return g(x) * wp.float64(2.0)


@wp.kernel(enable_backward=False)     # no backward code: wp.grad still has f's adjoint
def k_grad(xs: wp.array(dtype=wp.float64), out: wp.array2d(dtype=wp.float64)):
    i = wp.tid()
    x = xs[i]
    out[i, 0] = wp.grad(cube_sin)(x)
    gx, gy = wp.grad(two_args)(x, wp.float64(0.5) * x)
    out[i, 1] = gx
    out[i, 2] = gy
    a, b = wp.grad(wp.atan2)(x, wp.float64(1.5))
    out[i, 3] = a
    out[i, 4] = b
    out[i, 5] = uses_grad(x)


def _fd(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def test_grad_of_functions_and_builtins_in_forward_code():
    xs = np.array([-1.3, -0.2, 0.0, 0.7, 2.1])
    out = wp.zeros((len(xs), 6), dtype=wp.float64)
    wp.launch(k_grad, dim=len(xs), inputs=[wp.array(xs, dtype=wp.float64), out])
    got = out.numpy()
    for i, x in enumerate(xs):
        y = 0.5 * x
        expected = [
            _fd(lambda t: t ** 3 + math.sin(t), x),
            _fd(lambda t: t * math.exp(y) + y * y, x),        # d/dx at fixed y
            _fd(lambda t: x * math.exp(t) + t * t, y),        # d/dy at fixed x
            _fd(lambda t: math.atan2(t, 1.5), x),
            _fd(lambda t: math.atan2(x, t), 1.5),
            2 * _fd(lambda t: t ** 3 + math.sin(t), x),
        ]
        np.testing.assert_allclose(got[i], expected, rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("body,message", [
    ("wp.grad(with_defaults)(1, 2)", r"wp.grad\(\) needs a function returning one floating-point "
                                     r"scalar; with_defaults returns int32"),
    ("wp.grad(1.0)", r"wp.grad\(\) takes one @wp.func or kernel builtin"),
])
def test_grad_misuse_is_a_clear_error(body, message):
    src = f"""
@wp.kernel(module="unique")
def k_bad(out: wp.array(dtype=float)):
    v = {body}
"""
    ns = {"wp": wp, "with_defaults": with_defaults}
    import linecache
    fname = f"<grad-misuse-{abs(hash(body))}>"
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
    exec(compile(src, fname, "exec"), ns)
    with pytest.raises(CodegenError, match=message):
        wp.launch(ns["k_bad"], dim=1, inputs=[wp.zeros(1, dtype=float)])


def test_grad_outside_kernels_is_a_clear_error():
    with pytest.raises(RuntimeError, match=r"computed in kernels and @wp.func functions only"):
        wp.grad(cube_sin)(1.0)


# --- expect_near default tolerance, adjoint launches with None adjoints -----------------------
@wp.kernel
def k_expect_near(a: float, b: float, v: wp.vec3, m: wp.mat22, q: wp.quat):
    wp.expect_near(a, b)
    wp.expect_near(a, b, 0.5)
    wp.expect_near(v, v + wp.vec3(1.0e-7))
    wp.expect_near(m, m)
    wp.expect_near(q, q, 0.0)


@pytest.mark.parametrize("b,fails", [(1.0 + 5.0e-7, False), (1.0 + 2.0e-6, True)])
def test_expect_near_default_tolerance_is_1e_6(capfd, b, fails):
    wp.launch(k_expect_near, dim=1, inputs=[1.0, b, wp.vec3(1.0, 2.0, 3.0), wp.mat22(1.0, 2.0, 3.0, 4.0),
                                            wp.quat(0.0, 0.0, 0.0, 1.0)])
    wp.synchronize()
    printed = capfd.readouterr().out
    assert printed.count("expect_near failed") == (1 if fails else 0)


@wp.kernel
def k_square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


def test_adjoint_launch_with_none_adjoints_uses_the_arrays_grad():
    x = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    y = wp.zeros(3, dtype=float, requires_grad=True)
    y.grad = wp.array([1.0, 10.0, 100.0], dtype=float)
    wp.launch(k_square, dim=3, inputs=[x, y], adjoint=True, adj_inputs=[None, None])
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 40.0, 600.0])
    # the store's adjoint took y.grad (read and cleared, as the reference)
    np.testing.assert_allclose(y.grad.numpy(), [0.0, 0.0, 0.0])
    # an explicit adjoint array takes precedence over .grad
    y.grad = wp.array([1.0, 10.0, 100.0], dtype=float)
    xg = wp.zeros(3, dtype=float)
    wp.launch(k_square, dim=3, inputs=[x, y], adjoint=True, adj_inputs=[xg, None])
    np.testing.assert_allclose(xg.numpy(), [2.0, 40.0, 600.0])
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 40.0, 600.0])


@wp.kernel
def k_alias(out: wp.array(dtype=float)):
    f = plus_one            # a @wp.func through a local name (overloads still chosen by type)
    s = wp.sin
    out[0] = f(1.0) + s(float(f(0))) + float(with_defaults(1, b=2))


def test_functions_bound_to_local_names():
    out = wp.zeros(1, dtype=float)
    wp.launch(k_alias, dim=1, inputs=[out])
    assert out.numpy()[0] == pytest.approx(2.5 + math.sin(1.0) + 1002.0)


@wp.func(module="wpi_test_lang_funcs_other")
def elsewhere(x: float):
    return x * 3.0


@wp.kernel(module="wpi_test_lang_funcs_refs")
def k_refs(out: wp.array(dtype=float)):
    f, g = elsewhere, plus_one        # bound to locals: still dependencies
    out[0] = f(1.0) + g(1.0)


def test_module_references_name_the_modules_of_called_functions():
    refs = k_refs.module.references
    assert elsewhere.module in refs and plus_one.module in refs
    assert elsewhere.module.name == "wpi_test_lang_funcs_other"
    assert k_refs.module not in refs
    out = wp.zeros(1, dtype=float)
    wp.launch(k_refs, dim=1, inputs=[out])
    assert out.numpy()[0] == 3.0 + 2.5
