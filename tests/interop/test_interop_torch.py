"""PyTorch interop: the reference's examples (000/001/002 interoperability pages) on the CPU, with
fewer optimisation steps and the loss checked to fall; zero-copy and gradient flow both ways;
dtype/device tables; errors. CUDA examples live in test_interop_cuda.py."""

import numpy as np
import pytest
import torch

import warp_interactive as wp
from warp_interactive.types.arraydesc import ArrayDesc


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel()
def loss(xs: wp.array(dtype=float, ndim=2), l: wp.array(dtype=float)):
    tid = wp.tid()
    wp.atomic_add(l, 0, xs[tid, 0] ** 2.0 + xs[tid, 1] ** 2.0)


pvec2 = wp.types.vector(length=2, dtype=wp.float32)


@wp.func
def rosenbrock(x: float, y: float):
    return (1.0 - x) ** 2.0 + 100.0 * (y - x**2.0) ** 2.0


@wp.kernel
def eval_rosenbrock(
    xs: wp.array(dtype=pvec2),
    # outputs
    z: wp.array(dtype=float),
):
    i = wp.tid()
    x = xs[i]
    z[i] = rosenbrock(x[0], x[1])


@wp.kernel
def scale_vec3(v: wp.array(dtype=wp.vec3), s: float):
    i = wp.tid()
    v[i] = v[i] * s


@wp.kernel
def fill_2d(a: wp.array2d(dtype=float)):
    i, j = wp.tid()
    a[i, j] = float(i * 10 + j)


# --- passing tensors straight to wp.launch (000: "PyTorch supports both CPU and GPU tensors") ----
def test_direct_tensor_launch_example():
    n = 10
    device = "cpu"
    x = torch.arange(n, dtype=torch.float32, device=device)
    y = torch.ones(n, dtype=torch.float32, device=device)
    wp.launch(saxpy, dim=n, inputs=[x, y, 1.0], device=device)
    np.testing.assert_allclose(y.numpy(), np.arange(n) + 1.0)


def test_direct_tensor_launch_strided_and_requires_grad():
    base = torch.zeros(4, 6)
    view = base[:, ::2]          # strides (6, 2) elements: written in place through the view
    wp.launch(fill_2d, dim=view.shape, inputs=[view])
    expect = np.add.outer(np.arange(4) * 10, np.arange(3)).astype(np.float32)
    np.testing.assert_array_equal(base[:, ::2].numpy(), expect)
    np.testing.assert_array_equal(base[:, 1::2].numpy(), 0)
    x = torch.arange(5, dtype=torch.float32, requires_grad=True)   # no __array__ for these
    y = torch.zeros(5)
    wp.launch(saxpy, dim=5, inputs=[x, y, 2.0])
    np.testing.assert_allclose(y.numpy(), 2.0 * np.arange(5))


def test_direct_tensor_vector_dtype():
    t = torch.arange(12, dtype=torch.float32).reshape(4, 3)
    wp.launch(scale_vec3, dim=4, inputs=[t, 2.0])
    np.testing.assert_allclose(t.numpy(), 2.0 * np.arange(12).reshape(4, 3))


def test_direct_tensor_errors():
    x = torch.arange(4, dtype=torch.float64)
    y = torch.zeros(4, dtype=torch.float32)
    with pytest.raises(TypeError, match=r"argument 'x'.*float64.*float32|argument 'x'.*float32.*float64"):
        wp.launch(saxpy, dim=4, inputs=[x, y, 1.0])
    with pytest.raises(TypeError, match=r"argument 'x'.*complex64.*no warp_interactive equivalent"):
        wp.launch(saxpy, dim=4, inputs=[torch.zeros(4, dtype=torch.complex64), y, 1.0])
    with pytest.raises(TypeError, match=r"argument 'v'.*inner dimensions must be \(3,\)"):
        wp.launch(scale_vec3, dim=4, inputs=[torch.zeros(4, 2), 1.0])
    with pytest.raises(TypeError, match=r"argument 'v'.*non-contiguous inner dimensions"):
        wp.launch(scale_vec3, dim=4, inputs=[torch.zeros(4, 6)[:, ::2], 1.0])


