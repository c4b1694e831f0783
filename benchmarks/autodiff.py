"""Autodiff side by side with warp-lang (CPU, medians over repeats, one run):
- the n-body force kernel (N=4096 bodies, vec3, a dynamic inner loop) and an elementwise kernel
  over 4M floats: forward launch, and forward + backward (record on a tape, tape.backward,
  tape.zero: one training step);
- warp_interactive only: the adjoint of a while loop (checkpointed state) and wp.matmul.

    python benchmarks/autodiff.py [--repeat 7] [--rounds 3] [--json out.json]

warp-lang runs in a subprocess of benchmarks/.peer-venv (``python benchmarks/run.py
--setup-peers`` makes it); without it only warp_interactive's column is filled. Gradients of
both toolkits are checked against each other (and the elementwise one against NumPy).

The two toolkits' workers alternate over ``--rounds`` rounds (ours first in even rounds, warp-lang
first in odd ones) and each figure is the median of the rounds' medians: on a shared machine the
load changes within a minute, and one worker each would put a load change between the columns.
The load average is printed before and after.
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PEER_PY = os.path.join(HERE, ".peer-venv", "bin", "python")
TOOLKIT = os.environ.get("BENCH_TOOLKIT", "wpi")

if TOOLKIT == "warp":
    import warp as wp
    wp.config.quiet = True
else:
    sys.path.insert(0, os.path.dirname(HERE))     # this checkout's package
    import warp_interactive as wp
from timing_util import median_time as _median  # noqa: E402
import time  # noqa: E402

N_BODY = 4096
N_ELEM = 1 << 22


@wp.kernel
def nbody(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), acc: wp.array(dtype=wp.vec3),
          n: int):
    i = wp.tid()
    p = pos[i]
    a = wp.vec3(0.0, 0.0, 0.0)
    for j in range(n):
        d = pos[j] - p
        r2 = wp.dot(d, d) + 0.01
        a = a + d * (mass[j] / (r2 * wp.sqrt(r2)))
    acc[i] = a


@wp.kernel
def elementwise(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    y[i] = wp.sin(v) * wp.exp(v * 0.1) + v * v


def _timed(res, key, fn, repeat):
    """``res[key]``: the median wall time of ``fn`` (ms); ``res[key + "_cpu"]``: the median CPU
    time of this process over the same calls, every thread's (what the load does not inflate)."""
    fn()
    times = []
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0, time.process_time() - c0))
    res[key] = 1e3 * float(np.median([t for t, _ in times]))
    res[key + "_cpu"] = 1e3 * float(np.median([c for _, c in times]))


def _step(kernel, dim, inputs, out, seed):
    """One training step: forward on a tape, backward from ``seed``, gradients zeroed."""
    def run():
        tape = wp.Tape()
        with tape:
            wp.launch(kernel, dim=dim, inputs=inputs, device="cpu")
        tape.backward(grads={out: seed})
        grads = [a.grad.numpy().copy() for a in inputs if hasattr(a, "grad") and a.grad is not None]
        tape.zero()
        return grads
    return run


def worker(repeat):
    """This toolkit's figures, and a digest of its gradients (for the cross-check)."""
    wp.init()
    rng = np.random.default_rng(0)
    res = {}
    pos = wp.array(rng.normal(size=(N_BODY, 3)).astype(np.float32), dtype=wp.vec3, device="cpu",
                   requires_grad=True)
    mass = wp.array(rng.uniform(0.5, 1.5, N_BODY).astype(np.float32), dtype=float, device="cpu",
                    requires_grad=True)
    acc = wp.zeros(N_BODY, dtype=wp.vec3, device="cpu", requires_grad=True)
    seed = wp.array(rng.normal(size=(N_BODY, 3)).astype(np.float32), dtype=wp.vec3, device="cpu")
    inputs = [pos, mass, acc, N_BODY]
    _timed(res, "nbody_fwd_ms", lambda: wp.launch(nbody, dim=N_BODY, inputs=inputs, device="cpu"), repeat)
    step = _step(nbody, N_BODY, inputs, acc, seed)
    _timed(res, "nbody_fwd_bwd_ms", step, repeat)
    g_pos, g_mass = step()[:2]

    x = wp.array(rng.uniform(0.5, 2.0, N_ELEM).astype(np.float32), dtype=float, device="cpu",
                 requires_grad=True)
    y = wp.zeros(N_ELEM, dtype=float, device="cpu", requires_grad=True)
    ones = wp.array(np.ones(N_ELEM, np.float32), dtype=float, device="cpu")
    _timed(res, "elem_fwd_ms", lambda: wp.launch(elementwise, dim=N_ELEM, inputs=[x, y], device="cpu"),
           repeat)
    estep = _step(elementwise, N_ELEM, [x, y], y, ones)
    _timed(res, "elem_fwd_bwd_ms", estep, repeat)
    g_x = estep()[0]
    xn = x.numpy().astype(np.float64)
    expect = (np.cos(xn) + 0.1 * np.sin(xn)) * np.exp(0.1 * xn) + 2 * xn
    res["elem_grad_max_rel_err"] = float(np.max(np.abs(g_x - expect) / np.abs(expect)))
    res["digest"] = {"pos": g_pos[:64].tolist(), "mass": g_mass[:64].tolist()}
    return res


