"""Lazy strided entries (build/strided.py): a straight-line kernel's unit holds only
its unit-stride loop; the plain loop for strided memory (views, transposed arrays,
columns of 2-d arrays) is built the first time a launch needs it. Every launch
path must give the NumPy result whichever layout comes first: the fast plans, the general path,
record_cmd replays, captured graphs and tapes; and a module launched only on contiguous arrays
never compiles a strided unit."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.build import strided
from paths import REPO as REPO_PATH

REPO = str(REPO_PATH)


@wp.kernel
def axpb(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = x[i] * a + 1.0


@wp.kernel
def vnorm(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.length(v[i]) + v[i][1]


@wp.kernel
def mat2(m: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = m[i, j] * 2.0 + float(j)


def _layouts_1d(n, rng):
    """(name, x source array, y destination array, the NumPy views they stand for)."""
    base = rng.standard_normal(3 * n).astype(np.float32)
    xb = wp.array(base)
    out = {}
    out["contiguous"] = (wp.array(base[:n]), base[:n])
    out["view-step-3"] = (xb[::3], base[::3])
    out["view-offset-step-2"] = (xb[1:2 * n + 1:2], base[1:2 * n + 1:2])
    grid = wp.array(base.reshape(n, 3))
    out["column-of-2d"] = (grid[:, 1], base.reshape(n, 3)[:, 1])
    return out


ORDERS = [("contiguous", "view-step-3"), ("view-step-3", "contiguous"),
          ("column-of-2d", "contiguous"), ("contiguous", "view-offset-step-2")]


def _launch_axpb(x, a, n, y_layout, rng):
    ybase = wp.zeros(2 * n, dtype=float)
    y = ybase[1::2] if y_layout == "strided" else wp.zeros(n, dtype=float)
    wp.launch(axpb, dim=n, inputs=[x, y, a])
    return y.numpy()


@pytest.mark.parametrize("first, second", ORDERS)
@pytest.mark.parametrize("y_layout", ["contiguous", "strided"])
def test_layouts_in_either_order_match_numpy(first, second, y_layout):
    rng = np.random.default_rng(abs(hash((first, second, y_layout))) % 2**32)
    n = 37
    layouts = _layouts_1d(n, rng)
    for name in (first, second, first):     # each twice: the fast plan takes the repeats
        x, ref = layouts[name]
        for a in (2.0, -0.5):
            np.testing.assert_allclose(_launch_axpb(x, a, n, y_layout, rng), ref * a + 1.0,
                                       rtol=1e-6, err_msg=f"{name} y={y_layout} a={a}")


@pytest.mark.parametrize("order", ["contiguous-first", "transposed-first"])
def test_transposed_2d_and_vec3_views(order):
    rng = np.random.default_rng(5)
    m = rng.standard_normal((6, 9)).astype(np.float32)
    mc = wp.array(m)
    mt = wp.array(np.ascontiguousarray(m.T)).transpose()       # strides (4, 24): not unit innermost
    cases = [(mc, m), (mt, m)] if order == "contiguous-first" else [(mt, m), (mc, m)]
    for arr, ref in cases * 2:
        out = wp.zeros((6, 9), dtype=float)
        wp.launch(mat2, dim=(6, 9), inputs=[arr, out])
        np.testing.assert_allclose(out.numpy(), ref * 2.0 + np.arange(9, dtype=np.float32), rtol=1e-6)
    v = rng.standard_normal((40, 3)).astype(np.float32)
    vb = wp.array(v, dtype=wp.vec3)
    for arr, ref in [(vb[::4], v[::4]), (vb[:10], v[:10]), (vb[1::4], v[1::4])]:
        out = wp.zeros(10, dtype=float)
        wp.launch(vnorm, dim=10, inputs=[arr, out])
        np.testing.assert_allclose(out.numpy(), np.linalg.norm(ref, axis=1) + ref[:, 1], rtol=1e-5)


def test_record_cmd_and_captured_graph_replays_switch_layouts():
    n = 24
    base = np.arange(2 * n, dtype=np.float32)
    xb = wp.array(base)
    y = wp.zeros(n, dtype=float)
    cmd = wp.launch(axpb, dim=n, inputs=[xb[:n], y, 3.0], record_cmd=True)
    cmd.launch()
    np.testing.assert_allclose(y.numpy(), base[:n] * 3.0 + 1.0)
    cmd.set_param_at_index(0, xb[::2])            # the same recorded launch, now strided
    cmd.launch()
    np.testing.assert_allclose(y.numpy(), base[::2] * 3.0 + 1.0)
    ys = wp.zeros(2 * n, dtype=float)
    with wp.ScopedCapture(device="cpu") as capture:
        wp.launch(axpb, dim=n, inputs=[xb[1::2], ys[::2], 5.0])
        wp.launch(axpb, dim=n, inputs=[xb[:n], y, 7.0])
    for _ in range(2):
        ys.zero_()
        wp.capture_launch(capture.graph)
        np.testing.assert_allclose(ys.numpy()[::2], base[1::2] * 5.0 + 1.0)
        np.testing.assert_allclose(ys.numpy()[1::2], 0.0)
        np.testing.assert_allclose(y.numpy(), base[:n] * 7.0 + 1.0)


@wp.kernel
def square_sum(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i] + 3.0 * x[i]


@pytest.mark.parametrize("strided_first", [False, True])
def test_tape_gradients_through_strided_views(strided_first):
    n = 16
    base = np.linspace(-2.0, 2.0, 2 * n).astype(np.float32)
    for step in ([2, 1] if strided_first else [1, 2]):
        xb = wp.array(base, requires_grad=True)
        x = xb[::step] if step > 1 else xb[:n]
        y = wp.zeros(n, dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(square_sum, dim=n, inputs=[x], outputs=[y])
        tape.backward(grads={y: wp.ones(n, dtype=float)})
        xs = base[::step][:n] if step > 1 else base[:n]
        np.testing.assert_allclose(y.numpy(), xs * xs + 3.0 * xs, rtol=1e-6)
        want = np.zeros(2 * n, dtype=np.float32)
        want[::step][:n] = 2.0 * xs + 3.0
        np.testing.assert_allclose(xb.grad.numpy(), want, rtol=1e-6)


def test_many_threads_meet_the_first_strided_launch_at_once():
    """Every pool worker's first chunk takes the strided branch: one build, all correct."""
    @wp.kernel
    def shift(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i] + 0.25
    n = 200_000
    base = np.random.default_rng(3).standard_normal(2 * n).astype(np.float32)
    xb, y = wp.array(base), wp.zeros(n, dtype=float)
    saved = wp.config.num_threads
    wp.config.num_threads = 8
    try:
        wp.launch(shift, dim=n, inputs=[xb[::2], y])
    finally:
        wp.config.num_threads = saved
    np.testing.assert_allclose(y.numpy(), base[::2] + 0.25, rtol=1e-6)
    built = [key for key in strided._entries if key[1] == shift.cpp]
    assert len(built) == 1


