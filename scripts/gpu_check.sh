#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU and a Python that already has numpy, pytest,
# pytest-xdist, scipy, hypothesis, cuda-bindings and the NVRTC wheel (no network needed):
# builds the native modules in place and runs every test whose id names CUDA ("cuda" in the
# file, test or parameter name: the `device` fixture's cuda:0 cases), writing a JUnit report.
#   bash scripts/gpu_check.sh [OUTDIR] [extra pytest args]
set -uo pipefail
cd "$(dirname "$0")/.."
OUTDIR=${1:-/tmp/gpu-check}; shift || true
mkdir -p "$OUTDIR"
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 WARP_INTERACTIVE_CACHE_DIR=${WARP_INTERACTIVE_CACHE_DIR:-/tmp/wpi-gpu-cache}
nvidia-smi -L
"$PY" -m pip list 2>/dev/null | grep -i -E "^(cuda-bindings|nvidia-cuda-nvrtc|numpy|torch|jax|cupy) " 
"$PY" setup.py -q build_ext --inplace >"$OUTDIR/build.log" 2>&1 || { tail -40 "$OUTDIR/build.log"; exit 1; }
"$PY" -c "import warp_interactive as wp; print('cuda devices:', wp.get_cuda_device_count(), wp.get_cuda_devices())" || exit 1
JOBS=${JOBS:-$(( $(nproc) > 14 ? 14 : $(nproc) ))}
timeout "${PYTEST_TIMEOUT:-420}" "$PY" -m pytest -q -n "$JOBS" --dist loadfile -p no:nbval -p no:cacheprovider \
    --junitxml="$OUTDIR/junit.xml" -k "${SELECT:-cuda}" "${@:-tests}" >"$OUTDIR/pytest.log" 2>&1
rc=$?
grep -E "^(FAILED|ERROR)" "$OUTDIR/pytest.log" | head -80
tail -5 "$OUTDIR/pytest.log"
exit $rc
