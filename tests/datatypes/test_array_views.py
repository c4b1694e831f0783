"""Arrays in kernels, as warp-lang 1.19 treats them: slices (``a[1:3]``, ``a[:, k]``,
``a[::-2, 1]``, bounds known only at run time) are strided views of the same memory and
gradient; negative indices count from the end; ``a.ptr`` / ``a.ndim``; and
``wp.array(ptr=..., shape=..., dtype=...)`` over external memory. Checked against NumPy's
indexing of the same data."""

import linecache

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import warp_interactive as wp

A3 = np.arange(4 * 5 * 6, dtype=np.int32).reshape(4, 5, 6)

# constant subscripts of a (4, 5, 6) array: integers drop an axis, slices keep it
EXPRS_3D = ["[1]", "[-1]", "[1:3]", "[::-1]", "[:, 1]", "[-2:, ::2, 1]", "[1, :, -1]",
            "[::2, 1:3]", "[3:0:-2]", "[10:20]", "[-9:2]", "[1, 2, 3:]", "[:, :, ::-4]",
            "[2][1:, ::3]", "[::-1][1]"]


def _source_kernel(name, src, ns):
    filename = f"<wpi-test-array-views-{name}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    exec(compile(src, filename, "exec"), ns)
    return wp.Kernel(ns[name], module=f"array_views_{name}")


def _flatten_code(k, expr):
    """Code writing case ``k``'s view: its ndim, its shape and its elements (row-major)."""
    lines = [f"    v{k} = a{expr}", f"    info[{k}, 0] = v{k}.ndim"]
    lines += [f"    info[{k}, {d + 1}] = v{k}.shape[{d}]" for d in range(4)]
    ndim = 3 - sum(1 for part in expr.replace("][", ",").strip("[]").split(",") if ":" not in part)
    idx = [f"i{d}" for d in range(ndim)]
    body, ind = [], "    "
    for d in range(ndim):
        body.append(f"{ind}for i{d} in range(v{k}.shape[{d}]):")
        ind += "    "
    flat = " + ".join(f"i{d} * {'*'.join(f'v{k}.shape[{e}]' for e in range(d + 1, ndim)) or '1'}"
                      for d in range(ndim)) or "0"
    body.append(f"{ind}vals[{k}, {flat}] = v{k}[{', '.join(idx)}]" if ndim else
                f"{ind}vals[{k}, 0] = v{k}")
    return lines + body


@pytest.fixture(scope="module")
def const_views():
    lines = ["def const_views(a: wp.array3d(dtype=wp.int32), info: wp.array2d(dtype=wp.int32),",
             "                vals: wp.array2d(dtype=wp.int32)):"]
    for k, expr in enumerate(EXPRS_3D):
        lines += _flatten_code(k, expr)
    kern = _source_kernel("const_views", "\n".join(lines) + "\n", {"wp": wp})
    a = wp.array(A3, dtype=wp.int32)
    info = wp.full((len(EXPRS_3D), 5), -1, dtype=wp.int32)
    vals = wp.full((len(EXPRS_3D), A3.size), -1, dtype=wp.int32)
    wp.launch(kern, dim=1, inputs=[a, info, vals], device="cpu")
    return info.numpy(), vals.numpy()


@pytest.mark.parametrize("k,expr", list(enumerate(EXPRS_3D)))
def test_constant_subscripts_match_numpy(const_views, k, expr):
    info, vals = const_views
    ref = eval(f"A3{expr}")
    assert info[k, 0] == ref.ndim
    assert tuple(info[k, 1:1 + ref.ndim]) == ref.shape
    assert not info[k, 1 + ref.ndim:].any()       # the unused dimensions read as 0
    np.testing.assert_array_equal(vals[k, :ref.size], ref.ravel())


@wp.kernel
def runtime_slice(a: wp.array2d(dtype=wp.int32), start: int, stop: int, step: int, col: int,
                  out: wp.array(dtype=wp.int32), n: wp.array(dtype=wp.int32)):
    v = a[start:stop:step, col]
    n[0] = v.shape[0]
    for i in range(v.shape[0]):
        out[i] = v[i]


