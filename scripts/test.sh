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
"$VENV/bin/python" -m pip install -q -e ".[test,cuda,render]"
# interop frameworks, pinned: torch 2.13.0 is the CPU build this machine's index serves
"$VENV/bin/python" -m pip install -q torch==2.13.0 jax==0.10.2 jaxlib==0.10.2 paddlepaddle==3.3.1
# the browser test (tests/notebook/test_notebook_browser.py) needs Chromium and its WebDriver, and the tape
# graph's GraphViz path needs `dot`: Debian's packages, installed when missing (as root, or with
# passwordless sudo); with the browser there, its test must run (missing, it fails, not skips)
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null || ! command -v dot >/dev/null; then
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else SUDO="no"; fi
    if [ "$SUDO" != "no" ] && command -v apt-get >/dev/null; then
        timeout 900 $SUDO apt-get update -qq && \
            timeout 900 $SUDO apt-get install -y -qq chromium chromium-driver graphviz >/dev/null || true
    fi
fi
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    export WARP_INTERACTIVE_BROWSER_TEST=require
else
    echo "chromium/chromedriver could not be installed: the browser test will be skipped" >&2
fi
# the renderer tests (tests/render/) draw headless through EGL: the EGL loader and Mesa's
# drivers (software rasterizer) from Debian, installed when missing, and Xvfb for the window-mode
# test; with them there, the tests must run (missing, they fail, not skip)
# (the library list is read into a variable: under pipefail, `ldconfig -p | grep -q` can fail when
# grep stops reading early)
egl_libs() { ldconfig -p 2>/dev/null || true; }
if ! grep -q "libEGL_mesa.so" <<<"$(egl_libs)" || ! grep -q "libEGL.so.1" <<<"$(egl_libs)" \
        || ! command -v xvfb-run >/dev/null; then
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else SUDO="no"; fi
    if [ "$SUDO" != "no" ] && command -v apt-get >/dev/null; then
        timeout 900 $SUDO apt-get update -qq && \
            timeout 900 $SUDO apt-get install -y -qq libegl1 libegl-mesa0 libgl1-mesa-dri libgles2 \
                libglx-mesa0 libopengl0 xvfb >/dev/null || true
    fi
fi
if grep -q "libEGL_mesa.so" <<<"$(egl_libs)"; then
    export WARP_INTERACTIVE_RENDER_TEST=require
else
    echo "EGL/Mesa could not be installed: the renderer tests will be skipped" >&2
fi
# the MPI test (tests/interop/test_mpi.py) runs two ranks with mpirun: Debian's Open MPI, installed when
# missing; with mpirun there, the test must run (missing, it fails, not skips)
if ! command -v mpirun >/dev/null; then
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else SUDO="no"; fi
    if [ "$SUDO" != "no" ] && command -v apt-get >/dev/null; then
        timeout 900 $SUDO apt-get update -qq && \
            timeout 900 $SUDO apt-get install -y -qq openmpi-bin libopenmpi-dev >/dev/null || true
    fi
fi
if command -v mpirun >/dev/null; then
    export WARP_INTERACTIVE_MPI_TEST=require
else
    echo "Open MPI could not be installed: the MPI test will be skipped" >&2
fi
# layers point one way (pyproject.toml [tool.importlinter]; imports inside functions count too):
# a lower layer importing a higher one fails here, naming the file and line
"$VENV/bin/lint-imports" --no-cache
# a fresh kernel cache for this test session (tests also isolate it per session)
export WARP_INTERACTIVE_CACHE_DIR=$(mktemp -d)
# every module built below (tests, notebooks) also records its CUDA source here, for the
# NVRTC check at the end (CUDA code must compile even where no GPU runs it)
export WARP_INTERACTIVE_RECORD_CUDA="$WARP_INTERACTIVE_CACHE_DIR/cuda-sources"
set +e
# the tests, and the tutorial notebooks executed top to bottom by nbval (--nbval-lax: every
# cell must run; cells marked to check their output are compared after notebooks/sanitize.cfg)
"$VENV/bin/python" -m pytest -q -n 2 --dist loadfile \
    --nbval-lax --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg \
    tests notebooks "$@"
rc=$?
set -e
# the CUDA check: every recorded module compiled by NVRTC for sm_90 (only after a full run)
if [ "$rc" -eq 0 ] && [ "$#" -eq 0 ]; then
    set +e
    "$VENV/bin/python" -m pytest -q -n 2 tests/cuda_backend/nvrtc_suite_check.py
    rc=$?
    set -e
elif [ "$rc" -ne 0 ]; then
    echo "NVRTC check skipped: the tests failed (rc=$rc)" >&2
else
    echo "NVRTC check skipped: pytest was given arguments ($*), so not every module was recorded" >&2
fi
rm -rf "$WARP_INTERACTIVE_CACHE_DIR"
# pytest exits 5 when it collected no tests: that is a failure of this script's purpose
if [ "$rc" -eq 5 ]; then
    echo "no tests were collected" >&2
    exit 1
fi
exit "$rc"
