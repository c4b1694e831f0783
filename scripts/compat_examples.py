"""Run warp-lang's example programs, unchanged, on warp_interactive (and on warp-lang) and compare.

    python scripts/compat_examples.py                         # every example of DEFAULT_EXAMPLES, ours only
    python scripts/compat_examples.py --peer                  # ... and warp-lang itself, with agreement
    python scripts/compat_examples.py core/example_wave core/example_sph --peer --steps 10
    python scripts/compat_examples.py --list                  # the default list and its arguments
    python scripts/compat_examples.py fem/example_diffusion --peer --set mesh=quad   # other arguments

The example files are read from the installed warp-lang wheel (``scripts/.compat-venv``, set up by
compat_warp_tests.py) and run through the same forwarding ``warp`` package (``import warp`` gives
warp_interactive). Each example runs in its own process with a timeout, headless: its ``Example``
class is constructed with ``stage_path=None`` / ``headless=True`` / ``quiet=True`` (where it takes
them) and the arguments listed below, then stepped a few times (``step()``, or the listed method);
examples without an ``Example`` class run as ``__main__`` with headless arguments. The driver times
each step (``wp.synchronize()`` after it) and saves the example's arrays (its ``wp.array`` and numpy
attributes, one level into helper objects; a script's module-level arrays) to an ``.npz``; with
``--peer`` the same run on warp-lang gives the reference, and the table shows the largest relative
difference over the arrays both runs hold (max |ours - peer| / max |peer| per array).

The assets (``bunny.usd``...) are warp-lang's data files: the driver points
``warp.examples.get_asset_directory()`` at the wheel's ``examples/assets`` folder, as the examples
expect (our package ships only its own small assets).
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compat_warp_tests import REPO, SHIM, make_shim, wheel_dir  # noqa: E402  (the same shim)

# name -> options. kwargs: Example(...) arguments (besides the automatic headless ones);
# steps: how many calls of `call` (default --steps); argv: arguments when run as a script;
# script: run the file as __main__ instead of driving its Example class; config: wp.config settings
# made before the example starts (both sides); cuda: the example asks
# for a CUDA device itself (skipped unless --device names one).
DEFAULT_EXAMPLES = {
    "core/example_alloc_tracker": dict(script=True),
    "core/example_cupy": dict(),
    "core/example_custom_allocator": dict(steps=0),
    "core/example_dem": dict(),
    "core/example_fdtd_3d": dict(script=True, argv=["--headless", "--resolution", "48", "--num-steps", "10"]),
    "core/example_fft_poisson_navier_stokes_2d": dict(),
    "core/example_fluid": dict(),
    "core/example_graph_capture": dict(),
    "core/example_mesh": dict(),
    "core/example_mesh_intersect": dict(steps=1),
    "core/example_nvdb": dict(),
    "core/example_raycast": dict(kwargs=dict(height=256, width=256), call="render", steps=1),
    "core/example_raymarch": dict(kwargs=dict(height=128, width=256), call="render", steps=1),
    "core/example_sample_mesh": dict(),
    "core/example_sph": dict(),
    "core/example_torch": dict(kwargs=dict(train_iters=2, num_particles=256)),
    "core/example_wave": dict(),
    "core/example_spin_lock": dict(script=True, cuda=True),
    "core/example_work_queue": dict(script=True, cuda=True),
    "geometry/example_isosurface": dict(),
    "geometry/example_sparse_marching_cubes": dict(),
    "geometry/example_swept_volume": dict(script=True, argv=["--stage-path", "None", "--num-samples", "4"]),
    "interop/example_jax_callable": dict(script=True),
    "interop/example_jax_kernel": dict(script=True),
    "optim/example_diffray": dict(kwargs=dict(height=64, train_iters=2)),
    "optim/example_fluid_checkpoint": dict(kwargs=dict(sim_steps=20, pressure_iterations=10), call="forward", steps=1),
    "optim/example_fluid_checkpoint_custom_backward": dict(kwargs=dict(sim_steps=20, pressure_iterations=10),
                                                           call="forward", steps=1),
    # the 512^2 grid is a module constant: fewer spin-up and differentiable steps keep a CPU run short
    "optim/example_navier_stokes_perturbation": dict(kwargs=dict(spin_up_steps=4, lead_steps=2), steps=2),
    "optim/example_particle_repulsion": dict(),
    "tile/example_tile_block_cholesky": dict(script=True),
    "tile/example_tile_cholesky": dict(script=True),
    "tile/example_tile_convolution": dict(script=True, cuda=True),
    "tile/example_tile_fft": dict(script=True, cuda=True),
    "tile/example_tile_filtering": dict(script=True, cuda=True),
    "tile/example_tile_matmul": dict(script=True),
    "tile/example_tile_mcgp": dict(kwargs=dict(seed=42, height=32, slices=4, sphere_resolution=16), steps=0),
    "tile/example_tile_mlp": dict(kwargs=dict(train_iters=2), call="train_warp", steps=1),
    "tile/example_tile_nbody": dict(kwargs=dict(num_bodies=256)),
    "tile/example_tile_stream_compaction": dict(script=True),
    # --csv: its other mode prints wp.get_cuda_device().pci_bus_id, which needs a GPU
    "distributed/example_jacobi_mpi": dict(script=True, argv=["--nx", "64", "--ny", "64", "--itermax", "20",
                                                              "--csv"]),
    "fem/example_adaptive_grid": dict(kwargs=dict(base_resolution=4, level_count=2), steps=1),
    "fem/example_apic_fluid": dict(kwargs=dict(voxel_size=2.0, use_cuda_graph=False)),
    "fem/example_burgers": dict(kwargs=dict(resolution=10)),
    "fem/example_cantilever_topology_optimization": dict(script=True, argv=[
        "--headless", "--nx", "12", "--ny", "4", "--max-evals", "3"]),
    "fem/example_convection_diffusion": dict(kwargs=dict(resolution=10)),
    "fem/example_convection_diffusion_dg": dict(kwargs=dict(resolution=10)),
    # each level-set step amplifies rounding ~30x (vs warp-lang 1.5e-5 after 2 steps, 5e-4 after 3,
    # 1e-2 after 4; after 5, 0.09 with ours on all cores, 0.34 on one): 2 steps compare the
    # pipeline, not the summation order
    "fem/example_darcy_ls_optimization": dict(kwargs=dict(resolution=10), steps=2,
                                              config=dict(tape_copy_on_write=False)),
    "fem/example_deformed_geometry": dict(kwargs=dict(resolution=10), steps=1),
    "fem/example_diffusion": dict(kwargs=dict(resolution=10), steps=1),
    "fem/example_diffusion_3d": dict(kwargs=dict(resolution=5), steps=1),
    "fem/example_distortion_energy": dict(kwargs=dict(resolution=10), steps=1),
    # the adjoint of the solve reads the solution the forward wrote after recording (warp-lang's
    # tape: adjoints read the last values; ours refuses that unless told)
    "fem/example_elastic_shape_optimization": dict(kwargs=dict(resolution=10),
                                                   config=dict(tape_copy_on_write=False)),
    "fem/example_kelvin_helmholtz": dict(kwargs=dict(resolution=10)),
    # at resolution 8 no quadrature point sees the coil current: both sides solve for zeros
    "fem/example_magnetostatics": dict(kwargs=dict(resolution=16), steps=1),
    "fem/example_mixed_elasticity": dict(kwargs=dict(resolution=10), steps=1),
    "fem/example_navier_stokes": dict(kwargs=dict(resolution=10)),
    "fem/example_nonconforming_contact": dict(kwargs=dict(resolution=8)),
    "fem/example_shallow_water": dict(kwargs=dict(resolution=10)),
    "fem/example_stokes": dict(kwargs=dict(resolution=10), steps=1),
    "fem/example_stokes_transfer": dict(kwargs=dict(resolution=10), steps=1),
    "fem/example_streamlines": dict(kwargs=dict(resolution=8), steps=1),
    "fem/example_taylor_green": dict(kwargs=dict(resolution=10)),
}
# Left out of the default list: core/example_render_opengl (an interactive viewer), the NCCL /
# NVSHMEM distributed examples and fem/example_diffusion_mgpu (several GPUs),
# fem/example_apic_fluid_multi_env (same solver as apic_fluid, four times); any of them can still
# be named on the command line. fem/example_cantilever_topology_optimization needs NLopt
# (pip install ".[compat]").
AUTO_KWARGS = {"stage_path": None, "headless": True, "quiet": True, "verbose": False}
# --render DIR: the examples' renderers run too. Each example that takes a stage_path writes its USD
# stage to DIR (its render() called after every step), one offering OpenGL gets it (headless),
# and after the steps every renderer the example holds is saved: USD stages to DIR (with their
# frame count), OpenGL frames read back with get_pixels to DIR/NAME.png.
RENDER_SPECS = {
    "core/example_render_opengl": dict(kwargs=dict(use_imgui=False), call="render", steps=3),
    "geometry/example_sparse_marching_cubes": dict(kwargs=dict(opengl=True)),
}


# ------------------------------------------------------------------------------------------------
# The driver: runs in the child process, with `warp` being ours or warp-lang's.

def _is_warp_array(value):
    return all(hasattr(value, a) for a in ("numpy", "shape", "dtype", "device", "ptr"))


def _collect(obj, prefix, out, module_name, depth):
    """Arrays reachable from an example object: wp.arrays, numeric numpy arrays, lists/tuples of
    them, the node values of warp.fem discrete fields, and (one level deeper) attributes of
    helper objects defined in the example's module."""
    import numpy as np
    items = obj.items() if isinstance(obj, dict) else vars(obj).items()
    for name, value in items:
        if not isinstance(name, str) or name.startswith("__"):
            continue
        key = prefix + name
        if _is_warp_array(value):
            try:
                out[key] = np.asarray(value.numpy())
            except Exception:
                pass
        elif isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
            out[key] = value
        elif isinstance(value, (list, tuple)) and value and all(_is_warp_array(v) for v in value[:64]):
            for i, v in enumerate(value[:64]):
                try:
                    out[f"{key}[{i}]"] = np.asarray(v.numpy())
                except Exception:
                    pass
        elif _is_warp_array(getattr(value, "dof_values", None)):    # a warp.fem discrete field
            try:
                out[key + ".dof_values"] = np.asarray(value.dof_values.numpy())
            except Exception:
                pass
        elif depth > 0 and hasattr(value, "__dict__") and type(value).__module__ == module_name:
            _collect(value, key + ".", out, module_name, depth - 1)


