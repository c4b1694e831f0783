"""Tiled GEMM on the CPU: GFLOP/s of the tile model's GEMM (wp.tile_load / wp.tile_matmul /
wp.tile_store, launched with wp.launch_tiled) for 64x64 .. 256x256 tiles, side by side with
NumPy's BLAS on the same matrices and with warp-lang's CPU tiles when the peer venv has it
(``python benchmarks/run.py --setup-peers``). Not a test; every result is checked against NumPy.

    python benchmarks/tiles.py [--n 1024] [--tiles 64 128 256] [--repeat 5]

Each toolkit runs in its own process (benchmarks/tiles_gemm_job.py), warp-lang only ever in the
peer venv's interpreter.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
JOB = os.path.join(HERE, "tiles_gemm_job.py")
PEER_PY = os.path.join(HERE, ".peer-venv", "bin", "python")


def run_job(python, toolkit, n, tiles, repeat):
    env = dict(os.environ, PYTHONPATH=ROOT)   # this checkout's package, not an installed one
    cmd = [python, JOB, toolkit, str(n)] + [str(t) for t in tiles] + ["--repeat", str(repeat)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0:
        why = [ln for ln in proc.stderr.splitlines() if "failed" in ln.lower() or "error" in ln.lower()]
        print(f"({toolkit} stopped after {len(rows)} tile size(s): {(why or ['exit code %d' % proc.returncode])[0].strip()})")
    return {r["tile"]: r for r in rows}


def numpy_gflops(n, repeat):
    rng = np.random.default_rng(0)
    a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    best = float("inf")
    for _ in range(repeat + 1):
        t0 = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t0)
    return 2.0 * n ** 3 / best / 1e9


def peer_available():
    if not os.path.exists(PEER_PY):
        return False
    return subprocess.run([PEER_PY, "-c", "import warp"], capture_output=True).returncode == 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--tiles", type=int, nargs="+", default=[64, 128, 256])
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    ours = run_job(sys.executable, "wpi", args.n, args.tiles, args.repeat)
    peer = run_job(PEER_PY, "warp", args.n, args.tiles, args.repeat) if peer_available() else {}
    blas = numpy_gflops(args.n, args.repeat)
    print(f"tiled GEMM, float32, {args.n}x{args.n}x{args.n}, CPU ({os.cpu_count()} cores); "
          f"tile_k = min(tile, 64)")
    print(f"{'tile':>9} | {'warp_interactive':>17} | {'warp-lang':>10} | {'NumPy BLAS':>10} | ours/BLAS")
    for t in args.tiles:
        o, w = ours.get(t), peer.get(t)
        ours_s = f"{o['gflops']:.1f} GFLOP/s" if o else "failed"
        peer_s = f"{w['gflops']:.1f}" if w else ("n/a" if not peer else "failed")
        ratio = f"{o['gflops'] / blas:.2f}" if o else "-"
        print(f"{t:>4}x{t:<4} | {ours_s:>17} | {peer_s:>10} | {blas:>10.1f} | {ratio}")
        for name, r in (("warp_interactive", o), ("warp-lang", w)):
            if r and r["rel_err"] > 1e-4:
                print(f"  WRONG RESULT from {name} at tile {t}: relative error {r['rel_err']:.2e}")
    if not peer:
        print("(warp-lang: not installed in benchmarks/.peer-venv; run benchmarks/run.py --setup-peers)")


if __name__ == "__main__":
    main()
