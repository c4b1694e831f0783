"""Adjoint launches (``adjoint=True`` with ``adj_inputs``/``adj_outputs``) with adjoint arrays
laid out differently from their arrays (strided views, broadcast stride-0 gradients as torch
gives): the kernel indexes a gradient with its array's strides, so such adjoints are staged. Was:
reads and writes at the wrong addresses (wrong gradients, then heap corruption)."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def affine(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 0.5 - x[i] * 3.0


def _seed(kind, n):
    if kind == "strided":
        return wp.array(np.arange(2 * n, dtype=np.float32))[::2]       # values 0, 2, 4...
    if kind == "broadcast":
        return wp.array(np.broadcast_to(np.float32(1.5), (n,)), copy=False)   # stride 0
    return wp.array(np.arange(0, 2 * n, 2, dtype=np.float32))


@pytest.mark.parametrize("seed_kind", ["contiguous", "strided", "broadcast"])
@pytest.mark.parametrize("adj_x_kind", ["contiguous", "strided"])
def test_adjoint_arrays_of_any_layout(seed_kind, adj_x_kind):
    n = 16
    x = wp.array(np.linspace(-1, 1, n, dtype=np.float32))
    y = wp.zeros(n)
    adj_y = _seed(seed_kind, n)
    seed = adj_y.numpy().copy()
    base = wp.zeros(2 * n) if adj_x_kind == "strided" else None
    adj_x = base[::2] if base is not None else wp.zeros(n)
    wp.launch(affine, dim=n, inputs=[x], outputs=[y], adj_inputs=[adj_x], adj_outputs=[adj_y], adjoint=True)
    np.testing.assert_allclose(adj_x.numpy(), -3.0 * seed)          # dy/dx = -3
    if seed_kind != "contiguous":   # a staged seed is read from its copy; the given one is left as it was
        np.testing.assert_array_equal(adj_y.numpy(), seed)
    if base is not None:
        np.testing.assert_array_equal(base.numpy()[1::2], 0.0)     # nothing written between


def test_adjoint_of_another_shape_is_refused():
    x, y = wp.zeros(4), wp.zeros(4)
    with pytest.raises(TypeError, match=r"the adjoint of argument 1 has shape \(3,\), the array \(4,\)"):
        wp.launch(affine, dim=4, inputs=[x], outputs=[y], adj_inputs=[wp.zeros(4)],
                  adj_outputs=[wp.zeros(3)], adjoint=True)
