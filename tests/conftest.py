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


DEVICES = ["cpu"] + (["cuda:0"] if cuda_available() else [])


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param
