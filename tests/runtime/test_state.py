"""The process-wide state's owner (warp_interactive/state.py) and the per-device memory backends
(runtime/memory.py): redefinitions, snapshots and restores of @wp.funcs as the notebook's hot
reload uses them, checked by what kernels compute (NumPy reference)."""

import linecache

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.runtime.memory import CpuMemory
from warp_interactive.state import state

MOD = "wpi_test_state"


def _scale_kernel():
    @wp.kernel(module=MOD)
    def apply(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = state_fn(x[i])
    return apply


def _define(body_factor):
    text = f"def state_fn(v: float) -> float:\n    return v * {body_factor}.0\n"
    filename = f"<wpi test_state {body_factor}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    src = {"wp": wp}
    exec(compile(text, filename, "exec"), src)
    src["state_fn"].__module__ = MOD
    return wp.func(src["state_fn"])


def _run(kernel, x):
    y = wp.zeros(len(x), dtype=float, device="cpu")
    wp.launch(kernel, dim=len(x), inputs=[wp.array(x, dtype=float, device="cpu"), y], device="cpu")
    return y.numpy()


@pytest.fixture
def redefinable():
    global state_fn
    state_fn = _define(2)
    yield
    state.functions.pop((MOD, "state_fn"), None)


def test_redefine_snapshot_restore(redefinable):
    x = np.arange(4, dtype=np.float32)
    kernel = _scale_kernel()
    np.testing.assert_array_equal(_run(kernel, x), x * 2)
    generation = state.generation[0]
    snap = state.snapshot([(MOD, "state_fn"), (MOD, "not_defined_yet")])
    assert snap.missing == [(MOD, "not_defined_yet")]
    again = _define(3)                       # same signature: replaces the definition
    assert again is state.functions[(MOD, "state_fn")]
    assert state.generation[0] > generation
    np.testing.assert_array_equal(_run(kernel, x), x * 3)
    state.functions[(MOD, "not_defined_yet")] = again   # as if the cell had defined it
    state.restore(snap)
    assert (MOD, "not_defined_yet") not in state.functions
    np.testing.assert_array_equal(_run(kernel, x), x * 2)


def test_each_device_has_one_memory_backend():
    cpu = wp.get_device("cpu")
    assert isinstance(cpu.memory, CpuMemory) and cpu.memory is cpu.memory
    a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), device="cpu")
    b = wp.zeros((2, 3), dtype=float, device="cpu")
    wp.copy(b, a)
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    b.fill_(4.0)
    np.testing.assert_array_equal(b.numpy(), np.full((2, 3), 4.0))


def test_unregistered_hook_says_what_is_missing():
    from warp_interactive import hooks
    with pytest.raises(RuntimeError, match="a @ b needs the runtime"):
        hooks._missing("a @ b")()
    with pytest.raises(RuntimeError, match="no HTML view for 'nothing'"):
        hooks.html_view("nothing", None)
