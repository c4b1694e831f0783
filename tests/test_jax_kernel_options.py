"""wp.jax_kernel's warp-lang 1.19 options beyond the FFI path: static scalar parameters,
num_outputs, in_out_argnames, output_dims, launch_dims per call, enable_backward (the kernel's
adjoint as the VJP), vmap methods, the callable cache. References: NumPy, analytic gradients."""

import jax
import jax.numpy as jp
import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def scale_add(x: wp.array(dtype=float), s: float, k: int, y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * s + float(k)


@wp.kernel
def square_scaled(x: wp.array(dtype=float), s: float, y: wp.array(dtype=float), z: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = s * x[i] * x[i]
    z[i] = wp.sin(x[i])


@wp.kernel
def accumulate_twice(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    b[i] += a[i]
    c[i] = 2.0 * a[i]


@wp.kernel
def sums_into(m: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(out, i, m[i, j])


@wp.kernel
def fill_index(out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = i * 3


@pytest.mark.parametrize("s, k", [(2.0, 1), (-0.5, 0), (3.0, -4)])
def test_static_scalars_under_jit(s, k):
    f = wp.jax_kernel(scale_add)
    x = jp.arange(6, dtype=jp.float32)
    (y,) = jax.jit(lambda x: f(x, s, k))(x)
    np.testing.assert_allclose(np.asarray(y), np.arange(6) * s + k, rtol=1e-6)
    with pytest.raises(ValueError, match="Argument 's' must be a static value"):
        jax.jit(lambda x, s: f(x, s, k))(x, s)


def test_in_out_arguments():
    f = wp.jax_kernel(accumulate_twice, num_outputs=2, in_out_argnames=["b"])
    a, b = jp.arange(5, dtype=jp.float32), jp.full(5, 1.0, dtype=jp.float32)
    b2, c = jax.jit(f)(a, b)
    np.testing.assert_allclose(np.asarray(b2), 1.0 + np.arange(5))
    np.testing.assert_allclose(np.asarray(c), 2.0 * np.arange(5))


@pytest.mark.parametrize("launch_dims, output_dims", [((4, 3), 4), ((4, 3), (4,)), ((4, 3), {"out": 4})])
def test_output_dims_other_than_the_launch(launch_dims, output_dims):
    m = np.random.default_rng(1).uniform(size=(4, 3)).astype(np.float32)
    f = wp.jax_kernel(sums_into, launch_dims=launch_dims, output_dims=output_dims)
    (out,) = jax.jit(f)(jp.asarray(m))
    np.testing.assert_allclose(np.asarray(out), m.sum(axis=1), rtol=1e-6)


def test_a_kernel_of_one_output_and_launch_dims_per_call():
    f = wp.jax_kernel(fill_index, launch_dims=5)
    (out,) = f()
    np.testing.assert_array_equal(np.asarray(out), 3 * np.arange(5))
    (out,) = f(launch_dims=7)
    np.testing.assert_array_equal(np.asarray(out), 3 * np.arange(7))


@pytest.mark.parametrize("s", [1.0, 2.5])
def test_enable_backward_gives_the_kernels_adjoint(s):
    f = wp.jax_kernel(square_scaled, num_outputs=2, enable_backward=True)
    x = jp.linspace(-1.0, 1.0, 9, dtype=jp.float32)

    def loss(x):
        y, z = f(x, s)
        return (y + 3.0 * z).sum()

    g = jax.jit(jax.grad(loss))(x)
    np.testing.assert_allclose(np.asarray(g), 2.0 * s * np.asarray(x) + 3.0 * np.cos(np.asarray(x)), rtol=1e-5)
    with pytest.raises(ValueError, match="not supported when enable_backward=True"):
        wp.jax_kernel(square_scaled, num_outputs=2, enable_backward=True, output_dims=9)
    with pytest.raises(ValueError, match="cannot be overridden per call"):
        f(x, s, launch_dims=9)


@pytest.mark.parametrize("vmap_method", ["sequential", "broadcast_all", "expand_dims"])
def test_vmap(vmap_method):
    f = wp.jax_kernel(scale_add, vmap_method=vmap_method)
    x = jp.asarray(np.random.default_rng(2).uniform(size=(3, 6)).astype(np.float32))
    (y,) = jax.vmap(lambda x: f(x, 2.0, 1))(x)
    np.testing.assert_allclose(np.asarray(y), 2.0 * np.asarray(x) + 1.0, rtol=1e-6)


def test_same_arguments_same_callable_and_num_outputs_is_checked():
    assert wp.jax_kernel(scale_add) is wp.jax_kernel(scale_add)
    assert wp.jax_kernel(scale_add, num_outputs=1) is not wp.jax_kernel(accumulate_twice, num_outputs=1)
    f = wp.jax_kernel(accumulate_twice, num_outputs=1)           # the FFI path: (a, b) -> c
    with pytest.raises(ValueError, match=r"Expected 2 inputs \(a, b\), but got 1"):
        f(jp.zeros(3, jp.float32))
    (c,) = f(jp.ones(3, jp.float32), jp.zeros(3, jp.float32))
    np.testing.assert_allclose(np.asarray(c), 2.0)
