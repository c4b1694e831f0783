"""Every named composite type is called what warp-lang calls it (`wp.spatial_vectorf.__name__ ==
"spatial_vectorf"`, it was "vec6f"): code that builds names from types (`getattr(wp,
t.__name__)`, warp-lang's test_static) finds them."""

import pytest

import warp_interactive as wp
from warp_interactive.types.builtin_types import named_types

SUFFIXED = sorted(n for n in named_types if n[-1] in "fdhbsilu" and not n.endswith("quat") and n != "transform")


@pytest.mark.parametrize("name", SUFFIXED)
def test_named_type_is_called_by_its_name(name):
    t = getattr(wp, name)
    assert t.__name__ == name
    assert getattr(wp, t.__name__) is t


@pytest.mark.parametrize("make, name", [
    (lambda: wp.types.vector(6, wp.float32), "spatial_vectorf"),
    (lambda: wp.types.vector(6, wp.float64), "spatial_vectord"),
    (lambda: wp.types.matrix((6, 6), wp.float16), "spatial_matrixh"),
    (lambda: wp.types.vector(6, wp.int32), "vec6i"),       # no spatial name in warp-lang either
    (lambda: wp.types.vector(5, wp.float32), "vec5f"),
])
def test_anonymous_types_take_the_public_name(make, name):
    assert make().__name__ == name
