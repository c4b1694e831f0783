"""Tiered CPU builds (build/quick_tier.py): a load that compiles many kernels runs
first from -O0 units, and the -O3 units built in the background replace them at a later launch.
Both builds must give the same bits (forward and adjoint, math builtins, lane-blocked loops,
float64, random numbers), an edit made while the background build runs compiles only the edited
kernel, recorded launches follow the swap, and another process finds only optimised units."""

import importlib
import json
import os
import subprocess
import sys
import textwrap
import threading
import uuid

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.compiler import cpu as cpu_compiler
from warp_interactive.build import quick_tier, unit_plan
from paths import REPO as REPO_PATH

REPO = str(REPO_PATH)

# each test writes these kernels with its own salt comment: new kernel hashes, a cold build
SOURCE = '''
import warp_interactive as wp

@wp.kernel
def math32(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    # SALT
    i = wp.tid()
    v = x[i]
    y[i] = wp.sin(v) + wp.cos(v * 3.0) * wp.exp(wp.clamp(v, -20.0, 20.0)) - wp.sqrt(wp.abs(v)) + wp.log(wp.abs(v) + 1.0)

@wp.kernel
def math32b(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    # SALT
    i = wp.tid()
    v = x[i]
    y[i] = wp.pow(wp.abs(v) + 0.5, 0.37) + wp.tanh(v) + wp.atan2(v, 1.5) + wp.exp(-v * v) / (v * v + 0.3)

@wp.kernel
def geom(x: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat), y: wp.array(dtype=wp.vec3)):
    # SALT
    i = wp.tid()
    v = x[i]
    r = wp.quat_rotate(wp.normalize(q[i]), v)
    w = wp.cross(r, wp.normalize(v + wp.vec3(0.5, 0.25, 1.0)))
    m = wp.outer(w, v) * 0.5 + wp.identity(n=3, dtype=float)
    y[i] = m * w + wp.vec3(wp.length(r), wp.dot(w, v), wp.sin(w[2]))

@wp.kernel
def nbody(pos: wp.array(dtype=wp.vec3), n: int, acc: wp.array(dtype=wp.vec3)):
    # SALT
    i = wp.tid()
    a = wp.vec3()
    for j in range(n):
        d = pos[j] - pos[i]
        a = a + d * (1.0 / wp.pow(wp.length_sq(d) + 0.01, 1.5))
    acc[i] = a

@wp.kernel
def math64(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    # SALT
    i = wp.tid()
    v = x[i]
    y[i] = wp.sin(v) * wp.exp(v * wp.float64(0.3)) + wp.sqrt(wp.abs(v)) + wp.cos(v)

@wp.kernel
def rnd(seed: int, y: wp.array(dtype=float)):
    # SALT
    i = wp.tid()
    s = wp.rand_init(seed, i)
    y[i] = wp.randf(s) + wp.randn(s) * wp.sin(wp.randf(s))
'''
N = 67      # not a multiple of 8: lane blocks and the scalar remainder both run


@pytest.fixture
def quick(monkeypatch):
    """The quick tier for any load of at least 2 kernels, its PCH ready, one launch thread (the
    adjoint's atomic sums then add in one order in both builds); the quick code never waits for
    the optimised code (its budget unlimited), so these tests see the -O0 code's own bits."""
    cpu_compiler.ensure_pch(wp.config.cpu_compiler, cpu_compiler.flags(False, False, True))
    monkeypatch.setattr(wp.config, "cpu_quick_build", 2)
    monkeypatch.setattr(quick_tier, "BUDGET_S", None)
    monkeypatch.setattr(wp.config, "num_threads", 1)
    yield
    quick_tier.wait()


def _import(tmp_path, name, source=SOURCE):
    (tmp_path / f"{name}.py").write_text(source.replace("# SALT", f"# {uuid.uuid4().hex}"))
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.invalidate_caches()
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


