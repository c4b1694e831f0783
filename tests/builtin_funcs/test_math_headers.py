"""The C++ header library's own test (values and adjoints vs. finite differences), built and run."""

import os
import shutil
import subprocess

import pytest
from paths import REPO as REPO_PATH

ROOT = str(REPO_PATH)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_header_math_and_adjoints(tmp_path):
    exe = tmp_path / "test_math"
    src = os.path.join(ROOT, "native", "tests_cpp", "test_math.cpp")
    build = subprocess.run(["g++", "-std=c++17", "-O1", "-I", os.path.join(ROOT, "native", "include"),
                            src, "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-4000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
