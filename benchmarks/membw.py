"""The machine's memory-bandwidth ceiling, to read the saxpy figure against (not a test).

    python benchmarks/membw.py [--n 10000000] [--repeat 15] [--threads N] [--json]

Hand-written C loops, compiled by the same C++ compiler with the same optimisation flags as
warp_interactive's kernels (-O3 -march=native), each run on 1 thread and on every core (plain
pthreads, static halves, each thread first-touching nothing: the arrays are allocated and
filled by NumPy beforehand, as in the saxpy benchmark), plus NumPy's own copy:

    copy    y[i] = x[i]              8 B/element moved (as counted by STREAM)
    saxpy   y[i] = a * x[i] + y[i]  12 B/element (benchmarks/run.py's saxpy figure counts the same)
    triad   z[i] = x[i] + a * y[i]  12 B/element

The best of ``--repeat`` runs is reported (a ceiling, not a typical value), in GB/s of the bytes
counted above. benchmarks/run.py --membw prints the same table beside the perf table.
"""

import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

C_SOURCE = r"""
#include <pthread.h>
#include <stdint.h>

typedef struct { int kind; float a; float* x; float* y; float* z; int64_t begin, end; } job_t;

extern "C" void* work(void* p) {
    job_t* j = (job_t*)p;
    float* __restrict x = j->x;
    float* __restrict y = j->y;
    float* __restrict z = j->z;
    const float a = j->a;
    if (j->kind == 0)
        for (int64_t i = j->begin; i < j->end; ++i) y[i] = x[i];
    else if (j->kind == 1)
        for (int64_t i = j->begin; i < j->end; ++i) y[i] = a * x[i] + y[i];
    else
        for (int64_t i = j->begin; i < j->end; ++i) z[i] = x[i] + a * y[i];
    return 0;
}

// kind: 0 copy, 1 saxpy, 2 triad; [0, n) split into `threads` equal contiguous parts
extern "C" void run(int kind, float a, float* x, float* y, float* z, int64_t n, int threads) {
    pthread_t t[64];
    job_t jobs[64];
    if (threads > 64) threads = 64;
    for (int k = 0; k < threads; ++k) {
        job_t j = {kind, a, x, y, z, n * k / threads, n * (k + 1) / threads};
        jobs[k] = j;
    }
    for (int k = 1; k < threads; ++k) pthread_create(&t[k], 0, work, &jobs[k]);
    work(&jobs[0]);
    for (int k = 1; k < threads; ++k) pthread_join(t[k], 0);
}
"""

KINDS = [("copy", 0, 8), ("saxpy", 1, 12), ("triad", 2, 12)]


def build(cxx=None):
    cxx = cxx or os.environ.get("CXX", "g++")
    folder = tempfile.mkdtemp(prefix="wpi-membw-")
    src, lib = os.path.join(folder, "membw.c"), os.path.join(folder, "membw.so")
    with open(src, "w") as f:
        f.write(C_SOURCE)
    cmd = [cxx, "-x", "c++", "-O3", "-march=native", "-fno-math-errno", "-fno-trapping-math",
           "-fPIC", "-shared", src, "-o", lib, "-pthread"]
    subprocess.run(cmd, check=True)
    so = ctypes.CDLL(lib)
    fp = ctypes.POINTER(ctypes.c_float)
    so.run.argtypes = [ctypes.c_int, ctypes.c_float, fp, fp, fp, ctypes.c_int64, ctypes.c_int]
    so.run.restype = None
    return so


def best_seconds(fn, repeat):
    fn()   # warm: pages touched, caches in their steady state
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def measure(n=10_000_000, repeat=15, threads=None):
    """{figure: GB/s}: each C loop on 1 thread and on all cores, and NumPy's copy."""
    threads = threads or os.cpu_count() or 1
    so = build()
    rng = np.random.default_rng(0)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    z = np.zeros(n, dtype=np.float32)
    ptr = [a.ctypes.data_as(ctypes.POINTER(ctypes.c_float)) for a in (x, y, z)]
    out = {}
    for name, kind, nbytes in KINDS:
        for t in sorted({1, threads}):
            s = best_seconds(lambda: so.run(kind, 2.0, *ptr, n, t), repeat)
            out[f"C {name}, {t} thread{'s' if t > 1 else ''}"] = nbytes * n / s / 1e9
    _check(so, threads)
    s = best_seconds(lambda: np.copyto(z, x), repeat)
    out["NumPy copy (np.copyto), 1 thread"] = 8 * n / s / 1e9
    return out


def triad_runner(n, threads=None):
    """A function that runs the C triad once on ``n`` float32 per array on all cores (or
    ``threads``) and returns its seconds: for benchmarks that interleave it with their own runs."""
    threads = threads or os.cpu_count() or 1
    so = build()
    rng = np.random.default_rng(0)
    arrays = [rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32), np.zeros(n, dtype=np.float32)]
    ptr = [a.ctypes.data_as(ctypes.POINTER(ctypes.c_float)) for a in arrays]
    _check(so, threads)

    def run():
        t = time.perf_counter()
        so.run(2, 2.0, *ptr, n, threads)
        return time.perf_counter() - t

    run._arrays = arrays    # kept alive with the function
    run()
    return run


def _check(so, threads):
    """The C saxpy loop gives NumPy's result (a bandwidth of a wrong loop means nothing)."""
    rng = np.random.default_rng(1)
    x, y = rng.random(1001, dtype=np.float32), rng.random(1001, dtype=np.float32)
    want = np.float32(2.0) * x + y
    fp = ctypes.POINTER(ctypes.c_float)
    so.run(1, 2.0, x.ctypes.data_as(fp), y.ctypes.data_as(fp), y.ctypes.data_as(fp), 1001, threads)
    np.testing.assert_allclose(y, want, rtol=1e-6)


def table(res):
    width = max(len(k) for k in res)
    return "\n".join(f"{k.ljust(width)} | {v:6.1f} GB/s" for k, v in res.items())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--threads", type=int, default=0, help="default: all cores")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON line instead of a table")
    a = ap.parse_args()
    res = measure(a.n, a.repeat, a.threads or None)
    if a.json:
        print(json.dumps(res))
        return
    print(f"memory bandwidth ceiling, {a.n} float32 per array, best of {a.repeat}, "
          f"cores: {os.cpu_count()}")
    print(table(res))


if __name__ == "__main__":
    sys.exit(main())
