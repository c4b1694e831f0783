"""The primitive meshes the OpenGL renderer draws: closed, wound outwards (back faces are
culled, so an inward triangle would vanish), with the analytic volume and outward normals."""

import numpy as np
import pytest

from warp_interactive.render import meshes, transforms


def _volume(vertices, indices):
    p = vertices[:, :3].astype(np.float64)
    t = indices.reshape(-1, 3)
    a, b, c = p[t[:, 0]], p[t[:, 1]], p[t[:, 2]]
    return np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0


r, hh = 0.7, 1.3
CASES = {
    "sphere": (lambda: meshes.sphere(r), 4 / 3 * np.pi * r ** 3),
    "capsule": (lambda: meshes.capsule(r, hh), 4 / 3 * np.pi * r ** 3 + np.pi * r ** 2 * 2 * hh),
    "cylinder": (lambda: meshes.cylinder(r, hh), np.pi * r ** 2 * 2 * hh),
    "cone": (lambda: meshes.cone(r, hh), np.pi * r ** 2 * 2 * hh / 3),
    "box": (lambda: meshes.box((0.5, 1.0, 2.0)), 8 * 0.5 * 1.0 * 2.0),
    "arrow": (lambda: meshes.arrow(0.1, 2.0, 0.3, 0.5), np.pi * 0.01 * 2.0 + np.pi * 0.09 * 0.5 / 3),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("up_axis", [0, 1, 2])
def test_closed_shapes_have_their_volume_and_face_out(name, up_axis):
    build, volume = CASES[name]
    vertices, indices = build()
    if name not in ("sphere", "box"):
        vertices = meshes._to_axis(vertices, up_axis) if up_axis != 1 else vertices
    # a tessellated round shape is a little smaller than the true one: 32 segments lose < 2 %
    assert _volume(vertices, indices) == pytest.approx(volume, rel=0.02)
    assert _volume(vertices, indices) > 0  # positive: counter-clockwise seen from outside
    t = indices.reshape(-1, 3)
    p = vertices[:, :3]
    face_n = np.cross(p[t[:, 1]] - p[t[:, 0]], p[t[:, 2]] - p[t[:, 0]])
    big = np.linalg.norm(face_n, axis=1) > 1e-9
    vertex_n = vertices[t[:, 0], 3:6]
    # each triangle's winding agrees with its stored normals
    assert (np.einsum("ij,ij->i", face_n[big], vertex_n[big]) > 0).all()
    np.testing.assert_allclose(np.linalg.norm(vertices[:, 3:6], axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("up_axis, axis", [(0, 0), (1, 1), (2, 2)])
def test_axis_shapes_point_along_up_axis(up_axis, axis):
    vertices, _ = meshes.cone(0.5, 1.0, up_axis=up_axis)
    apex = vertices[np.argmax(vertices[:, axis]), :3]
    expected = np.zeros(3)
    expected[axis] = 1.0
    np.testing.assert_allclose(apex, expected, atol=1e-6)


@pytest.mark.parametrize("smooth", [True, False])
def test_user_mesh_normals(smooth):
    # a tetrahedron wound outwards: smooth normals average the faces, flat ones are per face
    p = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32)
    t = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    vertices, indices = meshes.mesh_vertices(p, t, smooth=smooth)
    assert _volume(vertices, indices) == pytest.approx(1 / 6)
    if smooth:
        np.testing.assert_allclose(vertices[0, 3:6], -np.ones(3) / np.sqrt(3), atol=1e-6)
    else:
        assert len(vertices) == 12
        np.testing.assert_allclose(vertices[9, 3:6], np.ones(3) / np.sqrt(3), atol=1e-6)


def test_segment_matrices_map_the_unit_segment():
    starts = np.array([[0, 0, 0], [1, 2, 3], [0, 0, 0]], float)
    ends = np.array([[0, 0, 2], [1, 2, 1], [-1, 0, 0]], float)
    m = transforms.segment_matrices(starts, ends)
    for k in range(3):
        lo = m[k] @ [0, -0.5, 0, 1]
        hi = m[k] @ [0, 0.5, 0, 1]
        np.testing.assert_allclose(lo[:3], starts[k], atol=1e-12)
        np.testing.assert_allclose(hi[:3], ends[k], atol=1e-12)
        # the cross-section keeps its size (the radius)
        np.testing.assert_allclose(np.linalg.norm(m[k][:3, 0]), 1.0)
        np.testing.assert_allclose(np.linalg.norm(m[k][:3, 2]), 1.0)


def test_quaternions_match_axis_angle_rotation():
    q = transforms.quat_from_axis_angle((0, 0, 1), np.pi / 2)
    rot = transforms.quat_to_matrices([q])[0]
    np.testing.assert_allclose(rot @ [1, 0, 0], [0, 1, 0], atol=1e-12)
