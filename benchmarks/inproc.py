"""In-process figures for one toolkit, printed as JSON (run by benchmarks/run.py, with this
toolkit's Python: the project venv for warp_interactive, benchmarks/.peer-venv for the peers).

    python benchmarks/inproc.py {wpi|warp|numba|numpy} [--fast-math] [--repeat N]

Figures (each a list of samples; run.py takes medians): launch_us (dim=1 launch or call),
replay_us (recorded launch), saxpy_gbs (10M float32, 12 B/element), nbody_ms (N=4096, vec3).
Every output is checked against NumPy; a mismatch raises (no figure for a wrong answer).
"""

import argparse
import json
import os
import sys
import time

import numpy as np

N_SAXPY = 10_000_000
N_BODY = 4096
EPS2 = 0.01
LAUNCHES = 20000


def nbody_reference(pos, mass):
    """float64 accelerations, blocked so the N^2 temporaries stay small."""
    p = pos.astype(np.float64)
    m = mass.astype(np.float64)
    acc = np.zeros_like(p)
    for s in range(0, len(p), 512):
        d = p[None, :, :] - p[s:s + 512, None, :]
        r2 = (d * d).sum(-1) + EPS2
        w = m[None, :] / (r2 * np.sqrt(r2))
        acc[s:s + 512] = (d * w[..., None]).sum(1)
    return acc


def inputs():
    rng = np.random.default_rng(0)
    x = rng.random(N_SAXPY, dtype=np.float32)
    y = rng.random(N_SAXPY, dtype=np.float32)
    pos = rng.standard_normal((N_BODY, 3)).astype(np.float32)
    mass = rng.random(N_BODY, dtype=np.float32) + 0.5
    return x, y, pos, mass


def per_call_us(fn, n=LAUNCHES, repeat=7):
    # BENCH_CLOCK=cpu: this thread's CPU time (a busy machine's time slicing left out)
    clock = time.thread_time if os.environ.get("BENCH_CLOCK") == "cpu" else time.perf_counter
    out = []
    for _ in range(repeat):
        t = clock()
        for _ in range(n):
            fn()
        out.append((clock() - t) / n * 1e6)
    return out


def timed(fn, repeat):
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def check(name, got, want, rtol):
    err = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30)
    if not err <= rtol:
        raise AssertionError(f"{name}: relative error {err:.2e} > {rtol:.0e}")


# --- warp-style toolkits (warp_interactive and warp-lang share the kernel source) -------------
def warp_figures(wp, repeat):
    import bench_kernels as bk   # kernels in a file (both toolkits read kernel source)
    dev = "cpu"
    x, y, pos, mass = inputs()
    res = {}
    z = wp.zeros(1, dtype=float, device=dev)
    wp.launch(bk.noop, dim=1, inputs=[z], device=dev)
    res["launch_us"] = per_call_us(lambda: wp.launch(bk.noop, dim=1, inputs=[z], device=dev), repeat=repeat)
    cmd = wp.launch(bk.noop, dim=1, inputs=[z], device=dev, record_cmd=True)
    res["replay_us"] = per_call_us(cmd.launch, repeat=repeat)

    wx = wp.array(x, dtype=float, device=dev)
    wy = wp.array(y, dtype=float, device=dev)
    wp.launch(bk.saxpy, dim=N_SAXPY, inputs=[wx, wy, 2.0], device=dev)
    check("saxpy", wy.numpy(), 2.0 * x + y, 1e-6)
    ts = timed(lambda: wp.launch(bk.saxpy, dim=N_SAXPY, inputs=[wx, wy, 2.0], device=dev), 3 * repeat)
    res["saxpy_gbs"] = [12 * N_SAXPY / t / 1e9 for t in ts]

    wpos = wp.array(pos, dtype=wp.vec3, device=dev)
    wm = wp.array(mass, dtype=float, device=dev)
    acc = wp.zeros(N_BODY, dtype=wp.vec3, device=dev)
    run = lambda: wp.launch(bk.nbody, dim=N_BODY, inputs=[wpos, wm, acc, N_BODY], device=dev)  # noqa: E731
    run()
    check("nbody", acc.numpy(), nbody_reference(pos, mass), 1e-3)
    res["nbody_ms"] = [t * 1e3 for t in timed(run, repeat)]
    return res