A2 = np.arange(7 * 3, dtype=np.int32).reshape(7, 3)


def _run_runtime_slice(start, stop, step, col):
    out = wp.full(8, -1, dtype=wp.int32)
    n = wp.zeros(1, dtype=wp.int32)
    wp.launch(runtime_slice, dim=1, inputs=[wp.array(A2), start, stop, step, col, out, n], device="cpu")
    return out.numpy()[:n.numpy()[0]]


@pytest.mark.parametrize("start,stop,step,col", [
    (1, 6, 2, 1), (5, 0, -2, 1), (0, 7, 1, 0), (-3, 7, 1, 2), (6, -8, -1, -1), (100, -100, -3, 0),
    (3, 3, 1, 0), (2, 5, 7, 1), (-100, 100, 4, -3)])
def test_runtime_slice_bounds_match_numpy(start, stop, step, col):
    np.testing.assert_array_equal(_run_runtime_slice(start, stop, step, col), A2[start:stop:step, col])


@settings(max_examples=60, deadline=None)
@given(st.integers(-10, 10), st.integers(-10, 10), st.integers(-4, 4).filter(bool),
       st.integers(-3, 2))
def test_runtime_slices_match_numpy(start, stop, step, col):
    np.testing.assert_array_equal(_run_runtime_slice(start, stop, step, col), A2[start:stop:step, col])


def test_runtime_zero_step_raises_after_the_launch():
    for _ in range(3):      # the general path, then the fast launch path
        _run_runtime_slice(0, 7, 1, 1)
    with pytest.raises(wp.LaunchError, match="slice step cannot be zero"):
        _run_runtime_slice(0, 7, 0, 1)
    np.testing.assert_array_equal(_run_runtime_slice(0, 7, 3, 1), A2[::3, 1])   # still usable


def test_constant_zero_step_is_a_build_error():
    def zero_step(a: wp.array(dtype=float)):
        b = a[::0]
    with pytest.raises(wp.CodegenError, match="Slice step cannot be zero"):
        wp.launch(wp.Kernel(zero_step, module="array_views_zero"), dim=1,
                  inputs=[wp.zeros(3)], device="cpu")