def _point_assets_at_wheel(warp, wheel):
    """The wheel's example assets, and its example helper modules (``warp.examples.fem.utils``)
    importable under ``warp.examples`` (ours is warp_interactive.examples under this name)."""
    import warp.examples as ex
    assets = os.path.join(wheel, "examples", "assets")
    ex.get_asset_directory = lambda: assets
    wheel_examples = os.path.join(wheel, "examples")
    if wheel_examples not in ex.__path__:
        ex.__path__.append(wheel_examples)


def _drive_class(module, spec, steps, result):
    import inspect
    import warp as wp
    cls = module.Example
    params = inspect.signature(cls.__init__).parameters
    kwargs = {k: v for k, v in AUTO_KWARGS.items() if k in params}
    kwargs.update(spec.get("kwargs", {}))
    stem = spec.get("render_stem")
    if stem and "stage_path" in params:
        kwargs["stage_path"] = stem + ".usd"
    t0 = time.perf_counter()
    example = cls(**kwargs)
    wp.synchronize()
    result["init_s"] = time.perf_counter() - t0
    call = spec.get("call") or ("step" if hasattr(example, "step") else "render")
    times, cpu_times = [], []
    recorder = None
    for i in range(steps):
        if i == 1 and spec.get("kernels"):
            recorder = wp.timing_begin()     # the later steps' launches, per kernel (ours only)
        t0, c0 = time.perf_counter(), time.process_time()
        getattr(example, call)()
        wp.synchronize()
        times.append(time.perf_counter() - t0)
        cpu_times.append(time.process_time() - c0)
        if stem and call != "render" and hasattr(example, "render"):
            example.render()
    if recorder is not None:
        result["kernels"] = _kernel_rows(wp.timing_end(), steps - 1)
    result["step_times"] = times
    result["step_cpu_times"] = cpu_times
    if stem:
        _save_renderers(example, stem, result)
    return example