# --- compile counts, in fresh processes sharing a cache -------------------------------------------
DRIVER = textwrap.dedent('''
    import json, sys
    import numpy as np
    import warp_interactive as wp
    from warp_interactive.compiler import build
    calls = []
    real = build.compile_units
    def counting(units, options):
        out = real(units, options)
        calls.append(sum(b.built for b in out))
        return out
    build.compile_units = counting

    @wp.kernel
    def k0(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i] * 2.0

    @wp.kernel
    def k1(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i] - 1.0

    base = np.arange(20, dtype=np.float32)
    xb, y = wp.array(base), wp.zeros(10, dtype=float)
    steps = []
    for layout in sys.argv[1].split(","):
        kernel = k0 if layout.endswith("0") else k1
        x = xb[:10] if layout.startswith("c") else xb[::2]
        if layout.startswith("s") and len(sys.argv) > 2:
            wp.config.cpu_compiler = sys.argv[2]      # the compiler is gone by now
        before = sum(calls)
        wp.launch(kernel, dim=10, inputs=[x, y])
        want = (base[:10] if layout.startswith("c") else base[::2])
        want = want * 2.0 if kernel is k0 else want - 1.0
        assert np.allclose(y.numpy(), want), (layout, y.numpy(), want)
        steps.append(sum(calls) - before)
    print(json.dumps(steps))
''')


def _run(tmp_path, layouts, break_cxx=None):
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    env = dict(os.environ, WARP_INTERACTIVE_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([REPO] + sys.path))
    return subprocess.run([sys.executable, str(driver), ",".join(layouts)] + ([break_cxx] if break_cxx else []),
                          capture_output=True, text=True, env=env, timeout=600)


def test_strided_units_compile_once_on_first_need_then_come_from_the_cache(tmp_path):
    import json
    # contiguous launches compile the module (one call, its units) and no strided unit
    first = _run(tmp_path, ["c0", "c1", "c0"])
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout.splitlines()[-1])[1:] == [0, 0]
    # a later process: strided k0 builds k0's strided unit (one compile), again: nothing;
    # contiguous k1 nothing, strided k1 its own strided unit
    second = _run(tmp_path, ["c0", "s0", "s0", "c1", "s1", "s1"])
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout.splitlines()[-1]) == [0, 1, 0, 0, 1, 0]
    # a third process finds both strided units in the cache
    third = _run(tmp_path, ["s1", "s0", "c0"])
    assert third.returncode == 0, third.stderr
    assert json.loads(third.stdout.splitlines()[-1]) == [0, 0, 0]


