"""Test session set-up: one fresh kernel cache per test session (shared by xdist workers when
scripts/test.sh sets WARP_INTERACTIVE_CACHE_DIR), and helpers shared by the test files."""

import os
import tempfile

import pytest

if not os.environ.get("WARP_INTERACTIVE_CACHE_DIR"):
    os.environ["WARP_INTERACTIVE_CACHE_DIR"] = tempfile.mkdtemp(prefix="wpi-test-cache-")

import warp_interactive as wp  # noqa: E402

wp.config.kernel_cache_dir = os.environ["WARP_INTERACTIVE_CACHE_DIR"]


def cuda_available():
    return wp.get_cuda_device_count() > 0


def cuda_unavailable_reason():
    from warp_interactive.runtime import cuda_backend
    return cuda_backend.probe() or "no CUDA device"


# every device-parametrised test also runs on the first GPU; without one it is skipped, saying why
requires_cuda = pytest.mark.skipif(not cuda_available(), reason="CUDA is not available here")
DEVICES = ["cpu", pytest.param("cuda:0", marks=requires_cuda)]


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param
