"""Builds that scale with the size of the edit, not of the module: a module of N
kernels (N = 1, 10, 100), warp_interactive side by side with warp-lang. Not a test.

    python benchmarks/run.py --setup-peers           # once: warp-lang in benchmarks/.peer-venv
    python benchmarks/module_scaling.py [--repeat 3] [--sizes 1 10 100] [--only wpi] [--json f]

Each sample is one fresh process with its own, empty kernel cache (a first process built the
precompiled header / warp's runtime there, untimed):
  cold  = import of the module's file + the first launch (the whole module builds);
  edit  = rewrite the middle kernel's constant, reload the file, launch that kernel (what a user
          waits for after saving an edit); "launch" is the launch alone, as run.py's rebuild.
  cold + long = in another fresh process, the cold import and one launch of 4M lanes at once
          (LONG), the worst case of the quick tier below: it runs while the optimised build is
          not in yet; for ours also with the quick tier off, which it must not exceed by much.
Every launch's output is checked against NumPy. Medians; the targets are printed
below the table (edit of one kernel of 100 <= 1.5x the edit of a one-kernel module; cold
100-kernel build <= 7% of warp-lang's).

A cold build of at least ``wp.config.cpu_quick_build`` (16) kernels runs first from -O0 units
(the same bits) while the -O3 units build in the background (build/quick_tier.py): "cold" is
then the quick build; "optimised in" is, for ours, the time from the cold import until the
optimised units were in (the edit, at normal priority, runs meanwhile). A launch switches to
the optimised code between chunks, and its -O0 chunks stop after the tier's budget (they wait
for the optimised code): "cold + long" shows what that bound gives.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import PEER_PY, env_for, python_for, run_json   # noqa: E402

KERNEL = '''
@wp.kernel
def k{i}(x: wp.array(dtype=wp.vec3), y: wp.array(dtype=float), a: float):
    t = wp.tid()
    v = x[t] * a
    w = wp.cross(v, wp.vec3(1.0, 2.0, 3.0))
    y[t] = wp.length(v) + wp.dot(w, w) * {c} + wp.sin(v[0])
'''
HEADER = {"wpi": "import warp_interactive as wp\n", "warp": "import warp as wp\n"}

DRIVER = '''
import importlib, json, os, sys, time
import numpy as np
t0 = time.perf_counter()
IMPORT
t_import = time.perf_counter() - t0
sys.path.insert(0, FOLDER)
DEVICE = DEVICE_NAME
rng = np.random.default_rng(1)
xs = rng.standard_normal((64, 3)).astype(np.float32)
x = wp.array(xs, dtype=wp.vec3, device=DEVICE)
y = wp.zeros(64, dtype=float, device=DEVICE)
if LONG:
    xls = rng.standard_normal((LONG, 3)).astype(np.float32)
    xl = wp.array(xls, dtype=wp.vec3, device=DEVICE)
    yl = wp.zeros(LONG, dtype=float, device=DEVICE)

def expected(c, xs=xs):
    v = xs.astype(np.float64) * 2.0
    w = np.cross(v, [1.0, 2.0, 3.0])
    return np.linalg.norm(v, axis=1) + (w * w).sum(1) * c + np.sin(v[:, 0])

def launch(m, i, c):
    t = time.perf_counter()
    wp.launch(getattr(m, f"k{i}"), dim=64, inputs=[x, y, 2.0], device=DEVICE)
    out = y.numpy()
    dt = time.perf_counter() - t
    assert np.allclose(out, expected(c), rtol=1e-4, atol=1e-3), (i, c, out[:3], expected(c)[:3])
    return dt

t = t_start = time.perf_counter()
import MODNAME as m
t_cold = time.perf_counter() - t + launch(m, 0, BASE)
res = {"import": t_import, "cold": t_cold}
if LONG:
    t = time.perf_counter()
    wp.launch(m.k0, dim=LONG, inputs=[xl, yl, 2.0], device=DEVICE)
    out = yl.numpy()
    res["long"] = t_cold + time.perf_counter() - t
    assert np.allclose(out, expected(BASE, xls), rtol=1e-4, atol=1e-3)
if EDIT:
    mid = N // 2
    with open(m.__file__, "w") as f:
        f.write(EDITED)
    # a real edit comes seconds later: Python's .pyc check compares whole-second mtimes
    st = os.stat(m.__file__)
    os.utime(m.__file__, (st.st_atime, st.st_mtime + 2))
    importlib.invalidate_caches()
    t = time.perf_counter()
    m = importlib.reload(m)
    t_reload = time.perf_counter() - t
    t_launch = launch(m, mid, 7.0)
    res["edit"], res["edit_launch"] = t_reload + t_launch, t_launch
OPTIMISED
print(json.dumps(res))
'''

# ours: when the background optimised build (if any) was in, from the cold import's start
OPTIMISED = {"wpi": "from warp_interactive.build import quick_tier\nquick_tier.wait()\n"
                    "res['optimised'] = (quick_tier.last_finished() or t_start + t_cold) - t_start",
             "warp": "res['optimised'] = t_cold"}
IMPORTS = {"wpi": "import warp_interactive as wp\nwp.config.quiet = True\nwp.init()",
           "warp": "import warp as wp\nwp.config.quiet = True\nwp.init()"}


def module_text(toolkit, n, base, edited=None):
    parts = [HEADER[toolkit]]
    for i in range(n):
        parts.append(KERNEL.format(i=i, c=7.0 if i == edited else base))
    return "".join(parts)


LONG = 4 * 1024 * 1024    # lanes of the long launch


def sample(toolkit, py, n, edit, long=0, quick_off=False):
    """One fresh process (with a cache that only the untimed warm-up process has used).
    ``long``: the cold import is followed by one launch of that many lanes (no edit);
    ``quick_off``: ours with the quick tier off (wp.config.cpu_quick_build = 0)."""
    folder, cache = tempfile.mkdtemp(prefix="wpi-scale-"), tempfile.mkdtemp(prefix="wpi-scale-cache-")
    env = env_for(toolkit, cache)
    if quick_off:
        env["WARP_INTERACTIVE_CPU_QUICK_BUILD"] = "0"
    if toolkit == "warp":
        env["WARP_KERNEL_CACHE"] = cache
    else:   # this checkout's package, not whichever one the interpreter has installed
        env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(HERE), env.get("PYTHONPATH", "")])
    # the warm-up module's kernel differs from every measured one (base 3.0): no cache hits
    for modname, size, base, do_edit in (("warmup", 1, 3.0, False), (f"mod{n}", n, 1.0, edit)):
        with open(os.path.join(folder, modname + ".py"), "w") as f:
            f.write(module_text(toolkit, size, base))
        script = (DRIVER.replace("OPTIMISED", OPTIMISED[toolkit]).replace("IMPORT", IMPORTS[toolkit]).replace("FOLDER", repr(folder))
                  .replace("DEVICE_NAME", repr("cpu")).replace("MODNAME", modname)
                  .replace("EDITED", repr(module_text(toolkit, size, base, edited=size // 2)))
                  .replace("BASE", repr(base))
                  .replace("EDIT", repr(do_edit)).replace("N // 2", f"{size} // 2")
                  .replace("LONG", repr(long if modname != "warmup" else 0)))
        path = os.path.join(folder, f"drive_{modname}.py")
        with open(path, "w") as f:
            f.write(script)
        res = run_json([py, path], env)
    subprocess.run(["rm", "-rf", folder, cache])
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", type=int, nargs="*", default=[1, 10, 100])
    ap.add_argument("--only", nargs="*", choices=["wpi", "warp"])
    ap.add_argument("--json", help="also write the raw samples here")
    a = ap.parse_args()
    results = {}
    for toolkit in a.only or ["wpi", "warp"]:
        py = python_for(toolkit)
        if py is None:
            print(f"(warp-lang not installed in {PEER_PY}: python benchmarks/run.py --setup-peers)")
            continue
        for n in a.sizes:
            print(f"{toolkit} N={n}...", file=sys.stderr, flush=True)
            samples = [sample(toolkit, py, n, True) for _ in range(a.repeat)]
            longs = [sample(toolkit, py, n, False, LONG) for _ in range(a.repeat)]
            results[(toolkit, n)] = {k: [s[k] for s in samples] for k in samples[0]}
            results[(toolkit, n)]["long"] = [s["long"] for s in longs]
            if toolkit == "wpi":     # the bound: the same with the quick tier off
                offs = [sample(toolkit, py, n, False, LONG, True) for _ in range(a.repeat)]
                results[(toolkit, n)]["long_off"] = [s["long"] for s in offs]
    print(report(results, a.sizes, a.repeat))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({f"{t}:{n}": v for (t, n), v in results.items()}, f, indent=1)


def report(results, sizes, repeat):
    def med(t, n, k):
        r = results.get((t, n))
        return statistics.median(r[k]) if r else None

    def s(v):
        return "-" if v is None else f"{v:.3f}"

    load = " ".join(f"{v:.1f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else "-"
    lines = [f"medians of {repeat} fresh processes, seconds; cores: {os.cpu_count()}; "
             f"load average at the end: {load}",
             "| kernels | cold build + launch, ours | warp-lang | cold until optimised code is in, "
             f"ours | cold + one launch of {LONG // 2**20}M lanes, ours | ours, quick tier off | warp-lang | "
             "edit one kernel (reload + launch), ours | warp-lang | edit: launch alone, ours | warp-lang |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for n in sizes:
        lines.append(f"| {n} | {s(med('wpi', n, 'cold'))} | {s(med('warp', n, 'cold'))} | "
                     f"{s(med('wpi', n, 'optimised'))} | "
                     f"{s(med('wpi', n, 'long'))} | {s(med('wpi', n, 'long_off'))} | "
                     f"{s(med('warp', n, 'long'))} | "
                     f"{s(med('wpi', n, 'edit'))} | {s(med('warp', n, 'edit'))} | "
                     f"{s(med('wpi', n, 'edit_launch'))} | {s(med('warp', n, 'edit_launch'))} |")
    big, one = max(sizes), min(sizes)
    e_big, e_one = med("wpi", big, "edit"), med("wpi", one, "edit")
    if e_big and e_one and big != one:
        lines.append(f"edit of one kernel of {big} / of {one}: {e_big / e_one:.2f}x (target <= 1.5x)")
    c_ours, c_warp = med("wpi", big, "cold"), med("warp", big, "cold")
    if c_ours and c_warp:
        lines.append(f"cold {big}-kernel build, ours / warp-lang: {100 * c_ours / c_warp:.1f}% "
                     "(target <= 7%)")
        o_ours = med("wpi", big, "optimised")
        lines.append(f"cold {big}-kernel build until the optimised code is in, ours / warp-lang: "
                     f"{100 * o_ours / c_warp:.1f}%")
    l_ours, l_warp = med("wpi", big, "long"), med("warp", big, "long")
    if l_ours and l_warp:
        lines.append(f"cold {big}-kernel build + one long launch, ours / warp-lang: "
                     f"{100 * l_ours / l_warp:.1f}%")
    l_off = med("wpi", big, "long_off")
    if l_ours and l_off:
        lines.append(f"cold {big}-kernel build + one long launch, quick tier on / off: "
                     f"{l_ours / l_off:.2f}x (the bound: close to 1)")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
