"""Exact point queries on straight simplices: triangles in the plane and tetrahedra.

Barycentric coordinates come from the signed areas (volumes) of the sub-simplices with the
query point moved to the origin, so a point on a vertex gets exactly that vertex's unit
coordinates and a point on a facet exactly zero for the opposite vertex (what nodal values
read back through ``fem.lookup`` rely on: a field looked up at a node gives that node's value
bit for bit). Outside the cell, its closest point lies on a facet: the nearest of the
facets' closest points, each found the same way one dimension down."""

import functools

from .. import _api as wp


@wp.func
def _cross2(a: wp.vec2, b: wp.vec2):
    return a[0] * b[1] - a[1] * b[0]


@wp.func
def segment_closest(a: wp.vec3, b: wp.vec3):
    """(t, squared distance) of the point (1 - t) a + t b closest to the origin."""
    d = b - a
    t = wp.clamp(-wp.dot(a, d) / wp.max(wp.dot(d, d), 1.0e-30), 0.0, 1.0)
    if t == 1.0:
        return t, wp.dot(b, b)
    p = a + t * d
    return t, wp.dot(p, p)


@wp.func
def _lift(a: wp.vec2):
    return wp.vec3(a[0], a[1], 0.0)


@wp.func
def triangle_barycentric(a: wp.vec2, b: wp.vec2, c: wp.vec2):
    """Barycentric coordinates of the origin in the triangle (a, b, c) (extrapolated outside)."""
    w = wp.vec3(_cross2(b, c), _cross2(c, a), _cross2(a, b))
    return w / (w[0] + w[1] + w[2])


@wp.func
def triangle3_closest(a: wp.vec3, b: wp.vec3, c: wp.vec3):
    """(barycentric coordinates, squared distance) of the point of the triangle (a, b, c) of
    3-D space closest to the origin."""
    n = wp.cross(b - a, c - a)
    w = wp.vec3(wp.dot(n, wp.cross(b, c)), wp.dot(n, wp.cross(c, a)), wp.dot(n, wp.cross(a, b)))
    if w[0] >= 0.0 and w[1] >= 0.0 and w[2] >= 0.0 and wp.dot(n, n) > 0.0:
        bary = w / (w[0] + w[1] + w[2])
        p = bary[0] * a + bary[1] * b + bary[2] * c
        return bary, wp.dot(p, p)
    return _triangle_edges_closest(a, b, c)


@wp.func
def _triangle_edges_closest(a: wp.vec3, b: wp.vec3, c: wp.vec3):
    t0, d0 = segment_closest(b, c)
    t1, d1 = segment_closest(c, a)
    t2, d2 = segment_closest(a, b)
    best = wp.vec3(0.0, 1.0 - t0, t0)
    dist = d0
    if d1 < dist:
        best = wp.vec3(t1, 0.0, 1.0 - t1)
        dist = d1
    if d2 < dist:
        best = wp.vec3(1.0 - t2, t2, 0.0)
        dist = d2
    return best, dist


@wp.func
def triangle2_closest(a: wp.vec2, b: wp.vec2, c: wp.vec2):
    """(barycentric coordinates, squared distance) of the point of the plane triangle
    (a, b, c) closest to the origin."""
    bary = triangle_barycentric(a, b, c)
    if bary[0] >= 0.0 and bary[1] >= 0.0 and bary[2] >= 0.0:
        return bary, 0.0
    return _triangle_edges_closest(_lift(a), _lift(b), _lift(c))


@wp.func
def tet_barycentric(a: wp.vec3, b: wp.vec3, c: wp.vec3, d: wp.vec3):
    """Barycentric coordinates of the origin in the tetrahedron (a, b, c, d) (extrapolated)."""
    w = wp.vec4(wp.determinant(wp.matrix_from_cols(b, c, d)), -wp.determinant(wp.matrix_from_cols(a, c, d)),
                wp.determinant(wp.matrix_from_cols(a, b, d)), -wp.determinant(wp.matrix_from_cols(a, b, c)))
    return w / (w[0] + w[1] + w[2] + w[3])


@wp.func
def tet_closest(a: wp.vec3, b: wp.vec3, c: wp.vec3, d: wp.vec3):
    """(barycentric coordinates, squared distance) of the point of the tetrahedron closest to
    the origin."""
    bary = tet_barycentric(a, b, c, d)
    if bary[0] >= 0.0 and bary[1] >= 0.0 and bary[2] >= 0.0 and bary[3] >= 0.0:
        return bary, 0.0
    f0, d0 = triangle3_closest(b, c, d)
    best = wp.vec4(0.0, f0[0], f0[1], f0[2])
    dist = d0
    f1, d1 = triangle3_closest(a, c, d)
    if d1 < dist:
        best = wp.vec4(f1[0], 0.0, f1[1], f1[2])
        dist = d1
    f2, d2 = triangle3_closest(a, b, d)
    if d2 < dist:
        best = wp.vec4(f2[0], f2[1], 0.0, f2[2])
        dist = d2
    f3, d3 = triangle3_closest(a, b, c)
    if d3 < dist:
        best = wp.vec4(f3[0], f3[1], f3[2], 0.0)
        dist = d3
    return best, dist


@functools.lru_cache(maxsize=None)
def make_simplex_queries(geo_cls):
    """(element_coordinates, element_closest_point) funcs of a triangle mesh in the plane or a
    tet mesh, given the class's ``cell_vertex(arg, cell, k)``."""
    vertex = geo_cls.cell_vertex
    if geo_cls.reference_cell_shape == "triangle":
        @wp.func
        def coordinates(arg: geo_cls.CellArg, cell: int, pos: wp.vec2):
            return triangle_barycentric(vertex(arg, cell, 0) - pos, vertex(arg, cell, 1) - pos,
                                        vertex(arg, cell, 2) - pos)

        @wp.func
        def closest(arg: geo_cls.CellArg, cell: int, pos: wp.vec2):
            return triangle2_closest(vertex(arg, cell, 0) - pos, vertex(arg, cell, 1) - pos,
                                     vertex(arg, cell, 2) - pos)
        return coordinates, closest

    @wp.func
    def tet_coordinates(arg: geo_cls.CellArg, cell: int, pos: wp.vec3):
        w = tet_barycentric(vertex(arg, cell, 0) - pos, vertex(arg, cell, 1) - pos, vertex(arg, cell, 2) - pos,
                            vertex(arg, cell, 3) - pos)
        return wp.vec3(w[1], w[2], w[3])

    @wp.func
    def tet_closest_point(arg: geo_cls.CellArg, cell: int, pos: wp.vec3):
        w, dist = tet_closest(vertex(arg, cell, 0) - pos, vertex(arg, cell, 1) - pos, vertex(arg, cell, 2) - pos,
                              vertex(arg, cell, 3) - pos)
        return wp.vec3(w[1], w[2], w[3]), dist
    return tet_coordinates, tet_closest_point
