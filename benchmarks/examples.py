"""warp-lang's own example programs, unchanged, side by side: ours on 1 thread, ours on all cores,
warp-lang (which runs CPU kernels on one thread); per-step medians, the cold first step, ratios.

    python benchmarks/examples.py                          # the default list below
    python benchmarks/examples.py core/example_wave --steps 8 --clock cpu
    python benchmarks/examples.py --kernels 2              # + per-kernel breakdown of the 2 slowest
    python benchmarks/examples.py --no-peer --json out.json
    python benchmarks/examples.py --cold --steps 2            # first steps from empty kernel caches

Each example runs in its own process per side (scripts/compat_examples.py's driver: the forwarding
``warp`` shim for ours, the compat venv's warp-lang for the peer; ``wp.synchronize()`` after each
step). ``--clock cpu`` reports process CPU time per step (all threads) instead of wall time: on a
shared machine the wall time includes waiting for a core, the CPU time does not (but it counts
every thread's work, so it does not show a multithreaded speed-up). Examples run as scripts
(``fdtd_3d``) have no steps: their whole run is shown in the first-step column. Without
``--cold`` the kernel caches are as earlier runs left them (usually warm: the first step then
loads binaries); with it each run gets empty ones (ours ``WARP_INTERACTIVE_CACHE_DIR``,
warp-lang's ``WARP_CACHE_PATH``), so the first step includes every build.

The per-kernel breakdown reruns ours (all cores) on the slowest examples (largest ratio to
warp-lang) with ``wp.timing_begin()`` over the steps after the first: per kernel and pass (forward,
backward) the launches per step and the wall and CPU milliseconds per step. Recording synchronises
each launch and turns the fast launch path off, so its total can exceed the plain step time.
"""

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
import compat_examples as ce  # noqa: E402
from compat_warp_tests import make_shim, wheel_dir  # noqa: E402

DEFAULT = [
    "core/example_fft_poisson_navier_stokes_2d",
    "core/example_sph",
    "core/example_dem",
    "core/example_wave",
    "core/example_fdtd_3d",
    "optim/example_particle_repulsion",
    "optim/example_navier_stokes_perturbation",
    "optim/example_fluid_checkpoint",
]


def figures(result, clock):
    """(first step s, median of later steps s) on the chosen clock; a script's whole run as first."""
    if not result or result.get("status") != "ran":
        return None, None
    times = result.get("step_cpu_times" if clock == "cpu" else "step_times") or []
    if not times:
        return result.get("init_s"), None
    return times[0], (statistics.median(times[1:]) if len(times) > 1 else None)


def ratio(a, b):
    return "-" if a is None or not b else f"{a / b:.2f}x"


def fmt(s):
    return "-" if s is None else (f"{s * 1000:.1f}" if s < 10 else f"{s:.1f}s")


def run_example(name, args, wheel, tmp):
    spec = ce.DEFAULT_EXAMPLES.get(name, {})
    row = {}
    sides = [("ours1", "ours", 1), ("oursN", "ours", args.threads)] + ([("peer", "peer", None)] if args.peer else [])
    for key, side, threads in sides:
        if args.cold:   # empty kernel caches, each side's own variable (ours, warp-lang)
            os.environ["WARP_INTERACTIVE_CACHE_DIR"] = tempfile.mkdtemp(dir=tmp)
            os.environ["WARP_CACHE_PATH"] = tempfile.mkdtemp(dir=tmp)
        result, _ = ce.run_one(name, spec, side, args, wheel, tmp, threads=threads)
        row[key] = result
        if result["status"] != "ran":
            print(f"    {key}: {result['status']} {result.get('error', '')[:160]}", flush=True)
    return row


