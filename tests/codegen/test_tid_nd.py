"""Thread indices of multi-dimensional CPU launches (core.h tid_nd, 32-bit division below 2^31):
every thread's (i, j[, k[, l]]) equals NumPy's unravel_index of its linear index, for shapes with
odd sizes, ones and a leading dimension larger than the others."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def tn_2d(out: wp.array2d(dtype=wp.vec4i)):
    i, j = wp.tid()
    out[i, j] = wp.vec4i(i, j, 0, 0)


@wp.kernel
def tn_3d(out: wp.array3d(dtype=wp.vec4i)):
    i, j, k = wp.tid()
    out[i, j, k] = wp.vec4i(i, j, k, 0)


@wp.kernel
def tn_4d(out: wp.array4d(dtype=wp.vec4i)):
    i, j, k, l = wp.tid()
    out[i, j, k, l] = wp.vec4i(i, j, k, l)


@wp.kernel
def tn_leading(out: wp.array3d(dtype=int)):
    i, j = wp.tid()            # the two leading indices of a 3-D launch (4 threads each)
    wp.atomic_add(out, i, j, 0, i)
    wp.atomic_add(out, i, j, 1, j)
    wp.atomic_add(out, i, j, 2, 1)


KERNELS = {2: tn_2d, 3: tn_3d, 4: tn_4d}


@pytest.mark.parametrize("shape", [(7, 13), (1, 300), (300, 1), (1031, 3), (5, 6, 7), (2, 1, 9), (3, 4, 5, 6),
                                   (1, 7, 1, 11)], ids=str)
def test_indices_match_unravel_index(shape):
    out = wp.zeros(shape, dtype=wp.vec4i, device="cpu")
    wp.launch(KERNELS[len(shape)], dim=shape, inputs=[out], device="cpu")
    got = out.numpy()
    want = np.stack(np.unravel_index(np.arange(int(np.prod(shape))), shape), axis=-1).reshape(shape + (len(shape),))
    np.testing.assert_array_equal(got[..., :len(shape)], want)


def test_leading_indices_of_a_longer_launch():
    out = wp.zeros((6, 5, 3), dtype=int, device="cpu")
    wp.launch(tn_leading, dim=(6, 5, 4), inputs=[out], device="cpu")
    got = out.numpy()
    i, j = np.meshgrid(np.arange(6), np.arange(5), indexing="ij")
    np.testing.assert_array_equal(got[..., 0], 4 * i)
    np.testing.assert_array_equal(got[..., 1], 4 * j)
    np.testing.assert_array_equal(got[..., 2], 4)


# --- stepped coordinates (codegen/tid_rows.py): chunks that start and end inside rows -------------
def _run_in_chunks(kernel, shape, inputs, chunk, threads=2, adjoint=False, adj_inputs=None):
    """One launch run by the native pool in fixed chunks of ``chunk`` threads, so that chunks
    start and end at every position of a row (the automatic chunks of a small launch are one)."""
    from warp_interactive.runtime import launchers
    kw = {"adjoint": True, "adj_inputs": adj_inputs} if adjoint else {}
    cmd = wp.launch(kernel, dim=shape, inputs=inputs, device="cpu", record_cmd=True, **kw)
    launchers._native().launch(cmd._entry, cmd._args_addr, cmd._bounds_addr, cmd._size, threads, chunk)


CHUNKED_SHAPES = [(7, 13), (1, 300), (300, 1), (33, 8), (5, 6, 7), (2, 1, 9), (3, 4, 5, 6), (1, 7, 1, 11)]


@pytest.mark.parametrize("chunk", [1, 5, 13, 64, 1000], ids=lambda c: f"chunk{c}")
@pytest.mark.parametrize("shape", CHUNKED_SHAPES, ids=str)
def test_chunks_inside_rows_match_unravel_index(shape, chunk):
    out = wp.full(shape, wp.vec4i(-1, -1, -1, -1), dtype=wp.vec4i, device="cpu")
    _run_in_chunks(KERNELS[len(shape)], shape, [out], chunk)
    want = np.stack(np.unravel_index(np.arange(int(np.prod(shape))), shape), axis=-1).reshape(shape + (len(shape),))
    np.testing.assert_array_equal(out.numpy()[..., :len(shape)], want)


@pytest.mark.parametrize("chunk", [1, 3, 7, 1000], ids=lambda c: f"chunk{c}")
def test_leading_indices_in_chunks(chunk):
    """A 3-D launch of a kernel unpacking two indices steps all three coordinates."""
    out = wp.zeros((6, 5, 3), dtype=int, device="cpu")
    _run_in_chunks(tn_leading, (6, 5, 4), [out], chunk)
    got = out.numpy()
    i, j = np.meshgrid(np.arange(6), np.arange(5), indexing="ij")
    np.testing.assert_array_equal(got[..., 0], 4 * i)
    np.testing.assert_array_equal(got[..., 1], 4 * j)
    np.testing.assert_array_equal(got[..., 2], 4)


@wp.kernel
def tn_affine(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), flat: wp.array2d(dtype=int)):
    i, j = wp.tid()
    b[i, j] = a[i, j] * 2.0 + float(i * 1000 + j)
    flat[i, j] = i * a.shape[1] + j


@wp.kernel
def tn_row_sum(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), width: int):
    i, j = wp.tid()                 # a `while` loop: the plain entry (no lanes body)
    s = float(0.0)
    k = int(0)
    while k < width:
        s += a[i, (j + k) % a.shape[1]]
        k += 1
    b[i, j] = s


@wp.kernel
def tn_square(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    y[i, j] = x[i, j] * x[i, j] + wp.sin(x[i, j])


def _affine_case(shape, view):
    rng = np.random.default_rng(5)
    base = rng.standard_normal((shape[0], 2 * shape[1])).astype(np.float32)
    a = wp.array(base, device="cpu")[:, ::2] if view else wp.array(base[:, :shape[1]].copy(), device="cpu")
    src = base[:, ::2] if view else base[:, :shape[1]]
    return a, src


@pytest.mark.parametrize("view", [False, True], ids=["contiguous", "strided"])
@pytest.mark.parametrize("chunk", [0, 1, 9, 100], ids=lambda c: f"chunk{c}")
@pytest.mark.parametrize("shape", [(17, 31), (1, 64), (64, 1), (40, 24)], ids=str)
def test_elementwise_2d_matches_numpy(shape, chunk, view):
    """Unit-stride rows (vectorised) and a strided view (the strided entry) alike."""
    a, src = _affine_case(shape, view)
    b = wp.zeros(shape, dtype=float, device="cpu")
    flat = wp.full(shape, -1, dtype=int, device="cpu")
    if chunk:
        _run_in_chunks(tn_affine, shape, [a, b, flat], chunk)
    else:
        wp.launch(tn_affine, dim=shape, inputs=[a, b, flat], device="cpu")
    i, j = np.meshgrid(np.arange(shape[0]), np.arange(shape[1]), indexing="ij")
    np.testing.assert_array_equal(flat.numpy(), i * shape[1] + j)
    np.testing.assert_allclose(b.numpy(), src * 2 + (i * 1000 + j).astype(np.float32), rtol=1e-6)


@pytest.mark.parametrize("chunk", [0, 7], ids=lambda c: f"chunk{c}")
def test_loop_body_2d_matches_numpy(chunk):
    rng = np.random.default_rng(6)
    src = rng.standard_normal((9, 23)).astype(np.float32)
    a, b = wp.array(src, device="cpu"), wp.zeros((9, 23), dtype=float, device="cpu")
    if chunk:
        _run_in_chunks(tn_row_sum, (9, 23), [a, b, 4], chunk)
    else:
        wp.launch(tn_row_sum, dim=(9, 23), inputs=[a, b, 4], device="cpu")
    want = sum(np.roll(src, -k, axis=1) for k in range(4))
    np.testing.assert_allclose(b.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("chunk", [0, 1, 5], ids=lambda c: f"chunk{c}")
@pytest.mark.parametrize("overlap", [False, True], ids=["own", "overlapping"])
def test_backward_2d_matches_derivative(chunk, overlap):
    """The backward entry's two loops: plain own-index adjoints, and atomic ones where the
    output's gradient is the input's (the gradients overlap)."""
    shape = (11, 19)
    src = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    x = wp.array(src, device="cpu", requires_grad=True)
    y = wp.zeros(shape, dtype=float, device="cpu", requires_grad=True)
    seed = np.linspace(0.5, 1.5, src.size, dtype=np.float32).reshape(shape)
    if overlap:
        y = wp.array(np.zeros(shape, np.float32), device="cpu", requires_grad=True)
        y.grad = x.grad        # one gradient buffer for both
        x.grad.assign(seed)
    else:
        y.grad.assign(seed)
    if chunk:
        _run_in_chunks(tn_square, shape, [x, y], chunk, adjoint=True, adj_inputs=[x.grad, y.grad])
    else:
        wp.launch(tn_square, dim=shape, inputs=[x, y], adjoint=True, adj_inputs=[x.grad, y.grad], device="cpu")
    # overlapping, too: the store's adjoint takes (reads and clears) the shared element, then
    # the reads' adjoints add to it
    np.testing.assert_allclose(x.grad.numpy(), seed * (2 * src + np.cos(src)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kernel", [tn_affine, tn_row_sum, tn_square, tn_3d, tn_4d], ids=lambda k: k.key)
def test_entries_step_coordinates(kernel):
    """Every loop of the CPU entries over [begin, end) calls the body taking coordinates: none
    divides per thread (the wrapper under the old name serves the other callers)."""
    from warp_interactive.codegen.module_source import generate_source
    from warp_interactive.lang import lower
    src = generate_source(lower([kernel]))
    loops = [line for line in src.splitlines() if "for (int64_t" in line and "_body" in line]
    assert loops and all("_body_nd(" in line for line in loops), loops
    assert "wp::tid_nd(" not in src.split("_body_nd(")[1].split("\n}\n")[0]
