"""Triangle meshes of the primitive shapes, built with NumPy.

Every builder returns ``(vertices, indices)``: ``vertices`` is a float32 ``(n, 8)`` array of
position, normal and texture coordinate (the layout the OpenGL renderer uploads), ``indices`` a
flat uint32 array of triangles wound counter-clockwise seen from outside (back faces are culled).
Shapes with an axis are built along +Y and turned onto the requested ``up_axis`` by a rotation,
never a mirror, so the winding survives.
"""

import numpy as np

SEGMENTS = 32

# rotations taking +Y onto the given axis (proper rotations: determinant +1)
_AXIS_ROTATIONS = {
    0: np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),
    1: np.eye(3),
    2: np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]),
}


def _pack(positions, normals, uvs, indices):
    vertices = np.concatenate([positions, normals, uvs], axis=1).astype(np.float32)
    return vertices, np.asarray(indices, dtype=np.uint32).reshape(-1)


def _to_axis(vertices, up_axis):
    rot = _AXIS_ROTATIONS[int(up_axis)]
    out = vertices.copy()
    out[:, 0:3] = vertices[:, 0:3] @ rot.T
    out[:, 3:6] = vertices[:, 3:6] @ rot.T
    return out


def _grid_indices(rows, cols, offset=0):
    """Two triangles per cell of a (rows+1) x (cols+1) vertex grid, rows running downwards
    (from +Y to -Y) and columns counter-clockwise seen from +Y."""
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    a = r * (cols + 1) + c
    b = a + cols + 1
    tris = np.stack([a, b, a + 1, a + 1, b, b + 1], axis=-1).reshape(-1, 3)
    return tris + offset


def _ring(theta):
    """Unit circle points around +Y, counter-clockwise seen from above (+Y)."""
    return np.cos(theta), -np.sin(theta)


def _surface_of_revolution(profile_r, profile_y, profile_nr, profile_ny, segments):
    """Vertices and triangles of a surface turned around +Y: profile points (r, y) run from top
    to bottom, each with its outward normal (nr, ny) in the half plane."""
    theta = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    cx, cz = _ring(theta)
    rows = len(profile_r)
    pos = np.empty((rows, segments + 1, 3))
    nrm = np.empty((rows, segments + 1, 3))
    pos[..., 0] = profile_r[:, None] * cx[None, :]
    pos[..., 1] = profile_y[:, None]
    pos[..., 2] = profile_r[:, None] * cz[None, :]
    nrm[..., 0] = profile_nr[:, None] * cx[None, :]
    nrm[..., 1] = profile_ny[:, None]
    nrm[..., 2] = profile_nr[:, None] * cz[None, :]
    uv = np.stack(np.meshgrid(np.linspace(0, 1, rows), theta / (2 * np.pi), indexing="ij")[::-1], -1)
    tris = _grid_indices(rows - 1, segments)
    return pos.reshape(-1, 3), nrm.reshape(-1, 3), uv.reshape(-1, 2), tris


def _disk(radius, y, up, segments, offset):
    """A flat cap at height y facing +Y (up=True) or -Y."""
    theta = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    cx, cz = _ring(theta)
    pos = np.concatenate([[[0.0, y, 0.0]], np.stack([radius * cx, np.full_like(cx, y), radius * cz], 1)])
    nrm = np.tile([0.0, 1.0 if up else -1.0, 0.0], (segments + 2, 1))
    uv = np.concatenate([[[0.5, 0.5]], np.stack([0.5 + 0.5 * cx, 0.5 + 0.5 * cz], 1)])
    i = np.arange(segments)
    if up:
        tris = np.stack([np.zeros_like(i), i + 1, i + 2], 1)
    else:
        tris = np.stack([np.zeros_like(i), i + 2, i + 1], 1)
    return pos, nrm, uv, tris + offset


def _combine(parts):
    pos, nrm, uv, tris, offset = [], [], [], [], 0
    for p, n, t, idx in parts:
        pos.append(p)
        nrm.append(n)
        uv.append(t)
        tris.append(idx + offset)
        offset += len(p)
    return _pack(np.concatenate(pos), np.concatenate(nrm), np.concatenate(uv), np.concatenate(tris))


def sphere(radius=1.0, segments=SEGMENTS):
    phi = np.linspace(0.0, np.pi, segments + 1)  # from the north pole down
    r, y = np.sin(phi), np.cos(phi)
    p, n, t, idx = _surface_of_revolution(radius * r, radius * y, r, y, segments)
    return _combine([(p, n, t, idx)])


def capsule(radius, half_height, up_axis=1, segments=SEGMENTS):
    half = segments // 2
    phi_top = np.linspace(0.0, 0.5 * np.pi, half + 1)
    phi_bot = np.linspace(0.5 * np.pi, np.pi, half + 1)
    r = np.concatenate([np.sin(phi_top), np.sin(phi_bot)])
    ny = np.concatenate([np.cos(phi_top), np.cos(phi_bot)])
    y = np.concatenate([half_height + radius * np.cos(phi_top), -half_height + radius * np.cos(phi_bot)])
    p, n, t, idx = _surface_of_revolution(radius * r, y, r, ny, segments)
    vertices, indices = _combine([(p, n, t, idx)])
    return _to_axis(vertices, up_axis), indices


