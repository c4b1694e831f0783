"""Tuples as @wp.func parameters (warp-lang 1.19): ``values: tuple[wp.vec3, float]``, the variadic
``tuple[int, ...]`` and ``Any`` specialise per element-type list; inside, ``len()``,
``wp.static(len())``, indexing, unpacking and loops over them work; gradients flow through the
elements (checked against central finite differences); a tuple that fits no overload is refused
with warp-lang's words."""

from typing import Any

import numpy as np
import pytest

import warp_interactive as wp


@wp.func
def scaled_length(values: tuple[wp.vec3, float]) -> float:
    return wp.length(values[0]) * values[1]


@wp.func
def total(values: Any):
    out = float(0.0)
    for i in range(wp.static(len(values))):
        out += float(values[i])
    return out


@wp.func
def count_ints(values: tuple[int, ...]):
    n = int(0)
    for i in range(len(values)):
        n += values[i]
    return n


@wp.kernel
def run(xs: wp.array(dtype=wp.vec3), s: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    t = (xs[i], s[i])
    a, b = t
    out[i] = scaled_length(t) + scaled_length((a, 2.0 * b)) + total((s[i], 1.0, 2.0)) + total((s[i],))


@wp.kernel
def ints(out: wp.array(dtype=int)):
    out[0] = count_ints((1, 2, 3))
    out[1] = count_ints((4,))
    out[2] = count_ints((1, 1, 1, 1, 1, 1))


def reference(x, s):
    n = np.linalg.norm(x, axis=1)
    return n * s + n * 2.0 * s + (s + 3.0) + s


def test_tuple_arguments_match_numpy():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    s = rng.standard_normal(5).astype(np.float32)
    out = wp.zeros(5, dtype=float)
    wp.launch(run, dim=5, inputs=[wp.array(x, dtype=wp.vec3), wp.array(s, dtype=float), out])
    np.testing.assert_allclose(out.numpy(), reference(x, s), rtol=1e-5)
    counts = wp.zeros(3, dtype=int)
    wp.launch(ints, dim=1, inputs=[counts])
    assert list(counts.numpy()) == [6, 4, 6]


def test_gradients_flow_through_tuple_elements():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3)).astype(np.float64)
    s = rng.standard_normal(4).astype(np.float64)
    xs = wp.array(x.astype(np.float32), dtype=wp.vec3, requires_grad=True)
    ss = wp.array(s.astype(np.float32), dtype=float, requires_grad=True)
    out = wp.zeros(4, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(run, dim=4, inputs=[xs, ss, out])
    tape.backward(grads={out: wp.ones(4, dtype=float)})
    h = 1e-4
    gx = np.zeros_like(x)
    for j in range(3):
        d = np.zeros_like(x)
        d[:, j] = h
        gx[:, j] = (reference(x + d, s) - reference(x - d, s)) / (2 * h)
    gs = (reference(x, s + h) - reference(x, s - h)) / (2 * h)
    np.testing.assert_allclose(xs.grad.numpy(), gx, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(ss.grad.numpy(), gs, rtol=1e-3, atol=1e-4)


def test_a_tuple_of_the_wrong_types_is_refused():
    @wp.kernel(module="unique")
    def bad(out: wp.array(dtype=float)):
        out[0] = scaled_length((1.0, 2.0))

    with pytest.raises(wp.CodegenError, match=r"no overload of scaled_length\(\) accepts \(tuple\[float32, float32\]\)"):
        wp.launch(bad, dim=1, inputs=[wp.zeros(1, dtype=float)])
