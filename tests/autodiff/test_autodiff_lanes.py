"""Lane-blocked CPU backward bodies (codegen/lanes_backward.py): the gradients equal the scalar
backward's (up to the order of float sums) for kernels with uniform loops, loads at uniform and
own indices, scalar parameters, launch sizes that are not multiples of the lane width; kernels
of other shapes get no lanes backward body."""

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.codegen.module_source import generate_source
from warp_interactive.lang import lower

F64 = wp.float64


@wp.kernel
def k_nbody(pos: wp.array(dtype=wp.vec3d), mass: wp.array(dtype=F64), acc: wp.array(dtype=wp.vec3d),
            n: int, soft: F64):
    i = wp.tid()
    p = pos[i]
    a = wp.vec3d(F64(0.0), F64(0.0), F64(0.0))
    for j in range(n):
        d = pos[j] - p
        r2 = wp.dot(d, d) + soft
        a = a + d * (mass[j] / (r2 * wp.sqrt(r2)))
    acc[i] = a * mass[0] + wp.vec3d(soft, soft, soft)


@wp.kernel
def k_two_loops(pos: wp.array(dtype=wp.vec3d), mass: wp.array(dtype=F64), acc: wp.array(dtype=wp.vec3d),
                n: int, soft: F64):
    i = wp.tid()
    s = F64(0.0)
    for j in range(n):
        s = s + wp.sin(mass[j] * pos[i][0]) * soft
    t = wp.vec3d(F64(0.0), F64(0.0), F64(0.0))
    for k in range(1, n, 2):
        t = t + pos[k] * (s * mass[i])
    acc[i] = t
    wp.atomic_add(mass, 0, F64(0.0) * s)      # an atomic: its adjoint only reads


def _grads(kernel, m, lanes):
    wp.config.cpu_lanes = lanes
    try:
        rng = np.random.default_rng(5)
        pos = wp.array(rng.normal(size=(m, 3)), dtype=wp.vec3d, requires_grad=True)
        mass = wp.array(rng.uniform(0.5, 1.5, m), dtype=F64, requires_grad=True)
        acc = wp.zeros(m, dtype=wp.vec3d, requires_grad=True)
        soft = F64(0.05)
        tape = wp.Tape()
        with tape:
            wp.launch(kernel, dim=m, inputs=[pos, mass, acc, m, soft])
        tape.backward(grads={acc: rng.normal(size=(m, 3))})
        return pos.grad.numpy().copy(), mass.grad.numpy().copy()
    finally:
        wp.config.cpu_lanes = True


@pytest.mark.parametrize("kernel", [k_nbody, k_two_loops], ids=["nbody", "two_loops"])
@pytest.mark.parametrize("m", [1, 8, 13, 64, 100])
def test_lanes_backward_matches_scalar_backward(kernel, m):
    assert "_backward_lanes(" in generate_source(lower([kernel]))
    for lanes, scalar in zip(_grads(kernel, m, True), _grads(kernel, m, False)):
        np.testing.assert_allclose(lanes, scalar, rtol=1e-10, atol=1e-12)


@wp.kernel
def k_exact(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    s = x[i]
    for j in range(n):
        s = s * x[j]         # exact-state loop: checkpoints, no lanes backward
    y[i] = s


@wp.kernel
def k_branchy(x: wp.array(dtype=F64), y: wp.array(dtype=F64), n: int):
    i = wp.tid()
    s = F64(0.0)
    for j in range(n):
        s = s + x[j]
    if s > F64(0.0):
        y[i] = s


@pytest.mark.parametrize("kernel", [k_exact, k_branchy], ids=["exact", "branch"])
def test_other_shapes_keep_the_scalar_backward(kernel):
    assert "_backward_lanes(" not in generate_source(lower([kernel]))