def _kernel_rows(results, steps):
    """Per (kernel, forward/backward): launches, wall and CPU milliseconds per step, largest first."""
    table = {}
    for r in results:
        if r.kind == "build":
            continue
        n, wall, cpu = table.get((r.name, r.kind), (0, 0.0, 0.0))
        table[(r.name, r.kind)] = (n + 1, wall + r.elapsed, cpu + getattr(r, "cpu_elapsed", 0.0))
    rows = [[name, kind, n / steps, wall / steps, cpu / steps] for (name, kind), (n, wall, cpu) in table.items()]
    return sorted(rows, key=lambda row: -row[3])


def _save_renderers(example, stem, result):
    """--render: save the example's USD stages (counting their frames) and its OpenGL frame."""
    import numpy as np
    import warp as wp
    renderers = [v for v in vars(example).values() if hasattr(v, "render_mesh") and hasattr(v, "begin_frame")]
    result["renderers"] = []
    for r in renderers:
        if hasattr(r, "stage"):
            r.save()
            path = r.stage.GetRootLayer().realPath
            frames = len({t for prim in r.stage.Traverse() for a in prim.GetAttributes() for t in a.GetTimeSamples()})
            result["renderers"].append(f"USD {os.path.basename(path)}: {frames} time codes")
        elif hasattr(r, "get_pixels"):
            pixels = wp.zeros((r.screen_height, r.screen_width, 3), dtype=float)
            r.get_pixels(pixels, split_up_tiles=False)
            image = pixels.numpy()
            import matplotlib.pyplot as plt
            plt.imsave(stem + ".png", np.clip(image, 0, 1))
            distinct = len(np.unique((image * 255).astype(np.uint8).reshape(-1, 3), axis=0))
            result["renderers"].append(f"OpenGL {os.path.basename(stem)}.png: {r.screen_width}x{r.screen_height}, "
                                       f"{distinct} colours")


