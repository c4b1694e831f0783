"""wp.map (warp-lang 1.19): a builtin, a @wp.func or a Python function / lambda mapped over arrays,
with NumPy broadcasting, values passed to every element, several outputs, given outputs, tapes,
indexed arrays, and warp-lang's error messages; checked against NumPy."""

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.mapping import map_cache


@wp.func
def _affine(x: float, y: float):
    return 2.0 * x - y


@wp.func
def _three(a: float):
    return a + 2.0, a * 3.0, wp.vec3(a, a, a)


@wp.func
def _nothing(a: float):
    pass


@wp.func
def _takes_int(i: int):
    return float(i)


def _arr(x, dtype=wp.float32):
    return wp.array(np.asarray(x), dtype=dtype)


SCALE = 3.0

# (function, inputs (numpy arrays or plain values), NumPy reference)
CASES = [
    ("builtin add", wp.add, [np.arange(4.0), np.ones(4)], lambda a, b: a + b),
    ("builtin clamp with values", wp.clamp, [np.linspace(-2, 2, 5), -0.5, 0.5], np.clip),
    ("wp.func", _affine, [np.arange(5.0), np.full(5, 0.5)], lambda x, y: 2 * x - y),
    ("lambda", lambda x, y: x * y + 1.0, [np.arange(3.0), np.arange(3.0)], lambda x, y: x * y + 1),
    ("lambda with a global", lambda x: x * SCALE, [np.arange(3.0)], lambda x: x * 3),
    ("lambda calling builtins", lambda x: wp.sin(x) + wp.abs(x), [np.linspace(-1, 1, 6)],
     lambda x: np.sin(x) + np.abs(x)),
    ("broadcast (3,1) with (4,)", wp.mul, [np.arange(3.0).reshape(3, 1), np.arange(4.0)], lambda a, b: a * b),
    ("broadcast (1,3,1,2) with (5,2)", wp.sub, [np.arange(6.0).reshape(1, 3, 1, 2), np.ones((5, 2))],
     lambda a, b: a - b),
    ("value first", lambda a, b: a - b, [10.0, np.arange(4.0)], lambda a, b: a - b),
]


@pytest.mark.parametrize("name,fn,inputs,ref", CASES, ids=[c[0] for c in CASES])
def test_map_matches_numpy(name, fn, inputs, ref):
    wp_inputs = [_arr(x) if isinstance(x, np.ndarray) else x for x in inputs]
    out = wp.map(fn, *wp_inputs)
    expected = ref(*[x.astype(np.float32) if isinstance(x, np.ndarray) else x for x in inputs])
    assert out.shape == expected.shape
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=1e-6)


def test_closure_values_are_read_per_call():
    a = _arr(np.arange(3.0))
    outs = []
    for k in (1.0, 2.0):
        outs.append(wp.map(lambda x: x + k, a).numpy())
    np.testing.assert_array_equal(outs[0], [1, 2, 3])
    np.testing.assert_array_equal(outs[1], [2, 3, 4])


def test_several_outputs_and_given_outputs():
    a = _arr(np.arange(4.0))
    r1, r2, r3 = wp.map(_three, a)
    np.testing.assert_array_equal(r1.numpy(), np.arange(4.0) + 2)
    np.testing.assert_array_equal(r2.numpy(), np.arange(4.0) * 3)
    assert r3.dtype is wp.vec3 and np.all(r3.numpy() == np.arange(4.0)[:, None])
    outs = [wp.empty(4, dtype=float), wp.empty(4, dtype=float), wp.empty(4, dtype=wp.vec3)]
    assert wp.map(_three, a, out=outs) is outs
    np.testing.assert_array_equal(outs[1].numpy(), np.arange(4.0) * 3)
    xs = _arr(np.linspace(-1, 1, 5))
    assert wp.map(wp.clamp, xs, -0.5, 0.5, out=xs) is xs      # in place
    np.testing.assert_allclose(xs.numpy(), np.clip(np.linspace(-1, 1, 5), -0.5, 0.5))


def test_mixed_types_and_vectors():
    conds = wp.array([True, False, True], dtype=bool)
    np.testing.assert_array_equal(wp.map(wp.where, conds, 1.0, 0.0).numpy(), [1, 0, 1])
    tf = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat_identity())
    pts = wp.array(np.arange(6.0).reshape(2, 3), dtype=wp.vec3)
    np.testing.assert_allclose(wp.map(wp.transform_point, tf, pts).numpy(), np.arange(6.0).reshape(2, 3) + [1, 2, 3])
    ints = wp.array(np.arange(6, dtype=np.int32).reshape(2, 3), dtype=wp.vec3i)
    out = wp.map(wp.bit_and, ints, ints)
    assert out.dtype is wp.vec3i
    np.testing.assert_array_equal(out.numpy(), np.arange(6).reshape(2, 3))


