"""warp.sparse side by side with SciPy and warp-lang on the CPU: the 5-point Poisson matrix of an
N x N grid (N = 1000: 10^6 rows, ~5x10^6 stored entries, float64), medians of repeated runs.

    python benchmarks/sparse.py [--grid 1000] [--repeat 5] [--cg-repeat 2] [--no-peer] [--json out.json]

- assembly: ``bsr_from_triplets`` from the ~5x10^6 (row, column, value) triplets (SciPy:
  ``coo_matrix(...).tocsr()``, which also sums duplicates);
- ``bsr_mv``: y = A x, with the bytes a CSR product must move (values, columns, offsets, x, y)
  over the time, against the memory bandwidth: the all-core C triad of benchmarks/membw.py,
  timed between the bsr_mv runs (same moments, same load), and its best-of ceiling after;
- ``bsr_mm``: A @ A (SciPy: ``A @ A``);
- CG to a relative residual of 1e-6 from x = 0 (SciPy: ``scipy.sparse.linalg.cg(rtol=1e-6)``).

Ours (this checkout) and SciPy run in one child process, interleaved run by run (ours, SciPy,
SciPy, ours, ...), so a load that changes during the run weighs on both alike; ours/SciPy is the
median of the run-by-run ratios. warp-lang (the wheel in scripts/.compat-venv, when it is
there) runs alone in a second child process on the same code: the jobs import the library as
``wp`` (warp-lang and warp_interactive share the API). The load average is printed: figures
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


def _timed(fn, sync):
    t0 = time.perf_counter()
    fn()
    sync()
    return time.perf_counter() - t0


def warp_ops(wp, sp, la, n):
    """{figure: (run, sync, repeat factor)} of a Warp library, and a function that checks the
    results after the runs (fills ``out``)."""
    rows, cols, vals = poisson_triplets(n)
    r, c, v = (wp.array(a, dtype=t, device="cpu") for a, t in ((rows, wp.int32), (cols, wp.int32), (vals, wp.float64)))
    A = sp.bsr_from_triplets(n * n, n * n, r, c, v)
    x = wp.array(np.random.default_rng(0).standard_normal(n * n), dtype=wp.float64, device="cpu")
    y = wp.zeros(n * n, dtype=wp.float64, device="cpu")
    b = wp.array(np.ones(n * n), dtype=wp.float64, device="cpu")
    xs = wp.zeros(n * n, dtype=wp.float64, device="cpu")
    out = {"triplets": int(rows.size)}

    def solve():
        xs.zero_()
        out["cg_iters"] = int(la.cg(A, b, xs, tol=1e-6, maxiter=20 * n)[0])

    def check():
        out["mv_err"] = float(np.abs(y.numpy() - _apply(rows, cols, vals, x.numpy(), n * n)).max())
        out["mm_nnz"] = int(sp.bsr_mm(A, A).nnz_sync())
        out["cg_residual"] = float(np.linalg.norm(_apply(rows, cols, vals, xs.numpy(), n * n) - 1.0) / n)

    ops = {"assembly": (lambda: sp.bsr_from_triplets(n * n, n * n, r, c, v), 1),
           "mv": (lambda: sp.bsr_mv(A, x, y), 5), "mm": (lambda: sp.bsr_mm(A, A), 0.5), "cg": (solve, 0)}
    return ops, wp.synchronize, out, check


def scipy_ops(n):
    import scipy
    import scipy.sparse as ssp
    import scipy.sparse.linalg as sla
    rows, cols, vals = poisson_triplets(n)
    size = n * n
    A = ssp.coo_matrix((vals, (rows, cols)), shape=(size, size)).tocsr()
    x = np.random.default_rng(0).standard_normal(size)
    b = np.ones(size)
    out = {"version": scipy.__version__, "triplets": int(rows.size)}

    def solve():
        iters = []
        sla.cg(A, b, rtol=1e-6, maxiter=20 * n, callback=lambda xk: iters.append(1))
        out["cg_iters"] = len(iters)

    def check():
        out["mm_nnz"] = int((A @ A).nnz)

    ops = {"assembly": (lambda: ssp.coo_matrix((vals, (rows, cols)), shape=(size, size)).tocsr(), 1),
           "mv": (lambda: A @ x, 5), "mm": (lambda: A @ A, 0.5), "cg": (solve, 0)}
    return ops, lambda: None, out, check


def _count(key, factor, repeat, cg_repeat):
    return cg_repeat if key == "cg" else max(1, int(factor * repeat))


def job_warp(lib, n, repeat, cg_repeat):
    """One library's figures, alone (run in a child process: warp-lang)."""
    import importlib
    wp = importlib.import_module(lib)
    wp.init() if hasattr(wp, "init") else None
    ops, sync, out, check = warp_ops(wp, importlib.import_module(lib + ".sparse"),
                                     importlib.import_module(lib + ".optim.linear"), n)
    for key, (fn, factor) in ops.items():
        out[key] = median_seconds(fn, _count(key, factor, repeat, cg_repeat), sync)
    check()
    return out


