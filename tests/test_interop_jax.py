"""JAX interop: from_jax/to_jax (zero-copy), dtype/device tables, and jax_kernel (a warp kernel
as an XLA FFI call) under jax.jit, inside shard_map over 4 host devices, and in two processes
joined by jax.distributed.initialize on loopback. The examples are those of the reference's
interoperability pages (000/002), with ``import warp_interactive as wp``."""

import os
import socket
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jp
import numpy as np
import pytest

import warp_interactive as wp
# import experimental feature
from warp_interactive.jax_experimental import jax_kernel


@wp.kernel
def triple_kernel(input: wp.array(dtype=float), output: wp.array(dtype=float)):
    tid = wp.tid()
    output[tid] = 3.0 * input[tid]


# kernel with multiple inputs and outputs
@wp.kernel
def multiarg_kernel(
    # inputs
    a: wp.array(dtype=float),
    b: wp.array(dtype=float),
    c: wp.array(dtype=float),
    # outputs
    ab: wp.array(dtype=float),
    bc: wp.array(dtype=float),
):
    tid = wp.tid()
    ab[tid] = a[tid] + b[tid]
    bc[tid] = b[tid] + c[tid]


@wp.kernel
def matmul_kernel(
    a: wp.array2d(dtype=wp.float32),
    b: wp.array2d(dtype=wp.float32),
    c: wp.array2d(dtype=wp.float32),
):
    i, j = wp.tid()
    M = a.shape[0]
    K = a.shape[1]
    N = b.shape[1]
    if i < M and j < N:
        s = wp.float32(0.0)
        for k in range(K):
            s += a[i, k] * b[k, j]
        c[i, j] = s


@wp.kernel
def vec_norms(v: wp.array(dtype=wp.vec3), scaled: wp.array(dtype=wp.vec3), n: wp.array(dtype=float)):
    i = wp.tid()
    scaled[i] = v[i] * 2.0
    n[i] = wp.length(v[i])


@wp.kernel
def total(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, x[i])


