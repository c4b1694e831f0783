"""The GPU half of the interoperability pages: CuPy/Numba and PyTorch CUDA arrays passed to
wp.launch, __cuda_array_interface__ both ways, CUDA tensors through from_torch/to_torch and
DLPack, stream conversions. Skipped without a CUDA device (and per framework without it)."""

import numpy as np
import pytest

import warp_interactive as wp

pytestmark = pytest.mark.skipif(wp.get_cuda_device_count() == 0, reason="needs a CUDA device")


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def _torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("this torch has no CUDA")
    return torch


def test_cupy_example():
    cp = pytest.importorskip("cupy")
    n = 64
    with cp.cuda.Device(0):
        x = cp.arange(n, dtype=cp.float32)
        y = cp.ones(n, dtype=cp.float32)

    wp.launch(saxpy, dim=n, inputs=[x, y, 1.0], device="cuda:0")
    wp.synchronize_device("cuda:0")
    np.testing.assert_allclose(cp.asnumpy(y), np.arange(n) + 1.0)


def test_cupy_consumes_and_produces_wp_arrays():
    cp = pytest.importorskip("cupy")
    a = wp.array(np.arange(8, dtype=np.float32), device="cuda:0")
    c = cp.asarray(a)                              # through a.__cuda_array_interface__
    assert c.data.ptr == a.ptr
    c *= 2
    cp.cuda.runtime.deviceSynchronize()
    np.testing.assert_allclose(a.numpy(), 2.0 * np.arange(8))
    src = cp.arange(6, dtype=cp.float32).reshape(2, 3)
    w = wp.from_dlpack(src, dtype=wp.vec3)
    assert w.ptr == src.data.ptr and w.shape == (2,)


def test_numba_cuda_array_interface():
    cuda = pytest.importorskip("numba.cuda")
    a = wp.array(np.arange(4, dtype=np.float32), device="cuda:0")
    d = cuda.as_cuda_array(a)
    assert d.__cuda_array_interface__["data"][0] == a.ptr
    np.testing.assert_allclose(d.copy_to_host(), np.arange(4))


def test_torch_cuda_direct_launch_example():
    torch = _torch_cuda()
    n = 32
    for device in ("cpu", "cuda:0"):
        x = torch.arange(n, dtype=torch.float32, device=device)
        y = torch.ones(n, dtype=torch.float32, device=device)

        wp.launch(saxpy, dim=n, inputs=[x, y, 1.0], device=device)
        wp.synchronize_device(device)
        np.testing.assert_allclose(y.cpu().numpy(), np.arange(n) + 1.0)


def test_torch_cuda_conversions_zero_copy_and_grads():
    torch = _torch_cuda()
    t = torch.arange(4, dtype=torch.float32, device="cuda:0", requires_grad=True)
    a = wp.from_torch(t)
    assert a.device == "cuda:0" and a.ptr == t.data_ptr() and a.grad.ptr == t.grad.data_ptr()
    w = wp.array(np.arange(3, dtype=np.float32), device="cuda:0", requires_grad=True)
    tt = wp.to_torch(w)
    assert tt.device.type == "cuda" and tt.data_ptr() == w.ptr and tt.grad.data_ptr() == w.grad.ptr
    assert wp.device_from_torch(torch.device("cuda:0")) is wp.get_device("cuda:0")
    assert wp.device_to_torch("cuda:0") == "cuda:0"
    d = wp.from_torch(torch.zeros(5, device="cuda:0"), return_ctype=True)
    assert d.shape[0] == 5


def test_torch_cuda_dlpack_both_ways():
    torch = _torch_cuda()
    a = wp.array(np.arange(5, dtype=np.float32), device="cuda:0")
    t = torch.utils.dlpack.from_dlpack(a)            # __dlpack__ with torch's current stream
    assert t.data_ptr() == a.ptr and t.device.type == "cuda"
    t2 = torch.utils.dlpack.from_dlpack(wp.to_dlpack(a))
    assert t2.data_ptr() == a.ptr
    src = torch.arange(4, dtype=torch.float32, device="cuda:0")
    w = wp.from_dlpack(src)
    assert w.ptr == src.data_ptr() and w.device == "cuda:0"
    assert a.__dlpack_device__() == (2, 0)


def test_torch_stream_conversions():
    torch = _torch_cuda()
    ts = torch.cuda.Stream(device="cuda:0")
    ws = wp.stream_from_torch(ts)
    assert ws.cuda_stream == ts.cuda_stream
    back = wp.stream_to_torch(ws)
    assert back.cuda_stream == ts.cuda_stream


def test_jax_cuda_arrays():
    jax = pytest.importorskip("jax")
    try:
        gpu = jax.devices("gpu")[0]
    except RuntimeError:
        pytest.skip("this jax has no CUDA backend")
    x = jax.device_put(jax.numpy.arange(4, dtype=jax.numpy.float32), gpu)
    w = wp.from_jax(x)
    assert w.device.is_cuda and w.ptr == x.unsafe_buffer_pointer()
    assert wp.device_from_jax(gpu).is_cuda


# --- jax_kernel on the GPU (needs jax's CUDA plugin: pip install "jax[cuda13]") --------------------
@wp.kernel
def triple_kernel(input: wp.array(dtype=float), output: wp.array(dtype=float)):
    tid = wp.tid()
    output[tid] = 3.0 * input[tid]


@wp.kernel
def sin_times_x(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.sin(x[i]) * x[i]


def _jax_cuda():
    jax = pytest.importorskip("jax")
    from warp_interactive.interop.jax_ffi import _jax_gpus
    if not _jax_gpus() or jax.default_backend() != "gpu":
        pytest.skip("this jax has no CUDA backend")
    return jax


def test_jax_kernel_on_the_gpu_under_jit_and_grad():
    jax = _jax_cuda()
    jp = jax.numpy
    from warp_interactive.jax_experimental import jax_kernel
    jax_triple = jax_kernel(triple_kernel)

    @jax.jit
    def f():
        x = jp.arange(0, 64, dtype=jp.float32)
        return jax_triple(x)

    (out,) = f()
    assert out.devices().pop().platform == "gpu"
    np.testing.assert_array_equal(np.asarray(out), 3.0 * np.arange(64))
    g = jax.jit(jax.grad(lambda x: (jax_kernel(sin_times_x)(x)[0] ** 2).sum()))
    x = jp.linspace(-2.0, 2.0, 1000, dtype=jp.float32)
    ref = jax.grad(lambda x: ((jp.sin(x) * x) ** 2).sum())(x)
    np.testing.assert_allclose(np.asarray(g(x)), np.asarray(ref), rtol=1e-4, atol=1e-5)


def test_jax_kernel_shard_map_over_the_gpus():
    jax = _jax_cuda()
    jp = jax.numpy
    from jax.sharding import Mesh, PartitionSpec as P
    from warp_interactive.jax_experimental import jax_kernel
    gpus = jax.local_devices(backend="gpu")
    mesh = Mesh(np.array(gpus), ("x",))
    f = jax.jit(jax.shard_map(lambda x: jax_kernel(triple_kernel)(x)[0], mesh=mesh,
                              in_specs=P("x"), out_specs=P("x")))
    x = jp.arange(256 * len(gpus), dtype=jp.float32)
    np.testing.assert_array_equal(np.asarray(f(x)), 3.0 * np.arange(256 * len(gpus)))
