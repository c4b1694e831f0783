"""Local accumulators of lane-blocked bodies (codegen/lanes_hoist.py) only for an element the loop
does not change: a thread that writes ``b[m, i]`` in ``for m in range(...)`` names another element
every iteration. Such a store was once kept in a local and written back once, after the loop, at
the index's final value (one past the end): wrong results and a heap overrun (warp-lang's
jax test kernel ``b[m, i, j, k] = a[m, i, j, k] * 2.0`` over a 3-D launch). References: NumPy
and analytic gradients; launches wide enough for the lanes body (8 threads a block)."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def scale_outer_4d(a: wp.array4d(dtype=float), b: wp.array4d(dtype=float)):
    i, j, k = wp.tid()
    for m in range(a.shape[0]):
        b[m, i, j, k] = a[m, i, j, k] * 2.0


@wp.kernel
def accumulate_rows(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    i = wp.tid()
    for m in range(a.shape[0]):
        b[m, i] += a[m, i] * float(m + 1)


@wp.kernel
def shifted_index(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    i = wp.tid()
    r = int(0)
    for m in range(a.shape[0]):
        b[r, i] = b[r, i] + a[m, i]          # the row index is a variable the loop assigns
        r = r + 1


@wp.kernel
def own_sum(a: wp.array2d(dtype=float), s: wp.array(dtype=float)):
    i = wp.tid()
    for m in range(a.shape[0]):
        s[i] += a[m, i]                       # the same element every iteration: kept local


def _rand(shape, seed):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, size=shape).astype(np.float32)


@pytest.mark.parametrize("shape", [(4, 8, 8, 8), (3, 2, 4, 9), (1, 8, 1, 16)])
def test_store_at_the_loop_index(shape):
    a = _rand(shape, 0)
    b = wp.zeros(shape, dtype=float, device="cpu")
    wp.launch(scale_outer_4d, dim=shape[1:], inputs=[wp.array(a, device="cpu")], outputs=[b], device="cpu")
    np.testing.assert_array_equal(b.numpy(), 2.0 * a)


@pytest.mark.parametrize("kernel, expect", [
    (accumulate_rows, lambda a, b0: b0 + a * np.arange(1, a.shape[0] + 1, dtype=np.float32)[:, None]),
    (shifted_index, lambda a, b0: b0 + a),
    (own_sum, None),
])
@pytest.mark.parametrize("rows, threads", [(5, 16), (3, 37), (1, 8)])
def test_read_modify_write_at_a_varying_index(kernel, expect, rows, threads):
    a = _rand((rows, threads), 1)
    if kernel is own_sum:
        s = wp.array(np.ones(threads, np.float32), device="cpu")
        wp.launch(kernel, dim=threads, inputs=[wp.array(a, device="cpu"), s], device="cpu")
        np.testing.assert_allclose(s.numpy(), 1.0 + a.sum(axis=0), rtol=1e-6)
        return
    b0 = _rand((rows, threads), 2)
    b = wp.array(b0, device="cpu")
    wp.launch(kernel, dim=threads, inputs=[wp.array(a, device="cpu"), b], device="cpu")
    np.testing.assert_allclose(b.numpy(), expect(a, b0), rtol=1e-6)


def test_gradient_through_the_varying_store():
    shape = (3, 8, 2, 4)
    a = wp.array(_rand(shape, 3), device="cpu", requires_grad=True)
    b = wp.zeros(shape, dtype=float, device="cpu", requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(scale_outer_4d, dim=shape[1:], inputs=[a], outputs=[b], device="cpu")
    w = _rand(shape, 4)
    tape.backward(grads={b: wp.array(w, device="cpu")})
    np.testing.assert_allclose(a.grad.numpy(), 2.0 * w, rtol=1e-6)


# In a fresh process (as a user's script): the overrun corrupted the heap and could kill it.
_SCRIPT = '''
@wp.kernel
def scale_outer(a: wp.array4d(dtype=float), b: wp.array4d(dtype=float)):
    i, j, k = wp.tid()
    for m in range(a.shape[0]):
        b[m, i, j, k] = a[m, i, j, k] * 2.0

@wp.kernel
def accumulate(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    i = wp.tid()
    for m in range(a.shape[0]):
        b[m, i] += a[m, i] * float(m + 1)

x = np.random.default_rng(0).uniform(-1, 1, size=(4, 8, 8, 8)).astype(np.float32)
b = wp.zeros(x.shape, dtype=float, device="cpu")
wp.launch(scale_outer, dim=x.shape[1:], inputs=[wp.array(x, device="cpu")], outputs=[b], device="cpu")
y = np.random.default_rng(1).uniform(-1, 1, size=(5, 64)).astype(np.float32)
c = wp.zeros(y.shape, dtype=float, device="cpu")
wp.launch(accumulate, dim=64, inputs=[wp.array(y, device="cpu"), c], device="cpu")
want = y * np.arange(1, 6, dtype=np.float32)[:, None]
print("OK", float(np.abs(b.numpy() - 2.0 * x).max()), float(np.abs(c.numpy() - want).max()), flush=True)
'''


def test_in_a_fresh_process(tmp_path):
    from isolated import run_snippet
    body = "import numpy as np\nimport warp_interactive as wp\n" + _SCRIPT
    proc = run_snippet(body, raw=True, env={"WARP_INTERACTIVE_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split()[-2:] == ["0.0", "0.0"], proc.stdout
