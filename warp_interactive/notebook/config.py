"""Turn the automatic loading of the notebook extension on or off for an environment.

    python -m warp_interactive.notebook.config enable      # every IPython/Jupyter kernel of this env
    python -m warp_interactive.notebook.config disable
    python -m warp_interactive.notebook.config status

It edits ``<prefix>/etc/ipython/ipython_config.json`` (the file a regular ``pip install`` puts
there from jupyter-config/), adding or removing ``warp_interactive.notebook.autoload`` in
``InteractiveShellApp.extra_extensions`` and keeping anything else in the file.
"""

import argparse
import json
import os
import sys

EXTENSION = "warp_interactive.notebook.autoload"


def config_path(prefix=None):
    return os.path.join(prefix or sys.prefix, "etc", "ipython", "ipython_config.json")


def _read(path):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return {}


def _write(path, cfg):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def is_enabled(prefix=None):
    cfg = _read(config_path(prefix))
    return EXTENSION in cfg.get("InteractiveShellApp", {}).get("extra_extensions", [])


def enable(prefix=None):
    path = config_path(prefix)
    cfg = _read(path)
    exts = cfg.setdefault("InteractiveShellApp", {}).setdefault("extra_extensions", [])
    if EXTENSION not in exts:
        exts.append(EXTENSION)
    _write(path, cfg)
    return path


def disable(prefix=None):
    path = config_path(prefix)
    cfg = _read(path)
    app = cfg.get("InteractiveShellApp", {})
    if EXTENSION in app.get("extra_extensions", []):
        app["extra_extensions"].remove(EXTENSION)
        if not app["extra_extensions"]:
            del app["extra_extensions"]
        if not app:
            del cfg["InteractiveShellApp"]
        if cfg:
            _write(path, cfg)
        else:
            os.remove(path)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m warp_interactive.notebook.config",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=("enable", "disable", "status"))
    ap.add_argument("--prefix", default=None, help="the environment (default: this Python's)")
    a = ap.parse_args(argv)
    if a.action == "enable":
        print(f"enabled in {enable(a.prefix)}")
    elif a.action == "disable":
        print(f"disabled in {disable(a.prefix)}")
    else:
        print(f"{'enabled' if is_enabled(a.prefix) else 'disabled'} ({config_path(a.prefix)})")


if __name__ == "__main__":
    main()
