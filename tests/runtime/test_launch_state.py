"""The launch-state word (runtime/launch_state.py) and the native tier of the launch plan
(native/src/fast_plan.cpp): tapes, timing recorders and graph captures turn the fast path off
while they last and on again after; a launch with no device= follows a thread's current device;
exact-typed values are packed in C with NumPy's results, other values fall through to the
converting tiers."""

import threading

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.runtime.fastlaunch import plan_of
from warp_interactive.runtime import device as rt_device
from warp_interactive.runtime import launch_state


@wp.kernel
def scale(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i]


@wp.kernel
def pack_all(out_f: wp.array(dtype=wp.float64), out_i: wp.array(dtype=wp.int64),
             f32: wp.float32, f64: wp.float64, i8: wp.int8, u8: wp.uint8, i16: wp.int16,
             u16: wp.uint16, i32: wp.int32, u32: wp.uint32, i64: wp.int64, u64: wp.uint64,
             flag: bool, v: wp.vec3, m: wp.mat22):
    out_f[0] = wp.float64(f32)
    out_f[1] = f64
    out_f[2] = wp.float64(v[0] + 10.0 * v[1] + 100.0 * v[2])
    out_f[3] = wp.float64(m[0, 0] + 10.0 * m[0, 1] + 100.0 * m[1, 0] + 1000.0 * m[1, 1])
    out_i[0] = wp.int64(i8)
    out_i[1] = wp.int64(u8)
    out_i[2] = wp.int64(i16)
    out_i[3] = wp.int64(u16)
    out_i[4] = wp.int64(i32)
    out_i[5] = wp.int64(u32)
    out_i[6] = i64
    out_i[7] = wp.int64(u64 % wp.uint64(1000000007))
    out_i[8] = wp.int64(0)
    if flag:
        out_i[8] = wp.int64(1)


def _warm(n=4):
    x = wp.array(np.arange(n, dtype=np.float32))
    y = wp.zeros(n, dtype=float)
    wp.launch(scale, dim=n, inputs=[x, y, 1.0])
    wp.launch(scale, dim=n, inputs=[x, y, 1.0])
    return x, y, plan_of(scale)


def _armed(plan):
    return launch_state.fast[0] == plan.epoch


def test_plan_is_armed_after_a_general_launch():
    x, y, plan = _warm()
    assert _armed(plan)
    assert plan.native_run(4, [x, y, 3.0], ()) is True
    np.testing.assert_allclose(y.numpy(), 3.0 * np.arange(4))


def test_tape_turns_the_fast_path_off_while_it_records():
    x, y, plan = _warm()
    x.requires_grad = True
    tape = wp.Tape()
    with tape:
        assert "tape" in launch_state.slow_reasons() and not _armed(plan)
        assert plan.native_run(4, [x, y, 2.0], ()) is False     # declines, runs nothing
        wp.launch(scale, dim=4, inputs=[x, y, 2.0])
    assert len(tape.launches) == 1                             # the warm kernel was recorded
    assert "tape" not in launch_state.slow_reasons()
    wp.launch(scale, dim=4, inputs=[x, y, 2.0])
    assert _armed(plan)                                         # on again after the tape


def test_timing_recorder_sees_warm_launches():
    x, y, plan = _warm()
    wp.timing_begin()
    try:
        assert "timing" in launch_state.slow_reasons() and not _armed(plan)
        wp.launch(scale, dim=4, inputs=[x, y, 5.0])
        wp.launch(scale, dim=4, inputs=[x, y, 6.0])
    finally:
        results = wp.timing_end()
    assert [(r.name, r.kind) for r in results] == [("scale", "forward")] * 2
    np.testing.assert_allclose(y.numpy(), 6.0 * np.arange(4))
    assert "timing" not in launch_state.slow_reasons()


def test_cpu_capture_defers_warm_launches_until_replay():
    x, y, plan = _warm()
    wp.capture_begin("cpu")
    try:
        assert "capture" in launch_state.slow_reasons()
        wp.launch(scale, dim=4, inputs=[x, y, 7.0])
    finally:
        graph = wp.capture_end("cpu")
    np.testing.assert_allclose(y.numpy(), 1.0 * np.arange(4))   # not run during the capture
    wp.capture_launch(graph)
    np.testing.assert_allclose(y.numpy(), 7.0 * np.arange(4))
    assert "capture" not in launch_state.slow_reasons()


