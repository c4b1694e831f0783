"""saxpy bandwidth (y = a*x + y, 12 bytes moved per float32 element) on every device present:
the CPU always, each CUDA device when there is one. Medians over repeated launches; the result
is checked against NumPy.

    python benchmarks/saxpy.py [--n 10000000] [--repeat 20] [--devices cpu,cuda:0] [--graph]

On a GPU the time is taken with CUDA events around the launches (device time); on the CPU with
the wall clock (launches are synchronous). ``--graph`` also times the same launches replayed
from a captured graph (a CUDA graph on a GPU, the recorded launches on the CPU).
"""

import argparse
import statistics
import time

import numpy as np

import warp_interactive as wp
from timing_util import median_time


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def _time_cuda(fn, repeat, device):
    times = []
    for _ in range(repeat):
        start, end = wp.Event(device, enable_timing=True), wp.Event(device, enable_timing=True)
        wp.record_event(start)
        fn()
        wp.record_event(end)
        times.append(wp.get_event_elapsed_time(start, end) / 1000.0)
    return statistics.median(times)


def bench(device, n, repeat, graph):
    device = wp.get_device(device)
    rng = np.random.default_rng(0)
    x_np, y_np = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    with wp.ScopedDevice(device):
        x = wp.array(x_np, dtype=float)
        y = wp.array(y_np, dtype=float)
        wp.launch(saxpy, dim=n, inputs=[x, y, 2.0])                # build, load, warm up
        wp.synchronize_device(device)
        np.testing.assert_allclose(y.numpy(), 2.0 * x_np + y_np, rtol=1e-6)
        run = lambda: wp.launch(saxpy, dim=n, inputs=[x, y, 2.0])  # noqa: E731
        timer = (lambda f: _time_cuda(f, repeat, device)) if device.is_cuda else \
            (lambda f: median_time(f, repeat, warmup=False))
        rows = [("launch", timer(run))]
        if graph:
            with wp.ScopedCapture(device) as cap:
                run()
            rows.append(("graph", timer(lambda: wp.capture_launch(cap.graph))))
        wp.synchronize_device(device)
    return [(str(device), device.name, kind, t, 12.0 * n / t / 1e9) for kind, t in rows]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=10_000_000)
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--devices", default=None, help="comma-separated; default: every device")
    p.add_argument("--graph", action="store_true")
    args = p.parse_args()
    devices = args.devices.split(",") if args.devices else [str(d) for d in wp.get_devices()]
    print(f"saxpy n={args.n:,} float32, median of {args.repeat}")
    print(f"{'device':8} {'kind':7} {'ms':>9} {'GB/s':>8}  name")
    for d in devices:
        for dev, name, kind, t, gbs in bench(d, args.n, args.repeat, args.graph):
            print(f"{dev:8} {kind:7} {t * 1e3:9.3f} {gbs:8.1f}  {name}")


if __name__ == "__main__":
    main()