# --- Numba ---------------------------------------------------------------------------------------
def numba_figures(repeat, fast_math):
    import numba
    from numba import njit, prange

    @njit
    def noop(z):
        pass

    @njit(parallel=True, fastmath=fast_math)
    def saxpy(x, y, a):
        for i in prange(x.shape[0]):
            y[i] = a * x[i] + y[i]

    @njit(parallel=True, fastmath=fast_math)
    def nbody(pos, mass, acc, eps2):
        n = pos.shape[0]
        for i in prange(n):
            ax = ay = az = np.float32(0.0)
            px, py, pz = pos[i, 0], pos[i, 1], pos[i, 2]
            for j in range(n):
                dx, dy, dz = pos[j, 0] - px, pos[j, 1] - py, pos[j, 2] - pz
                r2 = dx * dx + dy * dy + dz * dz + eps2
                w = mass[j] / (r2 * np.sqrt(r2))
                ax += dx * w
                ay += dy * w
                az += dz * w
            acc[i, 0], acc[i, 1], acc[i, 2] = ax, ay, az

    x, y, pos, mass = inputs()
    z = np.zeros(1, np.float32)
    noop(z)
    res = {"launch_us": per_call_us(lambda: noop(z), repeat=repeat)}
    y0 = y.copy()
    saxpy(x, y, np.float32(2.0))
    check("saxpy", y, 2.0 * x + y0, 1e-6)
    ts = timed(lambda: saxpy(x, y, np.float32(2.0)), 3 * repeat)
    res["saxpy_gbs"] = [12 * N_SAXPY / t / 1e9 for t in ts]
    acc = np.zeros_like(pos)
    eps2 = np.float32(EPS2)
    nbody(pos, mass, acc, eps2)
    check("nbody", acc, nbody_reference(pos, mass), 1e-3)
    res["nbody_ms"] = [t * 1e3 for t in timed(lambda: nbody(pos, mass, acc, eps2), repeat)]
    res["threads"] = numba.get_num_threads()
    return res


def numpy_figures(repeat):
    x, y, pos, mass = inputs()
    tmp = np.empty_like(x)

    def saxpy():
        np.multiply(x, np.float32(2.0), out=tmp)
        np.add(tmp, y, out=y)
    y0 = y.copy()
    saxpy()
    check("saxpy", y, 2.0 * x + y0, 1e-6)
    ts = timed(saxpy, 3 * repeat)
    # NumPy makes two passes (5 memory streams of 4 B): report the same 12 B/element useful work
    res = {"saxpy_gbs": [12 * N_SAXPY / t / 1e9 for t in ts]}
    ref = lambda: nbody_reference(pos, mass)  # noqa: E731  (the blocked float64 NumPy version)
    res["nbody_ms"] = [t * 1e3 for t in timed(ref, max(3, repeat // 2))]
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("toolkit", choices=["wpi", "warp", "numba", "numpy"])
    ap.add_argument("--fast-math", action="store_true")
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    os.environ["BENCH_TOOLKIT"] = a.toolkit
    os.environ["BENCH_FAST_MATH"] = "1" if a.fast_math else "0"
    if a.toolkit == "wpi":
        import warp_interactive as wp
        wp.init()
        res = warp_figures(wp, a.repeat)
    elif a.toolkit == "warp":
        import warp as wp
        wp.config.quiet = True
        wp.init()
        res = warp_figures(wp, a.repeat)
    elif a.toolkit == "numba":
        res = numba_figures(a.repeat, a.fast_math)
    else:
        res = numpy_figures(a.repeat)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
