"""Run NVIDIA's Warp tutorial notebooks top to bottom with ``import warp`` served by warp_interactive.

    python scripts/compat_notebooks.py                    # every notebook in scripts/.tutorials/
    python scripts/compat_notebooks.py core_01_basics     # some of them
    python scripts/compat_notebooks.py --peer             # the same notebooks on warp-lang itself

The notebooks (NVIDIA/warp, folder notebooks/: core_01_basics, core_02_generics, core_03_points,
core_04_meshes, core_05_volumes, pytorch_01_basics, pytorch_02_custom_operators) are not part of
this repository: put them in the git-ignored scripts/.tutorials/. Each runs in a fresh Jupyter
kernel (nbclient) whose ``warp`` is the forwarding package of compat_warp_tests.py. The only
changes made to a notebook: its ``!pip install`` cells are not run (no network, and they would
install warp-lang over the shim), and on a machine without a GPU the device strings ``"cuda"`` /
``"cuda:0"`` become ``"cpu"``. The stored notebooks may predate warp-lang 1.19: the names it
removed since (``wp.vec(...)``, ``wp.mat(...)``: now ``wp.types.vector``/``wp.types.matrix``) are
renamed, on both sides alike (``--as-stored``: not renamed). Per notebook: the cells that ran, and the first failing cell with
its error.
"""

import argparse
import glob
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compat_warp_tests import REPO, SHIM, make_shim, wheel_dir  # noqa: E402

TUTORIALS = os.path.join(HERE, ".tutorials")
NOTEBOOKS = ["core_01_basics", "core_02_generics", "core_03_points", "core_04_meshes", "core_05_volumes",
             "pytorch_01_basics", "pytorch_02_custom_operators"]
_CUDA = re.compile(r"""(["'])cuda(:0)?\1""")
# names of older warp-lang releases that 1.19 no longer has -> their 1.19 spelling
RENAMES = [(re.compile(r"\bwp\.vec\("), "wp.types.vector("), (re.compile(r"\bwp\.mat\("), "wp.types.matrix(")]


def has_gpu(python_path):
    """Whether ``warp`` on ``python_path`` sees a CUDA device (asked in a subprocess)."""
    import subprocess
    env = dict(os.environ, PYTHONPATH=python_path)
    out = subprocess.run([sys.executable, "-c", "import warp as wp; print(wp.get_cuda_device_count())"],
                         capture_output=True, text=True, env=env, cwd="/")
    return out.returncode == 0 and out.stdout.strip().splitlines()[-1:] != ["0"]


def prepare(nb, gpu, renames=True):
    """The notebook as it is run: ``!pip`` cells dropped, ``"cuda"`` -> ``"cpu"`` without a GPU;
    returns the number of cells changed."""
    changed = 0
    keep = []
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.lstrip().startswith("!pip"):
            changed += 1
            continue
        if cell.cell_type == "code":
            new = cell.source if gpu else _CUDA.sub(lambda m: f"{m.group(1)}cpu{m.group(1)}", cell.source)
            for old, spelling in RENAMES if renames else ():
                new = old.sub(spelling, new)
            changed += new != cell.source
            cell.source = new
        keep.append(cell)
    nb.cells = keep
    return changed


def run_notebook(path, python_path, gpu, timeout, renames=True):
    """(status line, seconds) of one notebook run top to bottom."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    nb = nbformat.read(path, as_version=4)
    changed = prepare(nb, gpu, renames)
    code = [c for c in nb.cells if c.cell_type == "code"]
    env = dict(os.environ, PYTHONPATH=python_path, MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1")
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": os.path.dirname(path)}})
    t0 = time.perf_counter()
    try:
        with _environment(env):
            client.execute()
        status = f"ok: {len(code)} of {len(code)} code cells ({changed} cells changed)"
    except CellExecutionError as e:
        ran = sum(1 for c in code if c.get("execution_count") is not None)
        status = f"FAILED at code cell {ran} of {len(code)}: {_first_line(e)}"
    except Exception as e:  # noqa: BLE001 - a kernel that died or timed out is a result too
        status = f"FAILED: {type(e).__name__}: {_first_line(e)}"
    return status, time.perf_counter() - t0


class _environment:
    """os.environ set to ``env`` while the kernel starts (nbclient passes the parent's)."""

    def __init__(self, env):
        self.env = env

    def __enter__(self):
        self.saved = dict(os.environ)
        os.environ.update(self.env)

    def __exit__(self, *exc):
        os.environ.clear()
        os.environ.update(self.saved)


def _first_line(err):
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(err))    # IPython's colours
    lines = [ln for ln in text.splitlines() if ln.strip()]
    errs = [ln for ln in lines if re.match(r"^\w*(Error|Exception)\b", ln)]
    return (errs[-1] if errs else lines[-1] if lines else repr(err))[:300]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="*", help="names in scripts/.tutorials/, without .ipynb")
    ap.add_argument("--peer", action="store_true", help="run them on warp-lang itself")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per cell")
    ap.add_argument("--as-stored", action="store_true", help="do not rename names 1.19 removed")
    args = ap.parse_args()
    wheel = wheel_dir()
    make_shim(wheel)
    python_path = os.path.dirname(wheel) if args.peer else os.pathsep.join([REPO, SHIM])
    gpu = has_gpu(python_path)
    names = args.notebooks or [os.path.basename(p)[:-6] for p in sorted(glob.glob(os.path.join(TUTORIALS, "*.ipynb")))]
    missing = [n for n in (args.notebooks or NOTEBOOKS) if not os.path.exists(os.path.join(TUTORIALS, n + ".ipynb"))]
    for n in missing:
        print(f"{n:<30} missing: put it in {TUTORIALS}/ (NVIDIA/warp, notebooks/{n}.ipynb)")
    for n in names:
        if n in missing:
            continue
        status, seconds = run_notebook(os.path.join(TUTORIALS, n + ".ipynb"), python_path, gpu, args.timeout,
                                       not args.as_stored)
        print(f"{n:<30} {status} [{seconds:.0f} s]", flush=True)


if __name__ == "__main__":
    main()
