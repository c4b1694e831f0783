"""The share of warp-lang's user-facing kernel builtin names that ``wp.`` (warp_interactive) has.

    python scripts/builtin_coverage.py                   # against the saved name list
    python scripts/builtin_coverage.py --peer PYTHON     # derive the list from a warp-lang install
    python scripts/builtin_coverage.py --peer PYTHON --save   # ... and refresh the saved list

The name list (scripts/warp_builtin_names.txt) is derived from an installed warp-lang 1.19 (run in
that interpreter, as a subprocess: this package never imports warp-lang): every builtin of its
registry that is not hidden, and every kernel function its ``warp`` namespace exports, less the
tile primitives and textures (docs/tiles.md, docs/textures.md), the deprecated ``dense_*`` and the names its code
generator uses internally. ``--peer`` defaults to scripts/.compat-venv/bin/python when present.
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SAVED = os.path.join(HERE, "warp_builtin_names.txt")
INTERNAL = {"address", "index", "indexref", "load", "store", "view", "array_store", "copy", "extract",
            "assign", "static"}

# runs inside the peer's interpreter
_PEER_SCRIPT = r"""
import warp
from warp._src import context
bf = context.builtin_functions
names = set(n for n, f in bf.items() if not f.hidden)
names |= set(n for n in dir(warp) if isinstance(getattr(warp, n), context.Function))
skip_groups = ("Tile Primitives", "Textures", "Code Generation")
for n in sorted(names):
    f = bf.get(n) or getattr(warp, n)
    if n.startswith(("tile", "dense_", "texture", "_")) or getattr(f, "group", "") in skip_groups:
        continue
    print(n)
"""


def peer_names(python):
    out = subprocess.run([python, "-c", _PEER_SCRIPT], check=True, capture_output=True, text=True,
                         cwd="/")
    return sorted(set(out.stdout.split()) - INTERNAL)


def default_peer_names(python):
    """The names from the default peer, or None when it cannot import warp (a half-made venv,
    e.g. without numpy): the caller then falls back to the saved list."""
    try:
        return peer_names(python)
    except (subprocess.CalledProcessError, OSError) as e:
        why = (getattr(e, "stderr", "") or str(e)).strip().splitlines()
        print(f"note: {python} cannot list warp-lang's builtins ({why[-1] if why else e}); "
              f"using {SAVED}", file=sys.stderr)
        return None


def saved_names():
    with open(SAVED) as f:
        return [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_peer = os.path.join(HERE, ".compat-venv", "bin", "python")
    ap.add_argument("--peer", default=None, help="a Python with warp-lang installed")
    ap.add_argument("--save", action="store_true", help="write the derived list to " + SAVED)
    ap.add_argument("--missing", action="store_true", help="list the missing names")
    args = ap.parse_args(argv)
    if args.peer:   # named explicitly: a failure is an error
        peer, names = args.peer, peer_names(args.peer)
    else:
        peer = default_peer if os.path.exists(default_peer) else None
        names = default_peer_names(peer) if peer else None
        if names is None:
            peer, names = None, saved_names()
    if args.save:
        with open(SAVED, "w") as f:
            f.write("# warp-lang 1.19 user-facing kernel builtins (scripts/builtin_coverage.py --save)\n")
            f.write("\n".join(names) + "\n")
    sys.path.insert(0, os.path.dirname(HERE))
    import warp_interactive as wp
    missing = [n for n in names if not hasattr(wp, n)]
    have = len(names) - len(missing)
    print(f"{have} of {len(names)} warp-lang builtin names present in wp. "
          f"({100.0 * have / len(names):.1f}%), source: {'warp-lang at ' + peer if peer else SAVED}")
    if args.missing or missing:
        print("missing:", " ".join(missing))
    return 0


if __name__ == "__main__":
    sys.exit(main())
