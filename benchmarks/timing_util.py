"""The one timing helper the benchmark scripts share (they run as `python benchmarks/<x>.py`,
so this folder is on sys.path)."""

import statistics
import time


def median_time(fn, repeat, warmup=True):
    """Median wall time of ``fn()`` over ``repeat`` calls, after one untimed call (which builds
    kernels) unless ``warmup`` is False."""
    if warmup:
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)