def _negative_indices(a: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    out[-1] = a[-1, -1]          # the last element, as a[a.shape[0] - 1, a.shape[1] - 1]
    out[0] = a[-2][0]            # a view of the second-to-last row
    wp.atomic_add(out, -2, a[0, -3])


def _read_at(a: wp.array(dtype=float), i: int, out: wp.array(dtype=float)):
    out[0] = a[i]


def _in_mode(func, mode):
    """``func`` as a kernel of its own module built in ``mode`` (release, or debug: checked)."""
    name = f"array_views_{func.__name__}_{mode}"
    wp.set_module_options({"mode": mode}, module=name)
    return wp.Kernel(func, module=name)


@pytest.mark.parametrize("mode", ["release", "debug"])
def test_negative_indices_count_from_the_end(mode):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = wp.zeros(4)
    wp.launch(_in_mode(_negative_indices, mode), dim=1, inputs=[wp.array(a), out], device="cpu")
    np.testing.assert_array_equal(out.numpy(), [a[-2, 0], 0, a[0, -3], a[-1, -1]])


def test_debug_mode_rejects_indices_before_minus_n():
    a, out = wp.array(np.arange(4, dtype=np.float32)), wp.zeros(1)
    kern = _in_mode(_read_at, "debug")
    wp.launch(kern, dim=1, inputs=[a, -4, out], device="cpu")
    assert out.numpy()[0] == 0.0
    with pytest.raises(wp.LaunchError, match=r"indexed with \[-5\], shape \(4,\)"):
        wp.launch(kern, dim=1, inputs=[a, -5, out], device="cpu")


@wp.kernel
def sum_odd(a: wp.array(dtype=float), loss: wp.array(dtype=float)):
    v = a[1::2]
    for i in range(v.shape[0]):
        wp.atomic_add(loss, 0, v[i] * v[i])


def test_gradient_flows_through_a_slice_view():
    x = np.arange(7, dtype=np.float32)
    a = wp.array(x, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(sum_odd, dim=1, inputs=[a, loss], device="cpu")
    tape.backward(loss)
    expected = np.where(np.arange(7) % 2 == 1, 2 * x, 0)
    np.testing.assert_allclose(a.grad.numpy(), expected)
    assert loss.numpy()[0] == pytest.approx(float((x[1::2] ** 2).sum()))


@wp.struct
class Triple:
    a: float
    b: float
    c: float


@wp.kernel
def from_ptr(p: wp.uint64, rows: int, cols: int, src: wp.array(dtype=Triple)):
    arr = wp.array(ptr=p, shape=(rows, cols), dtype=wp.float32)
    for i in range(rows):
        for j in range(cols):
            arr[i, j] = float(i * 10 + j)
    s = wp.array(ptr=src.ptr, shape=(2,), dtype=Triple)
    s[1].b = float(s.ndim + arr.ndim)


@pytest.mark.parametrize("rows,cols", [(2, 3), (3, 2), (1, 6)])
def test_array_from_ptr_in_a_kernel(rows, cols):
    mem = wp.zeros((2, 3), dtype=wp.float32)
    structs = wp.zeros(2, dtype=Triple)
    wp.launch(from_ptr, dim=1, inputs=[mem.ptr, rows, cols, structs], device="cpu")
    expected = np.array([[i * 10 + j for j in range(cols)] for i in range(rows)], np.float32)
    np.testing.assert_array_equal(mem.numpy().reshape(-1), expected.reshape(-1))
    assert structs.numpy()[1]["b"] == 3.0 and structs.numpy()[0]["b"] == 0.0


def test_array_attribute_errors_name_the_attribute():
    def bad(a: wp.array(dtype=float)):
        x = a.size
    with pytest.raises(wp.CodegenError, match="not 'size'"):
        wp.launch(wp.Kernel(bad, module="array_views_bad_attr"), dim=1, inputs=[wp.zeros(2)],
                  device="cpu")


@wp.kernel
def store_through_view(x: wp.array(dtype=float), y: wp.array2d(dtype=float)):
    i = wp.tid()
    row = y[0:1, :]
    row[0, i] = 2.0 * x[i]


@wp.kernel
def read_row(y: wp.array2d(dtype=float), z: wp.array(dtype=float)):
    i = wp.tid()
    z[i] = y[0, i] + 1.0


def test_a_store_through_a_view_consumes_the_gradient_even_with_retain_grad():
    """As warp-lang: a kernel's views do not carry retain_grad, so the store's adjoint takes
    the element's gradient (y.grad ends at 0) while dz/dx = 2 flows through."""
    x = wp.ones(4, requires_grad=True)
    y = wp.zeros((1, 4), requires_grad=True, retain_grad=True)
    z = wp.zeros(4, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(store_through_view, dim=4, inputs=[x, y], device="cpu")
        wp.launch(read_row, dim=4, inputs=[y, z], device="cpu")
    tape.backward(grads={z: wp.ones_like(z)})
    np.testing.assert_array_equal(x.grad.numpy(), np.full(4, 2.0))
    np.testing.assert_array_equal(y.grad.numpy(), np.zeros((1, 4)))


@wp.kernel
def lower_bounds(arr: wp.array(dtype=float), values: wp.array(dtype=float), out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = wp.lower_bound(arr, values[i])


def test_lower_bound_is_the_closest_element_never_past_the_end():
    arr = np.arange(6, dtype=np.float32)
    values = np.array([-0.1, 0.0, 2.5, 4.0, 5.0, 5.5, 100.0], dtype=np.float32)
    out = wp.zeros(len(values), dtype=int)
    wp.launch(lower_bounds, dim=len(values), inputs=[wp.array(arr), wp.array(values), out], device="cpu")
    expected = np.minimum(np.searchsorted(arr, values, side="left"), len(arr) - 1)
    np.testing.assert_array_equal(out.numpy(), expected)       # [0, 0, 3, 4, 5, 5, 5]
