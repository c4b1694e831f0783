"""The quick tier's bound (build/quick_tier.py, native exec/quick.h): a quick unit's entry
switches to the optimised entry between two chunks once the background build has loaded it,
runs the -O0 code only while the job's budget lasts (and never for a kernel with a dynamic
loop), and waits for the optimised code otherwise. A launch that switches mid-way, a tape's
backward, a recorded launch holding the quick entry and a Ctrl-C during a wait are checked here;
the quick code's own bits are in test_quick_tier.py."""

import functools
import signal
import threading
import time

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.codegen.module_source import generate_source
from warp_interactive.lang import lower
from warp_interactive.compiler import cpu as cpu_compiler
from warp_interactive.build import quick_tier

from tests.builds.test_quick_tier import N, _gated, _import, _loaded, _run_all


@pytest.fixture
def switching(monkeypatch):
    """The quick tier for any load of at least 2 kernels, one launch thread, and a budget that
    lets one chunk run the quick code: the next one waits for the optimised code."""
    cpu_compiler.ensure_pch(wp.config.cpu_compiler, cpu_compiler.flags(False, False, True))
    monkeypatch.setattr(wp.config, "cpu_quick_build", 2)
    monkeypatch.setattr(wp.config, "num_threads", 1)
    monkeypatch.setattr(quick_tier, "BUDGET_S", 1e-9)
    yield
    quick_tier.wait()


def _jobs(name):
    return list({id(j): j for j in quick_tier._jobs.values() if j.name == name}.values())


def _open_when(gate, predicate):
    """Set ``gate`` (let the background builds run) once ``predicate()`` holds, or after 300 s."""
    def watch():
        end = time.monotonic() + 300
        while time.monotonic() < end and not predicate():
            time.sleep(0.001)
        gate.set()
    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_launches_switching_mid_way_give_the_optimised_bits(tmp_path, switching, monkeypatch):
    """The first launch runs one chunk at -O0, waits, and runs the rest at -O3 (the background
    build starts only once a chunk waits); the tape's backward does the same with its own job."""
    gate = _gated(monkeypatch)
    compiled = []       # (quick flags?, background?) of every unit the compiler built
    real_build = cpu_compiler._build
    monkeypatch.setattr(cpu_compiler, "_build", lambda unit, cxx, fl, pch, name, background=False, *more: (
        compiled.append(("-O0" in fl, background)), real_build(unit, cxx, fl, pch, name, background, *more))[1])
    mod = _import(tmp_path, "qs_mixed")
    _open_when(gate, lambda: any(j.counts()["waits"] for j in _jobs("qs_mixed")))
    try:
        mixed = _run_all(mod)
    finally:
        gate.set()
    quick_tier.wait()
    counts = [j.counts() for j in _jobs("qs_mixed")]
    assert len(counts) == 2 and all(c["state"] == quick_tier.DONE for c in counts)
    # one job ran quick chunks, waited, then ran optimised chunks: a launch switched mid-way
    assert any(c["quick_chunks"] >= 1 and c["waits"] >= 1 and c["optimised_chunks"] >= 1 for c in counts), counts
    # one compiler worker: one unit per load; forward and backward each compiled once quickly
    # (in the foreground) and once optimised (in the background); nothing else
    assert sorted(compiled) == [(False, True), (False, True), (True, False), (True, False)]
    optimised = _run_all(mod)
    assert not any(lm.quick for lm in _loaded(mod))
    assert len(compiled) == 4
    for name, a in mixed.items():
        assert a.tobytes() == optimised[name].tobytes(), f"{name}: a switching launch differs"


def test_a_kernel_with_a_loop_never_runs_its_quick_code_while_the_build_runs(tmp_path, switching, monkeypatch):
    """nbody's lanes loop for n iterations each: its chunks wait for the optimised code at once,
    even with budget left; a loop-free kernel of the same unit runs its quick code."""
    monkeypatch.setattr(quick_tier, "BUDGET_S", 100.0)
    gate = _gated(monkeypatch)
    mod = _import(tmp_path, "qs_loop")
    x = wp.array(np.linspace(-1, 1, N, dtype=np.float32))
    y = wp.zeros(N, dtype=float)
    try:
        wp.launch(mod.math32, dim=N, inputs=[x, y])     # quick code: no wait
        (job,) = _jobs("qs_loop")
        before = job.counts()
        assert before["quick_chunks"] >= 1 and before["waits"] == 0 and before["optimised_chunks"] == 0
        _open_when(gate, lambda: job.counts()["waits"] > 0)
        pos = wp.array(np.random.default_rng(3).standard_normal((N, 3)).astype(np.float32), dtype=wp.vec3)
        acc = wp.zeros(N, dtype=wp.vec3)
        wp.launch(mod.nbody, dim=N, inputs=[pos, N, acc])
    finally:
        gate.set()
    after = job.counts()
    assert after["quick_chunks"] == before["quick_chunks"]     # not one nbody chunk at -O0
    assert after["waits"] == 1 and after["optimised_chunks"] >= 1
    p = pos.numpy().astype(np.float64)
    d = p[None, :, :] - p[:, None, :]
    want = (d / (np.sum(d * d, axis=2, keepdims=True) + 0.01) ** 1.5).sum(axis=1)
    np.testing.assert_allclose(acc.numpy(), want, rtol=1e-3, atol=1e-3)