def cylinder(radius, half_height, up_axis=1, segments=SEGMENTS, top_radius=None):
    top = radius if top_radius is None else top_radius
    # the side's normal leans towards the narrow end by the slope of the side
    slope = (radius - top) / (2.0 * half_height) if half_height > 0 else 0.0
    length = np.hypot(1.0, slope)
    nr, ny = 1.0 / length, slope / length
    side = _surface_of_revolution(np.array([top, radius]), np.array([half_height, -half_height]),
                                  np.array([nr, nr]), np.array([ny, ny]), segments)
    parts = [side, _disk(radius, -half_height, False, segments, 0)]
    if top > 0.0:
        parts.append(_disk(top, half_height, True, segments, 0))
    vertices, indices = _combine(parts)
    return _to_axis(vertices, up_axis), indices


def cone(radius, half_height, up_axis=1, segments=SEGMENTS):
    """A cone with its base at -half_height and its apex at +half_height."""
    return cylinder(radius, half_height, up_axis, segments, top_radius=0.0)


def arrow(base_radius, base_height, cap_radius=None, cap_height=None, up_axis=1, segments=SEGMENTS):
    """A shaft from 0 to base_height along the axis, with a conical head on top."""
    cap_radius = base_radius * 1.8 if cap_radius is None else cap_radius
    cap_height = base_height * 0.18 if cap_height is None else cap_height
    shaft_v, shaft_i = cylinder(base_radius, 0.5 * base_height, 1, segments)
    shaft_v[:, 1] += 0.5 * base_height
    head_v, head_i = cone(cap_radius, 0.5 * cap_height, 1, segments)
    head_v[:, 1] += base_height + 0.5 * cap_height
    vertices = np.concatenate([shaft_v, head_v])
    indices = np.concatenate([shaft_i, head_i + len(shaft_v)]).astype(np.uint32)
    return _to_axis(vertices, up_axis), indices


def box(extents):
    """A box with the given half extents, four vertices per face (flat normals)."""
    hx, hy, hz = (float(e) for e in extents)
    pos, nrm, uv, tris = [], [], [], []
    for axis in range(3):
        for sign in (1.0, -1.0):
            normal = np.zeros(3)
            normal[axis] = sign
            u_axis, v_axis = (axis + 1) % 3, (axis + 2) % 3
            # (u, v, normal) is right-handed, so (u, v) corners in this order are counter-clockwise
            # seen from +normal; on the negative face swap them
            corners = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
            if sign < 0:
                corners = [(-1, -1), (-1, 1), (1, 1), (1, -1)]
            base = len(pos)
            for cu, cv in corners:
                p = np.zeros(3)
                p[axis] = sign
                p[u_axis], p[v_axis] = cu, cv
                pos.append(p * (hx, hy, hz))
                nrm.append(normal)
                uv.append(((cu + 1) / 2, (cv + 1) / 2))
            tris += [(base, base + 1, base + 2), (base, base + 2, base + 3)]
    return _pack(np.array(pos), np.array(nrm), np.array(uv), np.array(tris))


def plane(width, length, u_scaling=1.0, v_scaling=1.0):
    """The rectangle [-width, width] x [-length, length] in the XZ plane, facing +Y."""
    width = width if width > 0.0 else 100.0
    length = length if length > 0.0 else 100.0
    u, v = width * u_scaling, length * v_scaling
    pos = np.array([[-width, 0, -length], [-width, 0, length], [width, 0, length], [width, 0, -length]], float)
    nrm = np.tile([0.0, 1.0, 0.0], (4, 1))
    uv = np.array([[0, 0], [0, v], [u, v], [u, 0]], float)
    return _pack(pos, nrm, uv, [[0, 1, 2], [0, 2, 3]])


def mesh_vertices(points, indices, scale=(1.0, 1.0, 1.0), smooth=True):
    """Renderable vertices of a user mesh: with smooth shading one vertex per point with the
    area-weighted average normal of its faces; flat shading gives each triangle corner its own
    vertex with the face normal. Returns (vertices, indices)."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    tris = np.asarray(indices, dtype=np.int64).reshape(-1, 3)
    scaled = points * np.asarray(scale, dtype=np.float64)
    a, b, c = scaled[tris[:, 0]], scaled[tris[:, 1]], scaled[tris[:, 2]]
    face_n = np.cross(b - a, c - a)  # length = twice the area: the weight of the average
    if smooth:
        normals = np.zeros_like(points)
        for k in range(3):
            np.add.at(normals, tris[:, k], face_n)
        normals = _normalized(normals)
        uv = np.zeros((len(points), 2))
        return _pack(points, normals, uv, tris)
    corners = points[tris.reshape(-1)]
    normals = np.repeat(_normalized(face_n), 3, axis=0)
    uv = np.zeros((len(corners), 2))
    return _pack(corners.reshape(-1, 3), normals.reshape(-1, 3), uv, np.arange(len(corners)))


def _normalized(v):
    length = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.divide(v, length, out=np.zeros_like(v), where=length > 0)
