"""Kernels shared by warp_interactive and warp-lang in the benchmarks (same source for both:
BENCH_TOOLKIT=warp picks warp-lang, anything else warp_interactive; BENCH_FAST_MATH=1 turns on
the module's fast_math option; BENCH_CPU_LANES=0 turns off warp_interactive's lane-blocked CPU
bodies, for a before/after comparison)."""

import os

if os.environ.get("BENCH_TOOLKIT") == "warp":
    import warp as wp
else:
    import warp_interactive as wp

if os.environ.get("BENCH_FAST_MATH") == "1":
    wp.set_module_options({"fast_math": True})

if os.environ.get("BENCH_CPU_LANES") == "0":
    wp.set_module_options({"cpu_lanes": False})

EPS2 = wp.constant(0.01)


@wp.kernel
def noop(z: wp.array(dtype=float)):
    i = wp.tid()


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def nbody(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), acc: wp.array(dtype=wp.vec3),
          n: int):
    i = wp.tid()
    p = pos[i]
    a = wp.vec3(0.0, 0.0, 0.0)
    for j in range(n):
        d = pos[j] - p
        r2 = wp.dot(d, d) + EPS2
        a = a + d * (mass[j] / (r2 * wp.sqrt(r2)))
    acc[i] = a
