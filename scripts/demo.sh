#!/usr/bin/env bash
# Set up a virtual environment and run the demo (kernels on the CPU, a plot saved to a file).
# The package is installed (editable) on the first run, and again only when what the install
# builds changed (pyproject.toml, setup.py, the native runtime's sources): later runs start at once.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${WARP_INTERACTIVE_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
STAMP="$VENV/.warp_interactive-demo-install"
WANT=$( { "$VENV/bin/python" -c 'import sys; print(sys.version)'; cat pyproject.toml setup.py;
          find native/src -type f | LC_ALL=C sort | xargs cat; } | sha256sum | cut -d' ' -f1)
if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ] || \
        ! "$VENV/bin/python" -c "import warp_interactive._native, matplotlib" 2>/dev/null; then
    "$VENV/bin/python" -m pip install -q --upgrade pip
    "$VENV/bin/python" -m pip install -q -e ".[notebook]"
    echo "$WANT" > "$STAMP"
fi
"$VENV/bin/python" examples/demo.py "$@"
