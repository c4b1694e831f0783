"""What wp.config.tape_copy_on_write costs: the bytes a tape keeps for overwritten arrays and
the time of recording + backward, with the copies on and off (and the checksums of what a
waiting tape reads, ``wp.config.tape_check_contents``, on and off), for a program that reuses its
scratch buffers (a Jacobi-style solve: ``iters`` sweeps ping-ponging between two arrays, as
warp-lang's navier_stokes example's Poisson solve does), and the gradient's error against the
fresh-buffer program with the copies off (warp-lang's behaviour).

    python benchmarks/tape_copy_on_write.py [n] [iters] [repeats]
"""

import sys
import time

import numpy as np

import warp_interactive as wp


@wp.kernel
def sweep(src: wp.array(dtype=float), rhs: wp.array(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid()
    n = src.shape[0]
    left = src[(i + n - 1) % n]
    right = src[(i + 1) % n]
    dst[i] = 0.5 * (left + right) * 0.9 + wp.sin(rhs[i]) * src[i] * 0.1


@wp.kernel
def loss_of(a: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, a[i] * a[i])


def run(n, iters, fresh):
    rhs = wp.array(np.linspace(0.0, 1.0, n, dtype=np.float32), requires_grad=True)
    bufs = [wp.zeros(n, dtype=float, requires_grad=True) for _ in range(2)]
    bufs[0].assign(np.cos(np.linspace(0.0, 3.0, n, dtype=np.float32)))
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    t0 = time.perf_counter()
    with tape:
        cur = bufs[0]
        for k in range(iters):
            dst = wp.zeros(n, dtype=float, requires_grad=True) if fresh else bufs[(k + 1) % 2]
            wp.launch(sweep, n, inputs=[cur, rhs], outputs=[dst])
            cur = dst
        wp.launch(loss_of, n, inputs=[cur], outputs=[loss])
    tape.backward(loss)
    wp.synchronize()
    return time.perf_counter() - t0, tape.kept_bytes, rhs.grad.numpy().copy()


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 16
    iters = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    wp.init()
    run(64, 2, False)    # build
    rows = []
    for label, fresh, cow, sums in (("fresh buffers", True, True, True), ("reused, copies on", False, True, True),
                                    ("reused, no checksums", False, True, False),
                                    ("reused, copies off", False, False, True)):
        wp.config.tape_copy_on_write = cow
        wp.config.tape_check_contents = sums
        times = []
        for _ in range(repeats):
            t, kept, g = run(n, iters, fresh)
            times.append(t)
        rows.append((label, float(np.median(times)), kept, g))
    wp.config.tape_copy_on_write = wp.config.tape_check_contents = True
    ref = rows[0][3]
    scale = np.abs(ref).max()
    print(f"n={n} float32, {iters} sweeps, median of {repeats} (record + backward), CPU")
    print(f"{'program':22s} {'time [ms]':>10s} {'kept [bytes]':>14s} {'kept/array':>10s} {'max|g-g_fresh|/max|g|':>22s}")
    for label, t, kept, g in rows:
        print(f"{label:22s} {t * 1e3:10.1f} {kept:14,d} {kept / (4 * n):10.1f} {np.abs(g - ref).max() / scale:22.3g}")


if __name__ == "__main__":
    main()
