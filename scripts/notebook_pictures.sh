#!/usr/bin/env bash
# The pictures of docs/notebook.md, from real output: the browser test (JupyterLab in headless
# Chromium running notebooks/04_inspecting_and_timing.ipynb) photographs each display and copies
# the pictures to docs/img/. Needs what scripts/test.sh installs (chromium, chromium-driver).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${WARP_INTERACTIVE_VENV:-.venv}
WARP_INTERACTIVE_BROWSER_TEST=require WARP_INTERACTIVE_PICTURES_TO="$PWD/docs/img" \
    "$VENV/bin/python" -m pytest -q -p no:cacheprovider tests/notebook/test_notebook_browser.py
ls -l docs/img/notebook-*.png
