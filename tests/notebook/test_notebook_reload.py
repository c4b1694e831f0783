"""Precise invalidation without a notebook: redefining a @wp.func rebuilds exactly the modules
whose kernels reach it (directly or through other functions), and nothing else."""

import numpy as np

import warp_interactive as wp
from warp_interactive.state import state as rt_module


def rebuilt_since(mark):
    return sorted({b.module for b in rt_module.build_log[mark:]})


def test_redefinition_rebuilds_only_modules_that_reach_the_function():
    @wp.func
    def rl_leaf(v: float):
        return v + 1.0

    @wp.func
    def rl_mid(v: float):
        return rl_leaf(v) * 2.0

    @wp.kernel(module="rl_direct")
    def k_direct(y: wp.array(dtype=float)):
        y[wp.tid()] = rl_leaf(0.0)

    @wp.kernel(module="rl_indirect")
    def k_indirect(y: wp.array(dtype=float)):
        y[wp.tid()] = rl_mid(0.0)

    @wp.kernel(module="rl_unrelated")
    def k_unrelated(y: wp.array(dtype=float)):
        y[wp.tid()] = 7.0

    out = {k: wp.zeros(2) for k in ("d", "i", "u")}

    def run_all():
        wp.launch(k_direct, 2, inputs=[out["d"]])
        wp.launch(k_indirect, 2, inputs=[out["i"]])
        wp.launch(k_unrelated, 2, inputs=[out["u"]])
        return [float(out[k].numpy()[0]) for k in ("d", "i", "u")]

    assert run_all() == [1.0, 2.0, 7.0]
    mark = len(rt_module.build_log)
    assert run_all() == [1.0, 2.0, 7.0] and rebuilt_since(mark) == []

    @wp.func
    def rl_leaf(v: float):  # noqa: F811  (the redefinition is the point)
        return v + 10.0

    mark = len(rt_module.build_log)
    assert run_all() == [10.0, 20.0, 7.0]
    assert rebuilt_since(mark) == ["rl_direct", "rl_indirect"]

    @wp.func
    def rl_mid(v: float):  # noqa: F811
        return rl_leaf(v) * 3.0

    mark = len(rt_module.build_log)
    assert run_all() == [10.0, 30.0, 7.0]
    assert rebuilt_since(mark) == ["rl_indirect"]


def test_function_versions_and_dependency_records():
    @wp.func
    def rl_v(v: float):
        return v

    first = rl_v.version

    @wp.kernel(module="rl_versions")
    def k(y: wp.array(dtype=float)):
        y[wp.tid()] = rl_v(3.0)

    y = wp.zeros(1)
    wp.launch(k, 1, inputs=[y])
    assert k.module.deps == {rl_v: first}

    @wp.func
    def rl_v(v: float):  # noqa: F811
        return v * v

    assert rl_v.version > first
    wp.launch(k, 1, inputs=[y])
    np.testing.assert_allclose(y.numpy(), [9.0])
    assert k.module.deps == {rl_v: rl_v.version}
