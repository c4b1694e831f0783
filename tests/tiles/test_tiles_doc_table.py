"""docs/tiles.md's table of warp-lang's tile primitives stays true: it names every tile builtin
this package exports, each is exported as wp.<name>, and each test file a row names calls it."""

import re

import pytest

import warp_interactive as wp
from warp_interactive.lang.builtins.function import TILE_NAMES
from warp_interactive.lang.builtins.registry import intrinsics
from paths import REPO, path_of_test

ROOT = REPO
# the reference's older spellings of the block-parallel queries: exported, not in its tile list
DEPRECATED = {"bvh_query_aabb_tiled", "bvh_query_ray_tiled", "bvh_query_next_tiled", "mesh_query_aabb_tiled",
              "mesh_query_aabb_next_tiled"}


def _rows():
    text = (ROOT / "docs" / "tiles.md").read_text()
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and re.fullmatch(r"(tile\w*|untile)", cells[0]):
            rows[cells[0]] = cells
    return rows


ROWS = _rows()


def test_the_table_lists_every_tile_builtin():
    assert set(ROWS) == set(TILE_NAMES) - DEPRECATED
    assert len(ROWS) == 64                     # warp-lang 1.19's public tile builtins


@pytest.mark.parametrize("name", sorted(ROWS))
def test_row_is_true(name):
    _, here, diff, peer, tests = ROWS[name]
    assert here == "yes" and callable(getattr(wp, name))
    assert diff in ("yes", "no") and peer in ("yes", "no")
    assert (diff == "yes") == intrinsics[name].differentiable, "the registry's record (lang/builtins/special.py) says otherwise"
    files = [t.strip() for t in tests.split(",") if t.strip()]
    assert files, f"{name}: no test named"
    for f in files:
        path = path_of_test(f"test_{f}.py")
        assert re.search(rf"wp\.{name}\(", path.read_text()), f"{path.name} does not call wp.{name}"
