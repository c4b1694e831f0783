"""fem.linalg's small dense solvers against NumPy: eigen-decompositions of symmetric matrices
(eigenvalues as numpy.linalg.eigvalsh, P^T diag(D) P reconstructs), inverses, and array_axpy
across element types."""

from typing import Any

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.fem as fem
from warp_interactive.fem.linalg import inverse_qr, symmetric_eigenvalues_qr


@wp.kernel(enable_backward=False)
def decompose(m: wp.array(dtype=Any), values: wp.array(dtype=Any), vectors: wp.array(dtype=Any),
              inverses: wp.array(dtype=Any)):
    i = wp.tid()
    d, p = symmetric_eigenvalues_qr(m[i], m[i].dtype(0.0))
    values[i] = d
    vectors[i] = p
    inverses[i] = inverse_qr(m[i])


@pytest.mark.parametrize("n,scalar,rtol", [(3, wp.float32, 2e-5), (5, wp.float64, 1e-12), (6, wp.float32, 5e-5)])
def test_eigen_and_inverse_against_numpy(n, scalar, rtol):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((16, n, n))
    a = a + np.swapaxes(a, 1, 2) + 4.0 * n * np.eye(n)        # symmetric, well conditioned
    np_t = np.float32 if scalar == wp.float32 else np.float64
    mat = wp.types.matrix(shape=(n, n), dtype=scalar)
    vec = wp.types.vector(n, scalar)
    m = wp.array(a.astype(np_t), dtype=mat)
    values, vectors, inverses = wp.empty(16, dtype=vec), wp.empty(16, dtype=mat), wp.empty(16, dtype=mat)
    wp.launch(decompose, dim=16, inputs=[m, values, vectors, inverses])
    d, p = values.numpy().astype(np.float64), vectors.numpy().astype(np.float64)
    np.testing.assert_allclose(np.sort(d, axis=1), np.linalg.eigvalsh(a), rtol=rtol)
    rebuilt = np.einsum("kji,kj,kjl->kil", p, d, p)
    np.testing.assert_allclose(rebuilt, a, rtol=0, atol=rtol * np.abs(a).max() * 4)
    np.testing.assert_allclose(inverses.numpy(), np.linalg.inv(a), rtol=0, atol=rtol * 10 / n)


@pytest.mark.parametrize("xt,yt", [(wp.float32, wp.float32), (wp.float32, wp.float64), (wp.vec2, wp.vec2)])
def test_array_axpy(xt, yt):
    x = wp.array(np.arange(8 * getattr(xt, "_length_", 1), dtype=np.float32).reshape(8, -1).squeeze(), dtype=xt)
    y0 = np.ones((8,) + ((2,) if yt == wp.vec2 else ()), dtype=np.float64)
    y = wp.array(y0, dtype=yt)
    fem.linalg.array_axpy(x=x, y=y, alpha=0.5, beta=3.0)
    np.testing.assert_allclose(y.numpy(), 3.0 * y0 + 0.5 * x.numpy())
