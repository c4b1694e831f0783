"""Units pile up after edits; they are merged back (build/unit_merge.py): a cold build maps
one unit per compiler worker, each edit adds one unit (and compiles only the edited kernel);
past ``workers + MERGE_ABOVE`` units the edit's load compiles the module again, grouped, in the
background, and the next process maps ``workers`` units. Counted with a compiler wrapper in
fresh processes that share a cache; every kernel's output is checked against NumPy each run."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
from paths import REPO as REPO_PATH

REPO = str(REPO_PATH)
N = 10
KERNELS = [f"k{i}" for i in range(N)]
MODULE = "import warp_interactive as wp\n" + "".join(f'''
@wp.kernel
def k{i}(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * {{c{i}}} + {float(i)}
''' for i in range(N))

# launches every kernel; prints what the load compiled, how many units it mapped, the outputs
DRIVER = textwrap.dedent('''
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    import warp_interactive as wp
    from warp_interactive.build import cpu_build, unit_merge
    wp.config.num_threads = 2           # two compiler workers whatever the machine's cores
    unit_merge.MERGE_ABOVE = 2          # merge past 2 + 2 units
    mapped = []
    init = cpu_build.LoadedModule.__init__
    def counting(self, units, *args, **kwargs):
        mapped.append(len(set(units.values())))
        init(self, units, *args, **kwargs)
    cpu_build.LoadedModule.__init__ = counting
    import unitmod
    from warp_interactive.state import state
    a = wp.array(np.linspace(-1.0, 1.0, 16, dtype=np.float32))
    out = {}
    for i in range(int(sys.argv[2])):
        o = wp.zeros(16, dtype=float)
        wp.launch(getattr(unitmod, f"k{i}"), dim=16, inputs=[a, o])
        out[f"k{i}"] = o.numpy().tolist()
    merging = bool(unit_merge._threads)
    unit_merge.wait()
    print(json.dumps({"compiled": state.build_log[-1].compiled_kernels, "mapped": mapped[-1],
                      "merging": merging, "out": out}))
''')

WRAPPER = textwrap.dedent('''\
    #!/bin/sh
    for arg in "$@"; do
        case "$arg" in
            *.cpp) line=$(grep -o 'k[0-9]*_[0-9a-f]*_cpu_forward' "$arg" | sed 's/_[0-9a-f]*_cpu_forward//' | sort -u | tr '\\n' ' ')
                   echo "$line" >> "$WPI_TEST_CXX_LOG";;
        esac
    done
    exec g++ "$@"
''')


def _session(tmp_path):
    wrapper = tmp_path / "cxx.sh"
    wrapper.write_text(WRAPPER)
    wrapper.chmod(0o755)
    (tmp_path / "driver.py").write_text(DRIVER)
    log = tmp_path / "cxx.log"
    env = dict(os.environ, WARP_INTERACTIVE_CACHE_DIR=str(tmp_path / "cache"), CXX=str(wrapper),
               WPI_TEST_CXX_LOG=str(log), PYTHONPATH=os.pathsep.join([REPO] + sys.path))
    params = {f"c{i}": 1.0 + i for i in range(N)}

    def run(**edit):
        params.update(edit)
        (tmp_path / "unitmod.py").write_text(MODULE.format(**params))
        log.write_text("")
        proc = subprocess.run([sys.executable, str(tmp_path / "driver.py"), str(tmp_path), str(N)],
                              capture_output=True, text=True, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr
        res = json.loads(proc.stdout.strip().splitlines()[-1])
        a = np.linspace(-1.0, 1.0, 16, dtype=np.float32)
        for i in range(N):
            np.testing.assert_allclose(res["out"][f"k{i}"], a * params[f"c{i}"] + i, rtol=1e-6)
        res["calls"] = [sorted(line.split()) for line in log.read_text().splitlines()]
        return res
    return run


def test_units_piled_up_by_edits_are_merged_back(tmp_path):
    run = _session(tmp_path)
    cold = run()
    assert cold["mapped"] == 2 and len(cold["calls"]) == 2 and not cold["merging"]
    for n, kernel in enumerate(["k1", "k4"], start=3):       # 3, then 4 units: tolerated
        edit = run(**{f"c{kernel[1:]}": 10.0 + n})
        assert edit["compiled"] == [kernel] and edit["calls"] == [[kernel]]
        assert edit["mapped"] == n and not edit["merging"]
    edit = run(c7=-3.0)                                       # 5 units: merged in the background
    assert edit["compiled"] == ["k7"] and edit["mapped"] == 5 and edit["merging"]
    assert edit["calls"][0] == ["k7"] and len(edit["calls"]) == 3
    assert sorted(sum(edit["calls"][1:], [])) == sorted(KERNELS)   # two groups: every kernel once
    warm = run()
    assert warm["compiled"] == [] and warm["calls"] == [] and warm["mapped"] == 2
    again = run(c2=0.5)                                       # after a merge an edit is one kernel
    assert again["compiled"] == ["k2"] and again["calls"] == [["k2"]] and again["mapped"] == 3
