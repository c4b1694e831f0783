"""Paddle interop (the newest interoperability page, 001): conversions with zero-copy data,
gradients shared both ways, the to_paddle optimisation example with fewer steps, tables, errors."""

import warnings

import numpy as np
import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")   # paddle warns at import about a missing ccache
    paddle = pytest.importorskip("paddle", reason="paddle is not installed (pip install -e \".[paddle]\")")

import warp_interactive as wp


@wp.kernel()
def loss(xs: wp.array2d[float], l: wp.array[float]):
    tid = wp.tid()
    wp.atomic_add(l, 0, xs[tid, 0] ** 2.0 + xs[tid, 1] ** 2.0)


@wp.kernel
def double(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i]


def test_reference_conversion_snippet_zero_copy():
    w = wp.array([1.0, 2.0, 3.0], dtype=float, device="cpu")
    # convert to Paddle tensor
    t = wp.to_paddle(w)
    # convert from Paddle tensor
    w2 = wp.from_paddle(t)
    assert t.data_ptr() == w.ptr == w2.ptr
    t[0] = 7.0                       # paddle -> warp
    assert w.numpy()[0] == 7.0
    w2.numpy()[2] = 9.0              # warp -> paddle
    assert float(t[2]) == 9.0


def test_example_optimization_to_paddle():
    np.random.seed(1)
    # initialize the optimization variables in Warp
    xs = wp.array(np.random.randn(100, 2), dtype=wp.float32, requires_grad=True)
    l = wp.zeros(1, dtype=wp.float32, requires_grad=True)
    # just a single wp.to_paddle call is needed, Adam optimizes using the Warp array gradients
    opt = paddle.optimizer.Adam(learning_rate=0.1, parameters=[wp.to_paddle(xs)])

    tape = wp.Tape()
    with tape:
        wp.launch(loss, dim=len(xs), inputs=[xs], outputs=[l], device=xs.device)

    first = l.numpy()[0]
    for i in range(30):
        tape.zero()
        tape.backward(loss=l)
        opt.step()

        l.zero_()
        wp.launch(loss, dim=len(xs), inputs=[xs], outputs=[l], device=xs.device)
        print(f"{i}\tloss: {l.numpy()[0]}")
    assert l.numpy()[0] < 0.5 * first
    np.testing.assert_allclose(l.numpy()[0], (xs.numpy().astype(np.float64) ** 2).sum(), rtol=1e-4)


def test_gradients_warp_to_paddle_via_from_paddle():
    x = paddle.to_tensor(np.arange(10, dtype=np.float32).reshape(5, 2), stop_gradient=False)
    lt = paddle.zeros([1], dtype="float32")
    lt.stop_gradient = False
    wx, wl = wp.from_paddle(x), wp.from_paddle(lt)
    assert wx.requires_grad and wx.grad.ptr == x.grad.data_ptr()
    tape = wp.Tape()
    with tape:
        wp.launch(loss, dim=5, inputs=[wx], outputs=[wl])
    tape.backward(loss=wl)
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * np.arange(10).reshape(5, 2))
    np.testing.assert_allclose(lt.numpy()[0], (np.arange(10.0) ** 2).sum())


def test_gradients_paddle_to_warp_via_to_paddle():
    a = wp.array(np.arange(4, dtype=np.float32), requires_grad=True)
    a.grad.fill_(0.5)
    t = wp.to_paddle(a)
    assert not t.stop_gradient and a.grad.ptr == t.grad.data_ptr()
    np.testing.assert_allclose(t.grad.numpy(), 0.5)   # the values carried over
    (t * t).sum().backward()                             # paddle accumulates into its buffer
    np.testing.assert_allclose(a.grad.numpy(), 0.5 + 2.0 * np.arange(4))


TABLE = [(wp.float16, "float16"), (wp.bfloat16, "bfloat16"), (wp.float32, "float32"), (wp.float64, "float64"),
         (wp.int8, "int8"), (wp.uint8, "uint8"), (wp.int16, "int16"), (wp.int32, "int32"),
         (wp.int64, "int64"), (wp.bool, "bool")]


@pytest.mark.parametrize("wt,name", TABLE, ids=[t[1] for t in TABLE])
def test_dtype_table_and_round_trip(wt, name):
    pt = getattr(paddle, name)
    assert wp.dtype_to_paddle(wt) == pt
    assert wp.dtype_from_paddle(pt) is wt
    t = paddle.zeros([3], dtype=name)
    a = wp.from_paddle(t)
    assert a.dtype is wt and a.ptr == t.data_ptr()
    back = wp.to_paddle(a)
    assert back.dtype == pt and back.data_ptr() == t.data_ptr()


def test_device_table_and_errors():
    assert wp.device_from_paddle("cpu") is wp.get_device("cpu")
    assert wp.device_from_paddle(paddle.CPUPlace()) is wp.get_device("cpu")
    assert wp.device_to_paddle("cpu") == "cpu"
    with pytest.raises(ValueError, match="'xpu:0' has no warp_interactive equivalent"):
        wp.device_from_paddle("xpu:0")
    with pytest.raises(TypeError, match="warp type uint16 has no Paddle equivalent"):
        wp.dtype_to_paddle(wp.uint16)
    with pytest.raises(TypeError, match="no warp_interactive equivalent"):
        wp.dtype_from_paddle(paddle.complex64)
    with pytest.raises(TypeError, match="expects a paddle.Tensor, got ndarray"):
        wp.from_paddle(np.zeros(3))
    with pytest.raises(TypeError, match="expects a wp.array"):
        wp.to_paddle(np.zeros(3))
    a = wp.array(np.zeros((4, 4), np.float32), requires_grad=True)[:, ::2]
    with pytest.raises(ValueError, match="needs a contiguous array"):
        wp.to_paddle(a)


def test_paddle_tensors_in_launch_and_dlpack():
    x = paddle.arange(5, dtype="float32")
    y = paddle.zeros([5], dtype="float32")
    wp.launch(double, dim=5, inputs=[x, y])    # through __dlpack__
    np.testing.assert_allclose(y.numpy(), 2.0 * np.arange(5))
    warp_array = wp.array(np.arange(3, dtype=np.float32))
    paddle_tensor = paddle.utils.dlpack.from_dlpack(warp_array)
    assert paddle_tensor.data_ptr() == warp_array.ptr
    paddle_tensor = paddle.utils.dlpack.from_dlpack(wp.to_dlpack(warp_array))
    assert paddle_tensor.data_ptr() == warp_array.ptr
    warp_array3 = wp.from_dlpack(paddle.utils.dlpack.to_dlpack(paddle_tensor))
    assert warp_array3.ptr == warp_array.ptr


def test_return_ctype():
    x = paddle.to_tensor(np.arange(3, dtype=np.float32), stop_gradient=False)
    d = wp.from_paddle(x, return_ctype=True)
    assert d.data == x.data_ptr() and d.grad == x.grad.data_ptr() and d.shape[0] == 3
    y = paddle.zeros([3], dtype="float32")
    wp.launch(double, dim=3, inputs=[d, wp.from_paddle(y, return_ctype=True)])
    np.testing.assert_allclose(y.numpy(), [0.0, 2.0, 4.0])
