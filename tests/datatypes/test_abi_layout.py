"""The structs every launch hands to C have one Python source of truth (types/arraydesc.py):
their sizes and field offsets must be those of the C++ structs kernels read (core.h), and the
launch paths must take their sizes from there."""

import ctypes
import shutil
import subprocess

import pytest

from warp_interactive._paths import include_dir
from warp_interactive.types.arraydesc import (ARRAY_DESC_SIZE, INDEXED_ARRAY_DESC_SIZE, LAUNCH_BOUNDS_SIZE,
                                              ArrayDesc, IndexedArrayDesc, LaunchBounds)

CHECKS = {
    "array_t<float>": (ArrayDesc, ["data", "grad", "strides", "shape", "ndim", "flags"]),
    "array_t<double>": (ArrayDesc, ["data", "grad", "strides", "shape", "ndim", "flags"]),
    "launch_bounds_t": (LaunchBounds, ["shape", "ndim", "pad", "size"]),
    "indexedarray_t<float>": (IndexedArrayDesc, ["data", "grad", "strides", "arr_shape", "ndim", "flags",
                                                "indices", "shape"]),
}


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_launch_structs_match_the_headers(tmp_path):
    lines = ['#include <cstddef>', '#include <cstdio>', '#include "warp_interactive/builtin.h"',
             "int main() {"]
    for cpp, (_, fields) in CHECKS.items():
        t = f"wp::{cpp}"
        lines.append(f'printf("{cpp} %zu\\n", sizeof({t}));')
        lines += [f'printf("{cpp}.{f} %zu\\n", offsetof({t}, {f}));' for f in fields]
    lines.append("return 0; }")
    src = tmp_path / "abi.cpp"
    src.write_text("\n".join(lines))
    exe = tmp_path / "abi"
    build = subprocess.run(["g++", "-std=c++17", "-I", include_dir(), str(src), "-o", str(exe)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    out = dict(line.split() for line in subprocess.run([str(exe)], capture_output=True, text=True,
                                                       check=True).stdout.splitlines())
    for cpp, (struct, fields) in CHECKS.items():
        assert int(out[cpp]) == ctypes.sizeof(struct), cpp
        for f in fields:
            assert int(out[f"{cpp}.{f}"]) == getattr(struct, f).offset, f"{cpp}.{f}"
    assert ARRAY_DESC_SIZE == int(out["array_t<float>"])
    assert LAUNCH_BOUNDS_SIZE == int(out["launch_bounds_t"])
    assert INDEXED_ARRAY_DESC_SIZE == int(out["indexedarray_t<float>"]) == 120   # warp-lang's size


def test_fast_plan_packs_descriptors_of_that_size():
    import warp_interactive as wp
    from warp_interactive.runtime import fastlaunch

    @wp.kernel
    def abi_scale(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] * s

    a = wp.array([1.0, 2.0, 3.0], dtype=float, device="cpu")
    wp.launch(abi_scale, dim=3, inputs=[a, 2.0], device="cpu")   # the general path makes the plan
    assert fastlaunch._DESC_FORMAT == f"{ARRAY_DESC_SIZE}s"
    assert len(bytes(a.desc())) == ARRAY_DESC_SIZE
    wp.launch(abi_scale, dim=3, inputs=[a, 2.0], device="cpu")   # and the plan runs it
    assert a.numpy().tolist() == [4.0, 8.0, 12.0]
