"""Test session set-up: one fresh kernel cache per test session (shared by xdist workers when
scripts/test.sh sets WARP_INTERACTIVE_CACHE_DIR), tests/support/ on the import path, and the
`device` fixture shared by the test folders."""

import os
import sys
import tempfile

import pytest

# the helpers shared by the test folders (tests/support/) import by their plain names
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))

if not os.environ.get("WARP_INTERACTIVE_CACHE_DIR"):
    os.environ["WARP_INTERACTIVE_CACHE_DIR"] = tempfile.mkdtemp(prefix="wpi-test-cache-")

import warp_interactive as wp  # noqa: E402

wp.config.kernel_cache_dir = os.environ["WARP_INTERACTIVE_CACHE_DIR"]


def _install_fake_gpu():
    """WARP_INTERACTIVE_FAKE_CUDA=1: the whole session sees the stand-in GPU of cuda_fake.py as
    cuda:0 (and as the default device), rehearsing a GPU machine's run: GPU-only tests run, and
    tests that assume host memory for the default device show up."""
    from cuda_fake import install
    install(setattr)


if os.environ.get("WARP_INTERACTIVE_FAKE_CUDA") == "1":
    _install_fake_gpu()

# Tests that name no device run on the CPU on every machine (a GPU machine's default would be
# cuda:0, as in the reference); GPU coverage comes from the `device` fixture's parameters.
from warp_interactive.runtime import device as _device_mod  # noqa: E402
_device_mod._default[:] = [_device_mod.cpu]


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
    """The device under test, also made the default device (the reference's examples create
    some arrays without device=, meaning the default device)."""
    with wp.ScopedDevice(request.param):
        yield request.param


@pytest.fixture(autouse=True)
def _background_builds_finished():
    """After each test, its background optimised builds (the quick tier, build/quick_tier.py)
    have finished: one running into the next test holds this process's shared cache lock while
    it publishes (deferring a cache collection that test asks for), competes for the cores, and
    bumps the launch epoch at an arbitrary point of that test."""
    yield
    from warp_interactive.build import quick_tier
    quick_tier.wait()
