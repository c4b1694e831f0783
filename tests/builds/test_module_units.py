"""Builds that scale (build/cpu_build.py): a module's kernels compile to separately cached
units, so an edit compiles exactly the kernels whose code changed: the edited kernel, or the
callers (direct and through other functions) of an edited @wp.func. Counted with a compiler
wrapper that logs the kernels of every source it compiles, in fresh processes that share a
cache, as a user's sessions do; every kernel's output is checked against NumPy each time."""

import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from paths import REPO as REPO_PATH

MODULE = '''
import warp_interactive as wp

@wp.func
def base(x: float):
    return x * {fb}

@wp.func
def twice(x: float):
    return base(x) * 2.0

@wp.kernel
def k0(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] + {c0}

@wp.kernel
def k1(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = base(a[i]) + {c1}

@wp.kernel
def k2(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * a[i] + {c2}

@wp.kernel
def k3(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = twice(a[i]) + {c3}

@wp.kernel
def k4(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] - {c4}

@wp.kernel
def k5(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.sin(a[i]) + {c5}
'''
KERNELS = [f"k{i}" for i in range(6)]
REPO = str(REPO_PATH)   # this checkout's package
DEFAULTS = {"fb": 3.0, **{f"c{i}": float(i) for i in range(6)}}


def expected(p, a):
    base = a * p["fb"]
    return {"k0": a + p["c0"], "k1": base + p["c1"], "k2": a * a + p["c2"],
            "k3": base * 2.0 + p["c3"], "k4": a - p["c4"], "k5": np.sin(a) + p["c5"]}


# launches every kernel; prints the build record and each kernel's output
DRIVER = textwrap.dedent('''
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    import warp_interactive as wp
    wp.config.num_threads = 2          # two compiler workers whatever the machine's cores
    import unitmod
    from warp_interactive.state import state; build_log = state.build_log
    a = wp.array(np.linspace(-1.0, 1.0, 16, dtype=np.float32))
    out = {}
    for name in sys.argv[2].split(","):
        o = wp.zeros(16, dtype=float)
        wp.launch(getattr(unitmod, name), dim=16, inputs=[a, o])
        out[name] = o.numpy().tolist()
    rec = build_log[-1]
    print(json.dumps({"built": rec.compiled, "compiled": rec.compiled_kernels, "out": out}))
''')

# logs the kernels of every C++ source it compiles (one line per compiler call), then compiles
WRAPPER = textwrap.dedent('''\
    #!/bin/sh
    for arg in "$@"; do
        case "$arg" in
            *.cpp) line=$(grep -o '[A-Za-z0-9_]*_cpu_forward' "$arg" | sort -u | tr '\\n' ' ')
                   echo "$line" >> "$WPI_TEST_CXX_LOG";;   # one write: parallel calls append whole lines
        esac
    done
    exec g++ "$@"
''')


