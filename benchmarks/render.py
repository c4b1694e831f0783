"""OpenGLRenderer frames per second, headless, at 1024x768 (on a machine without a GPU: Mesa's
software rasterizer, llvmpipe):
- 10^5 points (sphere impostors) and a 10^5-triangle mesh (a rippled 224 x 224 grid);
- per scene: a frame with unchanged data (begin_frame/end_frame), a frame with new data each
  time (new positions uploaded through host memory, as a simulation loop does; the mesh's
  normals recomputed), and the same plus get_pixels into a Warp array (the frame read back).

    python benchmarks/render.py [--repeat 15] [--size 1024x768] [--json out.json]

warp-lang's OpenGLRenderer is not run side by side: without an NVIDIA GPU it cannot start (its
CUDA/OpenGL interop allocates pinned memory), so there is no peer on such a machine. The OpenGL
renderer string and the load average are printed with the figures (a loaded machine's numbers
are marked so).
"""

import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import warp_interactive as wp  # noqa: E402
from timing_util import median_time  # noqa: E402

N_POINTS = 100_000
GRID = 224          # 2 * 223 * 223 = 99,458 triangles


def grid_mesh(phase):
    u = np.linspace(-4.0, 4.0, GRID)
    x, z = np.meshgrid(u, u)
    y = 0.3 * np.sin(2.0 * x + phase) * np.cos(1.5 * z)
    points = np.stack([x, y, z], -1).reshape(-1, 3).astype(np.float32)
    r, c = np.meshgrid(np.arange(GRID - 1), np.arange(GRID - 1), indexing="ij")
    a = r * GRID + c
    tris = np.stack([a, a + GRID, a + 1, a + 1, a + GRID, a + GRID + 1], -1).reshape(-1, 3)
    return points, tris.astype(np.int32)


def scene_points(renderer, rng):
    base = rng.uniform(-3.0, 3.0, (N_POINTS, 3)).astype(np.float32)
    state = {"k": 0}

    def draw(update):
        renderer.begin_frame(state["k"] / 60)
        if update or state["k"] == 0:
            pts = base + 0.01 * state["k"]
            renderer.render_points("points", wp.array(pts, dtype=wp.vec3), radius=0.02, colors=(0.8, 0.4, 0.2))
        renderer.end_frame()
        state["k"] += 1
    return draw


def scene_mesh(renderer, rng):
    _, tris = grid_mesh(0.0)
    state = {"k": 0}

    def draw(update):
        renderer.begin_frame(state["k"] / 60)
        if update or state["k"] == 0:
            points, _ = grid_mesh(0.1 * state["k"])
            renderer.render_mesh("surface", wp.array(points, dtype=wp.vec3), tris, colors=(0.3, 0.5, 0.9))
        renderer.end_frame()
        state["k"] += 1
    return draw


def measure(make_scene, size, repeat):
    import warp_interactive.render as wr
    w, h = size
    renderer = wr.OpenGLRenderer(screen_width=w, screen_height=h, headless=True, camera_pos=(0.0, 3.0, 9.0),
                                 camera_front=(0.0, -0.3, -1.0))
    draw = make_scene(renderer, np.random.default_rng(0))
    pixels = wp.zeros((h, w, 3), dtype=float)

    def with_readback():
        draw(True)
        renderer.get_pixels(pixels, split_up_tiles=False)

    figures = {
        "static frame": median_time(lambda: draw(False), repeat),
        "new data each frame": median_time(lambda: draw(True), repeat),
        "new data + get_pixels": median_time(with_readback, repeat),
    }
    renderer.close()
    return figures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--size", default="1024x768")
    ap.add_argument("--json")
    args = ap.parse_args()
    size = tuple(int(s) for s in args.size.split("x"))
    import pyglet
    pyglet.options["headless"] = True
    from pyglet import gl
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    results = {}
    for name, scene in (("1e5 points", scene_points), (f"{2 * (GRID - 1) ** 2:,}-triangle mesh", scene_mesh)):
        results[name] = measure(scene, size, args.repeat)
    renderer_name = gl.gl_info.get_renderer()
    load = os.getloadavg()
    print(f"OpenGL: {renderer_name}, {size[0]}x{size[1]}, median of {args.repeat} frames")
    print(f"\n{'scene':28s} {'case':26s} {'ms/frame':>9s} {'fps':>7s}")
    for name, figures in results.items():
        for case, seconds in figures.items():
            print(f"{name:28s} {case:26s} {1000 * seconds:9.1f} {1 / seconds:7.1f}")
    print(f"\nload average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
          + ("  (loaded machine: figures are pessimistic)" if load[0] > 0.5 * os.cpu_count() else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(renderer=renderer_name, size=size, results=results, load=load), f, indent=1)


if __name__ == "__main__":
    main()
