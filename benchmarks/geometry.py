"""Geometry throughput on the CPU: BVH build/refit, mesh ray casts and closest-point queries,
hash-grid build and neighbour queries. Each figure is the median of --repeat runs (after one
warm-up run that also compiles the kernels).

    python benchmarks/geometry.py [--tris 200000] [--rays 1000000] [--points 1000000]
    /path/to/venv-with-warp-lang/bin/python benchmarks/geometry.py --lib warp   # the peer

The same kernels run under both libraries (`--lib warp` imports NVIDIA's warp-lang instead of
warp_interactive; warp-lang is never a dependency of the package).
"""

import argparse
import importlib
import json
import time

import numpy as np
from timing_util import median_time


def soup(n_tris, rng):
    """A random triangle soup of small triangles filling the unit cube (no shared vertices)."""
    centers = rng.uniform(-1, 1, (n_tris, 1, 3))
    pts = centers + rng.normal(scale=0.5 / n_tris ** (1 / 3), size=(n_tris, 3, 3))
    return pts.reshape(-1, 3).astype(np.float32), np.arange(3 * n_tris, dtype=np.int32)


def define_kernels(wp):
    @wp.kernel
    def cast(mesh: wp.uint64, o: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3),
             t_out: wp.array(dtype=float)):
        tid = wp.tid()
        q = wp.mesh_query_ray(mesh, o[tid], d[tid], 1.0e6)
        t_out[tid] = q.t

    @wp.kernel
    def nearest(mesh: wp.uint64, p: wp.array(dtype=wp.vec3), out: wp.array(dtype=int)):
        tid = wp.tid()
        q = wp.mesh_query_point_no_sign(mesh, p[tid], 1.0e6)
        out[tid] = q.face

    @wp.kernel
    def neighbours(grid: wp.uint64, points: wp.array(dtype=wp.vec3), radius: float,
                   count: wp.array(dtype=int)):
        tid = wp.tid()
        i = wp.hash_grid_point_id(grid, tid)
        p = points[i]
        query = wp.hash_grid_query(grid, p, radius)
        index = int(0)
        n = int(0)
        while wp.hash_grid_query_next(query, index):
            if wp.length(p - points[index]) <= radius:
                n += 1
        count[i] = n

    return cast, nearest, neighbours


def run(args):
    wp = importlib.import_module("warp" if args.lib == "warp" else "warp_interactive")
    if args.lib == "warp":
        wp.config.quiet = True
    wp.init()
    cast, nearest, neighbours = define_kernels(wp)
    rng = np.random.default_rng(0)
    dev = "cpu"
    res = {"lib": args.lib}

    pts, idx = soup(args.tris, rng)
    points = wp.array(pts, dtype=wp.vec3, device=dev)
    indices = wp.array(idx, dtype=wp.int32, device=dev)
    holder = {}
    res["bvh_build_s"] = median_time(lambda: holder.__setitem__("m", wp.Mesh(points, indices)), args.repeat)
    mesh = holder["m"]
    res["bvh_refit_s"] = median_time(mesh.refit, args.repeat)

    o = wp.array(rng.uniform(-1.5, 1.5, (args.rays, 3)).astype(np.float32), dtype=wp.vec3, device=dev)
    dn = rng.normal(size=(args.rays, 3)).astype(np.float32)
    d = wp.array(dn / np.linalg.norm(dn, axis=1, keepdims=True), dtype=wp.vec3, device=dev)
    t_out = wp.zeros(args.rays, dtype=float, device=dev)
    t = median_time(lambda: wp.launch(cast, dim=args.rays, inputs=[mesh.id, o, d, t_out], device=dev), args.repeat)
    res["rays_per_s"] = args.rays / t
    faces = wp.zeros(args.rays, dtype=int, device=dev)
    t = median_time(lambda: wp.launch(nearest, dim=args.rays, inputs=[mesh.id, o, faces], device=dev), args.repeat)
    res["closest_points_per_s"] = args.rays / t

    radius = float(2.0 * (8.0 * 4.0 / (3 * 3.14159 * args.points)) ** (1 / 3))  # ~30 neighbours
    gp = wp.array(rng.uniform(-1, 1, (args.points, 3)).astype(np.float32), dtype=wp.vec3, device=dev)
    grid = wp.HashGrid(128, 128, 128, device=dev)
    grid.reserve(args.points)
    res["hash_grid_build_s"] = median_time(lambda: grid.build(gp, radius), args.repeat)
    count = wp.zeros(args.points, dtype=int, device=dev)
    t = median_time(lambda: wp.launch(neighbours, dim=args.points, inputs=[grid.id, gp, radius, count], device=dev),
                    args.repeat)
    res["hash_grid_queries_per_s"] = args.points / t
    res["mean_neighbours"] = float(count.numpy().mean())
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", choices=["warp_interactive", "warp"], default="warp_interactive")
    ap.add_argument("--tris", type=int, default=200_000)
    ap.add_argument("--rays", type=int, default=1_000_000)
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true", help="print one JSON line")
    args = ap.parse_args()
    res = run(args)
    if args.json:
        print(json.dumps(res))
        return
    print(f"{res['lib']}: {args.tris} triangles, {args.rays} queries, {args.points} points "
          f"(median of {args.repeat})")
    for k, v in res.items():
        if k != "lib":
            print(f"  {k:26s} {v:,.4g}" if isinstance(v, float) else f"  {k:26s} {v}")


if __name__ == "__main__":
    main()
