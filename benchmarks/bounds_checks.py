"""What release-mode bounds checks cost on the CPU: saxpy and n-body (benchmarks/bench_kernels.py)
built with and without ``bounds_check`` (the module option that compiles debug mode's index checks
into an optimised -O3 build), launched on every core.

    .venv/bin/python benchmarks/bounds_checks.py [--repeat 7] [--n-saxpy 4194304] [--n-body 4096]
    .venv/bin/python benchmarks/bounds_checks.py --cpu [--repeat 21]

Prints the best time of each kernel both ways (alternating rounds) and the ratio. The checks also turn
off the lane-blocked bodies (they have no checks of their own), which is most of n-body's cost.

``--cpu``: one thread (``wp.config.num_threads = 1``) timed by its own CPU time
(``time.thread_time``), the two builds alternating sample by sample, medians: a reading that
holds on a machine busy with other work (wall time there measured the neighbours).
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import warp_interactive as wp  # noqa: E402
import bench_kernels as bk  # noqa: E402


def _time_both(fn, repeat, module, clock=time.perf_counter, pick=min):
    """{checks: time}: the two builds alternate round by round (the loaded binaries stay
    cached), so a busy machine slows both alike; ``pick`` (min: the least disturbed run, or a
    median) of the ``clock`` readings."""
    times = {False: [], True: []}
    for _ in range(repeat):
        for checks in (False, True):
            wp.set_module_options({"bounds_check": checks}, module=module)
            fn()                # load (warm after the first round) and warm up
            t0 = clock()
            fn()
            times[checks].append(clock() - t0)
    return {checks: pick(v) for checks, v in times.items()}


def _cases(n_saxpy, n_body):
    rng = np.random.default_rng(0)
    x = wp.array(rng.random(n_saxpy, dtype=np.float32))
    y = wp.array(rng.random(n_saxpy, dtype=np.float32))
    pos = wp.array(rng.random((n_body, 3), dtype=np.float32), dtype=wp.vec3)
    mass = wp.array(rng.random(n_body, dtype=np.float32))
    acc = wp.zeros(n_body, dtype=wp.vec3)

    def saxpy():
        for _ in range(20):
            wp.launch(bk.saxpy, dim=n_saxpy, inputs=[x, y, 2.0])
        wp.synchronize()

    def nbody():
        wp.launch(bk.nbody, dim=n_body, inputs=[pos, mass, acc, n_body])
        wp.synchronize()
    return {"saxpy (20 launches)": saxpy, f"n-body (n={n_body})": nbody}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--n-saxpy", type=int, default=1 << 22)
    ap.add_argument("--n-body", type=int, default=4096)
    ap.add_argument("--cpu", action="store_true", help="one thread, CPU time, medians")
    args = ap.parse_args()
    timing = {}
    if args.cpu:
        wp.config.num_threads = 1
        timing = {"clock": time.thread_time, "pick": statistics.median}
    cases = _cases(args.n_saxpy, args.n_body)
    rows = []
    for name, fn in cases.items():
        got = _time_both(fn, args.repeat, bk, **timing)
        rows.append((name, got[False], got[True]))
    wp.set_module_options({"bounds_check": False}, module=bk)
    what = "median CPU time, 1 thread" if args.cpu else "best wall time, every core"
    print(f"{args.repeat} alternating rounds, {what}")
    print(f"{'kernel':24s} {'release ms':>11s} {'+checks ms':>11s} {'ratio':>7s}")
    for name, off, on in rows:
        print(f"{name:24s} {off * 1e3:11.3f} {on * 1e3:11.3f} {on / off:7.2f}")


if __name__ == "__main__":
    main()
