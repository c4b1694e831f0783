"""Gradients through ``wp.mesh_get(id).points[i]`` / ``.velocities[i]`` reach the arrays the mesh
was built from (as warp-lang; they were silently zero), checked against NumPy's analytic gradient."""

import numpy as np
import pytest

import warp_interactive as wp

POINTS = np.array([[0.0, 0.0, 0.0], [1.0, 0.2, 0.0], [0.1, 1.0, 0.3], [0.2, 0.1, 1.0]], np.float32)
TRIS = np.array([0, 1, 2, 0, 2, 3, 0, 3, 1, 1, 3, 2], np.int32)


@wp.kernel
def _edge_energy(mesh_id: wp.uint64, use_velocities: int, out: wp.array(dtype=float)):
    t = wp.tid()
    m = wp.mesh_get(mesh_id)
    i, j = m.indices[3 * t], m.indices[3 * t + 1]
    if use_velocities:
        e = m.velocities[j] - m.velocities[i]
    else:
        e = m.points[j] - m.points[i]
    wp.atomic_add(out, 0, wp.dot(e, e))


def _reference_grad(x):
    g = np.zeros_like(x, dtype=np.float64)
    for t in range(len(TRIS) // 3):
        i, j = TRIS[3 * t], TRIS[3 * t + 1]
        e = x[j].astype(np.float64) - x[i]
        g[j] += 2 * e
        g[i] -= 2 * e
    return g


@pytest.mark.parametrize("use_velocities", [0, 1])
def test_gradient_reaches_the_mesh_arrays(use_velocities):
    points = wp.array(POINTS, dtype=wp.vec3, device="cpu", requires_grad=True)
    velocities = wp.array(POINTS[::-1] * 2.0, dtype=wp.vec3, device="cpu", requires_grad=True)
    mesh = wp.Mesh(points=points, indices=wp.array(TRIS, dtype=wp.int32, device="cpu"), velocities=velocities)
    out = wp.zeros(1, dtype=float, device="cpu", requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_edge_energy, len(TRIS) // 3, inputs=[mesh.id, use_velocities, out], device="cpu")
    tape.backward(loss=out)
    read, other = (velocities, points) if use_velocities else (points, velocities)
    np.testing.assert_allclose(read.grad.numpy(), _reference_grad(read.numpy()), rtol=1e-5, atol=1e-6)
    assert not other.grad.numpy().any()


def test_no_gradient_array_is_no_error():
    points = wp.array(POINTS, dtype=wp.vec3, device="cpu")
    mesh = wp.Mesh(points=points, indices=wp.array(TRIS, dtype=wp.int32, device="cpu"))
    out = wp.zeros(1, dtype=float, device="cpu")
    wp.launch(_edge_energy, len(TRIS) // 3, inputs=[mesh.id, 0, out], device="cpu")
    e = POINTS[TRIS[1::3]] - POINTS[TRIS[0::3]]
    np.testing.assert_allclose(out.numpy()[0], np.sum(e * e), rtol=1e-5)