# (kernel, budget_ns, used_ns, state) -> what the next launch's chunks do: the decision table of
# native quick.h's wpi_quick_next while the optimised build has not finished
TABLE = [
    ("math32", -1, 0, quick_tier.PENDING, "quick"),          # no budget limit (tests)
    ("nbody", -1, 0, quick_tier.PENDING, "quick"),
    ("math32", 10**10, 0, quick_tier.PENDING, "quick"),      # budget left
    ("math32", 10**10, 10**10, quick_tier.FAILED, "quick"),  # the optimised build failed
    ("nbody", 10**10, 0, quick_tier.FAILED, "quick"),
    ("graph", 10**10, 0, quick_tier.PENDING, "quick"),       # a graph replay, the same
    ("graph", 10**10, 10**10, quick_tier.PENDING, "wait"),   # budget spent: wait, then -O3
]


def test_the_switch_decides_by_budget_state_and_loops(tmp_path, switching, monkeypatch):
    monkeypatch.setattr(quick_tier, "BUDGET_S", None)
    gate = _gated(monkeypatch)
    mod = _import(tmp_path, "qs_table")
    x = wp.array(np.linspace(-1, 1, N, dtype=np.float32))
    pos = wp.array(np.random.default_rng(3).standard_normal((N, 3)).astype(np.float32), dtype=wp.vec3)
    outs = {"math32": wp.zeros(N, dtype=float), "nbody": wp.zeros(N, dtype=wp.vec3)}
    args = {"math32": [x, outs["math32"]], "nbody": [pos, N, outs["nbody"]]}
    cmds = {}
    try:
        for name in args:       # the module loads (quick), and recorded launches keep the quick entry
            cmds[name] = wp.launch(getattr(mod, name), dim=N, inputs=args[name], record_cmd=True)
            cmds[name].launch()     # resolved: it holds the quick entry
        stale = {name: functools.partial(cmd._run, 1) for name, cmd in cmds.items()}
        with wp.ScopedCapture(device="cpu") as capture:     # a CPU graph of the quick module
            wp.launch(mod.math32, dim=N, inputs=[x, outs["math32"]])
        stale["graph"] = functools.partial(wp.capture_launch, capture.graph)
        (job,) = _jobs("qs_table")
        for name, budget, used, state, what in TABLE:
            job.native[1], job.native[0], job.native[2] = budget, used, state
            before = job.counts()
            if what == "wait":
                _open_when(gate, lambda: job.counts()["waits"] > before["waits"])
            stale[name]()
            after = job.counts()
            ran = {k: after[k] - before[k] for k in ("quick_chunks", "optimised_chunks", "waits")}
            if what == "quick":
                assert ran["quick_chunks"] >= 1 and ran["optimised_chunks"] == 0 and ran["waits"] == 0, (name, ran)
            else:
                assert ran["waits"] >= 1 and ran["optimised_chunks"] >= 1, (name, ran)
    finally:
        gate.set()
    quick_tier.wait()
    assert job.counts()["state"] == quick_tier.DONE
    # after the build: a holder of the quick entry (here a recorded launch's bound call, as a
    # graph or fast plan keeps one) runs the optimised code, for either kernel, without waiting
    for name in args:
        before = job.counts()
        stale[name]()       # (a graph replay re-resolves to the optimised module)
        after = job.counts()
        assert after["optimised_chunks"] > before["optimised_chunks"] and after["waits"] == before["waits"]
        assert after["quick_chunks"] == before["quick_chunks"]
    xs = x.numpy().astype(np.float64)
    want = (np.sin(xs) + np.cos(xs * 3) * np.exp(np.clip(xs, -20, 20)) - np.sqrt(np.abs(xs))
            + np.log(np.abs(xs) + 1))
    np.testing.assert_allclose(outs["math32"].numpy(), want, rtol=2e-5, atol=2e-5)
    for cmd in cmds.values():    # the recorded launches themselves re-resolve and run
        cmd.launch()