def table(rows, clock, peer):
    print(f"\nper step, milliseconds ({clock} clock; load average now {os.getloadavg()[0]:.1f})")
    head = f"{'example':42s} {'1 thread':>9s} {'all':>9s}"
    head += f" {'warp-lang':>10s} {'1t/wl':>7s} {'all/wl':>7s}" if peer else ""
    head += f"   first: {'1 thread':>9s} {'all':>9s}" + (f" {'warp-lang':>10s} {'all/wl':>7s}" if peer else "")
    print(head)
    logs = []
    for name, row in rows.items():
        f1, m1 = figures(row.get("ours1"), clock)
        fn, mn = figures(row.get("oursN"), clock)
        fp, mp = figures(row.get("peer"), clock)
        line = f"{name.replace('example_', ''):42s} {fmt(m1):>9s} {fmt(mn):>9s}"
        if peer:
            line += f" {fmt(mp):>10s} {ratio(m1, mp):>7s} {ratio(mn, mp):>7s}"
            if mn and mp:
                logs.append(math.log(mn / mp))
        line += f"          {fmt(f1):>9s} {fmt(fn):>9s}" + (f" {fmt(fp):>10s} {ratio(fn, fp):>7s}" if peer else "")
        print(line)
    if logs:
        print(f"geometric mean of all-cores / warp-lang per step: {math.exp(sum(logs) / len(logs)):.2f}x "
              f"over {len(logs)} examples")


def kernel_breakdown(name, args, wheel, tmp):
    spec = dict(ce.DEFAULT_EXAMPLES.get(name, {}), kernels=True)
    if spec.get("script") or spec.get("steps", args.steps) < 2:
        print(f"\n{name}: no per-kernel breakdown (run as a script or a single step)")
        return None
    result, _ = ce.run_one(name, spec, "ours", args, wheel, tmp, threads=args.threads)
    rows = result.get("kernels") or []
    print(f"\n{name}: per kernel, per step (ours, {args.threads or 'all'} threads, recorded)")
    print(f"  {'kernel':40s} {'pass':9s} {'launches':>9s} {'wall ms':>9s} {'cpu ms':>9s}")
    for kernel, kind, n, wall, cpu in rows[:args.kernel_rows]:
        print(f"  {kernel[:40]:40s} {kind:9s} {n:9.1f} {wall:9.2f} {cpu:9.2f}")
    total = sum(r[3] for r in rows)
    print(f"  {'all kernels':40s} {'':9s} {sum(r[2] for r in rows):9.1f} {total:9.2f} {sum(r[4] for r in rows):9.2f}")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("examples", nargs="*", help="examples relative to warp/examples, without .py")
    ap.add_argument("--steps", type=int, default=5, help="steps per example (where not listed)")
    ap.add_argument("--threads", type=int, default=None, help="ours' 'all cores' thread count (default: all)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="per-step clock")
    ap.add_argument("--no-peer", dest="peer", action="store_false", help="skip warp-lang")
    ap.add_argument("--kernels", type=int, default=0, metavar="N", help="per-kernel breakdown of the N slowest")
    ap.add_argument("--kernel-rows", type=int, default=12, help="rows per breakdown")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per example and side")
    ap.add_argument("--json", help="write every result to this file")
    ap.add_argument("--cold", action="store_true",
                    help="every run starts from empty kernel caches (the first step builds everything)")
    args = ap.parse_args()
    args.device, args.verbose = "cpu", False
    wheel = wheel_dir()
    make_shim(wheel)
    print(f"load average before: {os.getloadavg()}, {os.cpu_count()} cores")
    rows, started = {}, time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.examples or DEFAULT:
            name = name[:-3] if name.endswith(".py") else name
            print(f"running {name} ...", flush=True)
            rows[name] = run_example(name, args, wheel, tmp)
        table(rows, args.clock, args.peer)

        def slowness(item):
            _, med = figures(item[1].get("oursN"), args.clock)
            _, peer = figures(item[1].get("peer"), args.clock)
            return (med / peer) if (med and peer) else (med or 0.0)
        for name, _ in sorted(rows.items(), key=slowness, reverse=True)[:args.kernels]:
            rows[name]["kernels"] = kernel_breakdown(name, args, wheel, tmp)
    print(f"\nload average after: {os.getloadavg()}; {time.time() - started:.0f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1, default=str)


if __name__ == "__main__":
    main()
