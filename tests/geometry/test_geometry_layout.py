"""The descriptors Python builds (geometry/descriptors.py) and the builders' node layout must
match the C++ structs kernels read: sizes and field offsets compared with a compiled program."""

import ctypes
import shutil
import subprocess

import pytest

from warp_interactive._paths import include_dir
from warp_interactive.geometry.descriptors import WN_NODE_BYTES, BvhDesc, HashGridDesc, MeshDesc

CHECKS = {
    "bvh_t": (BvhDesc, ["nodes", "items", "lowers", "uppers", "num_nodes", "num_items", "by_slot",
                         "num_groups", "group_ids", "group_roots"]),
    "mesh_t": (MeshDesc, ["bvh", "points", "velocities", "indices", "num_points", "num_tris",
                          "support_winding_number", "winding", "points_grad", "velocities_grad"]),
    "hash_grid_t": (HashGridDesc, ["point_ids", "cell_starts", "cell_ends", "dim_x", "dim_y",
                                   "dim_z", "num_points", "cell_width", "point_groups",
                                   "cell_width64"]),
}


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_descriptor_layouts_match_the_headers(tmp_path):
    lines = ['#include <cstddef>', '#include <cstdio>', '#include "warp_interactive/builtin.h"',
             "int main() {"]
    for cpp, (_, fields) in CHECKS.items():
        lines.append(f'printf("{cpp} %zu\\n", sizeof(wp::{cpp}));')
        lines += [f'printf("{cpp}.{f} %zu\\n", offsetof(wp::{cpp}, {f}));' for f in fields]
    lines += ['printf("bvh_node_t %zu\\n", sizeof(wp::bvh_node_t));',
              'printf("mesh_wn_node_t %zu\\n", sizeof(wp::mesh_wn_node_t));', "return 0; }"]
    src = tmp_path / "layout.cpp"
    src.write_text("\n".join(lines))
    exe = tmp_path / "layout"
    build = subprocess.run(["g++", "-std=c++17", "-I", include_dir(), str(src), "-o", str(exe)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    out = dict(line.split() for line in subprocess.run([str(exe)], capture_output=True, text=True,
                                                       check=True).stdout.splitlines())
    for cpp, (desc, fields) in CHECKS.items():
        assert int(out[cpp]) == ctypes.sizeof(desc), cpp
        for f in fields:
            assert int(out[f"{cpp}.{f}"]) == getattr(desc, f).offset, f"{cpp}.{f}"
    assert int(out["bvh_node_t"]) == 32   # native/src/geometry/bvh_build.h BvhNode
    assert int(out["mesh_wn_node_t"]) == WN_NODE_BYTES   # and WnNode