FAIL_DRIVER = textwrap.dedent('''
    import sys, threading, traceback
    import numpy as np
    import warp_interactive as wp

    @wp.kernel
    def k1(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i] - 1.0

    @wp.kernel
    def k2(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i] * 3.0

    base = np.arange(40, dtype=np.float32)
    xb = wp.array(base)
    y = wp.zeros(20, dtype=float)
    wp.launch(k1, dim=20, inputs=[xb[:20], y])          # contiguous: builds the module, twice
    wp.launch(k1, dim=20, inputs=[xb[:20], y])          # (the second through the fast plan)
    cmd = wp.launch(k2, dim=20, inputs=[xb[:20], y], record_cmd=True)
    cmd.launch()
    good = wp.config.cpu_compiler
    wp.config.cpu_compiler = sys.argv[1]                 # the compiler is gone by now

    def strided_launch():
        wp.launch(k1, dim=20, inputs=[xb[::2], y])       # the user's line

    if sys.argv[2] == "thread":    # no stopping flag on another thread: the process stops
        t = threading.Thread(target=strided_launch)
        t.start()
        t.join()
        print("survived")
        sys.exit(0)
    y.fill_(5.0)
    try:
        strided_launch()
        print("NOT RAISED")
    except wp.LaunchError as e:
        print("RAISED", str(e).replace(chr(10), " "))
        print("LINES", [f.line for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__])
        print("CAUSE", type(e.__cause__).__name__)
    print("UNTOUCHED", bool(np.all(y.numpy() == 5.0)))
    cmd.set_param_at_index(0, xb[1::2])                  # a recorded launch, now strided
    try:
        cmd.launch()
        print("NOT RAISED")
    except wp.LaunchError as e:
        print("REPLAY RAISED", "k2" in str(e))
    print("UNTOUCHED", bool(np.all(y.numpy() == 5.0)))
    wp.config.cpu_compiler = good                        # the compiler is back: both work again
    strided_launch()
    print("RETRY", bool(np.allclose(y.numpy(), base[::2] - 1.0)))
    cmd.launch()
    print("RETRY", bool(np.allclose(y.numpy(), base[1::2] * 3.0)))
''')


def _run_failing(tmp_path, where):
    broken = tmp_path / "no-cxx.sh"
    broken.write_text("#!/bin/sh\necho 'this compiler is gone' >&2\nexit 1\n")
    broken.chmod(0o755)
    driver = tmp_path / "fail_driver.py"
    driver.write_text(FAIL_DRIVER)
    env = dict(os.environ, WARP_INTERACTIVE_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([REPO] + sys.path))
    return subprocess.run([sys.executable, str(driver), str(broken), where],
                          capture_output=True, text=True, env=env, timeout=600)


def test_a_strided_entry_that_cannot_be_built_raises_at_the_launch_site(tmp_path):
    """No silently wrong result and no dead process: when the compiler is gone by the first
    strided launch, wp.launch (fast plan) and a record_cmd replay raise wp.LaunchError naming
    the kernel and the compiler's error, at the user's line, having run nothing on the strided
    memory; with the compiler back the next launches build the entries and run."""
    res = _run_failing(tmp_path, "main")
    assert res.returncode == 0, res.stderr
    out = res.stdout.splitlines()
    raised = next(line for line in out if line.startswith("RAISED"))
    assert "kernel 'k1' was launched on strided memory" in raised
    assert "CompileError" in raised and "this compiler is gone" in raised
    assert "wp.launch(k1, dim=20, inputs=[xb[::2], y])" in next(line for line in out if line.startswith("LINES"))
    assert "CAUSE CompileError" in out
    assert out.count("UNTOUCHED True") == 2
    assert "REPLAY RAISED True" in out and "NOT RAISED" not in out
    assert out.count("RETRY True") == 2
    assert "this compiler is gone" not in res.stderr      # said once, in the exception


def test_a_strided_entry_that_cannot_be_built_on_another_thread_stops_the_process_saying_why(tmp_path):
    """A launch from a thread other than Python's main one has no stopping flag to stop it: the
    process ends with the kernel's name and the compiler's error, instead of running the
    unit-stride loop on strided memory."""
    res = _run_failing(tmp_path, "thread")
    assert res.returncode != 0 and "survived" not in res.stdout
    assert "building the strided-array entry of kernel k1_" in res.stderr
    assert "this compiler is gone" in res.stderr
    assert "no strided entry for kernel k1_" in res.stdout + res.stderr
