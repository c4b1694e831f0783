"""Marching cubes lookup tables, derived from the cube's topology rather than typed in.

A cell's case is the 8-bit code of its corners at or above the threshold (bit ``c`` for corner
``CUBE_CORNER_OFFSETS[c]``). On each of the cube's six faces the corners' signs say which face
edges the surface crosses; a face with two diagonal corners above (the ambiguous face) is resolved
by cutting off each above-threshold corner on its own. The rule depends only on the face's four
signs, so two cells sharing a face cut it the same way and the surface has no cracks. Chaining
the face segments through the crossed cube edges gives closed polygons, cut into triangles
whose normals (counter-clockwise winding) point to the above-threshold side: outwards for a
signed distance field, as in warp-lang. How each polygon is cut into triangles, and in which
order they are listed, is the per-case choice of ``mc_choices`` (the classic table's, so that
the index arrays equal warp-lang's).
"""

from .mc_choices import CASE_TRIANGULATIONS

CUBE_CORNER_OFFSETS = ((0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1))
# Each edge runs from its lower corner to its upper one (one axis differs).
EDGE_TO_CORNERS = ((0, 1), (1, 2), (3, 2), (0, 3), (4, 5), (5, 6), (7, 6), (4, 7), (0, 4), (1, 5), (2, 6), (3, 7))
# The faces' corners in counter-clockwise order seen from outside the cube.
_FACES = ((0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (3, 7, 6, 2), (0, 4, 7, 3), (1, 2, 6, 5))
_EDGE_OF = {frozenset(e): i for i, e in enumerate(EDGE_TO_CORNERS)}


def _face_segments(case):
    """{crossed edge: next crossed edge} over all faces: each face segment runs from the edge
    where a face walk enters the above-threshold corners to the edge where it leaves them."""
    following = {}
    for face in _FACES:
        crossings = []
        for k in range(4):
            a, b = face[k], face[(k + 1) % 4]
            above_a, above_b = (case >> a) & 1, (case >> b) & 1
            if above_a != above_b:
                crossings.append((_EDGE_OF[frozenset((a, b))], bool(above_b)))
        for k, (edge, enters) in enumerate(crossings):
            if enters:
                following[edge] = crossings[(k + 1) % len(crossings)][0]
    return following


def _polygons(case):
    """The closed polygons (lists of cube edges) of one case, in increasing first-edge order.
    A crossed edge is entered on one of its faces and left on the other (neighbouring faces walk
    a shared edge in opposite directions), so following the segments always closes a loop."""
    following = _face_segments(case)
    polygons, seen = [], set()
    for start in sorted(following):
        if start in seen:
            continue
        polygon, edge = [], start
        while edge not in seen:
            seen.add(edge)
            polygon.append(edge)
            edge = following[edge]
        polygons.append(polygon)
    return polygons


def _rings(case):
    """The case's polygons as triangle rings: reversed, so that a ring runs counter-clockwise
    seen from the above-threshold side and its triangles' normals point there."""
    return [[polygon[0]] + polygon[:0:-1] for polygon in _polygons(case)]


def _check_triangulation(case, rings, triangles):
    """Each polygon is cut into n - 2 triangles, wound like its ring, that use every ring side
    once and every diagonal twice (once each way) without crossing: a triangulation of it."""
    for ring in rings:
        mine = [t for t in triangles if set(t) <= set(ring)]
        position = {e: k for k, e in enumerate(ring)}
        sides = [(mine_t[k], mine_t[(k + 1) % 3]) for mine_t in mine for k in range(3)]
        boundary = {(ring[k], ring[(k + 1) % len(ring)]) for k in range(len(ring))}
        inner = [s for s in sides if s not in boundary]
        ordered = all((position[b] - position[a]) % len(ring) < (position[c] - position[a]) % len(ring)
                      for a, b, c in mine)
        if not (len(mine) == len(ring) - 2 and ordered and boundary <= set(sides)
                and sorted(inner) == sorted((b, a) for a, b in inner)):
            raise AssertionError(f"case {case}: {mine} is no triangulation of the polygon {ring}")
    if sum(len(r) - 2 for r in rings) != len(triangles):
        raise AssertionError(f"case {case}: triangles outside its polygons")


def _triangles(case):
    """The case's triangles as a flat tuple of edge numbers: its polygons cut as
    ``mc_choices`` lists (checked to be a triangulation of each)."""
    rings = _rings(case)
    ring_edges = [e for ring in rings for e in ring]
    entry = CASE_TRIANGULATIONS[case].strip("-")
    flat = tuple(ring_edges[int(digit, 16)] for digit in entry)
    _check_triangulation(case, rings, [flat[k:k + 3] for k in range(0, len(flat), 3)])
    return flat


def _build():
    ranges, local = [0], []
    for case in range(256):
        local.extend(_triangles(case))
        ranges.append(len(local))
    return tuple(ranges), tuple(local)


CASE_TO_TRI_RANGE, TRI_LOCAL_INDICES = _build()


def _edge_offset(edge):
    """(di, dj, dk, axis): an edge as the axis-aligned grid edge leaving its lower corner."""
    a, b = EDGE_TO_CORNERS[edge]
    lo, hi = CUBE_CORNER_OFFSETS[a], CUBE_CORNER_OFFSETS[b]
    axis = next(d for d in range(3) if lo[d] != hi[d])
    return (*lo, axis)


EDGE_OFFSETS = tuple(_edge_offset(e) for e in range(12))


def _edge_polygons():
    """(polygons per case, for case * 12 + edge: the polygon of the case holding that crossed
    edge, or -1): the surface patches of a cell, for the dual (surface nets) extractor."""
    counts, owner = [], []
    for case in range(256):
        polygons = _polygons(case)
        counts.append(len(polygons))
        row = [-1] * 12
        for p, polygon in enumerate(polygons):
            for edge in polygon:
                row[edge] = p
        owner.extend(row)
    return tuple(counts), tuple(owner)


CASE_POLYGON_COUNT, EDGE_POLYGON = _edge_polygons()
# cube edge by (lower corner's offset as di + 2 dj + 4 dk) * 3 + axis, -1 where no such edge
LOCAL_EDGE = tuple(next((e for e, o in enumerate(EDGE_OFFSETS) if o == (c & 1, (c >> 1) & 1, c >> 2, a)), -1)
                   for c in range(8) for a in range(3))
