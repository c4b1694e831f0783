"""Autodiff figures (medians over repeats, CPU):
- forward launch vs adjoint launch (tape.backward) of an elementwise kernel over 1M floats,
- the adjoint of a while loop of n iterations (state recomputed: O(n^2) body replays),
- wp.matmul forward and backward against plain NumPy.

    python benchmarks/autodiff.py [--repeat 7]
"""

import argparse
import json
import time

import numpy as np

import warp_interactive as wp
from timing_util import median_time as _median


@wp.kernel
def elementwise(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    y[i] = wp.sin(v) * wp.exp(v * 0.1) + v * v


@wp.kernel
def while_loop(x: wp.array(dtype=float), y: wp.array(dtype=float), n: int):
    i = wp.tid()
    z = float(1.0)
    it = int(0)
    while it < n:
        z = 0.5 * (z + x[i] / z)
        it += 1
    y[i] = z


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    r = args.repeat
    out = {}

    n = 1 << 20
    x = wp.array(np.random.default_rng(0).uniform(0.5, 2, n).astype(np.float32), requires_grad=True)
    y = wp.zeros(n, dtype=float, requires_grad=True)
    out["forward_1M_ms"] = 1e3 * _median(lambda: wp.launch(elementwise, dim=n, inputs=[x, y]), r)
    tape = wp.Tape()
    with tape:
        wp.launch(elementwise, dim=n, inputs=[x, y])
    seed = np.ones(n, dtype=np.float32)

    def backward():
        tape.zero()
        tape.backward(grads={y: seed})
    out["backward_1M_ms"] = 1e3 * _median(backward, r)

    m = 4096
    xs = wp.array(np.linspace(0.5, 4, m).astype(np.float32), requires_grad=True)
    ys = wp.zeros(m, dtype=float, requires_grad=True)
    for iters in (10, 40):
        out[f"while_forward_n{iters}_ms"] = 1e3 * _median(
            lambda: wp.launch(while_loop, dim=m, inputs=[xs, ys, iters]), r)
        t = wp.Tape()
        with t:
            wp.launch(while_loop, dim=m, inputs=[xs, ys, iters])
        out[f"while_backward_n{iters}_ms"] = 1e3 * _median(
            lambda: t.backward(grads={ys: np.ones(m, dtype=np.float32)}), r)

    k = 512
    rng = np.random.default_rng(1)
    a, b, c = (wp.array(rng.normal(size=(k, k)).astype(np.float32), requires_grad=True) for _ in range(3))
    d = wp.zeros((k, k), dtype=float, requires_grad=True)
    an, bn = a.numpy(), b.numpy()
    out["numpy_matmul_512_ms"] = 1e3 * _median(lambda: an @ bn, r)
    out["wp_matmul_512_ms"] = 1e3 * _median(lambda: wp.matmul(a, b, c, d), r)
    tm = wp.Tape()
    with tm:
        wp.matmul(a, b, c, d)
    gseed = np.ones((k, k), dtype=np.float32)
    out["wp_matmul_512_backward_ms"] = 1e3 * _median(lambda: tm.backward(grads={d: gseed}), r)
    print(json.dumps({k_: round(v, 3) for k_, v in out.items()}, indent=1))


if __name__ == "__main__":
    main()
