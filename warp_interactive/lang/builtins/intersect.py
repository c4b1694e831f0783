"""Pairwise geometry: closest points of two segments, triangle-triangle intersection (C++ in
native/include/warp_interactive/geometry/intersect.h)."""

from ...types import composite as comp
from ...types import scalars as sc
from ...errors import TypeMismatch
from .registry import Float, Vector, add_builtin

G_GEOM = "Geometry Predicates"


def _vec3_32_64(ts):
    for t in ts:
        if comp.is_vector(t) and (t._length_ != 3 or t._wp_scalar_type_ not in (sc.float32, sc.float64)):
            raise TypeMismatch(f"needs vec3 or vec3d points, got {t.__name__}")
    return ts[0]


add_builtin("closest_point_edge_edge", {"p1": Vector, "q1": Vector, "p2": Vector, "q2": Vector,
                                        "epsilon": Float},
            value_func=_vec3_32_64, group=G_GEOM,
            doc="The closest points of the segments `p1 q1` and `p2 q2`, as `(s, t, d)`: the points are "
                "`p1 + s (q1 - p1)` and `p2 + t (q2 - p2)` (s, t in [0, 1]) and `d` their distance. A "
                "segment whose squared length is at most `epsilon` counts as a point.")
add_builtin("intersect_tri_tri", {"v0": Vector, "v1": Vector, "v2": Vector, "u0": Vector, "u1": Vector,
                                  "u2": Vector},
            value_func=lambda ts: (_vec3_32_64(ts), sc.int32)[1], group=G_GEOM, differentiable=False,
            doc="1 if the closed triangles `(v0, v1, v2)` and `(u0, u1, u2)` intersect (touching and "
                "coplanar overlap count), else 0.")
