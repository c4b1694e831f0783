"""``wp.DeterministicMode`` (warp-lang 1.19): ``wp.config.deterministic`` and the module option
``deterministic``. Any mode but NOT_GUARANTEED runs a CPU launch on one thread in index order,
so a float ``atomic_add`` reduction equals the sequential sum (NumPy's cumulative sum) on every
run; CUDA launches refuse it with a clear error (tested with the fake driver elsewhere: here the
message)."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def reduce_sum(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, x[i])


@wp.kernel(module="unique", module_options={"deterministic": wp.DeterministicMode.RUN_TO_RUN})
def reduce_sum_det(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, x[i])


X = (np.random.default_rng(0).standard_normal(300_000) * 1e3).astype(np.float32)
SEQUENTIAL = np.cumsum(X, dtype=np.float32)[-1]     # float32 additions in index order


def total(kernel, x):
    out = wp.zeros(1, dtype=float)
    wp.launch(kernel, dim=x.shape[0], inputs=[x, out])
    return out.numpy()[0]


@pytest.fixture
def deterministic():
    saved = wp.config.deterministic
    yield
    wp.config.deterministic = saved


@pytest.mark.parametrize("mode", [wp.DeterministicMode.RUN_TO_RUN, wp.DeterministicMode.GPU_TO_GPU, 1])
def test_config_mode_gives_the_sequential_sum_every_run(deterministic, mode):
    x = wp.array(X, dtype=float)
    total(reduce_sum, x)                # a fast plan exists before the switch: it must step aside
    wp.config.deterministic = mode
    assert wp.config.deterministic == int(mode)
    assert {total(reduce_sum, x) for _ in range(4)} == {SEQUENTIAL}


def test_module_option_gives_the_sequential_sum():
    x = wp.array(X, dtype=float)
    assert reduce_sum_det.module.option("deterministic") == wp.DeterministicMode.RUN_TO_RUN
    assert {total(reduce_sum_det, x) for _ in range(4)} == {SEQUENTIAL}


def test_default_is_not_guaranteed():
    assert wp.config.deterministic == wp.DeterministicMode.NOT_GUARANTEED == 0
    assert [m.name for m in wp.DeterministicMode] == ["NOT_GUARANTEED", "RUN_TO_RUN", "GPU_TO_GPU"]


@pytest.mark.parametrize("bad", [3, -1, "fast", None])
def test_bad_modes_are_refused(deterministic, bad):
    with pytest.raises(ValueError, match="deterministic must be a wp.DeterministicMode"):
        wp.config.deterministic = bad


def test_cuda_launches_refuse_a_deterministic_mode():
    # the decision a CUDA launch takes first (the GPU's launcher): no GPU needed to check it
    from types import SimpleNamespace
    from warp_interactive.runtime.cuda.modules import launcher as cuda_launcher
    from warp_interactive.runtime.launchers import deterministic_threads
    gpu = SimpleNamespace(launcher=cuda_launcher)
    with pytest.raises(wp.WarpDeterminismError, match="deterministic=RUN_TO_RUN is not supported on CUDA"):
        deterministic_threads(reduce_sum_det, gpu)
    assert deterministic_threads(reduce_sum, gpu) is None
    assert deterministic_threads(reduce_sum_det, wp.get_device("cpu")) == 1
