"""The no-GPU CUDA check: every module the test suite (and the notebooks) built on the CPU,
compiled by NVRTC for sm_90. Not collected by a plain ``pytest tests``: scripts/test.sh runs
the suite with WARP_INTERACTIVE_RECORD_CUDA set, then this file on what it recorded."""

import os

import pytest

from warp_interactive.compiler import nvrtc_check

FOLDER = os.environ.get(nvrtc_check.ENV)
ARCH = int(os.environ.get("WARP_INTERACTIVE_CHECK_ARCH", "90"))
RECORDED = nvrtc_check.recorded_sources(FOLDER) if FOLDER and os.path.isdir(FOLDER) else []
# one build per distinct module state: a recorded source whose kernels a larger recording of
# the same module also holds adds nothing to check
# largest first: the two CI workers then finish together instead of one building a big module alone
SOURCES = nvrtc_check.largest_first(nvrtc_check.distinct_sources(RECORDED))
# the suite builds well over this many modules; fewer means the recording did not happen
MIN_SOURCES = int(os.environ.get("WARP_INTERACTIVE_CHECK_MIN_SOURCES", "10"))


def test_sources_were_recorded():
    assert FOLDER, f"set {nvrtc_check.ENV} to the folder the test suite recorded into"
    assert len(RECORDED) >= MIN_SOURCES, (
        f"only {len(RECORDED)} CUDA sources were recorded in {FOLDER}: run the suite with "
        f"{nvrtc_check.ENV} set first (scripts/test.sh does)")


@pytest.mark.parametrize("path", SOURCES, ids=[os.path.basename(p)[:12] for p in SOURCES])
def test_module_compiles_for_cuda(path):
    cubin = nvrtc_check.check_file(path, ARCH)
    assert cubin[:4] == b"\x7fELF", "NVRTC's CUBIN is an ELF image"