def test_ctrl_c_stops_a_launch_waiting_for_the_optimised_code(tmp_path, switching, monkeypatch):
    monkeypatch.setattr(quick_tier, "BUDGET_S", 100.0)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    gate = _gated(monkeypatch)
    mod = _import(tmp_path, "qs_interrupt")
    pos = wp.array(np.ones((N, 3), dtype=np.float32), dtype=wp.vec3)
    acc = wp.zeros(N, dtype=wp.vec3)
    try:
        wp.launch(mod.math32, dim=N, inputs=[wp.zeros(N, dtype=float), wp.zeros(N, dtype=float)])
        (job,) = _jobs("qs_interrupt")

        def interrupt():
            while job.counts()["waits"] == 0:
                time.sleep(0.001)
            signal.raise_signal(signal.SIGINT)
        threading.Thread(target=interrupt, daemon=True).start()
        with pytest.raises(KeyboardInterrupt):
            wp.launch(mod.nbody, dim=N, inputs=[pos, N, acc])   # waits (gate closed) until Ctrl-C
        assert job.counts()["state"] == quick_tier.PENDING and job.counts()["optimised_chunks"] == 0
    finally:
        signal.signal(signal.SIGINT, old)
        gate.set()
    quick_tier.wait()
    wp.launch(mod.nbody, dim=N, inputs=[pos, N, acc])     # and the next launch runs
    np.testing.assert_allclose(acc.numpy(), 0.0)


LOOPS = '''
import warp_interactive as wp

@wp.func
def looping(n: int):
    s = int(0)
    for i in range(n):
        s += i
    return s

@wp.func
def plain(v: float):
    return v * 2.0

@wp.kernel
def straight(x: wp.array(dtype=float)):
    x[wp.tid()] = plain(1.0)

@wp.kernel
def ranged(x: wp.array(dtype=float), n: int):
    for i in range(n):
        x[wp.tid()] += 1.0

@wp.kernel
def whiled(x: wp.array(dtype=float)):
    i = int(0)
    while i < 3:
        i += 1
    x[wp.tid()] = float(i)

@wp.kernel
def calls_loop(x: wp.array(dtype=float), n: int):
    x[wp.tid()] = float(looping(n))

@wp.kernel
def unrolled(x: wp.array(dtype=float)):
    for i in range(3):
        x[wp.tid()] += 1.0
'''


@pytest.mark.parametrize("kernel, unbounded", [("straight", 0), ("ranged", 1), ("whiled", 1),
                                               ("calls_loop", 1), ("unrolled", 0)])
def test_entries_say_whether_a_lane_s_work_is_bounded(tmp_path, kernel, unbounded):
    mod = _import(tmp_path, f"qs_loops_{kernel}", LOOPS)
    k = getattr(mod, kernel)
    src = generate_source(lower([k]), backward=True)
    assert f"WPI_QUICK_SWITCH({k.cpp}_cpu_forward, {unbounded});" in src
    assert f"WPI_QUICK_SWITCH({k.cpp}_cpu_backward, {unbounded});" in src


TWO = """
import json, sys
import numpy as np
import warp_interactive as wp
from warp_interactive.build import quick_tier
sys.path.insert(0, {folder!r})
import {name} as m
x = np.linspace(-3.0, 3.0, 1 << 20, dtype=np.float32)
y = wp.zeros(x.size, dtype=float)
wp.launch(m.math32, dim=x.size, inputs=[wp.array(x), y])     # right after the cold quick build
(lm,) = wp.get_module("{name}").loaded.values()
jobs = lm.quick
quick_tier.wait()
print(json.dumps({{"out": y.numpy().tobytes().hex(), "quick": len(jobs),
                   "counts": [j.counts() for j in jobs]}}))
"""


def test_two_processes_cold_building_one_module_at_once_agree(tmp_path):
    """Both build quick units and optimised units into one cache at the same time (atomic
    publishes of the same hashes), launch 1M lanes right after their cold builds, and get the
    same bits, which NumPy confirms."""
    import json
    import os
    import subprocess
    import sys
    from tests.builds.test_quick_tier import REPO, SOURCE
    cpu_compiler.ensure_pch(wp.config.cpu_compiler, cpu_compiler.flags(False, False, True))
    name = "qs_two"
    (tmp_path / f"{name}.py").write_text(SOURCE.replace("# SALT", f"# {os.getpid()}-{time.time()}"))
    script = TWO.format(folder=str(tmp_path), name=name)
    env = dict(os.environ, WARP_INTERACTIVE_CACHE_DIR=wp.config.kernel_cache_dir,
               WARP_INTERACTIVE_CPU_QUICK_BUILD="2", PYTHONPATH=os.pathsep.join([REPO] + sys.path))
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    outs = [p.communicate(timeout=900) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err[-3000:] for _, err in outs]
    got = [json.loads(out.splitlines()[-1]) for out, _ in outs]
    assert got[0]["out"] == got[1]["out"]
    assert any(g["quick"] for g in got)     # at least the first to compile ran from quick units
    for g in got:
        assert all(c["state"] == quick_tier.DONE for c in g["counts"])
    x = np.linspace(-3.0, 3.0, 1 << 20, dtype=np.float32).astype(np.float64)
    y = np.frombuffer(bytes.fromhex(got[0]["out"]), dtype=np.float32)
    want = np.sin(x) + np.cos(x * 3) * np.exp(np.clip(x, -20, 20)) - np.sqrt(np.abs(x)) + np.log(np.abs(x) + 1)
    np.testing.assert_allclose(y, want, rtol=2e-5, atol=2e-5 * np.abs(want).max())