def extras(repeat):
    """warp_interactive only: a while loop's adjoint, and wp.matmul forward and backward."""
    @wp.kernel
    def while_loop(x: wp.array(dtype=float), y: wp.array(dtype=float), n: int):
        i = wp.tid()
        z = float(1.0)
        it = int(0)
        while it < n:
            z = 0.5 * (z + x[i] / z)
            it += 1
        y[i] = z

    out = {}
    m = 4096
    xs = wp.array(np.linspace(0.5, 4, m).astype(np.float32), requires_grad=True)
    ys = wp.zeros(m, dtype=float, requires_grad=True)
    for iters in (10, 40, 200):
        out[f"while_forward_n{iters}_ms"] = 1e3 * _median(
            lambda: wp.launch(while_loop, dim=m, inputs=[xs, ys, iters]), repeat)
        t = wp.Tape()
        with t:
            wp.launch(while_loop, dim=m, inputs=[xs, ys, iters])
        out[f"while_backward_n{iters}_ms"] = 1e3 * _median(
            lambda: t.backward(grads={ys: np.ones(m, dtype=np.float32)}), repeat)
    k = 512
    rng = np.random.default_rng(1)
    a, b, c = (wp.array(rng.normal(size=(k, k)).astype(np.float32), requires_grad=True) for _ in range(3))
    d = wp.zeros((k, k), dtype=float, requires_grad=True)
    an, bn = a.numpy(), b.numpy()
    out["numpy_matmul_512_ms"] = 1e3 * _median(lambda: an @ bn, repeat)
    out["wp_matmul_512_ms"] = 1e3 * _median(lambda: wp.matmul(a, b, c, d), repeat)
    tm = wp.Tape()
    with tm:
        wp.matmul(a, b, c, d)
    gseed = np.ones((k, k), dtype=np.float32)
    out["wp_matmul_512_backward_ms"] = 1e3 * _median(lambda: tm.backward(grads={d: gseed}), repeat)
    return out


def _load(avg):
    return ", ".join(f"{x:.2f}" for x in avg)


def _rounds(repeat, rounds):
    """Both toolkits' figures: per figure the median over alternating rounds (module docstring);
    the extras and the gradient digests come from each toolkit's first round."""
    runs = {"wpi": [], "warp": []}
    for r in range(rounds):
        for toolkit in (("wpi", "warp") if r % 2 == 0 else ("warp", "wpi")):
            res = _run_toolkit(toolkit, repeat, extras=not runs[toolkit])
            if res is not None:
                runs[toolkit].append(res)
    out = []
    for results in (runs["wpi"], runs["warp"]):
        if not results:
            out.append(None)
            continue
        merged = dict(results[0])
        for key, _ in ROWS:
            for k in (key, key + "_cpu"):
                merged[k] = float(np.median([res[k] for res in results]))
        out.append(merged)
    return out


def _run_toolkit(toolkit, repeat, extras=True):
    py = sys.executable if toolkit == "wpi" else PEER_PY
    if not os.path.exists(py):
        return None
    env = dict(os.environ, BENCH_TOOLKIT=toolkit)
    cmd = [py, os.path.abspath(__file__), "--worker", "--repeat", str(repeat)]
    if not extras:
        cmd.append("--no-extras")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=os.path.dirname(HERE))
    if out.returncode != 0:
        raise RuntimeError(f"{toolkit} worker failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


ROWS = [("nbody_fwd_ms", "n-body N=4096, forward"), ("nbody_fwd_bwd_ms", "n-body N=4096, forward + backward"),
        ("elem_fwd_ms", "elementwise 4M floats, forward"),
        ("elem_fwd_bwd_ms", "elementwise 4M floats, forward + backward")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds of both toolkits")
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--no-extras", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.worker:
        res = worker(args.repeat)
        if TOOLKIT != "warp" and not args.no_extras:
            res["extras"] = extras(args.repeat)
        print(json.dumps(res))
        return
    load_before = os.getloadavg()
    ours, peer = _rounds(args.repeat, max(1, args.rounds))
    print(f"load average (1, 5, 15 min): before {_load(load_before)}, after {_load(os.getloadavg())}; "
          f"{max(1, args.rounds)} alternating rounds of {args.repeat} repeats")
    print(f"{'figure (median ms, CPU)':44s} {'warp_interactive':>17s} {'warp-lang':>10s} {'ratio':>7s}")
    for key, label in ROWS:
        p = peer[key] if peer else float("nan")
        print(f"{label:44s} {ours[key]:17.2f} {p:10.2f} {ours[key] / p:7.2f}")
    print("CPU time of the process, every thread's (warp-lang runs CPU kernels on one thread):")
    for key, label in ROWS:
        p = peer[key + "_cpu"] if peer else float("nan")
        print(f"{label:44s} {ours[key + '_cpu']:17.2f} {p:10.2f} {ours[key + '_cpu'] / p:7.2f}")
    if peer:
        for name in ("pos", "mass"):
            a, b = np.array(ours["digest"][name]), np.array(peer["digest"][name])
            err = float(np.max(np.abs(a - b)) / np.max(np.abs(b)))
            print(f"n-body gradient of {name} vs warp-lang: max relative difference {err:.1e}")
    print(f"elementwise gradient vs NumPy: max relative error {ours['elem_grad_max_rel_err']:.1e}")
    print(json.dumps({k: round(v, 3) for k, v in ours["extras"].items()}, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"warp_interactive": ours, "warp-lang": peer}, f, indent=1)


if __name__ == "__main__":
    main()
