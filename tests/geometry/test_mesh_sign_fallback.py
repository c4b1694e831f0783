"""`mesh_query_point_sign_winding_number` on a mesh built without `support_winding_number`: as in
warp-lang, the sign comes from rays along +x, +y and +z (inside when at least two of them first
meet a face from its back), found through the BVH rather than by summing every triangle's solid
angle. Checked against a NumPy brute force of that rule over all triangles, and on closed meshes
against the exact winding number."""

import numpy as np
import pytest

import warp_interactive as wp
from geometry_ref import icosphere, ray_triangle_t, winding_numbers


@wp.kernel
def _signs(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float), found: wp.array(dtype=int)):
    tid = wp.tid()
    q = wp.mesh_query_point_sign_winding_number(mesh, pts[tid], 100.0)
    out[tid] = q.sign
    found[tid] = int(q.result)


def kernel_signs(verts, faces, pts, **mesh_args):
    mesh = wp.Mesh(points=wp.array(verts, dtype=wp.vec3), indices=wp.array(faces.reshape(-1), dtype=wp.int32),
                   **mesh_args)
    out, found = wp.zeros(len(pts), dtype=float), wp.zeros(len(pts), dtype=int)
    wp.launch(_signs, dim=len(pts), inputs=[mesh.id, wp.array(pts, dtype=wp.vec3), out, found])
    assert found.numpy().all()
    return out.numpy()


def first_hit_signs(verts, faces, pts):
    """The rule by brute force: for each axis ray, the nearest face over all faces, and whether
    the ray meets it from its back (moving along the face normal)."""
    tris = verts[faces].astype(np.float64)
    normals = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    votes = np.zeros(len(pts), dtype=int)
    for axis in range(3):
        d = np.zeros((len(pts), 3))
        d[:, axis] = 1.0
        t = ray_triangle_t(pts, d, tris)
        t = np.where(t >= 0, t, np.inf)
        nearest = np.argmin(t, axis=1)
        hit = np.isfinite(t[np.arange(len(pts)), nearest])
        votes += hit & (normals[nearest, axis] > 0)
    return np.where(votes >= 2, -1.0, 1.0)


def _generic_points(rng, n, verts, faces):
    """Random points whose axis rays stay clear of the faces' edges (a ray through an edge is
    a tie that float32 and float64 may break differently)."""
    pts = rng.uniform(-1.5, 1.5, (n, 3))
    tris = verts[faces].astype(np.float64)
    keep = np.ones(n, dtype=bool)
    for axis in range(3):
        for eps in (1e-4, -1e-4):
            shifted = pts.copy()
            shifted[:, (axis + 1) % 3] += eps
            d = np.zeros((n, 3))
            d[:, axis] = 1.0
            a = np.isfinite(ray_triangle_t(pts, d, tris)) & (ray_triangle_t(pts, d, tris) >= 0)
            b = np.isfinite(ray_triangle_t(shifted, d, tris)) & (ray_triangle_t(shifted, d, tris) >= 0)
            keep &= (a == b).all(axis=1)
    return pts[keep].astype(np.float32)


@pytest.mark.parametrize("keep_fraction", [1.0, 0.7, 0.4])
def test_sign_without_winding_data_is_the_first_hit_vote(keep_fraction):
    """On an open soup the vote differs from the winding number; the kernel follows the vote."""
    rng = np.random.default_rng(3)
    verts, faces = icosphere(2)
    faces = faces[rng.random(len(faces)) < keep_fraction]
    pts = _generic_points(rng, 400, verts, faces)
    want = first_hit_signs(verts, faces, pts)
    np.testing.assert_array_equal(kernel_signs(verts, faces, pts), want)
    if keep_fraction < 1.0:   # the case distinguishes the rule from the winding number's
        exact = winding_numbers(pts.astype(np.float64), verts[faces].astype(np.float64))
        assert np.any(want != np.where(exact > 0.5, -1.0, 1.0))


@pytest.mark.parametrize("scale", [1.0, 0.25])
def test_closed_mesh_signs_agree_with_the_exact_winding_number(scale):
    rng = np.random.default_rng(4)
    verts, faces = icosphere(3, radius=scale)
    pts = _generic_points(rng, 500, verts, faces) * np.float32(scale)
    r = np.linalg.norm(pts, axis=1)
    pts = pts[np.abs(r - 0.995 * scale) > 0.01 * scale]   # off the facets
    exact = winding_numbers(pts.astype(np.float64), verts[faces].astype(np.float64))
    want = np.where(exact > 0.5, -1.0, 1.0)
    np.testing.assert_array_equal(kernel_signs(verts, faces, pts), want)
    np.testing.assert_array_equal(kernel_signs(verts, faces, pts, support_winding_number=True), want)
