"""wp.MeshQuery (warp-lang's erased parent of the mesh queries), wp.BvhQueryTiled and
wp.MeshQueryAABBTiled as annotations of @wp.func parameters; results against brute force."""

import numpy as np
import pytest

import warp_interactive as wp

POINTS = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [5, 5, 5], [6, 5, 5], [5, 6, 5]], dtype=np.float32)


@wp.func
def count_faces(q: wp.MeshQuery):
    n = int(0)
    face = int(0)
    while wp.mesh_query_next(q, face):
        n += 1
    return n


@wp.kernel
def both_kinds(mesh: wp.uint64, lo: wp.vec3, hi: wp.vec3, center: wp.vec3, radius: float,
               out: wp.array(dtype=int)):
    out[0] = count_faces(wp.mesh_query_aabb(mesh, lo, hi))
    out[1] = count_faces(wp.mesh_query_sphere(mesh, center, radius))


def _mesh():
    pts = wp.array(POINTS, dtype=wp.vec3, device="cpu")
    return wp.Mesh(points=pts, indices=wp.array(np.arange(6, dtype=np.int32), dtype=int, device="cpu"))


@pytest.mark.parametrize("lo, hi, center, radius, expect", [
    ((-1, -1, -1), (2, 2, 2), (0, 0, 0), 0.1, [1, 1]),          # first triangle only
    ((-1, -1, -1), (9, 9, 9), (5.2, 5.2, 5.0), 0.5, [2, 1]),     # both boxes; the sphere near the second
    ((2, 2, 2), (3, 3, 3), (2.5, 2.5, 2.5), 0.1, [0, 0]),        # nothing
])
def test_mesh_query_annotation_admits_aabb_and_sphere_queries(lo, hi, center, radius, expect):
    mesh, out = _mesh(), wp.zeros(2, dtype=int, device="cpu")
    wp.launch(both_kinds, dim=1, inputs=[mesh.id, wp.vec3(*lo), wp.vec3(*hi), wp.vec3(*center), radius, out],
              device="cpu")
    assert out.numpy().tolist() == expect


@wp.func
def drain_bvh(query: wp.BvhQueryTiled, hits: wp.array(dtype=wp.int32)):
    while wp.tile_query_valid(query):
        item = wp.untile(wp.tile_bvh_query_next(query))
        if item >= 0:
            hits[item] = 1


@wp.func
def drain_mesh(query: wp.MeshQueryAABBTiled, hits: wp.array(dtype=wp.int32)):
    while wp.tile_query_valid(query):
        face = wp.untile(wp.tile_mesh_query_aabb_next(query))
        if face >= 0:
            hits[face] = 1


@wp.kernel
def tiled(bvh: wp.uint64, mesh: wp.uint64, lo: wp.vec3, hi: wp.vec3, hits: wp.array(dtype=wp.int32),
          face_hits: wp.array(dtype=wp.int32)):
    drain_bvh(wp.tile_bvh_query_aabb(bvh, lo, hi), hits)
    drain_mesh(wp.tile_mesh_query_aabb(mesh, lo, hi), face_hits)


@pytest.mark.parametrize("lo, hi", [((0.2, 0.2, -0.5), (0.8, 0.8, 0.8)), ((0.0, 0.0, 0.0), (9.0, 9.0, 9.0)),
                                    ((2.0, 2.0, 2.0), (2.5, 2.5, 2.5))])
def test_tiled_query_types_annotate_function_parameters(lo, hi):
    rng = np.random.default_rng(3)
    low = rng.uniform(0, 6, size=(8, 3)).astype(np.float32)
    high = low + rng.uniform(0.1, 1.5, size=(8, 3)).astype(np.float32)
    bvh = wp.Bvh(wp.array(low, dtype=wp.vec3, device="cpu"), wp.array(high, dtype=wp.vec3, device="cpu"))
    mesh = _mesh()
    hits, face_hits = wp.zeros(8, dtype=wp.int32, device="cpu"), wp.zeros(2, dtype=wp.int32, device="cpu")
    wp.launch_tiled(tiled, dim=1, inputs=[bvh.id, mesh.id, wp.vec3(*lo), wp.vec3(*hi), hits, face_hits],
                    block_dim=4, device="cpu")
    lo, hi = np.array(lo), np.array(hi)
    expect = ((low <= hi) & (high >= lo)).all(axis=1).astype(int)
    tri = POINTS.reshape(2, 3, 3)
    expect_faces = ((tri.min(axis=1) <= hi) & (tri.max(axis=1) >= lo)).all(axis=1).astype(int)
    assert hits.numpy().tolist() == expect.tolist()
    assert face_hits.numpy().tolist() == expect_faces.tolist()


def test_mesh_query_is_an_annotation_of_the_two_kinds():
    assert set(wp.MeshQuery.__constraints__) == {wp.MeshQueryAABB, wp.types.query_types.MeshQuerySphere}