def drive(job):
    """Child process: load one example, run it, write the timings and its arrays."""
    import importlib.util
    import runpy

    import numpy as np
    result = {"status": "error", "error": ""}
    arrays = {}
    try:
        import warp as wp
        _point_assets_at_wheel(wp, job["wheel"])
        device = job.get("device")
        if job.get("threads"):
            wp.config.num_threads = job["threads"]   # ours only: warp-lang runs CPU kernels on one thread
        for key, value in job["spec"].get("config", {}).items():
            setattr(wp.config, key, value)
        name = "example_under_test"
        with wp.ScopedDevice(device):
            if job["spec"].get("script"):
                sys.argv = [job["path"]] + job["spec"].get("argv", [])
                t0 = time.perf_counter()
                env = runpy.run_path(job["path"], run_name="__main__")
                wp.synchronize()
                result["init_s"] = time.perf_counter() - t0
                example = env.get("example")
                _collect({k: v for k, v in env.items() if _is_warp_array(v)}, "", arrays, name, 0)
                if example is not None:
                    _collect(example, "example.", arrays, "__main__", 1)
            else:
                spec = importlib.util.spec_from_file_location(name, job["path"])
                module = importlib.util.module_from_spec(spec)
                sys.modules[name] = module
                spec.loader.exec_module(module)
                steps = job["spec"].get("steps", job["steps"])
                example = _drive_class(module, job["spec"], steps, result)
                _collect(example, "", arrays, name, 1)
        result["status"] = "ran"
    except SystemExit as e:
        result["status"] = "ran" if e.code in (None, 0) else "error"
        result["error"] = f"SystemExit({e.code})"
    except BaseException as e:  # noqa: BLE001  (the report names whatever stopped the example)
        msg = f"{type(e).__name__}: {e}".strip().splitlines()
        result["error"] = msg[-1] if msg else type(e).__name__
    result["arrays"] = len(arrays)
    np.savez(job["npz"], **{k.replace("/", "_"): v for k, v in arrays.items()})
    with open(job["json"], "w") as f:
        json.dump(result, f)


