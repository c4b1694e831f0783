"""Demo: kernels on every CPU core, with a picture to show for it.

Computes a Julia set (a 2-d launch with a while loop per pixel) and a heat-diffusion
simulation (100 launches of a stencil kernel), then saves both as one PNG and prints its path.

    python examples/demo.py [--out PATH] [--size 800]

The picture goes to the system's temporary folder unless ``--out`` says otherwise (never into
the repository).
"""

import argparse
import os
import tempfile
import time

import numpy as np

import warp_interactive as wp


@wp.kernel
def julia(out: wp.array2d(dtype=float), c: wp.vec2, scale: float, max_iter: int):
    i, j = wp.tid()
    h = out.shape[0]
    w = out.shape[1]
    x = (float(j) - float(w) * 0.5) * scale
    y = (float(i) - float(h) * 0.5) * scale
    n = int(0)
    while n < max_iter and x * x + y * y < 4.0:
        x, y = x * x - y * y + c[0], 2.0 * x * y + c[1]
        n += 1
    out[i, j] = float(n) / float(max_iter)


@wp.kernel
def diffuse(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float), k: float):
    i, j = wp.tid()
    h = src.shape[0]
    w = src.shape[1]
    if i == 0 or j == 0 or i == h - 1 or j == w - 1:
        dst[i, j] = src[i, j]
        return
    lap = src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1] - 4.0 * src[i, j]
    dst[i, j] = src[i, j] + k * lap


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "warp_interactive_demo.png"),
                        help="where to save the picture (default: %(default)s)")
    parser.add_argument("--size", type=int, default=800)
    args = parser.parse_args()
    n = args.size

    with wp.ScopedTimer("julia set (build + launch)"):
        img = wp.zeros((n, n), dtype=float)
        wp.launch(julia, dim=(n, n), inputs=[img, wp.vec2(-0.8, 0.156), 3.0 / n, 200])

    heat = np.zeros((n // 4, n // 4), dtype=np.float32)
    heat[heat.shape[0] // 3: heat.shape[0] // 2, heat.shape[1] // 4: 3 * heat.shape[1] // 4] = 1.0
    a, b = wp.array(heat), wp.zeros_like(wp.array(heat))
    t0 = time.perf_counter()
    for _ in range(100):
        wp.launch(diffuse, dim=a.shape, inputs=[a, b, 0.2])
        a, b = b, a
    print(f"100 diffusion steps took {(time.perf_counter() - t0) * 1000:.1f} ms")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(10, 5))
    axes[0].imshow(img.numpy(), cmap="magma")
    axes[0].set_title("Julia set, c = -0.8 + 0.156i")
    axes[1].imshow(a.numpy(), cmap="inferno")
    axes[1].set_title("heat after 100 diffusion steps")
    for ax in axes:
        ax.axis("off")
    fig.tight_layout()
    path = os.path.abspath(args.out)
    fig.savefig(path, dpi=100)
    print(f"saved {path}")


if __name__ == "__main__":
    main()
