#!/usr/bin/env bash
# Set up a virtual environment with everything the tests need, then run them.
# Usage: bash scripts/test.sh [extra pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${WARP_INTERACTIVE_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -e ".[test,cuda]"
# a fresh kernel cache for this test session (tests also isolate it per session)
export WARP_INTERACTIVE_CACHE_DIR=$(mktemp -d)
# every module built below (tests, notebooks) also records its CUDA source here, for the
# NVRTC check at the end (CUDA code must compile even where no GPU runs it)
export WARP_INTERACTIVE_RECORD_CUDA="$WARP_INTERACTIVE_CACHE_DIR/cuda-sources"
set +e
"$VENV/bin/python" -m pytest -q -n 2 --dist loadfile tests "$@"
rc=$?
set -e
# the CUDA check: every recorded module compiled by NVRTC for sm_90 (only after a full run)
if [ "$rc" -eq 0 ] && [ "$#" -eq 0 ]; then
    set +e
    "$VENV/bin/python" -m pytest -q -n 2 tests/nvrtc_suite_check.py
    rc=$?
    set -e
fi
rm -rf "$WARP_INTERACTIVE_CACHE_DIR"
# pytest exits 5 when it collected no tests: that is a failure of this script's purpose
if [ "$rc" -eq 5 ]; then
    echo "no tests were collected" >&2
    exit 1
fi
exit "$rc"
