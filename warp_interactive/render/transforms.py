"""Camera and instance matrices, in NumPy (row-major 4x4, applied to column vectors).

The renderers take poses as position + quaternion ``(x, y, z, w)`` like ``wp.transform``.
OpenGL gets matrices column-major, so callers upload ``m.T`` (or ``transpose=GL_TRUE``).
"""

import numpy as np

# world -> OpenGL's Y-up frame, per up axis: a cyclic permutation (a rotation, so handedness and
# triangle winding are kept) taking the scene's up axis onto +Y
_UP_PERMUTATIONS = {
    0: np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0]], float),  # X up: (x, y, z) -> (z, x, y)
    1: np.eye(3),
    2: np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], float),  # Z up: (x, y, z) -> (y, z, x)
}


def axis_index(up_axis):
    if isinstance(up_axis, (int, np.integer)):
        if up_axis not in (0, 1, 2):
            raise ValueError(f"up_axis must be 0, 1, 2 or 'X', 'Y', 'Z', got {up_axis!r}")
        return int(up_axis)
    name = str(up_axis).upper()
    if name not in ("X", "Y", "Z"):
        raise ValueError(f"up_axis must be 0, 1, 2 or 'X', 'Y', 'Z', got {up_axis!r}")
    return "XYZ".index(name)


def world_matrix(up_axis, scaling):
    """The scene-to-OpenGL matrix: the up axis onto +Y, times the uniform scaling."""
    m = np.eye(4)
    m[:3, :3] = _UP_PERMUTATIONS[up_axis] * float(scaling)
    return m


def up_permutation(up_axis):
    return _UP_PERMUTATIONS[up_axis]


def perspective(fov_deg, aspect, near, far):
    f = 1.0 / np.tan(np.radians(fov_deg) / 2.0)
    m = np.zeros((4, 4))
    m[0, 0] = f / aspect
    m[1, 1] = f
    m[2, 2] = (far + near) / (near - far)
    m[2, 3] = 2.0 * far * near / (near - far)
    m[3, 2] = -1.0
    return m


def look_at(eye, front, up):
    eye = np.asarray(eye, float)
    f = np.asarray(front, float)
    f = f / np.linalg.norm(f)
    s = np.cross(f, np.asarray(up, float))
    norm = np.linalg.norm(s)
    if norm < 1e-12:  # looking along the up vector: any side direction will do
        s = np.cross(f, [1.0, 0.0, 0.0] if abs(f[0]) < 0.9 else [0.0, 0.0, 1.0])
        norm = np.linalg.norm(s)
    s = s / norm
    u = np.cross(s, f)
    m = np.eye(4)
    m[0, :3], m[1, :3], m[2, :3] = s, u, -f
    m[:3, 3] = -m[:3, :3] @ eye
    return m


def quat_to_matrices(q):
    """(n, 4) quaternions (x, y, z, w), normalised here -> (n, 3, 3) rotation matrices."""
    q = np.asarray(q, float).reshape(-1, 4)
    length = np.linalg.norm(q, axis=1, keepdims=True)
    q = np.divide(q, length, out=np.tile([0.0, 0.0, 0.0, 1.0], (len(q), 1)), where=length > 0)
    x, y, z, w = q.T
    r = np.empty((len(q), 3, 3))
    r[:, 0, 0] = 1 - 2 * (y * y + z * z)
    r[:, 0, 1] = 2 * (x * y - z * w)
    r[:, 0, 2] = 2 * (x * z + y * w)
    r[:, 1, 0] = 2 * (x * y + z * w)
    r[:, 1, 1] = 1 - 2 * (x * x + z * z)
    r[:, 1, 2] = 2 * (y * z - x * w)
    r[:, 2, 0] = 2 * (x * z - y * w)
    r[:, 2, 1] = 2 * (y * z + x * w)
    r[:, 2, 2] = 1 - 2 * (x * x + y * y)
    return r


def pose_matrices(poses, scales=None):
    """(n, 7) poses (position, quaternion xyzw) and (n, 3) scales -> (n, 4, 4) matrices
    translate * rotate * scale."""
    poses = np.asarray(poses, float).reshape(-1, 7)
    m = np.zeros((len(poses), 4, 4))
    rot = quat_to_matrices(poses[:, 3:7])
    if scales is not None:
        rot = rot * np.asarray(scales, float).reshape(-1, 1, 3)
    m[:, :3, :3] = rot
    m[:, :3, 3] = poses[:, :3]
    m[:, 3, 3] = 1.0
    return m


def segment_matrices(starts, ends):
    """Matrices taking the unit segment from (0, -0.5, 0) to (0, 0.5, 0) onto each segment
    (the radius is kept): scale Y by the length, turn +Y onto the direction, move to the middle."""
    starts = np.asarray(starts, float).reshape(-1, 3)
    ends = np.asarray(ends, float).reshape(-1, 3)
    d = ends - starts
    length = np.linalg.norm(d, axis=1)
    y = np.divide(d, length[:, None], out=np.tile([0.0, 1.0, 0.0], (len(d), 1)), where=length[:, None] > 0)
    # any unit vector not parallel to y, then an orthonormal frame (x, y, z)
    helper = np.where(np.abs(y[:, [0]]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 0.0, 1.0]])
    z = np.cross(helper, y)
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    x = np.cross(y, z)
    m = np.zeros((len(d), 4, 4))
    m[:, :3, 0], m[:, :3, 1], m[:, :3, 2] = x, y * length[:, None], z
    m[:, :3, 3] = 0.5 * (starts + ends)
    m[:, 3, 3] = 1.0
    return m


def quat_from_axis_angle(axis, angle):
    axis = np.asarray(axis, float)
    axis = axis / np.linalg.norm(axis)
    s = np.sin(0.5 * angle)
    return (axis[0] * s, axis[1] * s, axis[2] * s, np.cos(0.5 * angle))
