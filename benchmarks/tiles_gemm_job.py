"""One toolkit's tiled GEMM timings (run by benchmarks/tiles.py in a subprocess, so warp-lang is
only ever imported in its own process): prints one JSON line per tile size.

    python benchmarks/tiles_gemm_job.py wpi|warp N TILE [TILE...] [--repeat R]
"""

import json
import sys
import time

import numpy as np

toolkit, n = sys.argv[1], int(sys.argv[2])
args = [x for i, x in enumerate(sys.argv) if i > 2 and not x.startswith("--") and sys.argv[i - 1] != "--repeat"]
tiles = [int(t) for t in args]
repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 5
if toolkit == "warp":
    import warp as wp
    wp.config.quiet = True
else:
    import warp_interactive as wp
wp.init()


def make_gemm(tm, tn, tk):
    @wp.kernel
    def gemm(A: wp.array2d(dtype=float), B: wp.array2d(dtype=float), C: wp.array2d(dtype=float)):
        i, j = wp.tid()
        acc = wp.tile_zeros(shape=(tm, tn), dtype=float)
        count = A.shape[1] // tk
        for k in range(count):
            a = wp.tile_load(A, shape=(tm, tk), offset=(i * tm, k * tk))
            b = wp.tile_load(B, shape=(tk, tn), offset=(k * tk, j * tn))
            wp.tile_matmul(a, b, acc)
        wp.tile_store(C, acc, offset=(i * tm, j * tn))
    return gemm


rng = np.random.default_rng(0)
a = rng.random((n, n), dtype=np.float32)
b = rng.random((n, n), dtype=np.float32)
ref = a @ b
A, B = wp.array(a, device="cpu"), wp.array(b, device="cpu")
for t in tiles:
    tk = min(t, 64)
    kernel = make_gemm(t, t, tk)
    C = wp.zeros((n, n), dtype=float, device="cpu")
    launch = lambda: wp.launch_tiled(kernel, dim=(n // t, n // t), inputs=[A, B, C], block_dim=64,
                                     device="cpu")
    launch()
    wp.synchronize()
    err = float(np.abs(C.numpy() - ref).max() / np.abs(ref).max())
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        launch()
        wp.synchronize()
        times.append(time.perf_counter() - t0)
    best = min(times)
    print(json.dumps({"toolkit": toolkit, "n": n, "tile": t, "tile_k": tk, "seconds": best,
                      "gflops": 2.0 * n ** 3 / best / 1e9, "rel_err": err}), flush=True)
