"""The GPU tests of test_cuda_runtime.py and test_cuda_graphs.py, and the device-parametrised
reference examples of test_spec_examples.py, run against a stand-in driver (tests/support/cuda_fake.py:
host memory, kernels run through their CPU build, real NVRTC CUBINs), so the CUDA runtime's
Python side is exercised on every CI run, GPU or not."""

import pytest

# the stand-in replaces the driver only: the rest of cuda-bindings (and NVRTC) must be there
pytest.importorskip("cuda.bindings.nvrtc", reason='the CUDA extra is not installed (pip install -e ".[cuda]": cuda-bindings and the NVRTC wheel)')

import warp_interactive as wp

from cuda_fake import FakeDriver, stand_in
# the same test functions, collected here again with the fake device
from tests.cuda_backend.test_cuda_graphs import (test_capture_defers_then_replays, test_reading_inside_a_capture_is_an_error,  # noqa: F401
                              test_scoped_capture_keeps_copies_and_fills_in_order,
                              test_tape_forward_and_backward_captured)
from tests.cuda_backend.test_cuda_runtime import (test_allocating_during_a_capture_is_a_clear_error,  # noqa: F401
                               test_cuda_array_interface_both_ways, test_device_properties,
                               test_fill_zero_full_ones, test_multidimensional_launch,
                               test_partial_copies_with_offsets, test_pinned_array_copies,
                               test_round_trips, test_saxpy_matches_numpy_including_grid_stride,
                               test_set_device_and_scoped_device, test_streams_events_and_timing,
                               test_strided_views_read_and_write, test_verify_cuda_and_autodiff_on_gpu,
                               test_wrong_device_is_an_error)

import tests.compat.test_spec_datatypes as _datatypes  # noqa: E402
import tests.compat.test_spec_examples as _spec  # noqa: E402


def _takes_device(fn):
    code = getattr(fn, "__code__", None)
    return code is not None and "device" in code.co_varnames[:code.co_argcount]


# the reference's examples that take a device, on the stand-in GPU
for _mod in (_spec, _datatypes):
    for _name, _fn in list(vars(_mod).items()):
        if _name.startswith("test_") and _takes_device(_fn):
            globals()[_name] = _fn


@pytest.fixture(autouse=True)
def fake_cuda(monkeypatch):
    if wp.is_cuda_available():
        pytest.skip("a real GPU is here: test_cuda_runtime.py runs on it instead")
    yield from stand_in(monkeypatch)


@pytest.fixture
def device():
    return "cuda:0"


def test_launches_use_the_configured_grid(fake_cuda):
    import numpy as np
    from tests.cuda_backend.test_cuda_runtime import saxpy
    x = wp.array(np.ones(1000, dtype=np.float32), device="cuda")
    y = wp.zeros(1000, dtype=float, device="cuda")
    wp.launch(saxpy, dim=1000, inputs=[x, y, 1.0], device="cuda")
    wp.launch(saxpy, dim=1000, inputs=[x, y, 1.0], device="cuda", block_dim=64, max_blocks=3)
    (name1, grid1, block1, _), (name2, grid2, block2, _) = fake_cuda.launches[-2:]
    assert name1 == f"{saxpy.ir.name}_cuda_forward"
    assert (grid1, block1) == (4, 256) and (grid2, block2) == (3, 64)
    np.testing.assert_array_equal(y.numpy(), 2.0)


def test_device_error_record_reads_like_the_cpu_message():
    """The CUDA debug-mode record is formatted into the CPU's exact message."""
    import ctypes
    import numpy as np
    from tests.cuda_backend.test_cuda_runtime import read_at
    from warp_interactive.runtime.cuda.modules import _ErrorRecord, format_error
    wp.set_module_options({"mode": "debug"}, read_at.module.name)
    try:
        a = wp.zeros(4, dtype=float, device="cpu")
        out = wp.zeros(1, dtype=float, device="cpu")
        with pytest.raises(wp.LaunchError) as e:
            wp.launch(read_at, dim=1, inputs=[a, 10, out], device="cpu")
    finally:
        wp.set_module_options({"mode": "release"}, read_at.module.name)
    rec = _ErrorRecord(set=1, n=1, ndim=1, array=b"a", kernel=b"read_at")
    rec.line = int(str(e.value).split("(line ")[1].split(")")[0])
    rec.idx[0], rec.shape[0] = 10, 4
    assert format_error(rec) == str(e.value)
    assert ctypes.sizeof(_ErrorRecord) == 16 + 32 + 16 + 64 + 128    # core/core.h's wpi_cuda_error_record_t
    assert np.all(out.numpy() == 0)


def _real_signature(fn):
    """Parameter names from a cuda-bindings docstring's first line: 'cuX(a, int b, c)'."""
    head = fn.__doc__.strip().split("\n", 1)[0]
    inner = head[head.index("(") + 1:head.rindex(")")].strip()
    return [p.split()[-1].lstrip("*") for p in inner.split(",")] if inner else []


def _driver_calls_in_package():
    """Every cu* driver function the package's CUDA runtime calls."""
    import pathlib
    import re
    import warp_interactive.runtime.cuda as pkg
    names = set()
    for path in pathlib.Path(pkg.__file__).parent.glob("*.py"):
        names |= set(re.findall(r"\b(cu[A-Z]\w+)\b", path.read_text()))
    return sorted(names)


def test_stand_in_matches_the_real_bindings():
    """The calls the runtime makes exist in cuda-bindings with the arity the stand-in has, and
    every enum member used is real: what the stand-in proves holds for the real driver API."""
    import inspect
    from cuda.bindings import driver as real
    calls = _driver_calls_in_package()
    assert "cuLaunchKernel" in calls and "cuMemAllocAsync" in calls
    fake = FakeDriver()
    for name in calls:
        assert hasattr(real, name), name
        if not hasattr(fake, name):
            continue
        fake_params = list(inspect.signature(getattr(fake, name)).parameters)
        assert len(_real_signature(getattr(real, name))) == len(fake_params), name
    for enum_name, members in [
            ("CUdevice_attribute", vars(fake.CUdevice_attribute)),
            ("CUstream_flags", vars(fake.CUstream_flags)), ("CUevent_flags", vars(fake.CUevent_flags)),
            ("CUstreamCaptureMode", vars(fake.CUstreamCaptureMode)),
            ("CUstreamCaptureStatus", vars(fake.CUstreamCaptureStatus)),
            ("CUgraphInstantiate_flags", vars(fake.CUgraphInstantiate_flags)),
            ("CUpointer_attribute", {"CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL": 0}),
            ("CUresult", {"CUDA_ERROR_NO_DEVICE": 0, "CUDA_SUCCESS": 0})]:
        for member in members:
            assert hasattr(getattr(real, enum_name), member), f"{enum_name}.{member}"


def test_pinned_memory_in_a_thread_with_no_current_context(fake_cuda):
    """Page-locked host memory needs a current context; a CPU array made before any GPU work
    has none (on a real H200 this raised CUDA_ERROR_INVALID_CONTEXT)."""
    import numpy as np
    fake_cuda.current = 0
    a = wp.array(np.arange(6, dtype=np.float32), device="cpu", pinned=True)
    b = wp.zeros(6, dtype=float, device="cpu", pinned=True)
    np.testing.assert_array_equal(a.numpy(), np.arange(6))
    np.testing.assert_array_equal(b.numpy(), 0)
    assert fake_cuda.current == 0        # the caller's (absent) context is left as it was
    del a, b