def _inputs():
    rng = np.random.default_rng(7)
    x = rng.standard_normal(N).astype(np.float32) * 3.0
    x[:4] = [0.0, -0.0, 1e-30, 4.0e8]       # zeros, a subnormal-ish square, a wide sin argument (libm)
    v = rng.standard_normal((N, 3)).astype(np.float32)
    q = rng.standard_normal((N, 4)).astype(np.float32)
    return x, v, q


def _run_all(mod):
    """Every kernel forward (and math32/geom/nbody backward through a tape): name -> array."""
    x, v, q = _inputs()
    out = {}
    xa = wp.array(x, requires_grad=True)
    va = wp.array(v, dtype=wp.vec3, requires_grad=True)
    qa = wp.array(q, dtype=wp.quat, requires_grad=True)
    ys = {k: wp.zeros(N, dtype=float, requires_grad=True) for k in ("math32", "math32b")}
    yg, acc = (wp.zeros(N, dtype=wp.vec3, requires_grad=True) for _ in range(2))
    tape = wp.Tape()
    with tape:
        wp.launch(mod.math32, dim=N, inputs=[xa, ys["math32"]])
        wp.launch(mod.math32b, dim=N, inputs=[xa, ys["math32b"]])
        wp.launch(mod.geom, dim=N, inputs=[va, qa, yg])
        wp.launch(mod.nbody, dim=N, inputs=[va, N, acc])
    grads = {ys["math32"]: wp.ones(N, dtype=float), ys["math32b"]: wp.ones(N, dtype=float),
             yg: wp.ones(N, dtype=wp.vec3), acc: wp.ones(N, dtype=wp.vec3)}
    tape.backward(grads=grads)
    out.update({k: y.numpy() for k, y in ys.items()})
    out.update(geom=yg.numpy(), nbody=acc.numpy(), x_grad=xa.grad.numpy(), v_grad=va.grad.numpy(),
               q_grad=qa.grad.numpy())
    y64 = wp.zeros(N, dtype=wp.float64)
    wp.launch(mod.math64, dim=N, inputs=[wp.array(x.astype(np.float64) * 7.0, dtype=wp.float64), y64])
    yr = wp.zeros(N, dtype=float)
    wp.launch(mod.rnd, dim=N, inputs=[42, yr])
    out.update(math64=y64.numpy(), rnd=yr.numpy())
    return out


def _loaded(mod):
    return list(wp.get_module(mod.__name__).loaded.values())


def _gated(monkeypatch):
    """Background builds wait for the returned event (set it to let them run)."""
    gate = threading.Event()
    real_run = quick_tier._run
    monkeypatch.setattr(quick_tier, "_run", lambda *a: (gate.wait(120), real_run(*a)))
    return gate


def test_quick_and_optimised_builds_give_the_same_bits(tmp_path, quick, monkeypatch):
    mod = _import(tmp_path, "quick_bits")
    gate = _gated(monkeypatch)
    try:
        first = _run_all(mod)
        quick_lms = _loaded(mod)
        # forward and backward loads both ran from quick units
        assert len(quick_lms) == 2 and all(lm.quick for lm in quick_lms)
    finally:
        gate.set()
    quick_tier.wait()
    assert all(lm.upgraded() for lm in quick_lms)
    second = _run_all(mod)
    optimised = _loaded(mod)
    assert optimised and not any(lm.quick for lm in optimised)
    assert not set(p for lm in optimised for p in lm.paths) & set(p for lm in quick_lms for p in lm.paths)
    for name, a in first.items():
        b = second[name]
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes(), f"{name}: quick and optimised builds differ"
    x, v, _ = _inputs()
    xd = x.astype(np.float64)
    want = np.sin(xd) + np.cos(xd * 3) * np.exp(np.clip(xd, -20, 20)) - np.sqrt(np.abs(xd)) + np.log(np.abs(xd) + 1)
    np.testing.assert_allclose(first["math32"], want, rtol=2e-5, atol=2e-5)
    d = v[None, :, :].astype(np.float64) - v[:, None, :]
    acc = (d / (np.sum(d * d, axis=2, keepdims=True) + 0.01) ** 1.5).sum(axis=1)
    np.testing.assert_allclose(first["nbody"], acc, rtol=1e-3, atol=1e-3)