class Session:
    """A folder holding ``unitmod.py`` and a kernel cache; ``run`` is one fresh process."""

    def __init__(self, root, cache, name="s"):
        self.folder = root / name
        self.folder.mkdir()
        self.log = root / f"{name}-cxx.log"
        wrapper = root / "cxx-wrapper.sh"
        if not wrapper.exists():
            wrapper.write_text(WRAPPER)
            wrapper.chmod(0o755)
        (self.folder / "driver.py").write_text(DRIVER)
        self.env = dict(os.environ, WARP_INTERACTIVE_CACHE_DIR=str(cache), CXX=str(wrapper),
                        WPI_TEST_CXX_LOG=str(self.log), PYTHONPATH=os.pathsep.join([REPO] + sys.path))
        self.params = dict(DEFAULTS)

    def write(self, **params):
        self.params.update(params)
        (self.folder / "unitmod.py").write_text(MODULE.format(**self.params))

    def start(self, kernels=KERNELS):
        self.log.write_text("")
        return subprocess.Popen([sys.executable, str(self.folder / "driver.py"), str(self.folder),
                                 ",".join(kernels)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=self.env)

    def finish(self, proc):
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        res = json.loads(out.strip().splitlines()[-1])
        a = np.linspace(-1.0, 1.0, 16, dtype=np.float32)
        want = expected(self.params, a)
        for name, got in res["out"].items():
            np.testing.assert_allclose(got, want[name], rtol=1e-6, atol=1e-6, err_msg=name)
        res["calls"] = compiler_calls(self.log)
        return res

    def run(self, kernels=KERNELS):
        return self.finish(self.start(kernels))


def compiler_calls(log):
    """[sorted kernel names compiled by one compiler call] per call (the PCH build is no .cpp)."""
    calls = []
    for line in log.read_text().splitlines():
        names = sorted(re.sub(r"_[0-9a-f]{8}_cpu_forward$", "", e) for e in line.split())
        calls.append(names)
    return calls


@pytest.fixture
def cache(tmp_path):
    d = tmp_path / "cache"
    d.mkdir()
    return d


def test_cold_build_compiles_groups_then_an_edit_compiles_one_kernel(tmp_path, cache):
    s = Session(tmp_path, cache)
    s.write()
    cold = s.run()
    assert cold["built"] and sorted(cold["compiled"]) == KERNELS
    # more kernels than workers: one group per worker, every kernel in exactly one
    assert len(cold["calls"]) == 2 and sorted(sum(cold["calls"], [])) == KERNELS
    s.write(c2=7.5)
    edit = s.run()
    assert edit["compiled"] == ["k2"] and edit["calls"] == [["k2"]]
    again = s.run()
    assert not again["built"] and again["calls"] == []


@pytest.mark.parametrize("edit, callers", [
    ({"fb": 5.0}, ["k1", "k3"]),              # base: k1 directly, k3 through twice
    ({"c4": 9.0, "c0": -2.0}, ["k0", "k4"]),  # two kernels: one unit each (<= workers)
])
def test_an_edit_compiles_exactly_the_changed_kernels(tmp_path, cache, edit, callers):
    s = Session(tmp_path, cache)
    s.write()
    s.run()
    s.write(**edit)
    got = s.run()
    assert sorted(got["compiled"]) == callers
    assert sorted(got["calls"]) == [[k] for k in callers]


def test_a_damaged_group_unit_rebuilds_only_its_kernels(tmp_path, cache):
    s = Session(tmp_path, cache)
    s.write()
    cold = s.run()
    group = cold["calls"][0]
    entries = [os.path.join(r, "module.so") for r, _, files in os.walk(cache) if "module.so" in files]
    damaged = [p for p in entries if all(f"{k}_" in open(os.path.join(os.path.dirname(p), "module.cpp")).read()
                                          for k in group)]
    assert len(damaged) == 1
    with open(damaged[0], "r+b") as f:
        f.write(b"\0" * 64)
    got = s.run()
    assert sorted(got["compiled"]) == group and sorted(sum(got["calls"], [])) == group


def test_two_processes_editing_different_kernels_at_once(tmp_path, cache):
    first, second = Session(tmp_path, cache, "a"), Session(tmp_path, cache, "b")
    first.write()
    second.write()
    first.run()
    for round_ in range(3):
        first.write(c1=10.0 + round_)
        second.write(c5=20.0 + round_)
        procs = [first.start(), second.start()]
        a, b = first.finish(procs[0]), second.finish(procs[1])
        assert a["compiled"] == ["k1"] and b["compiled"] == ["k5"]
    # both versions load from the cache afterwards, each with its own code
    assert not first.run()["built"] and not second.run()["built"]


def test_a_kernels_code_is_the_same_in_a_group_as_alone():
    """What lets a group unit serve a kernel whose hash was taken alone: its code, and that of
    the functions it calls, is the same text; a shared function is emitted once per unit."""
    import warp_interactive as wp
    from warp_interactive.codegen.module_source import ModuleParts
    from warp_interactive.lang import lower

    @wp.func
    def shared_g(x: float):
        return x * 2.0

    @wp.kernel
    def group_a(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = shared_g(a[i])

    @wp.kernel
    def group_b(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = shared_g(a[i]) + 1.0

    both = ModuleParts(lower([group_a, group_b]))
    for k in (group_a, group_b):
        assert both.source([k.cpp]) == ModuleParts(lower([k])).source([k.cpp])
    unit = both.source([group_a.cpp, group_b.cpp])
    cpp = shared_g.overloads[0].cpp
    # defined once (always inlined: a small function, codegen/module_source.py SMALL_FUNC)
    assert len(re.findall(rf"inline __attribute__\(\(always_inline\)\) wp::float32 {cpp}\(", unit)) == 1
    assert len(re.findall(rf"= {cpp}\(", unit)) >= 2                         # called by both
    assert all(f"{k.cpp}_cpu_forward" in unit for k in (group_a, group_b))