# --- conversions ----------------------------------------------------------------------------------
def test_reference_conversion_snippet_zero_copy():
    w = wp.array([1.0, 2.0, 3.0], dtype=float, device="cpu")
    # convert to Torch tensor
    t = wp.to_torch(w)
    # convert from Torch tensor
    w2 = wp.from_torch(t)
    t[1] = 20.0                      # torch -> warp
    assert w.numpy()[1] == 20.0 and w2.numpy()[1] == 20.0
    w2.numpy()[2] = 30.0             # warp -> torch
    assert t[2].item() == 30.0
    assert t.data_ptr() == w.ptr == w2.ptr


def test_from_torch_vector_dtype_and_strided_view():
    t = torch.arange(12, dtype=torch.float32).reshape(4, 3)
    a = wp.from_torch(t, dtype=wp.vec3)
    assert a.shape == (4,) and a.dtype is wp.vec3 and a.ptr == t.data_ptr()
    wp.launch(scale_vec3, dim=4, inputs=[a, 0.5])
    np.testing.assert_allclose(t.numpy(), 0.5 * np.arange(12).reshape(4, 3))
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    v = wp.from_torch(base[:, 1::2])
    assert v.strides == (24, 8) and v.ptr == base.data_ptr() + 4
    np.testing.assert_array_equal(v.numpy(), base[:, 1::2].numpy())


def test_to_torch_vector_elements_become_dimensions():
    a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=wp.vec3)
    t = wp.to_torch(a)
    assert tuple(t.shape) == (2, 3) and t.dtype == torch.float32
    t[1, 2] = -1.0
    assert a.numpy()[1, 2] == -1.0


TABLE = [(wp.float16, torch.float16), (wp.bfloat16, torch.bfloat16), (wp.float32, torch.float32), (wp.float64, torch.float64),
         (wp.int8, torch.int8), (wp.uint8, torch.uint8), (wp.int16, torch.int16),
         (wp.uint16, torch.uint16), (wp.int32, torch.int32), (wp.uint32, torch.uint32),
         (wp.int64, torch.int64), (wp.uint64, torch.uint64), (wp.bool, torch.bool)]


# warp-lang 1.19 maps the wider unsigned types to torch's signed type of the same width
TO_TORCH = {torch.uint16: torch.int16, torch.uint32: torch.int32, torch.uint64: torch.int64}


@pytest.mark.parametrize("wt,tt", TABLE, ids=[str(t[1]) for t in TABLE])
def test_dtype_table_and_round_trip(wt, tt):
    assert wp.dtype_to_torch(wt) == TO_TORCH.get(tt, tt)
    assert wp.dtype_from_torch(tt) is wt
    t = torch.zeros(5, dtype=tt)
    a = wp.from_torch(t)
    assert a.dtype is wt and a.ptr == t.data_ptr() and a.shape == (5,)
    back = wp.to_torch(a)
    assert back.dtype == tt and back.data_ptr() == t.data_ptr()


def test_dtype_to_torch_of_composite_is_its_scalar():
    assert wp.dtype_to_torch(wp.vec3) == torch.float32
    assert wp.dtype_to_torch(wp.mat22d) == torch.float64


@pytest.mark.parametrize("bad", [torch.complex64, torch.complex128])
def test_unsupported_torch_dtypes(bad):
    with pytest.raises(TypeError, match=rf"{bad}.*no warp_interactive equivalent"):
        wp.dtype_from_torch(bad)
    with pytest.raises(TypeError, match="no warp_interactive equivalent"):
        wp.from_torch(torch.zeros(3, dtype=bad))


def test_device_table():
    assert wp.device_from_torch("cpu") is wp.get_device("cpu")
    assert wp.device_from_torch(torch.device("cpu")) is wp.get_device("cpu")
    assert wp.device_to_torch("cpu") == "cpu"
    assert wp.device_to_torch(wp.get_device("cpu")) == "cpu"
    with pytest.raises(ValueError, match="meta.*no warp_interactive equivalent"):
        wp.device_from_torch("meta")


def test_from_torch_errors():
    with pytest.raises(TypeError, match="expects a torch.Tensor, got ndarray"):
        wp.from_torch(np.zeros(3))
    with pytest.raises(ValueError, match=r"shape \(4, 2\) does not fit dtype vec3f"):
        wp.from_torch(torch.zeros(4, 2), dtype=wp.vec3)
    with pytest.raises(TypeError, match="scalar types differ"):
        wp.from_torch(torch.zeros(4, 3, dtype=torch.float64), dtype=wp.vec3)
    t = torch.zeros(4, requires_grad=True)
    with pytest.raises(ValueError, match="gradient's layout"):
        wp.from_torch(t, grad=torch.zeros(8)[::2])
    with pytest.raises(TypeError, match="expects a wp.array"):
        wp.to_torch(torch.zeros(3))