def test_a_load_below_the_threshold_or_with_fast_math_builds_optimised_at_once(tmp_path, quick, monkeypatch):
    monkeypatch.setattr(wp.config, "cpu_quick_build", 7)      # the module has 6 kernels
    mod = _import(tmp_path, "quick_below")
    _run_all(mod)
    assert not any(lm.quick for lm in _loaded(mod))
    assert not quick_tier.wanted(100, False, True) and not quick_tier.wanted(100, True, False)
    assert quick_tier.wanted(7, False, False) and not quick_tier.wanted(6, False, False)
    monkeypatch.setattr(wp.config, "cpu_quick_build", 0)
    assert not quick_tier.wanted(1000, False, False)


def test_quick_flags_differ_from_the_optimised_ones_only_in_the_optimisation_level():
    opt, fast = cpu_compiler.flags(False, False), cpu_compiler.flags(False, False, True)
    # (and the macro that gives its entries the switch to the optimised ones: native quick.h)
    assert [f for f in opt if f != "-O3"] == [f for f in fast if f not in ("-O0", "-DWPI_QUICK_TIER")]
    assert "-DWPI_QUICK_TIER" in fast
    assert "-O0" in fast and "-O3" in opt and "-ffp-contract=off" in fast
    # no quick tier with fast_math (its -O3 reassociates): the same flags either way
    assert cpu_compiler.flags(False, True, True) == cpu_compiler.flags(False, True)


EDITED = '''
@wp.kernel
def e{i}(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    # SALT
    i = wp.tid()
    y[i] = wp.sin(x[i]) * {c} + float({i})
'''


def _edit_source(n, consts):
    return "import warp_interactive as wp\n" + "".join(
        EDITED.format(i=i, c=consts.get(i, 1.0)) for i in range(n))


def _check_edit_module(mod, n, consts):
    x = np.linspace(-2.0, 2.0, 19, dtype=np.float32)
    for i in range(n):
        y = wp.zeros(19, dtype=float)
        wp.launch(getattr(mod, f"e{i}"), dim=19, inputs=[wp.array(x), y])
        np.testing.assert_allclose(y.numpy(), np.sin(x) * consts.get(i, 1.0) + i, rtol=1e-6, atol=1e-6)


