"""warp.fem side by side with warp-lang: 3-D linear elasticity stiffness assembly (Q1 vec3 on a
Grid3D) and a 2-D diffusion solve (Q2 assembly, Dirichlet projection, CG), each in a fresh
process with an empty kernel cache: the first call (kernel builds included) and the median of
the following ones, in wall time and in the process's CPU time (the CPU time of a build in
g++ subprocesses is not counted: the first call's wall time is the cold figure).

    python benchmarks/fem_assembly.py [--res 46] [--res2d 200] [--repeat 3] [--no-peer]

``--res 46`` gives ~10^5 cells (46 x 46 x 46); warp-lang (scripts/.compat-venv) runs the same
code under its own name. CPU only.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def child(args):
    if args.side == "peer":
        import warp as wp
        import warp.fem as fem
        from warp.optim.linear import cg
        wp.config.kernel_cache_dir = args.cache
        wp.config.quiet = True
    else:
        import warp_interactive as wp
        import warp_interactive.fem as fem
        from warp_interactive.optim.linear import cg
    wp.init()

    @fem.integrand
    def elasticity(s: fem.Sample, u: fem.Field, v: fem.Field, lame: wp.vec2):
        return 2.0 * lame[1] * wp.ddot(fem.D(u, s), fem.D(v, s)) + lame[0] * fem.div(u, s) * fem.div(v, s)

    @fem.integrand
    def diffusion(s: fem.Sample, u: fem.Field, v: fem.Field):
        return wp.dot(fem.grad(u, s), fem.grad(v, s))

    @fem.integrand
    def unit(s: fem.Sample, v: fem.Field):
        return v(s)

    @fem.integrand
    def projector(s: fem.Sample, u: fem.Field, v: fem.Field):
        return u(s) * v(s)

    def timed(fn):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wp.synchronize()
        return (time.perf_counter() - t0, time.process_time() - c0), out

    with wp.ScopedDevice("cpu"):
        geo3 = fem.Grid3D(res=wp.vec3i(args.res, args.res, args.res))
        u_space = fem.make_polynomial_space(geo3, degree=1, dtype=wp.vec3)
        test, trial = fem.make_test(u_space), fem.make_trial(u_space)

        def assemble():
            return fem.integrate(elasticity, fields={"u": trial, "v": test}, values={"lame": wp.vec2(1.0, 0.5)})

        def solve():
            geo = fem.Grid2D(res=wp.vec2i(args.res2d))
            space = fem.make_polynomial_space(geo, degree=2)
            bd = fem.BoundarySides(geo)
            K = fem.integrate(diffusion, fields={"u": fem.make_trial(space), "v": fem.make_test(space)})
            b = fem.integrate(unit, fields={"v": fem.make_test(space)})
            P = fem.integrate(projector, fields={"u": fem.make_trial(space, domain=bd),
                                                 "v": fem.make_test(space, domain=bd)}, assembly="nodal")
            fem.project_linear_system(K, b, P, wp.zeros_like(b))
            x = wp.zeros_like(b)
            cg(K, b, x, tol=1e-6, maxiter=2000)
            return x

        result = {}
        for name, fn in (("assembly", assemble), ("solve", solve)):
            first, out = timed(fn)
            rest = sorted(timed(fn)[0] for _ in range(args.repeat))
            mid = rest[len(rest) // 2]
            result[name] = {"first_s": first[0], "median_s": mid[0], "first_cpu_s": first[1], "median_cpu_s": mid[1]}
    print("RESULT " + json.dumps(result))


def run_side(side, args):
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, WARP_INTERACTIVE_CACHE_DIR=cache)
        if side == "peer":
            site = next(os.path.join(root, d) for root, dirs, _ in os.walk(os.path.join(REPO, "scripts", ".compat-venv", "lib"))
                        for d in dirs if d == "site-packages")
            env["PYTHONPATH"] = site
        else:
            env["PYTHONPATH"] = REPO
        cmd = [sys.executable, __file__, "--child", side, "--cache", cache, "--res", str(args.res),
               "--res2d", str(args.res2d), "--repeat", str(args.repeat)]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True)
        for line in out.stdout.splitlines():
            if line.startswith("RESULT "):
                return json.loads(line[7:])
        raise RuntimeError(f"{side} failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--res", type=int, default=46)
    p.add_argument("--res2d", type=int, default=200)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--no-peer", action="store_true")
    p.add_argument("--child", dest="side", default=None)
    p.add_argument("--cache", default=None)
    args = p.parse_args()
    if args.side:
        return child(args)
    sides = ["ours"] + ([] if args.no_peer else ["peer"])
    results = {s: run_side(s, args) for s in sides}
    print(f"3-D elasticity Q1 assembly, {args.res ** 3:,} cells; 2-D diffusion Q2 solve, {args.res2d ** 2:,} cells (CPU)")
    print("(wall seconds, and CPU seconds of the process, all its threads: on a shared machine the wall time"
          " also counts waiting for the cores)")
    print(f"{'':10} {'side':6} {'first s':>9} {'median s':>9} {'first cpu':>10} {'median cpu':>11}")
    for name in ("assembly", "solve"):
        for s in sides:
            r = results[s][name]
            print(f"{name:10} {s:6} {r['first_s']:9.3f} {r['median_s']:9.3f} {r['first_cpu_s']:10.3f}"
                  f" {r['median_cpu_s']:11.3f}")


if __name__ == "__main__":
    main()