# ------------------------------------------------------------------------------------------------
# The parent: one process per example and side, then the table.

def run_one(name, spec, side, args, wheel, tmp, threads=None):
    """Run one example in a child process on `side` ("ours" or "peer"); ours on `threads` CPU
    threads where given (None: the configured default, all cores)."""
    path = os.path.join(wheel, "examples", name + ".py")
    if side == "peer" and spec.get("render_stem"):
        spec = dict(spec, render_stem=spec["render_stem"] + ".peer")   # both sides' stages kept
    stem = os.path.join(tmp, f"{name.replace('/', '_')}.{side}{threads or ''}")
    job = dict(path=path, spec=spec, steps=args.steps, device=args.device, wheel=wheel,
               npz=stem + ".npz", json=stem + ".json", threads=threads if side == "ours" else None)
    if side == "peer":
        python_path, cwd = os.path.dirname(wheel), tmp
    else:
        python_path, cwd = os.pathsep.join([REPO, SHIM]), tmp
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([python_path, HERE]), PYTHONDONTWRITEBYTECODE="1",
               MPLBACKEND="Agg")
    env.pop("DISPLAY", None)
    code = f"import compat_examples, json; compat_examples.drive(json.loads({json.dumps(json.dumps(job))}))"
    start = time.time()
    try:
        proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "error": f"timed out after {args.timeout}s", "wall_s": args.timeout}, None
    if not os.path.exists(job["json"]):
        lines = [ln for ln in (proc.stdout + proc.stderr).strip().splitlines() if ln.strip()]
        return {"status": "crash", "error": f"exit {proc.returncode}: {lines[-1] if lines else ''}",
                "wall_s": time.time() - start}, None
    with open(job["json"]) as f:
        result = json.load(f)
    result["wall_s"] = time.time() - start
    if args.verbose and result["status"] != "ran":
        print(proc.stdout[-2000:] + proc.stderr[-2000:])
    return result, job["npz"]


def agreement(ours_npz, peer_npz):
    """(worst relative difference, its array name, how many arrays compared, mismatched names,
    {array: relative difference} of the arrays above 1e-4)."""
    import numpy as np
    if not ours_npz or not peer_npz:
        return None
    ours, peer = np.load(ours_npz), np.load(peer_npz)
    worst, worst_name, compared, mismatched, over = 0.0, "", 0, [], {}
    for key in sorted(set(ours.files) & set(peer.files)):
        a, b = ours[key], peer[key]
        if a.shape != b.shape:
            mismatched.append(f"{key}{a.shape}!={b.shape}")
            continue
        a, b = a.astype(np.float64), b.astype(np.float64)
        if a.size == 0:
            continue
        compared += 1
        both_nan = np.isnan(a) & np.isnan(b)
        diff = np.where(both_nan, 0.0, np.abs(a - b))
        scale = np.max(np.abs(np.nan_to_num(b)))
        rel = float(np.max(diff)) / scale if scale > 0 else float(np.max(diff))
        if not rel <= 1e-4:
            over[key] = rel
        if math.isnan(rel) or rel > worst:
            worst, worst_name = (math.inf if math.isnan(rel) else rel), key
    return worst, worst_name, compared, mismatched, over


