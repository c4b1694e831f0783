"""``wp.examples`` (asset folder of our own) and ``warp_interactive.sparse.bsr_row_index``,
checked against a brute-force search over random row offsets."""

import os
import re
import sys

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.sparse import bsr_row_index


def test_example_assets():
    folder = wp.examples.get_asset_directory()
    assert os.path.isdir(folder)
    path = os.path.join(folder, "cube.obj")
    verts = [list(map(float, ln.split()[1:])) for ln in open(path) if ln.startswith("v ")]
    faces = [[int(i) - 1 for i in ln.split()[1:]] for ln in open(path) if ln.startswith("f ")]
    mesh = wp.Mesh(points=wp.array(verts, dtype=wp.vec3), indices=wp.array(np.array(faces).reshape(-1), dtype=int))
    assert len(faces) == 12 and mesh.id != 0


@wp.kernel(module="wpi_test_sparse_rows")
def rows_of(offsets: wp.array(dtype=int), row_count: int, counts: wp.array(dtype=int),
            out: wp.array(dtype=int), out_active: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = bsr_row_index(offsets, row_count, i - 1)
    out_active[i] = bsr_row_index(offsets, row_count, i - 1, counts)


def _brute(offsets, counts, b):
    for r in range(len(offsets) - 1):
        if offsets[r] <= b < offsets[r + 1]:
            active = counts is None or b < offsets[r] + counts[r]
            return r, (r if active else -1)
    return -1, -1


@pytest.mark.parametrize("seed", range(6))
def test_bsr_row_index_against_brute_force(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 4, size=rng.integers(1, 9))
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32)
    counts = np.array([rng.integers(0, s + 1) for s in sizes], dtype=np.int32)
    n = int(offsets[-1]) + 3
    out = wp.zeros(n, dtype=int)
    out_active = wp.zeros(n, dtype=int)
    wp.launch(rows_of, n, [wp.array(offsets, dtype=int), len(sizes), wp.array(counts, dtype=int),
                           out, out_active])
    expected = [_brute(offsets, counts, i - 1) for i in range(n)]
    np.testing.assert_array_equal(out.numpy(), [e[0] for e in expected])
    np.testing.assert_array_equal(out_active.numpy(), [e[1] for e in expected])


@wp.kernel(module="wpi_test_query_loops")
def neighbours(grid: wp.uint64, points: wp.array(dtype=wp.vec3), r: float, out: wp.array(dtype=int)):
    t = wp.tid()
    x = points[t]
    n = int(0)
    for index in wp.hash_grid_query(grid, x, r):     # the reference's iterator form
        if wp.length(points[index] - x) <= r:
            n += 1
    out[t] = n


@pytest.mark.parametrize("radius", [0.1, 0.25])
def test_for_loop_over_a_hash_grid_query(radius):
    pts = np.random.default_rng(3).random((150, 3)).astype(np.float32)
    grid = wp.HashGrid(8, 8, 8)
    p = wp.array(pts, dtype=wp.vec3)
    grid.build(p, radius)
    out = wp.zeros(len(pts), dtype=int)
    wp.launch(neighbours, len(pts), [grid.id, p, radius, out])
    d = np.linalg.norm(pts[:, None] - pts[None], axis=-1)
    np.testing.assert_array_equal(out.numpy(), (d <= np.float32(radius)).sum(1))


@wp.kernel(module="wpi_test_load_block_dim")
def _doubled(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 2.0 * a[i]


@wp.kernel(module="wpi_test_load_pkg.sub")
def _tripled(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 3.0 * a[i]


@wp.kernel(module="wpi_test_load_pkg")
def _negated(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = -a[i]


def _loaded_on(name, device):
    return any(alias == device for alias, _ in wp.get_module(name).build.loaded)


def test_load_module_recursive_loads_the_submodules_too():
    for name in ("wpi_test_load_pkg", "wpi_test_load_pkg.sub"):
        wp.get_module(name).build.drop()
    wp.load_module("wpi_test_load_pkg", device="cpu")
    assert _loaded_on("wpi_test_load_pkg", "cpu") and not _loaded_on("wpi_test_load_pkg.sub", "cpu")
    wp.load_module("wpi_test_load_pkg", device=["cpu"], recursive=True)
    assert _loaded_on("wpi_test_load_pkg.sub", "cpu")


@pytest.mark.parametrize("module,error,text", [
    ("wpi_no_such_module", RuntimeError, "Module 'wpi_no_such_module' does not contain any Warp kernels, "
                                         "functions, or structs, or has not been imported yet."),
    (pytest, RuntimeError, "Module 'pytest' does not contain any Warp kernels"),
    (3, TypeError, "Argument must be a module, got <class 'int'>"),
], ids=["unknown-name", "module-without-warp-code", "not-a-module"])
def test_load_module_refuses_what_warp_lang_refuses(module, error, text):
    with pytest.raises(error, match=re.escape(text)):
        wp.load_module(module, device="cpu")


@wp.struct
class _OnlyAStruct:
    x: float


def test_load_module_accepts_modules_with_nothing_to_build_yet():
    """A module defining only structs, and this package's own libraries (their kernels are made
    on first use; warp-lang's test_modules_lite loads ``warp.utils``), load without error."""
    import types
    struct_only = types.ModuleType("wpi_struct_only")
    struct_only.S = _OnlyAStruct
    sys.modules["wpi_struct_only"] = struct_only
    try:
        wp.load_module("wpi_struct_only", device="cpu")
    finally:
        del sys.modules["wpi_struct_only"]
    wp.load_module(wp.utils, device="cpu")
    wp.load_module("warp_interactive.utils", device="cpu", recursive=True)


def test_load_module_accepts_warp_lang_arguments():
    """warp-lang's load_module(..., recursive=, block_dim=) (the tile MLP example calls it):
    the module loads and its kernel then runs."""
    wp.load_module(module="wpi_test_load_block_dim", device="cpu", recursive=True, block_dim=64)
    wp.load_module(module=_doubled.module, device="cpu", block_dim=32)     # a kernel's module object
    a = wp.array([1.0, 2.0], dtype=float)
    wp.launch(_doubled, dim=2, inputs=[a])
    assert a.numpy().tolist() == [2.0, 4.0]