def test_gradient_through_a_tape():
    a = wp.array(np.arange(5.0, dtype=np.float32), requires_grad=True)
    b = wp.array(np.ones(5, dtype=np.float32), requires_grad=True)
    tape = wp.Tape()
    with tape:
        out = wp.map(_affine, a, b)
    assert out.requires_grad
    out.grad.fill_(1.0)
    tape.backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.full(5, 2.0))
    np.testing.assert_array_equal(b.grad.numpy(), np.full(5, -1.0))


def test_indexed_arrays_in_and_out():
    data = wp.array(np.arange(10.0, dtype=np.float32))
    iarr = wp.indexedarray1d(data, [wp.array([1, 3, 5], dtype=int)])
    out = wp.map(lambda x: x * 10.0, iarr)
    np.testing.assert_array_equal(out.numpy(), [10, 30, 50])
    wp.map(lambda x: x + 0.5, iarr, out=iarr)
    np.testing.assert_array_equal(data.numpy()[[1, 3, 5]], [1.5, 3.5, 5.5])
    np.testing.assert_array_equal(data.numpy()[[0, 2, 4]], [0, 2, 4])
    iarr += 1.0                                              # array arithmetic on indexed arrays
    np.testing.assert_array_equal(data.numpy()[[1, 3, 5]], [2.5, 4.5, 6.5])
    np.testing.assert_array_equal((2.0 * iarr).numpy(), [5, 9, 13])


def test_return_kernel():
    k = wp.map(lambda x: x + 2.0, _arr(np.zeros(3)), return_kernel=True)
    assert isinstance(k, wp.Kernel)
    b, out = wp.zeros(7, dtype=float), wp.empty(7, dtype=float)
    wp.launch(k, dim=7, inputs=[b], outputs=[out])
    np.testing.assert_array_equal(out.numpy(), np.full(7, 2.0))


def test_kernels_are_cached_by_types_and_broadcast_pattern():
    map_cache.clear()
    a, b = _arr([1.0, 2.0, 3.0]), _arr([4.0, 5.0, 6.0])
    wp.map(lambda x, y: x + y, a, b)
    n = len(map_cache)
    wp.map(lambda x, y: x + y, a, b)                                    # another lambda, same text
    wp.map(lambda x, y: x + y, _arr([1.0, 2.0]), _arr([3.0, 4.0]))      # other shape, same ndim
    wp.map(lambda x, y: x + y, a, b, out=wp.empty(3, dtype=float))
    assert len(map_cache) == n
    wp.map(lambda x, y: x + y, _arr([1.0], wp.float64), _arr([2.0], wp.float64))
    assert len(map_cache) == n + 1
    wp.map(lambda x, y: x + y, _arr([[1.0], [2.0]]), _arr([3.0, 4.0]))
    assert len(map_cache) == n + 2


ERRORS = [
    (lambda: wp.map(_nothing, _arr([1.0])), TypeError, "The provided function must return a value$"),
    (lambda: wp.map(_affine, _arr([1.0])), TypeError,
     r"Number of input arguments \(1\) does not match expected number of function arguments \(2\)$"),
    (lambda: wp.map(_takes_int, _arr([1.0])), TypeError,
     "Function _takes_int does not support the provided argument types float32"),
    (lambda: wp.map(wp.add, wp.zeros((3, 2, 1)), wp.ones((3, 3, 2))), ValueError,
     r"Shapes \(3, 2, 1\) and \(3, 3, 2\) are not broadcastable$"),
    (lambda: wp.map(lambda a, b: a * b, 2.0, 0.4), ValueError, "map requires at least one warp.array input$"),
    (lambda: wp.map(wp.sub, wp.zeros(3), wp.zeros(3), out=wp.empty(2)), TypeError,
     r"Output array shape \(2,\) does not match expected shape \(3,\)$"),
    (lambda: wp.map(wp.sub, wp.zeros(3), wp.zeros(3), out=wp.empty(3, dtype=int)), TypeError,
     "Output array dtype int32 does not match expected dtype float32$"),
    (lambda: wp.map(lambda x, y: (x, y), wp.zeros(3), wp.zeros(3), out=[wp.empty(3)] * 3), TypeError,
     r"Number of provided output arrays \(3\) does not match expected number of function outputs \(2\)$"),
    (lambda: wp.map(lambda x, y: (x, y), wp.zeros(3), wp.zeros(3), out=[wp.empty(3), wp.empty(3, dtype=int)]),
     TypeError, "Output array 1 dtype int32 does not match expected dtype float32$"),
    (lambda: wp.map(lambda x, y: (x, y), wp.zeros(3), wp.zeros(3), out=wp.empty((2, 3))), TypeError,
     r"Invalid output provided, expected 2 Warp arrays with shape \(3,\) and dtypes \(float32, float32\)$"),
]


@pytest.mark.parametrize("call,exc,message", ERRORS, ids=range(len(ERRORS)))
def test_errors(call, exc, message):
    with pytest.raises(exc, match=message):
        call()
