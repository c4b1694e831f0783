"""NVRTC compiles under ``wp.config.compile_timeout`` ("compiles have a timeout
(configurable) with a clear error"): they run in a worker process that is stopped past the
timeout (compiler/nvrtc_worker.py). A compile that hangs is stood for by a worker command that
never answers (the module's test hook); the real NVRTC gives the same bytes in the worker as in
this process."""

import sys
import time

import pytest

pytest.importorskip("cuda.bindings.nvrtc", reason='the CUDA extra is not installed (pip install -e ".[cuda]": cuda-bindings and the NVRTC wheel)')

import warp_interactive as wp  # noqa: E402
from warp_interactive.codegen.target import CUDA  # noqa: E402
from warp_interactive.compiler import nvrtc, nvrtc_worker  # noqa: E402
from warp_interactive.errors import CompileError  # noqa: E402
from warp_interactive.runtime.module import get_module  # noqa: E402

MOD = "nvrtc_timeout_tests"


@wp.kernel(module=MOD)
def loops(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for k in range(n):
        s = s + wp.sin(float(k))
    a[i] = s


def _source():
    return get_module(MOD).source(CUDA, True)


@pytest.fixture
def timeout():
    saved = wp.config.compile_timeout
    yield
    wp.config.compile_timeout = saved


@pytest.fixture
def hung_worker(monkeypatch):
    """Workers that read nothing and never answer, as a compile that hangs."""
    started = []

    def command():
        started.append(time.monotonic())
        return [sys.executable, "-c", "import time; time.sleep(3600)"]
    monkeypatch.setattr(nvrtc_worker, "worker_command", command)
    nvrtc_worker.shutdown()
    yield started
    nvrtc_worker.shutdown()


@pytest.mark.parametrize("limit", [0.5, 2])
def test_a_hung_compile_is_stopped_with_a_clear_error(timeout, hung_worker, limit):
    wp.config.compile_timeout = limit
    with pytest.raises(CompileError) as e:
        nvrtc.compile_source(_source(), 90, name="my_module")
    msg = str(e.value)
    assert f"module 'my_module' did not finish within {limit} s" in msg
    assert "wp.config.compile_timeout" in msg
    # the hung worker was killed: the next compile starts another one
    with pytest.raises(CompileError):
        nvrtc.compile_source(_source(), 90, name="my_module")
    assert len(hung_worker) == 2


def test_a_dead_worker_is_a_clear_error(timeout, monkeypatch):
    monkeypatch.setattr(nvrtc_worker, "worker_command",
                        lambda: [sys.executable, "-c", "import os; os._exit(3)"])
    nvrtc_worker.shutdown()
    wp.config.compile_timeout = 30
    try:
        with pytest.raises(CompileError, match="module 'dies'.*worker process ended"):
            nvrtc.compile_source(_source(), 90, name="dies")
    finally:
        nvrtc_worker.shutdown()


@pytest.mark.parametrize("limit", [None, 600])
def test_worker_and_in_process_builds_agree(timeout, limit):
    """With a timeout the compile runs in the worker, without one in this process: the same
    CUBIN, and the same errors."""
    wp.config.compile_timeout = limit
    src = _source()
    cubin = nvrtc.compile_source(src, 90, name=MOD)
    wp.config.compile_timeout = None
    assert cubin == nvrtc.compile_source(src, 90, name=MOD)
    wp.config.compile_timeout = limit
    broken = src.replace("wp::sin(", "wp::no_such_function(")   # every copy of the loop body
    with pytest.raises(CompileError, match=r"CUDA compilation \(NVRTC\) of module 'mod' failed"):
        nvrtc.compile_source(broken, 90, name="mod")


def test_a_worker_that_cannot_start_is_a_clear_error(timeout, monkeypatch, tmp_path):
    monkeypatch.setattr(nvrtc_worker, "worker_command", lambda: [str(tmp_path / "no-such-python")])
    nvrtc_worker.shutdown()
    wp.config.compile_timeout = 30
    with pytest.raises(CompileError, match="module 'nostart'.*could not start the NVRTC worker.*"
                                           r"compile_timeout = None"):
        nvrtc.compile_source(_source(), 90, name="nostart")
