"""Slices of vectors, quaternions, transforms and matrices in kernels, as tables checked against
NumPy's slicing of the same values; slice assignment; gradients through slices."""

import numpy as np
import pytest

import warp_interactive as wp

vec7 = wp.types.vector(7, wp.float32)
vec1 = wp.types.vector(1, wp.float32)
SLICES_1D = ["[:]", "[1:]", "[-2:]", "[:2]", "[:-1]", "[::2]", "[1::2]", "[::-1]", "[::-2]",
             "[1::-2]", "[-123:123]", "[2:5]"]


def _kernel_for(expr, out_len, module):
    """A kernel computing ``v<expr>`` of a vec7 into ``out`` (made from source: the slice is
    part of the code)."""
    import linecache
    src = (f"def slice_kernel(v: vec7, out: wp.array(dtype=float)):\n"
           f"    s = v{expr}\n"
           f"    for i in range({out_len}):\n"
           f"        out[i] = s[i]\n")
    filename = f"<wpi-test-slicing-{module}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    ns = {"wp": wp, "vec7": vec7}
    exec(compile(src, filename, "exec"), ns)
    return wp.Kernel(ns["slice_kernel"], module=module)


@pytest.mark.parametrize("expr", SLICES_1D)
def test_vector_slices_read(expr):
    values = np.arange(1.0, 8.0, dtype=np.float32)
    expected = eval(f"values{expr}")
    k = _kernel_for(expr, len(expected), f"wpi_test_slicing_{abs(hash(expr))}")
    out = wp.zeros(max(len(expected), 1), dtype=float)
    wp.launch(k, 1, [vec7(*values), out])
    np.testing.assert_array_equal(out.numpy()[:len(expected)], expected)


@wp.kernel(module="wpi_test_slicing_writes")
def writes(out: wp.array(dtype=vec7), m_out: wp.array(dtype=wp.mat33)):
    v = vec7(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0)
    v[1:3] = wp.vec2(10.0, 20.0)
    v[::3] += wp.vec3(100.0, 100.0, 100.0)
    v[-1:] = vec1(-1.0)
    out[0] = v
    m = wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
    m[1:, :2] = wp.mat22(0.0, 0.0, 0.0, 0.0)
    m[0, 1:] = wp.vec2(-2.0, -3.0)
    m_out[0] = m


def test_slice_assignment():
    out = wp.zeros(1, dtype=vec7)
    m_out = wp.zeros(1, dtype=wp.mat33)
    wp.launch(writes, 1, [out, m_out])
    v = np.arange(1.0, 8.0)
    v[1:3] = [10.0, 20.0]
    v[::3] += 100.0
    v[-1:] = -1.0
    np.testing.assert_array_equal(out.numpy()[0], v)
    m = np.arange(1.0, 10.0).reshape(3, 3)
    m[1:, :2] = 0.0
    m[0, 1:] = [-2.0, -3.0]
    np.testing.assert_array_equal(m_out.numpy()[0], m)


@pytest.mark.parametrize("rows, cols", [("1:", ":2"), (":", "::-1"), ("::2", "1"), ("0", "1:"),
                                        ("-1", ":"), ("1:3", "0:3")])
def test_matrix_slices_read(rows, cols):
    import linecache
    m = np.arange(1.0, 10.0, dtype=np.float32).reshape(3, 3)
    expected = np.atleast_1d(eval(f"m[{rows}, {cols}]")).reshape(-1)
    src = (f"def mslice(m: wp.mat33, out: wp.array(dtype=float)):\n"
           f"    s = m[{rows}, {cols}]\n"
           f"    flat = int(0)\n"
           f"    for i in range(wp.static(len(s))):\n"
           f"        out[i] = wp.static(0.0) + s[i] if wp.static({len(np.shape(eval(f'm[{rows}, {cols}]')))} == 1) else 0.0\n")
    if np.ndim(eval(f"m[{rows}, {cols}]")) == 2:
        r, c = np.shape(eval(f"m[{rows}, {cols}]"))
        src = (f"def mslice(m: wp.mat33, out: wp.array(dtype=float)):\n"
               f"    s = m[{rows}, {cols}]\n"
               + "".join(f"    out[{i * c + j}] = s[{i}, {j}]\n" for i in range(r) for j in range(c)))
    else:
        n = len(expected)
        src = (f"def mslice(m: wp.mat33, out: wp.array(dtype=float)):\n"
               f"    s = m[{rows}, {cols}]\n"
               + "".join(f"    out[{i}] = s[{i}]\n" for i in range(n)))
    filename = f"<wpi-test-mslice-{rows}-{cols}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    ns = {"wp": wp}
    exec(compile(src, filename, "exec"), ns)
    k = wp.Kernel(ns["mslice"], module=f"wpi_test_mslice_{abs(hash((rows, cols)))}")
    out = wp.zeros(len(expected), dtype=float)
    wp.launch(k, 1, [wp.mat33(*m.reshape(-1)), out])
    np.testing.assert_array_equal(out.numpy(), expected)


@wp.kernel(module="wpi_test_slicing_grad")
def slice_loss(xs: wp.array(dtype=vec7), loss: wp.array(dtype=float)):
    v = xs[0]
    s = v[1::2]            # components 1, 3, 5
    loss[0] = wp.dot(s, wp.vec3(1.0, 2.0, 3.0))


def test_gradients_flow_through_slices():
    xs = wp.array([np.arange(7.0)], dtype=vec7, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(slice_loss, 1, [xs, loss])
    tape.backward(loss)
    np.testing.assert_array_equal(xs.grad.numpy()[0], [0, 1, 0, 2, 0, 3, 0])


def test_empty_slice_and_errors():
    @wp.kernel(module="wpi_test_slicing_empty")
    def empty(out: wp.array(dtype=int)):
        v = wp.vec3(1.0, 2.0, 3.0)
        e = v[5:]
        out[0] = len(e)

    out = wp.zeros(1, dtype=int)
    wp.launch(empty, 1, [out])
    assert out.numpy()[0] == 0

    def zero_step():
        v = wp.vec3(1.0, 2.0, 3.0)
        w = v[::0]  # noqa: F841

    with pytest.raises(wp.CodegenError, match="Slice step cannot be zero"):
        wp.launch(wp.Kernel(zero_step, module="unique"), 1)

    def runtime_bound(n: int):
        v = wp.vec3(1.0, 2.0, 3.0)
        w = v[:n]  # noqa: F841

    with pytest.raises(wp.CodegenError, match="slice bounds in kernels must be compile-time integers"):
        wp.launch(wp.Kernel(runtime_bound, module="unique"), 1, inputs=[2])
