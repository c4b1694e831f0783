"""Without the CUDA extra, a driver or a GPU the package runs on the CPU, and asking for "cuda"
says which of the three is missing."""

import subprocess
import sys

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.runtime import cuda_backend, device as device_mod


@pytest.fixture
def fresh_probe(monkeypatch):
    """A probe that runs again under the test's monkeypatches, then the real state back."""
    saved = dict(cuda_backend._state)
    cuda_backend.reset_probe()
    yield monkeypatch
    monkeypatch.undo()
    cuda_backend._state.update(saved)


def _cuda_error():
    with pytest.raises(RuntimeError) as e:
        wp.get_device("cuda")
    return str(e.value)


@pytest.mark.parametrize("case, expected", [
    ("extra", "the CUDA extra is not installed (pip install warp_interactive[cuda]"),
    ("driver", "no NVIDIA driver was found (libcuda.so.1 could not be loaded: not here)"),
    ("device", "the NVIDIA driver found no CUDA device"),
    ("broken", "the CUDA driver failed to initialise: cuInit failed with CUDA_ERROR_UNKNOWN"),
])
def test_each_missing_piece_is_named(fresh_probe, case, expected):
    mp = fresh_probe
    mp.setattr(device_mod, "_devices", {"cpu": device_mod.cpu})   # as if no GPU were registered
    mp.setattr(cuda_backend, "_bindings_installed", lambda: case != "extra")
    mp.setattr(cuda_backend, "_load_driver_library",
               lambda: "libcuda.so.1 could not be loaded: not here" if case == "driver" else None)

    def discover():
        if case == "broken":
            raise RuntimeError("cuInit failed with CUDA_ERROR_UNKNOWN")
        return []
    mp.setattr(cuda_backend, "_discover", discover)
    msg = _cuda_error()
    assert msg.startswith('device "cuda" is not available: ')
    assert expected in msg
    with pytest.raises(RuntimeError, match="is not available"):
        wp.zeros(3, device="cuda:0")
    assert wp.get_cuda_device_count() == 0


def test_this_machine_says_why_or_has_devices():
    reason = cuda_backend.probe()
    if wp.is_cuda_available():
        assert reason is None and wp.get_device("cuda").is_cuda
        with pytest.raises(RuntimeError, match='"cuda:99" is not available'):
            wp.get_device("cuda:99")
        return
    known = [cuda_backend.EXTRA_MISSING, "no NVIDIA driver was found", cuda_backend.NO_DEVICE,
             "the CUDA driver failed to initialise"]
    assert any(k in reason for k in known), reason
    assert reason in _cuda_error()
    assert wp.get_device() == "cpu" and wp.get_preferred_device() == "cpu"
    with pytest.raises(RuntimeError, match='"cuda:0" is not available'):
        wp.get_cuda_device()
    assert [str(d) for d in wp.get_devices()] == ["cpu"]


def test_bad_device_names():
    with pytest.raises(ValueError, match="unknown device 'gpu'"):
        wp.get_device("gpu")
    with pytest.raises(ValueError, match="unknown device 'cudax'"):
        wp.get_device("cudax")


def test_cpu_streams_and_events_exist_without_a_gpu():
    """Unlike warp-lang's, the CPU has streams and events (tests/runtime/test_cpu_streams.py)."""
    assert wp.Stream("cpu").device == "cpu"
    assert wp.Event("cpu").device == "cpu"
    assert wp.get_stream("cpu").device == "cpu"


def test_cpu_arrays_have_no_cuda_interface():
    a = wp.zeros(3, dtype=float, device="cpu")
    assert not hasattr(a, "__cuda_array_interface__")
    assert hasattr(a, "__array_interface__")


@pytest.mark.parametrize("dtype", [wp.float32, wp.vec3, wp.int64])
def test_pinned_host_arrays(dtype):
    """Page-locked when CUDA is there, ordinary host memory otherwise; same values either way."""
    a = wp.zeros(5, dtype=dtype, device="cpu", pinned=True)
    assert a.device == "cpu" and a.pinned
    ref = np.arange(5 * (3 if dtype is wp.vec3 else 1)).reshape(a.numpy().shape)
    b = wp.array(ref, dtype=dtype, device="cpu", pinned=True)
    np.testing.assert_array_equal(b.numpy(), ref)
    np.testing.assert_array_equal(a.numpy(), 0)


def test_import_does_not_load_cuda_bindings():
    code = ("import sys, warp_interactive as wp; a = wp.zeros(2, device='cpu'); "
            "print('cuda.bindings' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_default_device_follows_the_reference(monkeypatch):
    monkeypatch.setattr(device_mod, "_default", [])   # conftest pins the CPU for the suite
    monkeypatch.setattr(device_mod._local, "device", None, raising=False)  # and no set_device()
    expected = "cuda:0" if wp.is_cuda_available() else "cpu"
    assert str(wp.get_device()) == expected
    assert device_mod.get_preferred_device() == expected


def test_old_driver_is_named():
    cuda_bindings = pytest.importorskip("cuda.bindings", reason="the CUDA extra is not installed")
    from warp_interactive.runtime.cuda.context import check_driver_version
    from warp_interactive.errors import CudaError
    major = int(cuda_bindings.__version__.split(".")[0])
    check_driver_version(major * 1000 + 20)                  # same major: fine
    with pytest.raises(CudaError, match=rf"supports CUDA {major - 1}\.4, older than cuda-bindings"):
        check_driver_version((major - 1) * 1000 + 40)