def job_pair(n, repeat, cg_repeat, membw):
    """Ours and SciPy's figures in one process, interleaved run by run (ours, SciPy, SciPy,
    ours, ...) so that both see the same load; with each bsr_mv pair, the all-core C triad of
    benchmarks/membw.py (the bandwidth figure of the same moments). Medians, and the median of
    the run-by-run ratios."""
    import warp_interactive as wp
    import warp_interactive.optim.linear as la
    import warp_interactive.sparse as sp
    wp.init()
    ours, ours_sync, ours_out, ours_check = warp_ops(wp, sp, la, n)
    theirs, _, sci_out, sci_check = scipy_ops(n)
    triad = membw.triad_runner(20_000_000)
    times = {"ours": {}, "scipy": {}, "ratio": {}, "triad": []}
    for key, (fn, factor) in ours.items():
        runs = {"ours": lambda: _timed(fn, ours_sync), "scipy": lambda: _timed(theirs[key][0], lambda: None)}
        runs["ours"]()      # warm: kernels loaded, work arrays and pages in place
        if key != "cg":     # (SciPy's CG has nothing to warm: one run less of minutes)
            runs["scipy"]()
        seq = {"ours": [], "scipy": []}
        for i in range(_count(key, factor, repeat, cg_repeat)):
            for who in (("ours", "scipy") if i % 2 == 0 else ("scipy", "ours")):
                seq[who].append(runs[who]())
            if key == "mv":
                times["triad"].append(triad())
        for who in seq:
            times[who][key] = statistics.median(seq[who])
        times["ratio"][key] = statistics.median(a / b for a, b in zip(seq["ours"], seq["scipy"]))
    ours_check()
    sci_check()
    ours_out.update(times["ours"])
    sci_out.update(times["scipy"])
    triad_gbs = 12 * 20_000_000 / statistics.median(times["triad"]) / 1e9
    return {"warp_interactive": ours_out, "scipy": sci_out, "ratio": times["ratio"], "triad_gbs": triad_gbs}


def _apply(rows, cols, vals, x, size):
    y = np.zeros(size)
    np.add.at(y, rows, vals * x[cols])
    return y


def run_child(python, job, args):
    # ours: this checkout's package; warp-lang: the wheel that scripts/compat_warp_tests.py installs
    env = dict(os.environ, PYTHONPATH={"pair": ROOT, "warp": PEER_SITE}.get(job, ""))
    cmd = [python, os.path.abspath(__file__), "--job", job, "--grid", str(args.grid), "--repeat", str(args.repeat),
           "--cg-repeat", str(args.cg_repeat)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=7200)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        print(f"({job}: failed: {(proc.stderr.strip().splitlines() or ['?'])[-1]})")
        return None
    return json.loads(lines[-1])


def mv_bytes(n):
    rows = n * n
    nnz = 5 * rows - 4 * n
    return 12 * nnz + 4 * (rows + 1) + 8 * rows + 8 * rows     # values+columns, offsets, x, y


def report(res, ratio, triad_gbs, bw, n):
    names = [k for k in ("warp_interactive", "scipy", "warp") if res.get(k)]
    print(f"2-D Poisson, {n}x{n} grid: {n * n} rows, float64, CPU ({os.cpu_count()} cores), "
          f"load average {os.getloadavg()[0]:.1f}" + ("  (LOADED MACHINE)" if os.getloadavg()[0] > 1.5 else ""))
    print("ours and SciPy interleaved run by run in one process; ours/SciPy: median of the run-by-run ratios"
          + ("; warp-lang alone in its own process" if "warp" in names else ""))
    print(f"{'':>22} | " + " | ".join(f"{k:>16}" for k in names) + " | ours/SciPy")
    for key, label in (("assembly", "bsr_from_triplets"), ("mv", "bsr_mv"), ("mm", "bsr_mm (A @ A)"), ("cg", "CG to 1e-6")):
        cells = [f"{res[k][key] * 1e3:13.1f} ms" for k in names]
        print(f"{label:>22} | " + " | ".join(cells) + f" | {ratio.get(key, float('nan')):.2f}")
    for k in names:
        gbs = mv_bytes(n) / res[k]["mv"] / 1e9
        same = f", {gbs / triad_gbs:.0%} of the triad's {triad_gbs:.1f} GB/s in the same runs" if k != "warp" else ""
        print(f"  {k}: bsr_mv {gbs:.2f} GB/s{same}, {gbs / bw:.0%} of the {bw:.1f} GB/s ceiling; "
              f"CG iterations {res[k].get('cg_iters')}; A@A nnz {res[k].get('mm_nnz')}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--grid", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--cg-repeat", type=int, default=2)
    p.add_argument("--job", help=argparse.SUPPRESS)
    p.add_argument("--json")
    p.add_argument("--no-peer", action="store_true")
    args = p.parse_args()
    sys.path.insert(0, HERE)
    import membw
    if args.job:
        fig = job_pair(args.grid, args.repeat, args.cg_repeat, membw) if args.job == "pair" else \
            job_warp(args.job, args.grid, args.repeat, args.cg_repeat)
        print(json.dumps(fig))
        return
    pair = run_child(sys.executable, "pair", args)
    if pair is None:
        return 1
    res = {"warp_interactive": pair["warp_interactive"], "scipy": pair["scipy"]}
    if not args.no_peer and os.path.isdir(os.path.join(PEER_SITE, "warp")):
        res["warp"] = run_child(sys.executable, "warp", args)
    bw_all = membw.measure(n=20_000_000, repeat=5)
    bw = max(v for k, v in bw_all.items() if "copy" in k or "triad" in k)
    report(res, pair["ratio"], pair["triad_gbs"], bw, args.grid)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": res, "ratio": pair["ratio"], "triad_gbs_same_runs": pair["triad_gbs"],
                       "membw": bw_all, "load": os.getloadavg()}, f, indent=1)

if __name__ == "__main__":
    sys.exit(main())
