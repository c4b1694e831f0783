"""warp.geometry's swept volumes against brute force: the field at every node is the minimum
over the poses of the signed distance to the posed mesh (NumPy: the mesh's vertices moved by
the pose, exact closest distances, the sign from the exact winding number), the bounds are the
posed vertices' bounds, the extracted surface is marching cubes of that field."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.geometry as geo
from geometry_ref import closest_distance, icosphere, winding_numbers

Mode = geo.SweptVolumeSignMode


def quat_about(axis, angle):
    axis = np.asarray(axis, dtype=np.float64) / np.linalg.norm(axis)
    return np.concatenate([axis * np.sin(angle / 2), [np.cos(angle / 2)]])


def rotate(q, v):
    """Rotate the rows of v by the unit quaternion q = (x, y, z, w)."""
    u, w = q[:3], q[3]
    return v + 2.0 * np.cross(u, np.cross(u, v) + w * v)


def poses(translations, quats=None):
    tr = np.zeros((len(translations), 7), dtype=np.float32)
    tr[:, :3] = translations
    tr[:, 3:] = [0, 0, 0, 1] if quats is None else quats
    return tr


def brute_sdf(verts, faces, pose_list, points, signed=True):
    """min over poses of the (signed) distance from points to the posed mesh (float64)."""
    best = np.full(len(points), np.inf)
    for pose in pose_list:
        posed = rotate(pose[3:].astype(np.float64), verts.astype(np.float64)) + pose[:3]
        tris = posed[faces]
        inside = (winding_numbers(points, tris) > 0.5) & signed
        best = np.minimum(best, np.where(inside, -1.0, 1.0) * closest_distance(points, tris))
    return best


def brute_field(verts, faces, pose_list, lower, upper, dims, signed=True):
    axes = [np.linspace(lower[a], upper[a], dims[a]) for a in range(3)]
    nodes = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3)
    return brute_sdf(verts, faces, pose_list, nodes, signed).reshape(dims)


def make_mesh(verts, faces, winding=True):
    return wp.Mesh(wp.array(verts, dtype=wp.vec3), wp.array(faces.reshape(-1), dtype=wp.int32),
                   support_winding_number=winding)


@pytest.mark.parametrize("motion", ["translation", "rotation"])
@pytest.mark.parametrize("mode", [Mode.WINDING_NUMBER, Mode.NORMAL, Mode.PARITY])
def test_field_is_the_minimum_signed_distance_over_the_poses(motion, mode):
    # an off-centre sphere, so that a rotation moves it
    verts, faces = icosphere(2, radius=0.3)
    verts = verts + np.float32([0.4, 0.0, 0.0])
    if motion == "translation":
        tr = poses(np.linspace([0, 0, 0], [0.6, 0.2, 0], 4))
    else:
        tr = poses(np.zeros((4, 3)), [quat_about((0, 0, 1), a) for a in np.linspace(0, np.pi / 2, 4)])
    field, lower, upper = geo.swept_volume_field([make_mesh(verts, faces)], tr[None], voxel_size=0.1,
                                                 sign_mode=mode)
    want = brute_field(verts, faces, tr, np.array(lower), np.array(upper), field.shape)
    np.testing.assert_allclose(field.numpy(), want, atol=2e-5)
    assert (want < 0).any() and (want > 0).any()


def test_unsigned_field_and_two_meshes():
    verts, faces = icosphere(1, radius=0.25)
    meshes = [make_mesh(verts, faces, winding=False), make_mesh(verts, faces, winding=False)]
    tr = np.stack([poses([[-0.5, 0, 0], [-0.5, 0.3, 0]]), poses([[0.5, 0, 0], [0.5, 0, 0.3]])])
    field, lower, upper = geo.swept_volume_field(meshes, tr, resolution=(12, 9, 10), sign_mode=Mode.NO_SIGN)
    assert field.shape == (12, 9, 10)
    want = brute_field(verts, faces, np.concatenate(tr), np.array(lower), np.array(upper), field.shape, signed=False)
    np.testing.assert_allclose(field.numpy(), want, atol=2e-5)


def test_bounds_and_grid_sizing():
    verts, faces = icosphere(1, radius=0.5)
    mesh = make_mesh(verts, faces)
    q = quat_about((1, 1, 0), 0.7)
    tr = poses([[0, 0, 0], [1.0, -0.5, 0.25]], [q, q])
    lower, upper = geo.swept_volume_bounds([mesh], tr[None], padding=0.1)
    # the union of the posed rest boxes: the box's eight corners under each pose
    lo, hi = verts.min(axis=0), verts.max(axis=0)
    corners = np.array([[(lo, hi)[c >> a & 1][a] for a in range(3)] for c in range(8)], dtype=np.float64)
    posed = np.concatenate([rotate(p[3:].astype(np.float64), corners) + p[:3] for p in tr])
    np.testing.assert_allclose(np.array(lower), posed.min(axis=0) - 0.1, atol=1e-5)
    np.testing.assert_allclose(np.array(upper), posed.max(axis=0) + 0.1, atol=1e-5)
    # voxel_size: cubic cells of exactly that size, two cells of slack around the posed bounds
    field, lower, upper = geo.swept_volume_field([mesh], tr[None], voxel_size=0.125)
    spacing = (np.array(upper) - np.array(lower)) / (np.array(field.shape) - 1)
    np.testing.assert_allclose(spacing, 0.125, rtol=1e-5)
    assert np.all(np.array(lower) <= posed.min(axis=0) - 2 * 0.125 + 1e-5)
    assert np.all(np.array(upper) >= posed.max(axis=0) + 2 * 0.125 - 1e-5)
    # explicit corners are used as given
    field, lower, upper = geo.swept_volume_field([mesh], tr[None], resolution=(5, 6, 7), lower=(-1, -2, -3),
                                                 upper=(1, 2, 3))
    assert field.shape == (5, 6, 7) and tuple(lower) == (-1, -2, -3) and tuple(upper) == (1, 2, 3)


@wp.kernel
def _sdf_at(points: wp.array(dtype=wp.vec3), ids: wp.array(dtype=wp.uint64),
            tr: wp.array2d(dtype=wp.transform), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = geo.swept_volume_sdf(points[i], ids, tr, 10.0, wp.int32(1))


def test_mesh_is_a_closed_dilated_envelope_and_sdf_is_callable_from_kernels():
    verts, faces = icosphere(2, radius=0.3)
    mesh = make_mesh(verts, faces)
    tr = poses(np.linspace([0, 0, 0], [0.8, 0, 0], 5))[None]
    v, idx = geo.swept_volume_mesh([mesh], tr, voxel_size=0.08, threshold=0.05)
    faces_out = idx.numpy().reshape(-1, 3)
    # closed: every edge shared by exactly two triangles
    e = np.sort(np.concatenate([faces_out[:, [0, 1]], faces_out[:, [1, 2]], faces_out[:, [2, 0]]]), axis=1)
    assert (np.unique(e, axis=0, return_counts=True)[1] == 2).all()
    # every vertex lies on the 0.05 level of the capsule-like envelope (within the grid error)
    pts = v.numpy().astype(np.float64)
    x = np.clip(pts[:, 0], 0.0, 0.8)
    capsule = np.linalg.norm(pts - np.stack([x, 0 * x, 0 * x], 1), axis=1) - 0.3
    assert np.abs(capsule - 0.05).max() < 0.02
    out = wp.zeros(len(pts), dtype=float)
    wp.launch(_sdf_at, dim=len(pts), inputs=[v, wp.array([mesh.id], dtype=wp.uint64),
                                            wp.array(tr, dtype=wp.transform), out])
    np.testing.assert_allclose(out.numpy(), brute_sdf(verts, faces, tr[0], pts.astype(np.float32)), atol=2e-5)


@pytest.mark.parametrize("call, error, message", [
    (lambda m, t: geo.swept_volume_field([], t, voxel_size=0.1), ValueError, "at least one mesh"),
    (lambda m, t: geo.swept_volume_field([m], t), ValueError, "either 'voxel_size' or 'resolution'"),
    (lambda m, t: geo.swept_volume_field([m], t, voxel_size=0.1, resolution=(4, 4, 4)), ValueError, "not both"),
    (lambda m, t: geo.swept_volume_field([m], t, voxel_size=-0.1), ValueError, "must be positive"),
    (lambda m, t: geo.swept_volume_field([m], t, resolution=(4, 4)), ValueError, "exactly 3 entries"),
    (lambda m, t: geo.swept_volume_field([m], t, resolution=(4, 1, 4)), ValueError, "at least 2"),
    (lambda m, t: geo.swept_volume_field([m], t, resolution=(4, 4, 4), lower=(0, 0, 0)), ValueError,
     "both 'lower' and 'upper'"),
    (lambda m, t: geo.swept_volume_field([m], t, voxel_size=0.1, lower=(0, 0, 0), upper=(1, 1, 1)), ValueError,
     "pass 'resolution' instead"),
    (lambda m, t: geo.swept_volume_field([m], t, resolution=(4, 4, 4), lower=(0, 0, 0), upper=(1, 0, 1)),
     ValueError, "must exceed"),
    (lambda m, t: geo.swept_volume_field([m], np.concatenate([t, t]), voxel_size=0.1), ValueError,
     "2 rows but there are 1 meshes"),
    (lambda m, t: geo.swept_volume_field([m], t[:, :0], voxel_size=0.1), ValueError, "at least one pose"),
    (lambda m, t: geo.swept_volume_field([m], t[0], voxel_size=0.1), ValueError, "(num_meshes, num_samples, 7)"),
    (lambda m, t: geo.swept_volume_field([m], wp.zeros((1, 2), dtype=wp.vec3), voxel_size=0.1), TypeError,
     "dtype wp.transform"),
    (lambda m, t: geo.swept_volume_mesh([m], t, voxel_size=0.1, sign_mode=Mode.NO_SIGN), ValueError,
     "'threshold' must be positive"),
])
def test_errors_say_what_is_wrong(call, error, message):
    verts, faces = icosphere(0)
    tr = poses([[0, 0, 0], [0.5, 0, 0]])[None]
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(make_mesh(verts, faces), tr)


def test_winding_mode_needs_the_winding_data():
    verts, faces = icosphere(0)
    with pytest.raises(ValueError, match="support_winding_number=True"):
        geo.swept_volume_field([make_mesh(verts, faces, winding=False)], poses([[0, 0, 0]])[None], voxel_size=0.2)
