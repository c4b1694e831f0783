"""The PyTorch performance notes of the interoperability reference, measured: the cost of
launching a kernel on torch tensors that are converted on every launch with ``wp.from_torch``,
with ``wp.from_torch(..., return_ctype=True)``, passed to ``wp.launch`` directly, and (the
recommended baseline) converted once and reused. A small saxpy keeps the kernel's own time
negligible, so the figures are Python-side overhead.

    python benchmarks/interop_torch.py [--launches 10000] [--repeat 5] [--device cpu]

Prints, per form, the median over ``--repeat`` runs of the time for ``--launches`` launches.
"""

import argparse
import statistics
import time

import torch

import warp_interactive as wp


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def run_from_torch(x_t, y_t, n, launches, device):
    for _ in range(launches):
        x_w = wp.from_torch(x_t)
        y_w = wp.from_torch(y_t)
        wp.launch(saxpy, dim=n, inputs=[x_w, y_w, 1.0], device=device)


def run_return_ctype(x_t, y_t, n, launches, device):
    for _ in range(launches):
        x_c = wp.from_torch(x_t, return_ctype=True)
        y_c = wp.from_torch(y_t, return_ctype=True)
        wp.launch(saxpy, dim=n, inputs=[x_c, y_c, 1.0], device=device)


def run_direct(x_t, y_t, n, launches, device):
    for _ in range(launches):
        wp.launch(saxpy, dim=n, inputs=[x_t, y_t, 1.0], device=device)


def run_reuse(x_t, y_t, n, launches, device):
    x_w = wp.from_torch(x_t)
    y_w = wp.from_torch(y_t)
    for _ in range(launches):
        wp.launch(saxpy, dim=n, inputs=[x_w, y_w, 1.0], device=device)


FORMS = [("from_torch(...)", run_from_torch),
         ("from_torch(..., return_ctype=True)", run_return_ctype),
         ("direct from torch", run_direct),
         ("converted once, reused", run_reuse)]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--launches", type=int, default=10000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--n", type=int, default=64, help="elements per array")
    p.add_argument("--device", default="cpu")
    args = p.parse_args()
    device = args.device
    x_t = torch.arange(args.n, dtype=torch.float32, device=device)
    y_t = torch.ones(args.n, dtype=torch.float32, device=device)
    wp.launch(saxpy, dim=args.n, inputs=[x_t, y_t, 1.0], device=device)   # build + load once
    print(f"{args.launches} launches of saxpy on {args.n} elements, {device}, "
          f"median of {args.repeat} (torch {torch.__version__})")
    for name, fn in FORMS:
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            fn(x_t, y_t, args.n, args.launches, device)
            wp.synchronize_device(device)
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        print(f"{med * 1e3:8.0f} ms  {name}   ({med / args.launches * 1e6:.1f} us/launch)")


if __name__ == "__main__":
    main()
