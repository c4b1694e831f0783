"""The per-kernel launch plan (runtime/fastlaunch.py) and the unit-stride entry loop: repeated
launches with changing values give NumPy's results, and everything the plan does not take falls
back to the general path with its error messages."""

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.runtime.fastlaunch import plan_of
from warp_interactive.runtime import launch_state


@wp.kernel
def axpb(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float, b: int, v: wp.vec3,
         flag: bool):
    i = wp.tid()
    s = float(0.0)
    if flag:
        s = v[1]
    y[i] = a * x[i] + float(b) + s


@wp.kernel
def scale_f64(x: wp.array(dtype=wp.float64), k: wp.float64, n: wp.int8):
    i = wp.tid()
    x[i] = x[i] * k + wp.float64(n)


@wp.kernel
def noop(x: wp.array(dtype=float)):
    i = wp.tid()


def _run(x, y, a, b, v, flag):
    wp.launch(axpb, dim=len(x), inputs=[x, y, a, b, v, flag])
    return y.numpy()


def test_repeated_launches_follow_changing_values():
    rng = np.random.default_rng(1)
    xs = rng.standard_normal(1000).astype(np.float32)
    x = wp.array(xs)
    y = wp.zeros(1000, dtype=float)
    cases = [(2.0, 3, wp.vec3(1.0, 2.0, 3.0), True), (-0.5, -7, wp.vec3(0.0, 5.0, 0.0), True),
             (1.5, 0, (1.0, 9.0, 1.0), False), (np.float32(3.0), np.int32(4), [0, 1, 2], True)]
    for _ in range(2):
        for a, b, v, flag in cases:
            got = _run(x, y, a, b, v, flag)
            s = float(np.asarray(v, dtype=np.float32)[1]) if flag else 0.0
            np.testing.assert_allclose(got, np.float32(a) * xs + np.float32(b) + np.float32(s),
                                       rtol=1e-6, atol=1e-6)
    assert plan_of(axpb) is not None   # the warm path was built and used


def test_other_scalar_types_and_dims():
    xs = np.arange(17, dtype=np.float64)
    x = wp.array(xs.copy(), dtype=wp.float64)
    for k, n, dim in [(2.0, 1, 17), (0.5, -3, 17), (3.0, 2, 5), (1.0, 0, 0)]:
        before = x.numpy().copy()
        wp.launch(scale_f64, dim=dim, inputs=[x, k, n])
        want = before.copy()
        want[:dim] = before[:dim] * k + n
        np.testing.assert_array_equal(x.numpy(), want)


def test_strided_views_take_the_general_loop():
    base = np.arange(40, dtype=np.float32)
    xv = wp.array(base.copy())[::2]          # stride 8 bytes: not the unit-stride loop
    y = wp.zeros(20, dtype=float)
    for _ in range(2):
        wp.launch(axpb, dim=20, inputs=[xv, y, 2.0, 1, wp.vec3(), False])
        np.testing.assert_allclose(y.numpy(), 2.0 * base[::2] + 1.0)


def test_errors_after_the_plan_is_warm():
    x = wp.zeros(4, dtype=float)
    y = wp.zeros(4, dtype=float)
    _run(x, y, 1.0, 1, wp.vec3(), False)
    with pytest.raises(TypeError, match=r"argument 'b' \(type int32\).*fit|argument 'b'"):
        wp.launch(axpb, dim=4, inputs=[x, y, 1.0, 2**40, wp.vec3(), False])
    with pytest.raises(TypeError, match=r"argument 'x'.*float64"):
        wp.launch(axpb, dim=4, inputs=[wp.zeros(4, dtype=wp.float64), y, 1.0, 1, wp.vec3(), False])
    with pytest.raises(TypeError, match="takes 6 arguments"):
        wp.launch(axpb, dim=4, inputs=[x, y, 1.0])
    with pytest.raises(TypeError, match=r"argument 'a'.*number"):
        wp.launch(axpb, dim=4, inputs=[x, y, "1.0", 1, wp.vec3(), False])
    with pytest.raises(ValueError, match="negative"):
        wp.launch(axpb, dim=-1, inputs=[x, y, 1.0, 1, wp.vec3(), False])


def test_record_cmd_replays_and_sees_parameter_changes():
    x = wp.array(np.ones(8, dtype=np.float32))
    y = wp.zeros(8, dtype=float)
    cmd = wp.launch(axpb, dim=8, inputs=[x, y, 2.0, 0, wp.vec3(), False], record_cmd=True)
    np.testing.assert_array_equal(y.numpy(), 0.0)   # recorded, not run
    cmd.launch()
    np.testing.assert_array_equal(y.numpy(), 2.0)
    cmd.set_param_at_index(2, 5.0)
    cmd.launch()
    np.testing.assert_array_equal(y.numpy(), 5.0)


