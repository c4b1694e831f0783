"""warp.sparse side by side with SciPy and warp-lang on the CPU: the 5-point Poisson matrix of an
N x N grid (N = 1000: 10^6 rows, ~5x10^6 stored entries, float64), medians of repeated runs.

    python benchmarks/sparse.py [--grid 1000] [--repeat 5] [--cg-repeat 2] [--json out.json]

- assembly: ``bsr_from_triplets`` from the ~5x10^6 (row, column, value) triplets (SciPy:
  ``coo_matrix(...).tocsr()``, which also sums duplicates);
- ``bsr_mv``: y = A x, with the bytes a CSR product must move (values, columns, offsets, x, y)
  over the time, against the machine's memory bandwidth (benchmarks/membw.py, all cores);
- ``bsr_mm``: A @ A (SciPy: ``A @ A``);
- CG to a relative residual of 1e-6 from x = 0 (SciPy: ``scipy.sparse.linalg.cg(rtol=1e-6)``).

Each library runs in its own process (ours with this checkout on PYTHONPATH; warp-lang with the
wheel in scripts/.compat-venv, when it is there) on the same code: the job imports the library
as ``wp`` (warp-lang and warp_interactive share the API). The load average is printed: figures
taken on a loaded machine say so.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PEER_SITE = os.path.join(ROOT, "scripts", ".compat-venv", "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}",
                         "site-packages")


def poisson_triplets(n):
    """Rows, columns and values (float64) of the 5-point Laplacian on an n x n grid."""
    idx = np.arange(n * n, dtype=np.int32).reshape(n, n)
    rows, cols, vals = [idx.ravel()], [idx.ravel()], [np.full(n * n, 4.0)]
    for a, b in ((idx[1:, :], idx[:-1, :]), (idx[:, 1:], idx[:, :-1])):
        for r, c in ((a, b), (b, a)):
            rows.append(r.ravel())
            cols.append(c.ravel())
            vals.append(np.full(r.size, -1.0))
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)


def median_seconds(fn, repeat, sync=lambda: None):
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def job_warp(lib, n, repeat, cg_repeat):
    """One library's figures (run in a child process)."""
    import importlib
    wp = importlib.import_module(lib)
    sp = importlib.import_module(lib + ".sparse")
    la = importlib.import_module(lib + ".optim.linear")
    wp.init() if hasattr(wp, "init") else None
    rows, cols, vals = poisson_triplets(n)
    r, c, v = (wp.array(a, dtype=t, device="cpu") for a, t in ((rows, wp.int32), (cols, wp.int32), (vals, wp.float64)))
    out = {"triplets": int(rows.size)}
    out["assembly"] = median_seconds(lambda: sp.bsr_from_triplets(n * n, n * n, r, c, v), repeat, wp.synchronize)
    A = sp.bsr_from_triplets(n * n, n * n, r, c, v)
    x = wp.array(np.random.default_rng(0).standard_normal(n * n), dtype=wp.float64, device="cpu")
    y = wp.zeros(n * n, dtype=wp.float64, device="cpu")
    out["mv"] = median_seconds(lambda: sp.bsr_mv(A, x, y), 5 * repeat, wp.synchronize)
    ref = np.zeros(n * n)
    np.add.at(ref, rows, vals * x.numpy()[cols])
    out["mv_err"] = float(np.abs(y.numpy() - ref).max())
    out["mm"] = median_seconds(lambda: sp.bsr_mm(A, A), max(1, repeat // 2), wp.synchronize)
    out["mm_nnz"] = int(sp.bsr_mm(A, A).nnz_sync())
    b = wp.array(np.ones(n * n), dtype=wp.float64, device="cpu")
    xs = wp.zeros(n * n, dtype=wp.float64, device="cpu")

    def solve():
        xs.zero_()
        out["cg_iters"] = int(la.cg(A, b, xs, tol=1e-6, maxiter=20 * n)[0])

    out["cg"] = median_seconds(solve, cg_repeat, wp.synchronize)
    out["cg_residual"] = float(np.linalg.norm(_apply(rows, cols, vals, xs.numpy(), n * n) - 1.0) / np.sqrt(n * n))
    return out


def _apply(rows, cols, vals, x, size):
    y = np.zeros(size)
    np.add.at(y, rows, vals * x[cols])
    return y


def job_scipy(n, repeat, cg_repeat):
    import scipy
    import scipy.sparse as ssp
    import scipy.sparse.linalg as sla
    rows, cols, vals = poisson_triplets(n)
    size = n * n
    out = {"version": scipy.__version__, "triplets": int(rows.size)}
    out["assembly"] = median_seconds(lambda: ssp.coo_matrix((vals, (rows, cols)), shape=(size, size)).tocsr(), repeat)
    A = ssp.coo_matrix((vals, (rows, cols)), shape=(size, size)).tocsr()
    x = np.random.default_rng(0).standard_normal(size)
    out["mv"] = median_seconds(lambda: A @ x, 5 * repeat)
    out["mm"] = median_seconds(lambda: A @ A, max(1, repeat // 2))
    out["mm_nnz"] = int((A @ A).nnz)
    b = np.ones(size)
    iters = []
    out["cg"] = median_seconds(lambda: sla.cg(A, b, rtol=1e-6, maxiter=20 * n,
                                              callback=lambda xk: iters.append(1)), cg_repeat)
    out["cg_iters"] = len(iters) // (cg_repeat + 1)
    return out


def run_child(python, lib, args):
    # ours: this checkout's package; warp-lang: the wheel that scripts/compat_warp_tests.py installs
    env = dict(os.environ, PYTHONPATH={"warp_interactive": ROOT, "warp": PEER_SITE}.get(lib, ""))
    cmd = [python, os.path.abspath(__file__), "--job", lib, "--grid", str(args.grid), "--repeat", str(args.repeat),
           "--cg-repeat", str(args.cg_repeat)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=7200)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        print(f"({lib}: failed: {(proc.stderr.strip().splitlines() or ['?'])[-1]})")
        return None
    return json.loads(lines[-1])


def mv_bytes(n):
    rows = n * n
    nnz = 5 * rows - 4 * n
    return 12 * nnz + 4 * (rows + 1) + 8 * rows + 8 * rows     # values+columns, offsets, x, y


def report(res, bw, n):
    names = [k for k in ("warp_interactive", "scipy", "warp") if res.get(k)]
    print(f"2-D Poisson, {n}x{n} grid: {n * n} rows, float64, CPU ({os.cpu_count()} cores), "
          f"load average {os.getloadavg()[0]:.1f}" + ("  (LOADED MACHINE)" if os.getloadavg()[0] > 1.5 else ""))
    print(f"{'':>22} | " + " | ".join(f"{k:>16}" for k in names) + " | ours/SciPy")
    for key, label in (("assembly", "bsr_from_triplets"), ("mv", "bsr_mv"), ("mm", "bsr_mm (A @ A)"), ("cg", "CG to 1e-6")):
        cells = [f"{res[k][key] * 1e3:13.1f} ms" for k in names]
        ratio = res["warp_interactive"][key] / res["scipy"][key] if "scipy" in names and "warp_interactive" in names else float("nan")
        print(f"{label:>22} | " + " | ".join(cells) + f" | {ratio:.2f}")
    for k in names:
        gbs = mv_bytes(n) / res[k]["mv"] / 1e9
        extra = f", {gbs / bw:.0%} of {bw:.1f} GB/s" if bw else ""
        print(f"  {k}: bsr_mv {gbs:.2f} GB/s{extra}; CG iterations {res[k].get('cg_iters')}; "
              f"A@A nnz {res[k].get('mm_nnz')}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--grid", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--cg-repeat", type=int, default=2)
    p.add_argument("--job", help=argparse.SUPPRESS)
    p.add_argument("--json")
    p.add_argument("--no-peer", action="store_true")
    args = p.parse_args()
    if args.job:
        fig = job_scipy(args.grid, args.repeat, args.cg_repeat) if args.job == "scipy" else \
            job_warp(args.job, args.grid, args.repeat, args.cg_repeat)
        print(json.dumps(fig))
        return
    res = {"warp_interactive": run_child(sys.executable, "warp_interactive", args),
           "scipy": run_child(sys.executable, "scipy", args)}
    if not args.no_peer and os.path.isdir(os.path.join(PEER_SITE, "warp")):
        res["warp"] = run_child(sys.executable, "warp", args)
    sys.path.insert(0, HERE)
    from membw import measure
    bw_all = measure(n=20_000_000, repeat=5)
    bw = max(v for k, v in bw_all.items() if "copy" in k or "triad" in k)
    report(res, bw, args.grid)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": res, "membw": bw_all, "load": os.getloadavg()}, f, indent=1)


if __name__ == "__main__":
    main()
