"""The share of warp-lang 1.19's public Python names that ``import warp`` served by warp_interactive has.

    python scripts/api_coverage.py                 # per module: present / missing, from the installed wheel
    python scripts/api_coverage.py --missing       # ... and list every missing name
    python scripts/api_coverage.py --save          # refresh the saved list (scripts/warp_api_names.txt)

The modules: warp-lang's top-level ``warp`` and its public submodules ``warp.types``, ``warp.utils``,
``warp.geometry``, ``warp.autograd`` and ``warp.config`` (its wheel has no ``warp.jax_experimental``
or ``warp.torch``: their names are top-level ones). Their names are read in warp-lang's own interpreter (a subprocess with the wheel of
scripts/.compat-venv on its path: this package never imports warp-lang): ``__all__`` where a module
has one, else every attribute not starting with ``_`` that is not a module. Without the wheel the
saved list is used. Ours are looked up through the forwarding ``warp`` package of
compat_warp_tests.py, as a user's ``import warp`` sees them (for ``warp.config``: the attributes of
``wp.config``).
"""

import argparse
import collections
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compat_warp_tests import REPO, SHIM, VENV, make_shim  # noqa: E402

SAVED = os.path.join(HERE, "warp_api_names.txt")
# (warp-lang 1.19's wheel has no warp.jax_experimental or warp.torch modules: their names,
# jax_kernel, jax_callable, from_torch..., are top-level `warp` names)
MODULES = ["warp", "warp.types", "warp.utils", "warp.geometry", "warp.autograd", "warp.config"]

# runs in either interpreter: prints {module: [names]} (peer) or {module: {name: present}} (ours)
_LIST = r"""
import importlib, json, sys, types
mods = json.loads(sys.argv[1])
out = {}
for m in mods:
    try:
        mod = importlib.import_module(m)
    except Exception as e:
        out[m] = {"error": f"{type(e).__name__}: {e}"}
        continue
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in dir(mod) if not n.startswith("_")
                 and not isinstance(getattr(mod, n, None), types.ModuleType)]
    out[m] = sorted(set(names))
print(json.dumps(out))
"""

_CHECK = r"""
import importlib, json, sys
wanted = json.loads(sys.argv[1])
out = {}
for m, names in wanted.items():
    try:
        mod = importlib.import_module(m)
    except Exception as e:
        out[m] = {"error": f"{type(e).__name__}: {e}"}
        continue
    present = {}
    for n in names:
        try:
            present[n] = hasattr(mod, n)
        except Exception:
            present[n] = False
    out[m] = present
print(json.dumps(out))
"""


def run(code, arg, python_path):
    env = dict(os.environ, PYTHONPATH=python_path, PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(arg)], capture_output=True, text=True,
                          env=env, cwd="/")
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def peer_names():
    found = glob.glob(os.path.join(VENV, "lib", "python*", "site-packages", "warp"))
    if not found:
        return None
    listed = run(_LIST, MODULES, os.path.dirname(found[0]))
    return {m: v for m, v in listed.items() if isinstance(v, list)}


def saved_names():
    out = collections.defaultdict(list)
    with open(SAVED) as f:
        for ln in f:
            if ln.strip() and not ln.startswith("#"):
                m, n = ln.split()
                out[m].append(n)
    return dict(out)


def save(names):
    with open(SAVED, "w") as f:
        f.write("# public names of warp-lang 1.19 per module (scripts/api_coverage.py --save)\n")
        for m in MODULES:
            for n in names.get(m, []):
                f.write(f"{m} {n}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--missing", action="store_true", help="list the missing names")
    ap.add_argument("--save", action="store_true", help="write the peer's names to " + os.path.basename(SAVED))
    args = ap.parse_args()
    names = peer_names()
    if names is None:
        print(f"note: no warp-lang wheel in {VENV}; using {SAVED}", file=sys.stderr)
        names = saved_names()
    elif args.save:
        save(names)
    wheel = glob.glob(os.path.join(VENV, "lib", "python*", "site-packages", "warp"))
    if wheel:
        make_shim(wheel[0])
    ours = run(_CHECK, names, os.pathsep.join([REPO, SHIM]))
    total_have = total = 0
    print(f"{'module':28s} {'present':>8s} {'of':>5s} {'%':>6s}")
    missing = {}
    for m in MODULES:
        want = names.get(m, [])
        got = ours.get(m, {})
        if "error" in got:
            have, missing[m] = 0, [f"(module not importable: {got['error']})"] + want
        else:
            have = sum(1 for n in want if got.get(n))
            missing[m] = [n for n in want if not got.get(n)]
        total_have += have
        total += len(want)
        pct = 100.0 * have / len(want) if want else 100.0
        print(f"{m:28s} {have:8d} {len(want):5d} {pct:6.1f}")
    print(f"{'TOTAL':28s} {total_have:8d} {total:5d} {100.0 * total_have / max(total, 1):6.1f}")
    if args.missing:
        for m in MODULES:
            if missing.get(m):
                print(f"\n{m} missing ({len(missing[m])}):")
                print("  " + " ".join(missing[m]))


if __name__ == "__main__":
    main()