def test_return_ctype_descriptor():
    x = torch.arange(6, dtype=torch.float32)
    y = torch.ones(6, dtype=torch.float32)
    for n in range(1, 6):
        x_t, y_t = x[:n], torch.ones(n)
        x_ctype = wp.from_torch(x_t, return_ctype=True)
        y_ctype = wp.from_torch(y_t, return_ctype=True)
        assert isinstance(x_ctype, ArrayDesc)
        assert x_ctype.data == x_t.data_ptr() and x_ctype.shape[0] == n and x_ctype.ndim == 1
        wp.launch(saxpy, dim=n, inputs=[x_ctype, y_ctype, 1.0], device="cpu")
        np.testing.assert_allclose(y_t.numpy(), np.arange(n) + 1.0)
    g = torch.zeros(6, requires_grad=True)
    d = wp.from_torch(g, return_ctype=True)
    assert d.grad == g.grad.data_ptr() != 0
    assert np.allclose(y.numpy(), 1.0)


# --- gradients ------------------------------------------------------------------------------------
def test_gradients_warp_to_torch_via_from_torch():
    xs = torch.randn(10, 2, requires_grad=True)
    l = torch.zeros(1, requires_grad=True)
    wp_xs, wp_l = wp.from_torch(xs), wp.from_torch(l)
    assert wp_xs.grad.ptr == xs.grad.data_ptr() and wp_l.grad.ptr == l.grad.data_ptr()
    tape = wp.Tape()
    with tape:
        wp.launch(loss, dim=len(xs), inputs=[wp_xs], outputs=[wp_l])
    tape.backward(loss=wp_l)
    np.testing.assert_allclose(xs.grad.numpy(), 2.0 * xs.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(l.item(), (xs.detach().numpy() ** 2).sum(), rtol=1e-5)


def test_gradients_torch_to_warp_via_to_torch():
    a = wp.array(np.arange(4, dtype=np.float32), requires_grad=True)
    t = wp.to_torch(a)
    assert t.requires_grad and t.is_leaf and t.grad.data_ptr() == a.grad.ptr
    (t * t).sum().backward()                 # torch accumulates into a.grad's memory
    np.testing.assert_allclose(a.grad.numpy(), 2.0 * np.arange(4))
    (3.0 * t).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 2.0 * np.arange(4) + 3.0)


def test_example_optimization_from_torch():
    # indicate requires_grad so that Warp can accumulate gradients in the grad buffers
    torch.manual_seed(0)
    xs = torch.randn(100, 2, requires_grad=True)
    l = torch.zeros(1, requires_grad=True)
    opt = torch.optim.Adam([xs], lr=0.1)

    wp_xs = wp.from_torch(xs)
    wp_l = wp.from_torch(l)

    tape = wp.Tape()
    with tape:
        # record the loss function kernel launch on the tape
        wp.launch(loss, dim=len(xs), inputs=[wp_xs], outputs=[wp_l], device=wp_xs.device)

    first = l.item()
    for i in range(30):
        tape.zero()
        tape.backward(loss=wp_l)  # compute gradients
        # now xs.grad will be populated with the gradients computed by Warp
        opt.step()  # update xs (and thereby wp_xs)

        # these lines are only needed for evaluating the loss
        # (the optimization just needs the gradient, not the loss value)
        wp_l.zero_()
        wp.launch(loss, dim=len(xs), inputs=[wp_xs], outputs=[wp_l], device=wp_xs.device)
        print(f"{i}\tloss: {l.item()}")
    assert l.item() < 0.5 * first
    np.testing.assert_allclose(l.item(), (xs.detach().numpy() ** 2).sum(), rtol=1e-4)


def test_example_optimization_to_torch():
    np.random.seed(0)
    # initialize the optimization variables in Warp
    xs = wp.array(np.random.randn(100, 2), dtype=wp.float32, requires_grad=True)
    l = wp.zeros(1, dtype=wp.float32, requires_grad=True)
    # just a single wp.to_torch call is needed, Adam optimizes using the Warp array gradients
    opt = torch.optim.Adam([wp.to_torch(xs)], lr=0.1)

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


