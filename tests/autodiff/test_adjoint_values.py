"""Adjoint launches pass the adjoints of scalar, vector and matrix parameters by value, as
warp-lang 1.19 does: ``wp.launch(k, inputs=[x], adj_inputs=[adj_x], adjoint=True)`` starts the
reverse pass with ``adj_x`` (printed after ``adj: `` by a reverse ``print``, warp-lang's
test_print_adjoint); a missing one (None) starts at zero. Array gradients are unaffected
(checked against NumPy on every backward entry shape: plain, own-index, lane-blocked)."""

import ctypes
from typing import Any

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def print_any(x: Any):
    print(x)


def printed(capfd, fn):
    capfd.readouterr()
    fn()
    wp.synchronize()
    ctypes.CDLL(None).fflush(None)
    return capfd.readouterr().out


def adjoint_print(value, adj):
    return lambda: wp.launch(print_any, dim=1, inputs=[value], adj_inputs=[adj], adjoint=True)


SCALARS = [wp.int8, wp.uint8, wp.int16, wp.uint16, wp.int32, wp.uint32, wp.int64, wp.uint64,
           wp.float16, wp.float32, wp.float64]


@pytest.mark.parametrize("t", SCALARS, ids=lambda t: t.__name__)
def test_scalar_adjoint_reaches_the_reverse_pass(capfd, t):
    # warp-lang's documented output: the forward print, then "adj: " and the given adjoint
    assert printed(capfd, adjoint_print(t(17), t(42))) == "17\nadj: 42\n"


COMPOSITES = [
    (wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0), "1 2 3 \nadj: 4 5 6\n"),
    (wp.vec2i(1, 2), wp.vec2i(-3, 9), "1 2 \nadj: -3 9\n"),
    (wp.vec4d(0.0, 1.0, 2.0, 3.0), wp.vec4d(3.0, 2.0, 1.0, 0.0), "0 1 2 3 \nadj: 3 2 1 0\n"),
    (wp.mat22(1.0, 2.0, 3.0, 4.0), wp.mat22(5.0, 6.0, 7.0, 8.0), "1 2 \n3 4 \nadj: 5 6\n     7 8\n"),
]


@pytest.mark.parametrize("value,adj,text", COMPOSITES, ids=lambda v: type(v).__name__)
def test_composite_adjoint_reaches_the_reverse_pass(capfd, value, adj, text):
    assert printed(capfd, adjoint_print(value, adj)) == text


@pytest.mark.parametrize("adj", [None, 0.0], ids=["None", "zero"])
def test_missing_scalar_adjoint_starts_at_zero(capfd, adj):
    assert printed(capfd, adjoint_print(3.0, adj)) == "3\nadj: 0\n"


def test_adjoint_of_the_wrong_type_names_the_argument():
    with pytest.raises(TypeError, match=r"adjoint of argument 'x' \(type vec3f\): expected vec3f"):
        wp.launch(print_any, dim=1, inputs=[wp.vec3(1.0, 2.0, 3.0)], adj_inputs=[wp.mat22()],
                  adjoint=True)


@wp.kernel
def scale(s: float, a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = s * a[i]          # own-index read: the vectorised own-index backward entry


@wp.kernel
def scale_gather(s: float, idx: wp.array(dtype=int), a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = s * a[idx[i]]     # gathered read: the atomic backward


@wp.kernel
def scale_sum(s: float, n: int, a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    acc = float(0.0)
    for j in range(n):       # a uniform loop: a lane-blocked backward body
        acc += s * a[j] * float(i + 1)
    b[i] = acc


def _grad(kernel, inputs, n_out, seed):
    b = wp.zeros(n_out, dtype=float)
    adj_b = wp.array(seed, dtype=float)
    a = inputs[-1]
    adj_in = [7.5 if isinstance(v, float) else (v.grad if v is a else None) for v in inputs]
    wp.launch(kernel, dim=n_out, inputs=inputs, outputs=[b], adj_inputs=adj_in, adj_outputs=[adj_b],
              adjoint=True)
    return a.grad.numpy()


def test_array_gradients_unchanged_by_value_adjoints():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(37).astype(np.float32)
    seed = rng.standard_normal(37).astype(np.float32)
    a = wp.array(x, dtype=float, requires_grad=True)
    np.testing.assert_allclose(_grad(scale, [2.0, a], 37, seed), 2.0 * seed, rtol=1e-6)
    perm = rng.permutation(37).astype(np.int32)
    a = wp.array(x, dtype=float, requires_grad=True)
    expect = np.zeros(37, np.float32)
    np.add.at(expect, perm, 2.0 * seed)
    got = _grad(scale_gather, [2.0, wp.array(perm, dtype=int), a], 37, seed)
    np.testing.assert_allclose(got, expect, rtol=1e-5)
    a = wp.array(x[:5], dtype=float, requires_grad=True)
    expect = np.full(5, 2.0 * float(np.dot(seed, np.arange(1, 38))), np.float32)
    np.testing.assert_allclose(_grad(scale_sum, [2.0, 5, a], 37, seed), expect, rtol=1e-4)


def test_recorded_adjoint_launch_replays_with_its_values(capfd):
    cmd = wp.launch(print_any, dim=1, inputs=[wp.float64(1.5)], adj_inputs=[wp.float64(-2.5)],
                    adjoint=True, record_cmd=True)
    assert printed(capfd, cmd.launch) == "1.5\nadj: -2.5\n"


@wp.kernel
def tile_scale(s: float, a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=8, offset=i * 8)
    wp.tile_store(b, t * s, offset=i * 8)


@pytest.mark.parametrize("cpu_blocks", [False, True])
def test_value_adjoints_in_tile_kernels(cpu_blocks):
    # the cooperative-block entries (CPU blocks, CUDA blocks) take the backward struct too
    saved = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = cpu_blocks
    try:
        x = np.arange(16, dtype=np.float32)
        a = wp.array(x, dtype=float, requires_grad=True)
        b = wp.zeros(16, dtype=float, requires_grad=True)
        with wp.Tape() as tape:
            wp.launch_tiled(tile_scale, dim=2, inputs=[3.0, a, b], block_dim=8)
        tape.backward(grads={b: wp.ones(16, dtype=float)})
        np.testing.assert_allclose(b.numpy(), 3.0 * x)
        np.testing.assert_allclose(a.grad.numpy(), np.full(16, 3.0))
    finally:
        wp.config.enable_cpu_blocks = saved
