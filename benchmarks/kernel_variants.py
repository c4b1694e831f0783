"""The same n-body force kernel written the ways users write it, side by side with warp-lang (CPU):
the thread's own element read before or inside the loop, ``1/sqrt`` cubed or ``1/(r2*sqrt(r2))``,
a local or an array accumulator; forward with and without ``requires_grad`` arrays, and forward +
backward through ``wp.Tape`` (scalar loss from the forces).

    python benchmarks/kernel_variants.py [--n 4096] [--repeat 5] [--clock cpu] [--json out.json]

Ours runs on 1 thread and on all cores (``wp.config.num_threads``), warp-lang (one thread for CPU
kernels) from benchmarks/.peer-venv or else the compat venv (scripts/.compat-venv); each side in its
own process, medians of ``--repeat`` calls after a warm-up. ``--clock cpu`` reports process CPU
time (every thread's), which a loaded machine does not inflate. The last columns compare each
variant with its fastest sibling on the same side, and gradients are cross-checked between sides.
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
TOOLKIT = os.environ.get("BENCH_TOOLKIT", "wpi")
if TOOLKIT == "warp":
    import warp as wp
    wp.config.quiet = True
else:
    sys.path.insert(0, ROOT)
    import warp_interactive as wp

EPS = 0.01


@wp.kernel
def own_before_inv3(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), acc: wp.array(dtype=wp.vec3),
                    n: int):
    i = wp.tid()
    p = pos[i]
    a = wp.vec3(0.0, 0.0, 0.0)
    for j in range(n):
        d = pos[j] - p
        r2 = wp.dot(d, d) + EPS
        inv = 1.0 / wp.sqrt(r2)
        a = a + d * (mass[j] * inv * inv * inv)
    acc[i] = a


@wp.kernel
def own_before_r2sqrt(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), acc: wp.array(dtype=wp.vec3),
                      n: int):
    i = wp.tid()
    p = pos[i]
    a = wp.vec3(0.0, 0.0, 0.0)
    for j in range(n):
        d = pos[j] - p
        r2 = wp.dot(d, d) + EPS
        a = a + d * (mass[j] / (r2 * wp.sqrt(r2)))
    acc[i] = a


@wp.kernel
def own_inside(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), acc: wp.array(dtype=wp.vec3),
               n: int):
    i = wp.tid()
    a = wp.vec3(0.0, 0.0, 0.0)
    for j in range(n):
        d = pos[j] - pos[i]
        r2 = wp.dot(d, d) + EPS
        inv = 1.0 / wp.sqrt(r2)
        a = a + d * (mass[j] * inv * inv * inv)
    acc[i] = a


@wp.kernel
def array_accumulator(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), acc: wp.array(dtype=wp.vec3),
                      n: int):
    i = wp.tid()
    p = pos[i]
    acc[i] = wp.vec3(0.0, 0.0, 0.0)
    for j in range(n):
        d = pos[j] - p
        r2 = wp.dot(d, d) + EPS
        inv = 1.0 / wp.sqrt(r2)
        acc[i] = acc[i] + d * (mass[j] * inv * inv * inv)


@wp.kernel
def loss_kernel(acc: wp.array(dtype=wp.vec3), w: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.dot(acc[i], w[i]))


VARIANTS = [("own_before_inv3", "p = pos[i] before the loop, inv*inv*inv"),
            ("own_before_r2sqrt", "p = pos[i] before the loop, 1/(r2*sqrt(r2))"),
            ("own_inside", "pos[i] read inside the loop"),
            ("array_accumulator", "acc[i] += ... inside the loop")]
MODES = [("fwd", "forward"), ("fwd_grad", "forward, requires_grad arrays"),
         ("fwd_bwd", "forward + backward (wp.Tape)")]


def _median(fn, repeat, clock):
    fn()
    times = []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        times.append((time.process_time() - c0) if clock == "cpu" else (time.perf_counter() - t0))
    return 1e3 * float(np.median(times))


def worker(n, repeat, clock, threads):
    if threads and TOOLKIT != "warp":
        wp.config.num_threads = threads
    wp.init()
    rng = np.random.default_rng(0)
    pos_np = rng.normal(size=(n, 3)).astype(np.float32)
    mass_np = rng.uniform(0.5, 1.5, n).astype(np.float32)
    w_np = rng.normal(size=(n, 3)).astype(np.float32)
    res, grads = {}, {}
    for name, _ in VARIANTS:
        kernel = globals()[name]
        plain = [wp.array(pos_np, dtype=wp.vec3), wp.array(mass_np, dtype=float), wp.zeros(n, dtype=wp.vec3), n]
        res[f"{name}/fwd"] = _median(lambda: wp.launch(kernel, dim=n, inputs=plain, device="cpu"), repeat, clock)
        pos = wp.array(pos_np, dtype=wp.vec3, requires_grad=True)
        mass = wp.array(mass_np, dtype=float, requires_grad=True)
        acc = wp.zeros(n, dtype=wp.vec3, requires_grad=True)
        w = wp.array(w_np, dtype=wp.vec3)
        loss = wp.zeros(1, dtype=float, requires_grad=True)
        graded = [pos, mass, acc, n]
        res[f"{name}/fwd_grad"] = _median(lambda: wp.launch(kernel, dim=n, inputs=graded, device="cpu"),
                                          repeat, clock)

        def step():
            tape = wp.Tape()
            with tape:
                wp.launch(kernel, dim=n, inputs=graded, device="cpu")
                wp.launch(loss_kernel, dim=n, inputs=[acc, w, loss], device="cpu")
            tape.backward(loss=loss)
            out = (pos.grad.numpy().copy(), mass.grad.numpy().copy())
            tape.zero()
            loss.zero_()
            return out
        res[f"{name}/fwd_bwd"] = _median(step, repeat, clock)
        g_pos, g_mass = step()
        grads[name] = {"pos": g_pos[:32].ravel().tolist(), "mass": g_mass[:32].tolist()}
    return {"times": res, "grads": grads}


def _peer_command():
    venv = os.path.join(HERE, ".peer-venv", "bin", "python")
    if os.path.exists(venv):
        return venv, {}
    site = os.path.join(ROOT, "scripts", ".compat-venv", "lib", "python3.11", "site-packages")
    if os.path.isdir(os.path.join(site, "warp")):
        return sys.executable, {"PYTHONPATH": site}
    return None, None


def run_side(toolkit, args, threads=None):
    if toolkit == "warp":
        py, extra = _peer_command()
        if py is None:
            return None
    else:
        py, extra = sys.executable, {}
    env = dict(os.environ, BENCH_TOOLKIT=toolkit, **extra)
    cmd = [py, os.path.abspath(__file__), "--worker", "--n", str(args.n), "--repeat", str(args.repeat),
           "--clock", args.clock, "--threads", str(threads or 0)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"{toolkit} worker failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    ap.add_argument("--threads", type=int, default=0, help="(worker) ours' thread count, 0: all cores")
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(args.n, args.repeat, args.clock, args.threads)))
        return
    load = os.getloadavg()
    sides = {"ours 1t": run_side("wpi", args, 1), "ours all": run_side("wpi", args), "warp-lang": run_side("warp", args)}
    print(f"n-body N={args.n}, median ms ({args.clock} clock) of {args.repeat}; load average before "
          f"{load[0]:.1f}, after {os.getloadavg()[0]:.1f}")
    names = [k for k, v in sides.items() if v]
    print(f"{'variant':48s} {'mode':30s} " + " ".join(f"{k:>10s}" for k in names)
          + f" {'all/wl':>7s} {'/fastest':>9s}")
    for mode, mode_label in MODES:
        fastest = min(sides["ours all"]["times"][f"{v}/{mode}"] for v, _ in VARIANTS)
        for name, label in VARIANTS:
            key = f"{name}/{mode}"
            vals = [sides[k]["times"][key] for k in names]
            ours = sides["ours all"]["times"][key]
            peer = sides["warp-lang"]["times"][key] if sides.get("warp-lang") else float("nan")
            print(f"{label:48s} {mode_label:30s} " + " ".join(f"{v:10.2f}" for v in vals)
                  + f" {ours / peer:7.2f} {ours / fastest:8.2f}x")
    if sides.get("warp-lang"):
        for name, _ in VARIANTS:
            for g in ("pos", "mass"):
                a = np.array(sides["ours all"]["grads"][name][g])
                b = np.array(sides["warp-lang"]["grads"][name][g])
                err = float(np.max(np.abs(a - b)) / np.max(np.abs(b)))
                if err > 1e-3:
                    print(f"gradient of {g} in {name} differs from warp-lang: max rel {err:.1e}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(sides, f, indent=1)


if __name__ == "__main__":
    main()