def stage_agreement(ours_usd, peer_usd):
    """(worst relative difference, where, values compared) over the numeric time samples of the
    attributes both USD stages hold (prims matched by path), or None without both stages."""
    import numpy as np
    if not (os.path.exists(ours_usd) and os.path.exists(peer_usd)):
        return None
    from pxr import Usd
    ours, peer = Usd.Stage.Open(ours_usd), Usd.Stage.Open(peer_usd)
    worst, where, compared = 0.0, "", 0
    for prim in ours.Traverse():
        other = peer.GetPrimAtPath(prim.GetPath())
        if not other:
            continue
        for attr in prim.GetAttributes():
            theirs = other.GetAttribute(attr.GetName())
            if not theirs:
                continue
            for t in sorted(set(attr.GetTimeSamples()) & set(theirs.GetTimeSamples())):
                try:
                    a = np.asarray(attr.Get(t), dtype=np.float64)
                    b = np.asarray(theirs.Get(t), dtype=np.float64)
                except (TypeError, ValueError):
                    continue
                if a.shape != b.shape or a.size == 0:
                    continue
                compared += 1
                scale = np.max(np.abs(b))
                rel = float(np.max(np.abs(a - b))) / (scale if scale > 0 else 1.0)
                if rel > worst:
                    worst, where = rel, f"{prim.GetPath()}.{attr.GetName()}@{t:g}"
    return worst, where, compared


def fmt_ms(seconds):
    return "-" if seconds is None else f"{1000 * seconds:.1f}"


def step_figures(result):
    times = (result or {}).get("step_times") or []
    first = times[0] if times else None
    median = statistics.median(times[1:]) if len(times) > 1 else None
    return first, median