def test_device_none_follows_a_thread_on_another_device():
    x, y, plan = _warm()
    other = object()           # stands for a current device that is not the default one
    outcome = []

    def on_other_device():
        rt_device._set_current(other)
        try:
            assert rt_device._off_default
            try:   # must look the current device up, not take the CPU plan
                wp.launch(scale, dim=4, inputs=[x, y, 9.0])
                outcome.append("ran")
            except Exception as e:   # noqa: BLE001  (a stand-in device cannot run anything)
                outcome.append(type(e).__name__)
        finally:
            rt_device._set_current(None)

    t = threading.Thread(target=on_other_device)
    t.start()
    t.join()
    assert outcome and outcome[0] != "ran"
    np.testing.assert_allclose(y.numpy(), 1.0 * np.arange(4))    # nothing ran on the CPU
    assert not rt_device._off_default
    with wp.ScopedDevice("cpu"):           # the default device here: nothing to look up
        assert not rt_device._off_default
        wp.launch(scale, dim=4, inputs=[x, y, 4.0])
        assert plan.native_run(4, [x, y, 4.0], ()) is True
    np.testing.assert_allclose(y.numpy(), 4.0 * np.arange(4))


def test_invalidation_disarms_until_the_next_general_launch():
    x, y, plan = _warm()
    launch_state.invalidate()
    assert not _armed(plan)
    wp.launch(scale, dim=4, inputs=[x, y, 2.5])
    np.testing.assert_allclose(y.numpy(), 2.5 * np.arange(4))
    assert _armed(plan)


def _pack_values():
    return [np.float32(1.5), 2.25, -128, 255, -32768, 65535, -2**31, 2**32 - 1, -2**63,
            2**63 + 12345, True, wp.vec3(1.0, 2.0, 3.0), wp.mat22(1.0, 2.0, 3.0, 4.0)]


def _expected(vals):
    f32, f64, i8, u8, i16, u16, i32, u32, i64, u64, flag, v, m = vals
    vv = np.asarray(v, dtype=np.float32).ravel()
    mm = np.asarray(m, dtype=np.float32).reshape(2, 2)
    want_f = [float(np.float32(f32)), f64, vv[0] + 10 * vv[1] + 100 * vv[2],
              mm[0, 0] + 10 * mm[0, 1] + 100 * mm[1, 0] + 1000 * mm[1, 1]]
    want_i = [i8, u8, i16, u16, i32, u32, i64, u64 % 1000000007, int(flag)]
    return np.array(want_f), np.array(want_i, dtype=np.int64)


@pytest.mark.parametrize("case", ["exact", "converted"])
def test_every_scalar_kind_is_packed_like_numpy(case):
    out_f = wp.zeros(4, dtype=wp.float64)
    out_i = wp.zeros(9, dtype=wp.int64)
    vals = _pack_values()
    wp.launch(pack_all, dim=1, inputs=[out_f, out_i] + vals)      # general path, arms the plan
    plan = plan_of(pack_all)
    rng = np.random.default_rng(3)
    for _ in range(5):
        vals = [float(rng.uniform(-9, 9)), float(rng.uniform(-9, 9)), int(rng.integers(-128, 128)),
                int(rng.integers(0, 256)), int(rng.integers(-2**15, 2**15)), int(rng.integers(0, 2**16)),
                int(rng.integers(-2**31, 2**31)), int(rng.integers(0, 2**32)),
                int(rng.integers(-2**62, 2**62)), int(rng.integers(0, 2**62)), bool(rng.integers(2)),
                wp.vec3(*rng.uniform(-1, 1, 3).astype(np.float32)),
                wp.mat22(*rng.uniform(-1, 1, 4).astype(np.float32))]
        if case == "converted":
            # values the native tier does not take: NumPy scalars, tuples for vectors
            vals[0], vals[4] = np.float32(vals[0]), np.int16(vals[4])
            vals[11] = tuple(float(c) for c in vals[11])
            assert plan.native_run(1, [out_f, out_i] + vals, ()) is False
        else:
            assert plan.native_run(1, [out_f, out_i] + vals, ()) is True
        wp.launch(pack_all, dim=1, inputs=[out_f, out_i] + vals)
        want_f, want_i = _expected(vals)
        np.testing.assert_allclose(out_f.numpy(), want_f, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(out_i.numpy(), want_i)


def test_out_of_range_values_decline_and_the_general_path_raises():
    out_f = wp.zeros(4, dtype=wp.float64)
    out_i = wp.zeros(9, dtype=wp.int64)
    vals = _pack_values()
    wp.launch(pack_all, dim=1, inputs=[out_f, out_i] + vals)
    plan = plan_of(pack_all)
    for index, bad in [(2, 128), (3, -1), (5, 2**16), (7, 2**32), (8, 2**63)]:
        v = list(vals)
        v[index] = bad
        assert plan.native_run(1, [out_f, out_i] + v, ()) is False
        with pytest.raises((TypeError, OverflowError, ValueError)):
            wp.launch(pack_all, dim=1, inputs=[out_f, out_i] + v)
    # arrays of another dtype or dimension, and a dim never launched, decline too
    v = [wp.zeros(4, dtype=wp.float32), out_i] + vals
    assert plan.native_run(1, v, ()) is False
    assert plan.native_run(2, [out_f, out_i] + vals, ()) is False
    assert plan.native_run([1], [out_f, out_i] + vals, ()) is False