def test_an_edit_during_the_background_build_compiles_one_kernel_then_all_upgrade(tmp_path, quick, monkeypatch):
    from warp_interactive.state import state
    gate = _gated(monkeypatch)
    n = 5
    salt = uuid.uuid4().hex
    path = tmp_path / "quick_edit.py"
    path.write_text(_edit_source(n, {}).replace("# SALT", f"# {salt}"))
    sys.path.insert(0, str(tmp_path))
    try:
        mod = importlib.import_module("quick_edit")
        _check_edit_module(mod, n, {})
        cold = state.build_log[-1]
        assert sorted(cold.compiled_kernels) == [f"e{i}" for i in range(n)]
        assert all(lm.quick for lm in _loaded(mod))
        # the edit, while the optimised build waits: only e2 compiles, the others are not
        # translated again (their quick index entries live in this process)
        path.write_text(_edit_source(n, {2: 5.0}).replace("# SALT", f"# {salt}"))
        st = os.stat(path)
        os.utime(path, (st.st_atime, st.st_mtime + 2))
        importlib.invalidate_caches()
        mod = importlib.reload(mod)
        hashed = []     # the kernels the load translated and hashed (not found by their key)
        real_hash = unit_plan.kernel_hash
        monkeypatch.setattr(unit_plan, "kernel_hash", lambda parts, k, key: (hashed.append(k.key), real_hash(parts, k, key))[1])
        cmd = wp.launch(mod.e0, dim=19, inputs=[wp.array(np.ones(19, np.float32)), wp.zeros(19, dtype=float)],
                        record_cmd=True)
        edit = state.build_log[-1]
        assert edit.compiled_kernels == ["e2"]
        assert hashed == ["e2"]
        monkeypatch.setattr(unit_plan, "kernel_hash", real_hash)
        quick_entry = cmd._entry
        _check_edit_module(mod, n, {2: 5.0})
        gate.set()
        quick_tier.wait()
        _check_edit_module(mod, n, {2: 5.0})       # the next launch swaps in the optimised units
        assert not any(lm.quick for lm in _loaded(mod))
        assert state.build_log[-1].compiled_kernels == []
        cmd.launch()     # the recorded launch re-resolves to the optimised entry
        assert cmd._entry != quick_entry
    finally:
        sys.path.remove(str(tmp_path))
        gate.set()
    # another process sharing the cache: every kernel from optimised units, nothing compiled
    driver = textwrap.dedent(f'''
        import json, sys
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np
        import warp_interactive as wp
        from warp_interactive.state import state
        import quick_edit as m
        x = np.linspace(-2.0, 2.0, 19, dtype=np.float32)
        res = []
        for i in range({n}):
            y = wp.zeros(19, dtype=float)
            wp.launch(getattr(m, f"e{{i}}"), dim=19, inputs=[wp.array(x), y])
            res.append(y.numpy().tolist())
        lm = list(wp.get_module("quick_edit").loaded.values())[0]
        print(json.dumps({{"compiled": state.build_log[-1].compiled_kernels, "quick": len(lm.quick),
                          "out": res}}))
    ''')
    env = dict(os.environ, WARP_INTERACTIVE_CACHE_DIR=wp.config.kernel_cache_dir,
               WARP_INTERACTIVE_CPU_QUICK_BUILD="2", PYTHONPATH=os.pathsep.join([REPO] + sys.path))
    res = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout.splitlines()[-1])
    assert got["compiled"] == [] and got["quick"] == 0
    x = np.linspace(-2.0, 2.0, 19, dtype=np.float32)
    for i, y in enumerate(got["out"]):
        np.testing.assert_allclose(y, np.sin(x) * (5.0 if i == 2 else 1.0) + i, rtol=1e-6, atol=1e-6)


def _state(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def _reaches(pid, states, seconds=10.0):
    """Whether the process's state is one of ``states`` within ``seconds`` (a signal takes effect
    once the process leaves an uninterruptible wait, 'D', which a loaded machine can prolong)."""
    import time
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if _state(pid) in states:
            return True
        time.sleep(0.01)
    return False


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads process states in /proc")
def test_background_compilers_stop_while_a_module_loads():
    """A background compiler (a stand-in command) is stopped inside ``paused()`` (what every CPU
    load holds), continues after it, and still finishes with its output."""
    import tempfile
    import time
    from warp_interactive.compiler import background
    from warp_interactive.compiler.cpu import run_compiler
    # the stand-in runs until the test opens its gate (a fixed sleep could end before the checks
    # on a loaded machine, leaving no process to look at). One process with no children: a shell
    # stopped while it vforks a child waits in 'D' for the stopped child, never showing 'T'
    gate = os.path.join(tempfile.mkdtemp(), "gate")
    script = f"import os, time\nwhile not os.path.exists({gate!r}): time.sleep(0.02)\nprint('finished')"
    result = []
    thread = threading.Thread(target=lambda: result.append(
        run_compiler([sys.executable, "-c", script], "a stand-in", background=True)))
    thread.start()
    for _ in range(200):
        if background._groups:
            break
        time.sleep(0.01)
    (group,) = background._groups
    with background.paused():
        with background.paused():      # nested (two threads loading): stays stopped
            pass
        assert _reaches(group, "T")
    assert _reaches(group, "RS")
    open(gate, "w").close()
    thread.join(30)
    assert result == [(0, "finished\n")] and not background._groups