def report(rows, peer):
    head = f"{'example':46s} {'ours':6s} {'init s':>7s} {'1st ms':>8s} {'med ms':>8s}"
    if peer:
        head += f" {'peer':6s} {'init s':>7s} {'1st ms':>8s} {'med ms':>8s} {'max rel diff':>12s}  arrays within 1e-4"
    print("\n" + head)
    ran = agree = 0
    for name, ours, theirs, agr in rows:
        first, med = step_figures(ours)
        line = f"{name:46s} {ours['status']:6s} {ours.get('init_s', 0):7.2f} {fmt_ms(first):>8s} {fmt_ms(med):>8s}"
        ran += ours["status"] == "ran"
        if peer:
            pf, pm = step_figures(theirs)
            line += f" {theirs['status']:6s} {theirs.get('init_s', 0):7.2f} {fmt_ms(pf):>8s} {fmt_ms(pm):>8s}"
            if agr is not None and agr[2]:
                line += f" {agr[0]:12.2e}  {agr[2] - len(agr[4])}/{agr[2]}" + (f" (worst: {agr[1]})" if agr[0] > 0 else "")
                agree += agr[0] <= 1e-4
            else:
                line += f" {'-':>12s}"
        print(line)
    print(f"\nours ran {ran} of {len(rows)}" + (f"; in {agree} every array agrees with warp-lang's to 1e-4"
                                                  if peer else ""))
    errors = [(n, o) for n, o, _, _ in rows if o["status"] != "ran"]
    if errors:
        print("\nwhy ours stopped:")
        for n, o in errors:
            print(f"  {n}: {o.get('error', '')[:200]}")
    if peer:
        peer_errors = [(n, t) for n, _, t, _ in rows if t and t["status"] != "ran"]
        if peer_errors:
            print("\nwhy warp-lang stopped:")
            for n, t in peer_errors:
                print(f"  {n}: {t.get('error', '')[:200]}")
        shape = [(n, a[3]) for n, _, _, a in rows if a and a[3]]
        for n, m in shape:
            print(f"  shapes differ in {n}: {', '.join(m[:4])}")
        apart = [(n, a[4]) for n, _, _, a in rows if a and a[4]]
        if apart:
            print("\narrays more than 1e-4 apart (an array the example never writes headless, e.g. a "
                  "render buffer from wp.empty, differs by chance):")
            for n, over in apart:
                print(f"  {n}: " + ", ".join(f"{k} {v:.2e}" for k, v in sorted(over.items(), key=lambda kv: -kv[1])[:6]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("examples", nargs="*", help="examples relative to warp/examples, without .py")
    ap.add_argument("--peer", action="store_true", help="also run warp-lang and compare arrays")
    ap.add_argument("--steps", type=int, default=5, help="steps per example (where not listed)")
    ap.add_argument("--device", default="cpu", help="device for both runs (default cpu)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per example and side")
    ap.add_argument("--threads", type=int, help="CPU threads for ours (wp.config.num_threads; default all cores)")
    ap.add_argument("--json", help="write every result to this file")
    ap.add_argument("--render", metavar="DIR", help="run the examples' renderers too, writing to DIR")
    ap.add_argument("--list", action="store_true", help="print the default list and exit")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="an Example(...) argument for every named example (VALUE read as a Python literal, "
                         "else kept as a string)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the output of failed runs")
    args = ap.parse_args()
    if args.list:
        for name, spec in DEFAULT_EXAMPLES.items():
            print(f"{name:50s} {spec}")
        return
    wheel = wheel_dir()
    make_shim(wheel)
    names = [n[:-3] if n.endswith(".py") else n for n in (args.examples or DEFAULT_EXAMPLES)]
    overrides = dict(_parse_setting(x) for x in args.set)
    rows, everything = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            spec = DEFAULT_EXAMPLES.get(name, {})
            if overrides:
                spec = dict(spec, kwargs=dict(spec.get("kwargs", {}), **overrides))
            if spec.get("cuda") and not str(args.device).startswith("cuda"):
                print(f"skipping {name} (it asks for a CUDA device; run with --device cuda:0)", flush=True)
                continue
            if args.render:
                os.makedirs(args.render, exist_ok=True)
                spec = dict(spec, **RENDER_SPECS.get(name, {}))
                spec["kwargs"] = dict(DEFAULT_EXAMPLES.get(name, {}).get("kwargs", {}),
                                      **RENDER_SPECS.get(name, {}).get("kwargs", {}))
                spec["render_stem"] = os.path.join(os.path.abspath(args.render), name.replace("/", "_"))
            print(f"running {name} ...", flush=True)
            ours, ours_npz = run_one(name, spec, "ours", args, wheel, tmp, threads=args.threads)
            theirs, agr = None, None
            if args.peer:
                theirs, peer_npz = run_one(name, spec, "peer", args, wheel, tmp)
                agr = agreement(ours_npz, peer_npz)
                if spec.get("render_stem"):
                    stages = stage_agreement(spec["render_stem"] + ".usd", spec["render_stem"] + ".peer.usd")
                    if stages:
                        print(f"    USD stages: max rel diff {stages[0]:.2e} over {stages[2]} time samples"
                              + (f" (worst: {stages[1]})" if stages[0] > 0 else ""))
            first, med = step_figures(ours)
            for line in ours.get("renderers", []):
                print(f"    ours rendered: {line}")
            print(f"    ours: {ours['status']} {ours.get('error', '')[:160]}"
                  + (f"  peer: {theirs['status']} {theirs.get('error', '')[:120]}" if theirs else "")
                  + (f"  max rel diff {agr[0]:.2e} over {agr[2]} arrays" if agr and agr[2] else ""), flush=True)
            rows.append((name, ours, theirs, agr))
            everything[name] = dict(ours=ours, peer=theirs, agreement=agr)
    report(rows, args.peer)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(everything, f, indent=1, default=str)


def _parse_setting(text):
    import ast
    key, _, value = text.partition("=")
    try:
        return key, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return key, value


if __name__ == "__main__":
    main()