@wp.kernel
def read_first(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[0]


@wp.kernel
def with_scalar(x: wp.array(dtype=float), s: float, y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * s


@wp.kernel
def int_copy(x: wp.array(dtype=wp.int32), y: wp.array(dtype=wp.int32)):
    i = wp.tid()
    y[i] = x[i] + 1


# --- from_jax / to_jax ------------------------------------------------------------------------
def test_reference_snippet_zero_copy_both_ways():
    jax_array = jp.arange(8, dtype=jp.float32)
    warp_array = wp.from_jax(jax_array)
    assert warp_array.ptr == jax_array.unsafe_buffer_pointer()
    np.testing.assert_array_equal(warp_array.numpy(), np.arange(8))
    w = wp.array(np.arange(5, dtype=np.float32))
    jax_array = wp.to_jax(w)
    assert jax_array.unsafe_buffer_pointer() == w.ptr
    w.numpy()[0] = 42.0           # a write on the warp side is seen by JAX
    assert float(jax_array[0]) == 42.0
    np.testing.assert_array_equal(np.asarray(jax_array)[1:], np.arange(1, 5))


def test_from_jax_vector_dtype_and_kernel_reads_it():
    x = jp.arange(12, dtype=jp.float32).reshape(4, 3)
    a = wp.from_jax(x, dtype=wp.vec3)
    assert a.shape == (4,) and a.dtype is wp.vec3
    out = wp.zeros(4, dtype=wp.vec3)
    n = wp.zeros(4, dtype=float)
    wp.launch(vec_norms, dim=4, inputs=[a, out, n])
    np.testing.assert_allclose(n.numpy(), np.linalg.norm(np.arange(12).reshape(4, 3), axis=1), rtol=1e-6)


def test_to_jax_of_vector_array_and_errors():
    a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=wp.vec3)
    j = wp.to_jax(a)
    assert j.shape == (2, 3) and j.dtype == jp.float32
    with pytest.raises(ValueError, match="needs a contiguous array"):
        wp.to_jax(wp.array(np.zeros((4, 4), np.float32))[:, ::2])
    with pytest.raises(TypeError, match="expects a wp.array"):
        wp.to_jax(np.zeros(3))
    with pytest.raises(TypeError, match="expects a jax.Array"):
        wp.from_jax(np.zeros(3))


TABLE = [(wp.float16, jp.float16), (wp.bfloat16, jp.bfloat16), (wp.float32, jp.float32), (wp.float64, jp.float64),
         (wp.int8, jp.int8), (wp.uint8, jp.uint8), (wp.int16, jp.int16), (wp.uint16, jp.uint16),
         (wp.int32, jp.int32), (wp.uint32, jp.uint32), (wp.int64, jp.int64),
         (wp.uint64, jp.uint64), (wp.bool, jp.bool_)]


@pytest.mark.parametrize("wt,jt", TABLE, ids=[np.dtype(t[1]).name for t in TABLE])
def test_dtype_table(wt, jt):
    assert wp.dtype_to_jax(wt) == jp.dtype(jt)
    assert wp.dtype_from_jax(jt) is wt
    assert wp.dtype_from_jax(jp.dtype(jt)) is wt


@pytest.mark.parametrize("wt,jt", [t for t in TABLE if np.dtype(t[1]).itemsize <= 4],
                         ids=[np.dtype(t[1]).name for t in TABLE if np.dtype(t[1]).itemsize <= 4])
def test_from_jax_each_dtype(wt, jt):
    x = jp.zeros(6, dtype=jt)
    a = wp.from_jax(x)
    assert a.dtype is wt and a.shape == (6,) and a.ptr == x.unsafe_buffer_pointer()


def test_unsupported_jax_dtypes():
    with pytest.raises(TypeError, match="complex64.*no warp_interactive equivalent"):
        wp.dtype_from_jax(jp.complex64)
    with pytest.raises(TypeError, match="complex64.*no warp_interactive equivalent"):
        wp.from_jax(jp.zeros(3, dtype=jp.complex64))


def test_device_table():
    cpu = jax.devices("cpu")[0]
    assert wp.device_from_jax(cpu) is wp.get_device("cpu")
    assert wp.device_to_jax("cpu") == cpu
    assert wp.device_to_jax(wp.get_device("cpu")).platform == "cpu"


# --- jax_kernel -------------------------------------------------------------------------------
def test_example_triple_under_jit():
    # create a Jax primitive from a Warp kernel
    jax_triple = jax_kernel(triple_kernel)

    # use the Warp kernel in a Jax jitted function
    @jax.jit
    def f():
        x = jp.arange(0, 64, dtype=jp.float32)
        return jax_triple(x)

    print(f())
    (out,) = f()
    np.testing.assert_array_equal(np.asarray(out), 3.0 * np.arange(64))


def test_example_multiarg_under_jit():
    # create a Jax primitive from a Warp kernel
    jax_multiarg = jax_kernel(multiarg_kernel)

    # use the Warp kernel in a Jax jitted function with three inputs and two outputs
    @jax.jit
    def f():
        a = jp.full(64, 1, dtype=jp.float32)
        b = jp.full(64, 2, dtype=jp.float32)
        c = jp.full(64, 3, dtype=jp.float32)
        return jax_multiarg(a, b, c)

    x, y = f()

    print(x)
    print(y)
    np.testing.assert_array_equal(np.asarray(x), np.full(64, 3.0))
    np.testing.assert_array_equal(np.asarray(y), np.full(64, 5.0))


def test_jax_kernel_in_a_jitted_computation_with_traced_inputs():
    jax_triple = jax_kernel(triple_kernel)

    @jax.jit
    def f(x):
        (y,) = jax_triple(jp.sin(x))
        return y.sum() + x[0]

    x = np.linspace(0, 1, 1000, dtype=np.float32)
    np.testing.assert_allclose(float(f(x)), 3.0 * np.sin(x).sum() + x[0], rtol=1e-5)
    # eager (no jit) and a second shape (retraced) work too
    (y,) = jax_triple(jp.arange(7, dtype=jp.float32))
    np.testing.assert_array_equal(np.asarray(y), 3.0 * np.arange(7))


def test_jax_kernel_under_vmap():
    jax_triple = jax_kernel(triple_kernel)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    (y,) = jax.jit(jax.vmap(jax_triple))(x)
    np.testing.assert_array_equal(np.asarray(y), 3.0 * x)


def test_jax_kernel_launch_dims_2d_matmul():
    M, K, N = 8, 4, 6
    a = jp.arange(M * K, dtype=jp.float32).reshape(M, K)
    b = jp.arange(K * N, dtype=jp.float32).reshape(K, N)
    f = jax.jit(lambda a, b: jax_kernel(matmul_kernel, launch_dims=(M, N))(a, b)[0])
    np.testing.assert_allclose(np.asarray(f(a, b)), np.asarray(a) @ np.asarray(b))


def test_jax_kernel_vector_types_and_zeroed_outputs():
    v = np.random.default_rng(3).random((50, 3), dtype=np.float32)
    scaled, n = jax.jit(jax_kernel(vec_norms))(jp.asarray(v))
    assert scaled.shape == (50, 3) and n.shape == (50,)
    np.testing.assert_allclose(np.asarray(scaled), 2.0 * v, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(n), np.linalg.norm(v, axis=1), rtol=1e-6)
    # outputs start at zero, so accumulating kernels work
    x = np.arange(100, dtype=np.float32)
    (out,) = jax.jit(jax_kernel(total))(x)
    assert float(out[0]) == x.sum() and np.all(np.asarray(out)[1:] == 0)
    (yi,) = jax_kernel(int_copy)(jp.arange(5, dtype=jp.int32))
    np.testing.assert_array_equal(np.asarray(yi), np.arange(1, 6))


def test_jax_kernel_large_launch_splits_over_threads():
    x = np.random.default_rng(0).random(1 << 18, dtype=np.float32)
    (y,) = jax.jit(jax_kernel(triple_kernel))(x)
    np.testing.assert_allclose(np.asarray(y), 3.0 * x, rtol=1e-6)
    # the reverse pass too, with every thread adding into one gradient element (x[0])
    g = jax.jit(jax.grad(lambda x: jax_kernel(read_first)(x)[0].sum()))(x)
    assert float(g[0]) == x.size and not np.any(np.asarray(g)[1:])
    (out,) = jax_kernel(total)(x)
    np.testing.assert_allclose(float(out[0]), x.astype(np.float64).sum(), rtol=1e-4)
    g = jax.jit(jax.grad(lambda x: (jax_kernel(triple_kernel)(x)[0] ** 2).sum()))(x)
    np.testing.assert_allclose(np.asarray(g), 18.0 * x, rtol=1e-5)


def test_jax_kernel_errors():
    # a scalar parameter is a static value (a host-callback call, tests/test_jax_kernel_options.py)
    (y,) = jax_kernel(with_scalar)(jp.arange(4, dtype=jp.float32), 2.0)
    np.testing.assert_allclose(np.asarray(y), 2.0 * np.arange(4))
    with pytest.raises(TypeError, match="expects a @wp.kernel"):
        jax_kernel(lambda x: x)
    jm = jax_kernel(multiarg_kernel)
    with pytest.raises(TypeError, match="pass 1 to 4 inputs"):
        jm(*[jp.zeros(4, dtype=jp.float32)] * 5)
    with pytest.raises(TypeError, match="input 'input': expected float32 data for float32, got int32"):
        jax_kernel(triple_kernel)(jp.zeros(4, dtype=jp.int32))
    with pytest.raises(ValueError, match=r"input 'v'.*got shape \(4, 2\)"):
        jax_kernel(vec_norms)(jp.zeros((4, 2), dtype=jp.float32))
    with pytest.raises(ValueError, match="output 'c' has 2 dimension.*launch has 1"):
        jax_kernel(matmul_kernel, launch_dims=8)(jp.zeros((8, 4), jp.float32), jp.zeros((4, 6), jp.float32))


def test_handler_refuses_a_call_prepared_for_the_other_platform(monkeypatch):
    """Both platforms' handlers take one attribute set; the CPU handler names a CUDA-only one."""
    from warp_interactive.interop import jax_ffi
    attrs = jax_ffi.JaxKernel._attrs
    monkeypatch.setattr(jax_ffi.JaxKernel, "_attrs",
                        lambda self, which, dims: {**attrs(self, which, dims), "entry": np.int64(0)})
    with pytest.raises(Exception, match="prepared for CUDA, not the CPU"):
        jax.block_until_ready(jax_kernel(triple_kernel)(jp.zeros(4, dtype=jp.float32)))


def test_handler_library_has_both_platforms():
    import ctypes
    from warp_interactive.interop import jax_ffi
    lib = ctypes.CDLL(jax_ffi._build_handler(jax.ffi.include_dir()))
    for name in ("WpiKernelCall", "WpiKernelAdjoint", "WpiKernelCallCuda", "WpiKernelAdjointCuda"):
        assert getattr(lib, name)
    assert not jax_ffi._on_cuda()     # this jax runs on the CPU: calls lower for the CPU handler


# --- shard_map: several host devices, then two processes ------------------------------------------
_MULTIPLY = '''
@wp.kernel
def multiply_by_two_kernel(
    a_in: wp.array(dtype=wp.float32),
    a_out: wp.array(dtype=wp.float32),
):
    index = wp.tid()
    a_out[index] = a_in[index] * 2.0

jax_warp_multiply = jax_kernel(multiply_by_two_kernel)

def warp_multiply(x):
    result = jax_warp_multiply(x)
    return result

    # a_in here is the full sharded array with shape (M,)
    # The output will also be a sharded array with shape (M,)
def warp_distributed_operator(a_in):
    def _sharded_operator(a_in):
        # Inside the sharded operator, a_in is a local shard on each device
        # If we have N devices and input size M, each shard has shape (M/N,)

        # warp_multiply applies the Warp kernel to the local shard
        result = warp_multiply(a_in)[0]

        # result has the same shape as the input shard (M/N,)
        return result

    # shard_map distributes the computation across devices
    return shard_map(
        _sharded_operator,
        mesh=jax.sharding.Mesh(np.array(jax.devices()), "x"),
        in_specs=(P("x"),),  # Input is sharded along the 'x' axis
        out_specs=P("x"),    # Output is also sharded along the 'x' axis
        check_rep=False,
    )(a_in)

print_on_process_0("Test distributed multiplication using JAX + Warp")

devices = jax.devices()
mesh = jax.sharding.Mesh(np.array(devices), "x")
sharding_spec = jax.sharding.NamedSharding(mesh, P("x"))

input_size = num_gpus * 5  # 5 elements per device
single_device_arrays = jnp.arange(input_size, dtype=jnp.float32)

# Define the shape of the input array based on the total input size
shape = (input_size,)

# Create a list of arrays by distributing the single_device_arrays across the available devices
# Each device will receive a portion of the input data
arrays = [
    jax.device_put(single_device_arrays[index], d)  # Place each element on the corresponding device
    for d, index in sharding_spec.addressable_devices_indices_map(shape).items()
]

# Combine the individual device arrays into a single sharded array
sharded_array = jax.make_array_from_single_device_arrays(shape, sharding_spec, arrays)

# sharded_array has shape (input_size,) but is distributed across devices
print_on_process_0(f"Input array: {allgather(sharded_array)}")

# warp_result has the same shape and sharding as sharded_array
warp_result = warp_distributed_operator(sharded_array)

# allgather collects results from all devices, resulting in a full array of shape (input_size,)
print_on_process_0("Warp Output:", allgather(warp_result))
report("multiply", allgather(warp_result), np.arange(input_size) * 2.0, warp_result)

# not in the reference: gradients through the sharded Warp kernel
grad = jax.jit(jax.grad(lambda a: (warp_distributed_operator(a) ** 2).sum()))(sharded_array)
report("grad", allgather(grad), 8.0 * np.arange(input_size), grad)
'''

_MATMUL = '''
@wp.kernel
def matmul_kernel(
    a: wp.array2d(dtype=wp.float32),
    b: wp.array2d(dtype=wp.float32),
    c: wp.array2d(dtype=wp.float32),
):
    # a: (M/num_gpus, K), b: (K, N), c: (M/num_gpus, N)
    i, j = wp.tid()
    M = a.shape[0]  # M/num_gpus
    K = a.shape[1]  # K
    N = b.shape[1]  # N
    if i < M and j < N:
        s = wp.float32(0.0)
        for k in range(K):
            s += a[i, k] * b[k, j]
        c[i, j] = s

# Specify launch dimensions based on the number of GPUs
def create_jax_warp_matmul(M, N):
    # M: total rows, N: total columns
    block_size_m = M // num_gpus  # Rows per GPU
    block_size_n = N  # All columns
    return jax_kernel(matmul_kernel, launch_dims=(block_size_m, block_size_n))

def warp_distributed_matmul(a, b):
    # a: (M, K) sharded across GPUs, b: (K, N) replicated
    M, K = a.shape
    _, N = b.shape
    jax_warp_matmul = create_jax_warp_matmul(M, N)

    def _sharded_operator(a_shard, b):
        # a_shard: (M/num_gpus, K), b: (K, N)
        return jax_warp_matmul(a_shard, b)[0]  # Result: (M/num_gpus, N)

    return shard_map(
        _sharded_operator,
        mesh=jax.sharding.Mesh(np.array(jax.devices()), "x"),
        in_specs=(P("x", None), P(None, None)),  # a sharded in first dim, b replicated
        out_specs=P("x", None),  # Output sharded in first dim
        check_rep=False,
    )(a, b)

print_on_process_0("Test distributed matrix multiplication using JAX + Warp")

# Define matrix dimensions
M = 8 * num_gpus  # Scale M with the number of devices
K, N = 4, 6

# Create input matrices
a = jnp.arange(M * K, dtype=jnp.float32).reshape(M, K)  # Shape: (M, K)
b = jnp.arange(K * N, dtype=jnp.float32).reshape(K, N)  # Shape: (K, N)

devices = jax.devices()
mesh = jax.sharding.Mesh(np.array(devices), "x")
sharding_spec_a = jax.sharding.NamedSharding(mesh, P("x", None))
sharding_spec_b = jax.sharding.NamedSharding(mesh, P(None, None))

# Shard matrix A and replicate matrix B
sharded_a = jax.device_put(a, sharding_spec_a)  # Sharded shape: (M/num_gpus, K) per device
replicated_b = jax.device_put(b, sharding_spec_b)  # Replicated shape: (K, N) on all devices

print_on_process_0(f"Input matrix A:\\n{allgather(sharded_a)}")  # Shape: (M, K)
print_on_process_0(f"Input matrix B:\\n{allgather(replicated_b)}")  # Shape: (K, N)

warp_result = warp_distributed_matmul(sharded_a, replicated_b)  # Sharded result: (M/num_gpus, N) per device
print_on_process_0("Warp Output:")
# Use allgather to collect results from all devices
print_on_process_0(allgather(warp_result))  # Shape: (M, N)

jax_result = jnp.matmul(a, b)  # Shape: (M, N)
print_on_process_0("JAX Output:")
print_on_process_0(jax_result)

expected_shape = (M, N)
print_on_process_0(f"Expected shape: {expected_shape}")
print_on_process_0(f"Warp output shape: {warp_result.shape}")  # Should be (M/num_gpus, N) on each device
print_on_process_0(f"JAX output shape: {jax_result.shape}")  # Should be (M, N)

allclose = jnp.allclose(allgather(warp_result), jax_result, atol=1e-5)
print_on_process_0(f"Allclose: {allclose}")
report("matmul", allgather(warp_result), np.asarray(jax_result), warp_result)
'''

# The examples' preamble. Differences from the reference text, each forced by the setting:
# warp_interactive's import names; jax.distributed.initialize() gets loopback arguments (there
# is no MPI/SLURM cluster to discover); CPU collectives use gloo; across processes JAX 0.10's
# process_allgather needs tiled=True for arrays that are not fully addressable.
_PREAMBLE = '''
import os
import functools
import warp_interactive as wp
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
from jax.experimental.multihost_utils import process_allgather
from jax.experimental.shard_map import shard_map
from warp_interactive.jax_experimental import jax_kernel
import numpy as np

allgather = functools.partial(process_allgather, tiled=True)

# Initialize JAX distributed environment
jax.config.update("jax_cpu_collectives_implementation", "gloo")
jax.distributed.initialize(coordinator_address=os.environ["WPI_COORD"],
                           num_processes=int(os.environ["WPI_NPROC"]),
                           process_id=int(os.environ["WPI_PID"]))
num_gpus = jax.device_count()

def print_on_process_0(*args, **kwargs):
    if jax.process_index() == 0:
        print(*args, **kwargs)

print_on_process_0(f"Running on {num_gpus} GPU(s)")

def report(name, gathered, expected, result):
    # what this process computed itself: its addressable shards, checked against the expected
    for shard in result.addressable_shards:
        np.testing.assert_allclose(np.asarray(shard.data), expected[shard.index], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gathered), expected, rtol=1e-6)
    print(f"OK {name} process {jax.process_index()} devices {jax.local_device_count()} "
          f"of {jax.device_count()} shards {len(result.addressable_shards)}", flush=True)
'''


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_processes(tmp_path, nproc, devices_per_process):
    script = tmp_path / "sharded_example.py"
    script.write_text(_PREAMBLE + _MULTIPLY + _MATMUL)
    env = dict(os.environ)
    env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices_per_process}"
    env["WPI_COORD"] = f"127.0.0.1:{_free_port()}"
    env["WPI_NPROC"] = str(nproc)
    env["JAX_PLATFORMS"] = "cpu"
    procs = []
    for pid in range(nproc):
        procs.append(subprocess.Popen([sys.executable, str(script)], env=dict(env, WPI_PID=str(pid)),
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    outs = []
    for p in procs:
        try:
            out, _ = p.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
        outs.append(out)
        assert p.returncode == 0, out
    return outs


def test_shard_map_examples_on_4_host_devices(tmp_path):
    (out,) = _run_processes(tmp_path, 1, 4)
    assert "Running on 4 GPU(s)" in out
    assert "OK multiply process 0 devices 4 of 4 shards 4" in out
    assert "OK grad process 0 devices 4 of 4 shards 4" in out
    assert "OK matmul process 0 devices 4 of 4 shards 4" in out
    assert "Allclose: True" in out


def test_shard_map_examples_two_processes_distributed(tmp_path):
    outs = _run_processes(tmp_path, 2, 2)
    for pid, out in enumerate(outs):
        assert f"OK multiply process {pid} devices 2 of 4 shards 2" in out, out
        assert f"OK grad process {pid} devices 2 of 4 shards 2" in out, out
        assert f"OK matmul process {pid} devices 2 of 4 shards 2" in out, out
    assert "Allclose: True" in outs[0]


def test_jax_kernel_of_a_redefined_kernel_keeps_its_code():
    def make(scale):
        @wp.kernel(module="wpi_test_interop_jax_redefined")
        def redefined(x: wp.array(dtype=float), y: wp.array(dtype=float)):
            i = wp.tid()
            y[i] = x[i] * scale
        return redefined

    old = jax_kernel(make(2.0))
    new = jax_kernel(make(3.0))
    x = jp.ones(3, dtype=jp.float32)
    np.testing.assert_array_equal(np.asarray(old(x)[0]), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(np.asarray(new(x)[0]), [3.0, 3.0, 3.0])


# --- gradients: the kernel's generated adjoint is jax_kernel's VJP rule ---------------------------
@wp.kernel
def sin_times_x(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.sin(x[i]) * x[i]


@wp.kernel
def scale_by_index(x: wp.array(dtype=float), idx: wp.array(dtype=wp.int32), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * float(idx[i])


def test_jax_grad_matches_jax_autodiff():
    f = jax_kernel(sin_times_x)
    x = jp.linspace(-2.0, 2.0, 33, dtype=jp.float32)
    g = jax.jit(jax.grad(lambda x: (f(x)[0] ** 2).sum()))(x)
    ref = jax.grad(lambda x: ((jp.sin(x) * x) ** 2).sum())(x)
    np.testing.assert_allclose(np.asarray(g), np.asarray(ref), rtol=1e-5, atol=1e-6)


def test_jax_grad_several_inputs_and_outputs():
    jm = jax_kernel(multiarg_kernel)

    def loss(a, b, c):
        ab, bc = jm(a, b, c)
        return (2.0 * ab + bc ** 2).sum()

    a, b, c = jp.ones(4), jp.full(4, 2.0), jp.full(4, 3.0)
    ga, gb, gc = jax.jit(jax.grad(loss, argnums=(0, 1, 2)))(a, b, c)
    np.testing.assert_allclose(np.asarray(ga), 2.0)
    np.testing.assert_allclose(np.asarray(gb), 2.0 + 2.0 * (2.0 + 3.0))
    np.testing.assert_allclose(np.asarray(gc), 2.0 * (2.0 + 3.0))


def test_jax_grad_vector_types_and_integer_inputs():
    v = jp.asarray(np.random.default_rng(0).random((6, 3), dtype=np.float32))
    gv = jax.grad(lambda v: jax_kernel(vec_norms)(v)[1].sum())(v)
    np.testing.assert_allclose(np.asarray(gv), np.asarray(v / jp.linalg.norm(v, axis=1, keepdims=True)),
                               rtol=1e-5)
    k = jax_kernel(scale_by_index)
    x = jp.ones(5)
    idx = jp.arange(5, dtype=jp.int32)
    gx = jax.grad(lambda x: k(x, idx)[0].sum())(x)
    np.testing.assert_allclose(np.asarray(gx), np.arange(5))
    # an integer input's cotangent is float0, as JAX requires
    _, vjp = jax.vjp(lambda x, i: k(x, i)[0], x, idx)
    gx2, gi = vjp(jp.ones(5))
    assert gi.dtype == jax.dtypes.float0 and gi.shape == (5,)
    np.testing.assert_allclose(np.asarray(gx2), np.arange(5))
