"""The CUDA block primitives (native/include/warp_interactive/exec/cuda_blocks.h) run on the host, each
lane a thread of its own, all at once, under ThreadSanitizer: the exchanges through the block's
shared memory (gather, broadcast, lane-order merges of writes, adds and &=/|=/^=, stack push, in several rounds of the scratch;
full and partial blocks) give the brute-force answers, and no lane reads the scratch while another
writes it (a missing __syncthreads() is a reported data race). The header is compiled as it is
but for its two device-only lines, which the test rewrites (and checks that they are there)."""

import os
import shutil
import subprocess

import pytest

from warp_interactive import _paths

HERE = os.path.dirname(os.path.abspath(__file__))
# the header's device-only lines and their host forms (tests/cuda_backend/cuda_blocks_emulation.cpp declares
# threadIdx, blockDim, __syncthreads and emu_dynamic_smem)
REWRITES = [
    ("extern __shared__ __align__(16) unsigned char wpi_block_scratch[];",
     "alignas(16) inline unsigned char wpi_block_scratch[WPI_CUDA_BLOCK_SCRATCH];"),
    ('asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));', "bytes = emu_dynamic_smem;"),
]


def _emulated_header():
    with open(os.path.join(_paths.include_dir(), "warp_interactive", "exec", "cuda_blocks.h")) as f:
        text = f.read()
    for device, host in REWRITES:
        assert text.count(device) == 1, f"cuda_blocks.h no longer has the line {device!r}: update REWRITES"
        text = text.replace(device, host)
    return text


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_cuda_block_primitives_on_host_threads(tmp_path):
    (tmp_path / "cuda_blocks_emulated.h").write_text(_emulated_header())
    exe = tmp_path / "emulation"
    cmd = ["g++", "-std=c++20", "-O1", "-g", "-fsanitize=thread", "-I", str(tmp_path),
           os.path.join(HERE, "cuda_blocks_emulation.cpp"), "-o", str(exe)]
    build = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-4000:]
    env = dict(os.environ, TSAN_OPTIONS="halt_on_error=1 exitcode=66")
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600, env=env)
    assert "ThreadSanitizer" not in run.stderr, run.stderr[-6000:]
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert run.stdout.startswith("ok "), run.stdout
