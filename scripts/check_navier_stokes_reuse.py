"""Does warp-lang's ``optim/example_navier_stokes_perturbation`` get the fresh-buffer gradient?

The example's Poisson solve reuses its FFT scratch arrays (the inverse FFT overwrites what the
forward FFT's consumers read). This runs the example, unchanged, on a small grid: one forward +
backward as written, and one where every array written a second time in the forward pass is
replaced by a fresh one from then on (launches and copies are renamed, as a program with fresh
buffers would have written them), then compares the gradients of the loss with respect to the
perturbation ``delta_omega``, and both against a central finite difference along a random
unit direction (step ``--fd-step`` times the perturbation's RMS value). It also reports what the tape kept (``tape.kept_bytes``) and what the fresh arrays cost.

    python scripts/check_navier_stokes_reuse.py [--grid 64] [--lead-steps 2] [--spin-up 4]
    python scripts/check_navier_stokes_reuse.py --peer     # the same, on warp-lang itself

The example file is read from the installed warp-lang wheel (``scripts/.compat-venv``) and runs
through the forwarding ``warp`` package of compat_warp_tests.py (``import warp`` gives
warp_interactive), or with ``--peer`` on warp-lang. Not a test: a check to run by hand.
"""

import argparse
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = "optim/example_navier_stokes_perturbation.py"


def load_example(wheel, grid):
    """The example module with its grid constants set to ``grid`` before any kernel is built."""
    spec = importlib.util.spec_from_file_location("ns_example", os.path.join(wheel, "examples", EXAMPLE))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    m.N_GRID = grid
    m.H = m.DOMAIN_SIZE / grid
    m.INV_H2 = 1.0 / (m.H * m.H)
    m.INV_2H = 1.0 / (2.0 * m.H)
    m.BLOCK_DIM = grid // 2
    return m


class Renamer:
    """While active, a launch output or copy destination already written in this pass is
    replaced by a fresh array, and later launches read the newest version of each array."""

    def __init__(self, wp):
        self.wp, self.latest, self.written, self.fresh_bytes = wp, {}, set(), 0
        self.launch, self.launch_tiled, self.copy = wp.launch, wp.launch_tiled, wp.copy

    def _now(self, v):
        return self.latest.get(id(v), v) if hasattr(v, "shape") else v

    def _out(self, v):
        if not hasattr(v, "shape"):
            return v
        cur = self._now(v)
        if id(cur) in self.written:
            new = self.wp.zeros_like(cur, requires_grad=cur.requires_grad)
            self.fresh_bytes += cur.capacity
            self.latest[id(v)] = new
            cur = new
        self.written.add(id(cur))
        return cur

    def _args(self, kw, args):
        inputs = [self._now(v) for v in kw.pop("inputs", args[0] if args else [])]
        outputs = [self._out(v) for v in kw.pop("outputs", [])]
        return inputs, outputs

    def __enter__(self):
        wp, ren = self.wp, self

        def launch(kernel, dim, *args, **kw):
            inputs, outputs = ren._args(kw, args)
            return ren.launch(kernel, dim=dim, inputs=inputs, outputs=outputs, **kw)

        def launch_tiled(kernel, dim, *args, **kw):
            inputs, outputs = ren._args(kw, args)
            return ren.launch_tiled(kernel, dim=dim, inputs=inputs, outputs=outputs, **kw)

        def copy(dest, src, *args, **kw):
            src = ren._now(src)
            return ren.copy(ren._out(dest), src, *args, **kw)

        wp.launch, wp.launch_tiled, wp.copy = launch, launch_tiled, copy
        return self

    def result(self, a):
        return self._now(a)

    def __exit__(self, *exc):
        self.wp.launch, self.wp.launch_tiled, self.wp.copy = self.launch, self.launch_tiled, self.copy


def loss_and_grad(wp, ex, fresh):
    ex.delta_omega.grad.zero_()
    tape = wp.Tape()
    ren = Renamer(wp)
    with tape:
        if fresh:
            with ren:
                ex.forward()
        else:
            ex.forward()
    tape.backward(ex.loss)
    grad = ex.delta_omega.grad.numpy().copy()
    kept = getattr(tape, "kept_bytes", 0)
    tape.reset()
    return float(ex.loss.numpy()[0]), grad, kept, ren.fresh_bytes


def loss_at(wp, ex, delta):
    saved = ex.delta_omega.numpy().copy()
    ex.delta_omega.assign(delta)
    ex.forward()
    value = float(ex.loss.numpy()[0])
    ex.delta_omega.assign(saved)
    return value


def run(args):
    import numpy as np
    import warp as wp

    wheel = args.wheel
    m = load_example(wheel, args.grid)
    wp.config.quiet = True
    with wp.ScopedDevice("cpu"):
        ex = m.Example(spin_up_steps=args.spin_up, lead_steps=args.lead_steps)
        rows = {}
        for label, fresh in (("as written", False), ("fresh buffers", True)):
            rows[label] = loss_and_grad(wp, ex, fresh)
        rng = np.random.default_rng(7)
        v = rng.standard_normal(ex.delta_omega.shape).astype(np.float32)
        v /= np.linalg.norm(v)
        d0 = ex.delta_omega.numpy().astype(np.float64)
        h = args.fd_step * float(np.linalg.norm(d0)) / np.sqrt(d0.size)
        fd = (loss_at(wp, ex, (d0 + h * v).astype(np.float32)) -
              loss_at(wp, ex, (d0 - h * v).astype(np.float32))) / (2 * h)
    (l_w, g_w, kept, _), (l_f, g_f, _, fresh_bytes) = rows["as written"], rows["fresh buffers"]
    scale = float(np.abs(g_f).max())
    print(f"{'warp-lang' if args.peer else 'warp_interactive'}: grid {args.grid}, lead steps "
          f"{args.lead_steps}, spin-up {args.spin_up}")
    print(f"  loss as written {l_w:.9g}, with fresh buffers {l_f:.9g}")
    print(f"  max |grad as written - grad fresh| = {np.abs(g_w - g_f).max():.3g} "
          f"(max |grad fresh| = {scale:.3g}; relative {np.abs(g_w - g_f).max() / scale:.3g}); "
          f"bit for bit: {np.array_equal(g_w, g_f)}")
    print(f"  directional derivative along a random unit v: as written {float(np.sum(g_w * v)):.6g}, "
          f"fresh {float(np.sum(g_f * v)):.6g}, central difference {fd:.6g}")
    print(f"  tape kept {kept} bytes for overwritten arrays; the fresh-buffer run allocated "
          f"{fresh_bytes} bytes of extra arrays")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--grid", type=int, default=64)
    ap.add_argument("--lead-steps", type=int, default=2)
    ap.add_argument("--spin-up", type=int, default=4)
    ap.add_argument("--fd-step", type=float, default=1.0)
    ap.add_argument("--peer", action="store_true", help="run on warp-lang itself")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--wheel", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inner:
        return run(args)
    sys.path.insert(0, HERE)
    from compat_warp_tests import REPO, SHIM, make_shim, wheel_dir
    wheel = wheel_dir()
    path = [os.path.dirname(wheel)] if args.peer else [SHIM, REPO]
    if not args.peer:
        make_shim(wheel)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    cmd = [sys.executable, os.path.abspath(__file__), "--inner", "--wheel", wheel, "--grid", str(args.grid),
           "--lead-steps", str(args.lead_steps), "--spin-up", str(args.spin_up), "--fd-step", str(args.fd_step)]
    if args.peer:
        cmd.append("--peer")
    return subprocess.call(cmd, env=env)


if __name__ == "__main__":
    sys.exit(main())
