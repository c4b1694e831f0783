#!/usr/bin/env bash
# Set up a virtual environment and run the demo (kernels on the CPU, a plot saved to a file).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${WARP_INTERACTIVE_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -e ".[notebook]"
"$VENV/bin/python" examples/demo.py "$@"