class Rosenbrock(torch.autograd.Function):
    @staticmethod
    def forward(ctx, xy, num_points):
        # ensure Torch operations complete before running Warp
        wp.synchronize_device()

        ctx.xy = wp.from_torch(xy, dtype=pvec2, requires_grad=True)
        ctx.num_points = num_points

        # allocate output
        ctx.z = wp.zeros(num_points, requires_grad=True)

        wp.launch(
            kernel=eval_rosenbrock,
            dim=ctx.num_points,
            inputs=[ctx.xy],
            outputs=[ctx.z]
        )

        # ensure Warp operations complete before returning data to Torch
        wp.synchronize_device()

        return wp.to_torch(ctx.z)

    @staticmethod
    def backward(ctx, adj_z):
        # ensure Torch operations complete before running Warp
        wp.synchronize_device()

        # map incoming Torch grads to our output variables
        ctx.z.grad = wp.from_torch(adj_z)

        wp.launch(
            kernel=eval_rosenbrock,
            dim=ctx.num_points,
            inputs=[ctx.xy],
            outputs=[ctx.z],
            adj_inputs=[ctx.xy.grad],
            adj_outputs=[ctx.z.grad],
            adjoint=True
        )

        # ensure Warp operations complete before returning data to Torch
        wp.synchronize_device()

        # return adjoint w.r.t. inputs
        return (wp.to_torch(ctx.xy.grad), None)


def _rosen_np(p):
    return (1.0 - p[:, 0]) ** 2 + 100.0 * (p[:, 1] - p[:, 0] ** 2) ** 2


def test_example_rosenbrock_autograd_function():
    num_points = 1500
    learning_rate = 5e-2

    torch_device = wp.device_to_torch(wp.get_device())

    rng = np.random.default_rng(42)
    xy = torch.tensor(rng.normal(size=(num_points, 2)), dtype=torch.float32, requires_grad=True, device=torch_device)
    opt = torch.optim.Adam([xy], lr=learning_rate)

    # the gradient through the Function matches the analytic one
    z = Rosenbrock.apply(xy, num_points)
    np.testing.assert_allclose(z.detach().numpy(), _rosen_np(xy.detach().numpy()), rtol=1e-4)
    z.backward(torch.ones_like(z))
    p = xy.detach().numpy().astype(np.float64)
    dx = -2.0 * (1.0 - p[:, 0]) - 400.0 * p[:, 0] * (p[:, 1] - p[:, 0] ** 2)
    dy = 200.0 * (p[:, 1] - p[:, 0] ** 2)
    np.testing.assert_allclose(xy.grad.numpy(), np.stack([dx, dy], 1), rtol=1e-3, atol=1e-3)

    first = _rosen_np(p).mean()
    for _ in range(50):
        # step
        opt.zero_grad()
        z = Rosenbrock.apply(xy, num_points)
        z.backward(torch.ones_like(z))

        opt.step()

    # minimum at (1, 1)
    xy_np = xy.numpy(force=True)
    print(np.mean(xy_np, axis=0))
    assert _rosen_np(xy_np.astype(np.float64)).mean() < 0.05 * first


# --- the performance notes' three forms give the same results ------------------------------------
def test_performance_note_forms():
    n, device = 16, "cpu"
    x_t = torch.arange(n, dtype=torch.float32, device=device)
    y_t = torch.ones(n, dtype=torch.float32, device=device)
    x_w = wp.from_torch(x_t)
    y_w = wp.from_torch(y_t)
    for i in range(10):
        wp.launch(saxpy, dim=n, inputs=[x_w, y_w, 1.0], device=device)
    np.testing.assert_allclose(y_t.numpy(), 1.0 + 10.0 * np.arange(n))
    for n in range(1, 10):
        x_t = torch.arange(n, dtype=torch.float32, device=device)
        y_t = torch.ones(n, dtype=torch.float32, device=device)
        x_ctype = wp.from_torch(x_t, return_ctype=True)
        y_ctype = wp.from_torch(y_t, return_ctype=True)
        wp.launch(saxpy, dim=n, inputs=[x_ctype, y_ctype, 1.0], device=device)
        np.testing.assert_allclose(y_t.numpy(), 1.0 + np.arange(n))
    n = 16
    x = torch.arange(n, dtype=torch.float32, device=device)
    y = torch.ones(n, dtype=torch.float32, device=device)
    for i in range(10):
        wp.launch(saxpy, dim=n, inputs=[x, y, 1.0], device=device)
    np.testing.assert_allclose(y.numpy(), 1.0 + 10.0 * np.arange(n))
