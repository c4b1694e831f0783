"""wp.jax_callable: a Python function launching Warp kernels called from JAX (jit, vmap), with
warp-lang 1.19's argument rules, output shapes, in-out arguments, caching and messages.
References: NumPy on the same inputs; warp-lang's documented behaviour for the errors."""

import jax
import jax.numpy as jp
import numpy as np
import pytest

import warp_interactive as wp



@wp.kernel
def scale_kernel(a: wp.array(dtype=float), s: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * s


@wp.kernel
def scale_vec_kernel(a: wp.array(dtype=wp.vec2), s: float, out: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    out[i] = a[i] * s


@wp.kernel
def accumulate(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] += a[i]


@wp.kernel
def row_sums(m: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    t = float(0.0)
    for j in range(m.shape[1]):
        t += m[i, j]
    out[i] = t


def scale_func(a: wp.array(dtype=float), b: wp.array(dtype=wp.vec2), s: float,
               c: wp.array(dtype=float), d: wp.array(dtype=wp.vec2)):
    wp.launch(scale_kernel, dim=a.shape, inputs=[a, s], outputs=[c])
    wp.launch(scale_vec_kernel, dim=b.shape, inputs=[b, s], outputs=[d])


def in_out_func(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    wp.launch(scale_kernel, dim=a.size, inputs=[a, 2.0], outputs=[c])
    wp.launch(accumulate, dim=a.size, inputs=[a, b])


def row_sum_func(m: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    wp.launch(row_sums, dim=m.shape[0], inputs=[m], outputs=[out])


@pytest.mark.parametrize("s", [2.0, -0.5])
@pytest.mark.parametrize("dims", ["dict", "default"])
def test_scalar_static_inputs_and_vector_outputs_under_jit(s, dims):
    f = wp.jax_callable(scale_func, num_outputs=2)
    a = jp.arange(10, dtype=jp.float32)
    b = jp.arange(10, dtype=jp.float32).reshape((5, 2))
    if dims == "dict":
        c, d = jax.jit(lambda a, b: f(a, b, s, output_dims={"c": a.shape, "d": b.shape}))(a, b)
    else:       # one shape for both outputs: the first array input's (10,) gives d (10, 2)
        c, d = jax.jit(lambda a, b: f(a, b, s))(a, jp.arange(20, dtype=jp.float32).reshape((10, 2)))
        b = jp.arange(20, dtype=jp.float32).reshape((10, 2))
    np.testing.assert_allclose(np.asarray(c), np.arange(10) * s)
    np.testing.assert_allclose(np.asarray(d), np.asarray(b) * s)
    assert d.shape == b.shape and d.dtype == jp.float32


def test_in_out_arguments_come_back_first():
    f = wp.jax_callable(in_out_func, num_outputs=2, in_out_argnames=["b"])
    a = jp.arange(8, dtype=jp.float32)
    b = jp.full(8, 10.0, dtype=jp.float32)
    b2, c = jax.jit(f)(a, b)
    np.testing.assert_allclose(np.asarray(b2), 10.0 + np.arange(8))
    np.testing.assert_allclose(np.asarray(c), 2.0 * np.arange(8))
    np.testing.assert_allclose(np.asarray(b), 10.0)      # JAX's input is not changed


@pytest.mark.parametrize("vmap_method", ["sequential", "broadcast_all", "expand_dims"])
def test_vmap_over_a_batch(vmap_method):
    f = wp.jax_callable(row_sum_func, vmap_method=vmap_method, output_dims=(4,))
    m = jp.asarray(np.random.default_rng(0).uniform(size=(3, 4, 5)).astype(np.float32))
    (out,) = jax.jit(jax.vmap(f))(m)
    np.testing.assert_allclose(np.asarray(out), np.asarray(m).sum(axis=2), rtol=1e-6)
    (out,) = jax.vmap(f, in_axes=1)(jp.swapaxes(m, 0, 1))     # the batch on another axis
    np.testing.assert_allclose(np.asarray(out), np.asarray(m).sum(axis=2), rtol=1e-6)


def test_the_same_arguments_give_the_same_callable():
    f = wp.jax_callable(in_out_func, num_outputs=2, in_out_argnames=["b"])
    assert f is wp.jax_callable(in_out_func, num_outputs=2, in_out_argnames=["b"])
    assert f is not wp.jax_callable(in_out_func, num_outputs=1)
    g = wp.jax_callable(scale_func, num_outputs=2, stage_in_argnames=["a"])
    assert g.stage_in_argnames == {"a"} and g.stage_out_argnames is None
    assert wp.jax_callable(scale_func, num_outputs=2, stage_in_argnames=[]) is wp.jax_callable(scale_func, num_outputs=2)
    assert wp.jax_callable(scale_func, num_outputs=2, graph_mode=2).graph_mode is wp.JaxCallableGraphMode.WARP


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(num_outputs=2, in_out_argnames=["b", "b"]), ValueError, "must not contain duplicate names"),
    (dict(num_outputs=2, in_out_argnames=["c"]), ValueError, "in_out arguments should be placed before"),
    (dict(num_outputs=2, in_out_argnames=["x"]), ValueError, "did not match any function argument names"),
    (dict(num_outputs=0), ValueError, "At least one output is required"),
    (dict(num_outputs=4), ValueError, "cannot be greater than the number of kernel arguments"),
    (dict(num_outputs=1, in_out_argnames=["a", "b"]), ValueError, "cannot be smaller than the number of in_out_argnames"),
])
def test_definition_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        wp.jax_callable(in_out_func, **kwargs)


def test_call_errors():
    f = wp.jax_callable(scale_func, num_outputs=2)
    a, b = jp.zeros(4, jp.float32), jp.zeros((4, 2), jp.float32)
    with pytest.raises(ValueError, match=r"Expected 3 inputs \(a, b, s\), but got 2"):
        f(a, b)
    with pytest.raises(TypeError, match="Invalid data type for array argument 'a'"):
        f(jp.zeros(4, jp.int32), b, 1.0)
    with pytest.raises(TypeError, match="Invalid inner dimensions for array argument 'b'"):
        f(a, jp.zeros((4, 3), jp.float32), 1.0)
    with pytest.raises(ValueError, match="Argument 's' must be a static value"):
        jax.jit(f)(a, b, 1.0)
    with pytest.raises(ValueError, match="Missing output dimensions for argument 'd'"):
        f(a, b, 1.0, output_dims={"c": 4})


@pytest.mark.parametrize("mode", ["WARP", "WARP_STAGED", "WARP_STAGED_EX"])
def test_warp_capture_modes_are_refused_on_the_cpu(mode):
    f = wp.jax_callable(row_sum_func, graph_mode=wp.JaxCallableGraphMode[mode])
    with pytest.raises(RuntimeError, match=rf"{mode}.*CPU"):
        f(jp.zeros((2, 3), jp.float32))
    wp.clear_jax_callable_graph_cache(f)
    wp.clear_jax_callable_graph_cache()