def test_tape_still_records_warm_launches():
    x = wp.array(np.arange(4, dtype=np.float32), requires_grad=True)
    y = wp.zeros(4, dtype=float, requires_grad=True)
    _run(x, y, 3.0, 0, wp.vec3(), False)            # warms the plan
    tape = wp.Tape()
    with tape:
        wp.launch(axpb, dim=4, inputs=[x, y, 3.0, 0, wp.vec3(), False])
    y.grad = wp.array(np.ones(4, dtype=np.float32))
    tape.backward()
    np.testing.assert_allclose(x.grad.numpy(), 3.0)


def test_launch_from_threads_at_once():
    import threading
    xs = [wp.array(np.full(50000, i, dtype=np.float32)) for i in range(4)]
    ys = [wp.zeros(50000, dtype=float) for _ in range(4)]

    def work(i):
        for _ in range(20):
            wp.launch(axpb, dim=50000, inputs=[xs[i], ys[i], 2.0, i, wp.vec3(), False])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(4):
        np.testing.assert_array_equal(ys[i].numpy(), 3.0 * i)


def test_inputs_as_any_iterable_after_the_plan_is_warm():
    x = wp.array(np.arange(6, dtype=np.float32))
    y = wp.zeros(6, dtype=float)
    _run(x, y, 1.0, 0, wp.vec3(), False)
    wp.launch(axpb, dim=6, inputs=(v for v in [x, y, 2.0, 1, wp.vec3(), False]))
    np.testing.assert_allclose(y.numpy(), 2.0 * np.arange(6) + 1.0)
    wp.launch(axpb, dim=np.int64(3), inputs=[x, y, 3.0, 0], outputs=[wp.vec3(), False])
    np.testing.assert_allclose(y.numpy()[:3], 3.0 * np.arange(3))


def test_plan_follows_func_redefinitions_by_module_dependencies():
    @wp.func
    def lf_used(v: float):
        return v + 1.0

    @wp.kernel(module="lf_plan_deps")
    def k(y: wp.array(dtype=float)):
        y[wp.tid()] = lf_used(0.0)

    y = wp.zeros(3)
    for _ in range(2):
        wp.launch(k, 3, inputs=[y])
    plan = plan_of(k)
    assert plan is not None and y.numpy().tolist() == [1.0] * 3

    @wp.func
    def lf_unrelated(v: float):
        return v

    # the module does not reach lf_unrelated: same binary, the same plan made current again
    wp.launch(k, 3, inputs=[y])
    assert plan_of(k) is plan and plan.epoch == launch_state.fast[0]
    assert plan.run(3, [y]) is True and plan.native_run(3, [y], ()) is True

    @wp.func
    def lf_used(v: float):  # noqa: F811  (the redefinition is the point)
        return v + 5.0

    assert plan.run(3, [y]) is False      # stale: the general path rebuilds
    assert plan.native_run(3, [y], ()) is False
    wp.launch(k, 3, inputs=[y])
    assert y.numpy().tolist() == [5.0] * 3 and plan_of(k) is not plan
    wp.launch(k, 3, inputs=[y])
    assert y.numpy().tolist() == [5.0] * 3


@pytest.mark.parametrize("learned,other", [(1, True), (1, 1.0), (0, False), ((2,), (2.0,)),
                                            ((1, 2), (True, 2)), ((1, 2), [1, 2])])
def test_native_plan_declines_dims_equal_to_a_learned_one(learned, other):
    """The bounds records are found by dict lookup: a value equal to a learned dim but of
    another type must not find its record (the general path refuses or converts it)."""
    x = wp.zeros(4)
    for _ in range(3):
        wp.launch(noop, dim=learned, inputs=[x])
    plan = plan_of(noop)
    assert plan.native_run(learned, [x], ()) is True
    assert plan.native_run(other, [x], ()) is False
    assert plan.run(other, [x]) is False


def test_timing_recorder_sees_warm_launches():
    x = wp.zeros(4)
    for _ in range(2):
        wp.launch(noop, dim=4, inputs=[x])
    assert plan_of(noop) is not None
    with wp.timing.record() as rec:
        for _ in range(3):
            wp.launch(noop, dim=4, inputs=[x])
    assert [r.kind for r in rec.results if r.name == "noop"] == ["forward"] * 3
