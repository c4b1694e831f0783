"""``wp.geometry``'s swept volumes: the region rigid meshes cover over sampled poses.

The swept volume's pseudo signed distance at a point is the minimum, over every mesh and every
pose sample, of the mesh's signed distance there. Poses are rigid, so each (mesh, pose) is one
closest-point query with the point carried back into the mesh's rest frame (distances are the
same in both frames). ``swept_volume_field`` samples it on a grid (by brute force over the
samples: "dense time stamping"), ``swept_volume_mesh`` extracts a level set with marching cubes.
Motion between samples is not bounded: the envelope is the union of the sampled poses only.
"""

import enum
import math

import numpy as np

import warp_interactive as wp

from .marching_cubes import IsoSurfaceMarchingCubes


class SweptVolumeSignMode(enum.IntEnum):
    """How a mesh's distance gets its inside/outside sign (an ``IntEnum``: its values go into
    kernels as integers)."""

    NORMAL = 0
    """``mesh_query_point_sign_normal``: the closest face's normal."""

    WINDING_NUMBER = 1
    """``mesh_query_point_sign_winding_number``; every mesh must be built with
    ``support_winding_number=True``."""

    PARITY = 2
    """Ray-crossing parity, as warp-lang's ``mesh_query_point_sign_parity`` with its defaults."""

    NO_SIGN = 3
    """Unsigned distance (``mesh_query_point_no_sign``): positive everywhere, so only a
    ``threshold > 0`` level set exists (the envelope of a thin shell, dilated); a solid may get
    spurious inner surfaces."""


@wp.func
def _parity_sign(mesh: wp.uint64, p: wp.vec3):
    """-1 when a ray from ``p`` crosses the surface an odd number of times: one ray along
    (1, 1, 1) tilted per axis by a uniform offset in [-0.1, 0.1) drawn (x, y, z) from seed 42,
    the ray warp-lang's ``mesh_query_point_sign_parity`` casts by default (never near zero)."""
    state = wp.rand_init(42)
    x = wp.randf(state, -0.1, 0.1)
    y = wp.randf(state, -0.1, 0.1)
    z = wp.randf(state, -0.1, 0.1)
    crossings = wp.mesh_query_ray_count_intersections(mesh, p, wp.vec3(1.0 + x, 1.0 + y, 1.0 + z))
    return wp.where(crossings % 2 == 1, -1.0, 1.0)


@wp.func
def _posed_distance(mesh: wp.uint64, p: wp.vec3, max_dist: wp.float32, best: wp.float32, sign_mode: wp.int32):
    """Signed distance from ``p`` (rest frame) to ``mesh``, or ``max_dist`` when no face lies
    within the search bound."""
    if sign_mode == 3:
        # unsigned distances are never negative: nothing beyond the running minimum can lower it
        q0 = wp.mesh_query_point_no_sign(mesh, p, best)
        if q0.result:
            return wp.length(p - wp.mesh_eval_position(mesh, q0.face, q0.u, q0.v))
        return max_dist
    if sign_mode == 1:
        q1 = wp.mesh_query_point_sign_winding_number(mesh, p, max_dist)
        if q1.result:
            return q1.sign * wp.length(p - wp.mesh_eval_position(mesh, q1.face, q1.u, q1.v))
        return max_dist
    if sign_mode == 2:
        q2 = wp.mesh_query_point_no_sign(mesh, p, max_dist)
        if q2.result:
            return _parity_sign(mesh, p) * wp.length(p - wp.mesh_eval_position(mesh, q2.face, q2.u, q2.v))
        return max_dist
    q3 = wp.mesh_query_point_sign_normal(mesh, p, max_dist)
    if q3.result:
        return q3.sign * wp.length(p - wp.mesh_eval_position(mesh, q3.face, q3.u, q3.v))
    return max_dist


@wp.func
def swept_volume_sdf(point: wp.vec3, mesh_ids: wp.array(dtype=wp.uint64), transforms: wp.array2d(dtype=wp.transform),
                     max_dist: wp.float32, sign_mode: wp.int32) -> wp.float32:
    """The swept volume's pseudo signed distance at ``point`` (world space): the minimum over
    meshes m and samples s of mesh m's signed distance at ``transforms[m, s]^-1 point``, capped
    at ``max_dist`` (also the closest-point search bound: a point with no face within it gets
    ``+max_dist``, inside or not). ``sign_mode``: a ``SweptVolumeSignMode`` value. Callable from
    kernels; not differentiable."""
    best = max_dist
    for m in range(mesh_ids.shape[0]):
        for s in range(transforms.shape[1]):
            p = wp.transform_point(wp.transform_inverse(transforms[m, s]), point)
            best = wp.min(best, _posed_distance(mesh_ids[m], p, max_dist, best, sign_mode))
    return best


@wp.kernel(enable_backward=False)
def _field_kernel(mesh_ids: wp.array(dtype=wp.uint64), transforms: wp.array2d(dtype=wp.transform),
                  origin: wp.vec3, spacing: wp.vec3, max_dist: wp.float32, sign_mode: wp.int32,
                  field: wp.array3d(dtype=wp.float32)):
    i, j, k = wp.tid()
    point = origin + wp.cw_mul(spacing, wp.vec3(float(i), float(j), float(k)))
    field[i, j, k] = swept_volume_sdf(point, mesh_ids, transforms, max_dist, sign_mode)


@wp.kernel(enable_backward=False)
def _posed_box_corners(lower: wp.array(dtype=wp.vec3), upper: wp.array(dtype=wp.vec3),
                       transforms: wp.array2d(dtype=wp.transform), corners: wp.array3d(dtype=wp.vec3)):
    """The eight corners of mesh m's rest-pose box under pose s: their bounds bound the posed
    mesh (a rigid map sends the box to a box spanned by those corners)."""
    m, s, c = wp.tid()
    lo = lower[m]
    hi = upper[m]
    corner = wp.vec3(wp.where((c & 1) == 0, lo[0], hi[0]), wp.where((c & 2) == 0, lo[1], hi[1]),
                     wp.where((c & 4) == 0, lo[2], hi[2]))
    corners[m, s, c] = wp.transform_point(transforms[m, s], corner)


def _transforms(transforms, device):
    """The poses as a (num_meshes, num_samples) ``wp.transform`` array on ``device``."""
    if isinstance(transforms, wp.array):
        if transforms.ndim != 2:
            raise ValueError("'transforms' must be a 2D array of shape (num_meshes, num_samples), "
                             f"got {transforms.ndim} dimensions.")
        if not wp.types.types_equal(transforms.dtype, wp.transform):
            raise TypeError(f"'transforms' must have dtype wp.transform, got {wp.types.type_repr(transforms.dtype)}.")
        return transforms.to(device)
    data = np.asarray(transforms, dtype=np.float32)
    if data.ndim != 3 or data.shape[2] != 7:
        raise ValueError("'transforms' must be a wp.array2d(dtype=wp.transform) or an array of shape "
                         f"(num_meshes, num_samples, 7) (translation xyz, quaternion xyzw), got shape {data.shape}.")
    return wp.array(data, dtype=wp.transform, device=device)


def _check_poses(meshes, transforms):
    if transforms.shape[0] != len(meshes):
        raise ValueError(f"'transforms' has {transforms.shape[0]} rows but there are {len(meshes)} meshes.")
    if transforms.shape[1] == 0:
        raise ValueError("'transforms' must contain at least one pose sample.")


def _prepare(meshes, transforms, device):
    """(device, transforms) after the checks every entry point shares."""
    if len(meshes) == 0:
        raise ValueError("'meshes' must contain at least one mesh.")
    device = wp.get_device(device) if device is not None else meshes[0].device
    transforms = _transforms(transforms, device)
    _check_poses(meshes, transforms)
    return device, transforms


def _posed_bounds(meshes, transforms, device):
    """(lower, upper) as float tuples: the union of every mesh's rest box under every pose."""
    boxes = [(m.points.numpy().min(axis=0), m.points.numpy().max(axis=0)) for m in meshes if m.points.shape[0]]
    if not boxes:
        raise ValueError("Could not compute swept-volume bounds: all input meshes are empty.")
    used = [m for m, mesh in enumerate(meshes) if mesh.points.shape[0]]
    lo = wp.array(np.array([b[0] for b in boxes], dtype=np.float32), dtype=wp.vec3, device=device)
    hi = wp.array(np.array([b[1] for b in boxes], dtype=np.float32), dtype=wp.vec3, device=device)
    poses = wp.array(transforms.numpy()[used], dtype=wp.transform, device=device)
    corners = wp.empty((len(used), poses.shape[1], 8), dtype=wp.vec3, device=device)
    wp.launch(_posed_box_corners, dim=corners.shape, inputs=[lo, hi, poses], outputs=[corners], device=device)
    points = corners.numpy().reshape(-1, 3)
    return tuple(float(x) for x in points.min(axis=0)), tuple(float(x) for x in points.max(axis=0))


def swept_volume_bounds(meshes, transforms, padding: float = 0.0, device=None):
    """(lower, upper) as ``wp.vec3``: world-space bounds of every mesh over every pose, widened by
    ``padding`` on each side; for a domain that several swept-volume fields share."""
    device, transforms = _prepare(meshes, transforms, device)
    lo, hi = _posed_bounds(meshes, transforms, device)
    return wp.vec3(*(x - padding for x in lo)), wp.vec3(*(x + padding for x in hi))


def _grid_arguments(voxel_size, resolution, lower, upper):
    """The node counts asked for (or None), after checking the argument combination."""
    if (lower is None) != (upper is None):
        raise ValueError("Pass both 'lower' and 'upper', or neither.")
    if voxel_size is not None and resolution is not None:
        raise ValueError("Pass either 'voxel_size' or 'resolution', not both.")
    if voxel_size is None and resolution is None:
        raise ValueError("Provide either 'voxel_size' or 'resolution'.")
    if voxel_size is not None and not voxel_size > 0.0:
        raise ValueError(f"'voxel_size' must be positive, got {voxel_size}.")
    if voxel_size is not None and lower is not None:
        raise ValueError("'voxel_size' cannot be combined with explicit domain bounds (the extent would have "
                         "to grow to whole cells); pass 'resolution' instead.")
    if resolution is None:
        return None
    dims = tuple(int(n) for n in resolution)
    if len(dims) != 3:
        raise ValueError(f"'resolution' must have exactly 3 entries, got {dims}.")
    if any(n < 2 for n in dims):
        raise ValueError(f"'resolution' must be at least 2 along each axis, got {dims}.")
    return dims


def _grid(meshes, transforms, voxel_size, resolution, lower, upper, extra, device):
    """(lower, upper, dims, tight lower, tight upper). Given corners are used as they are. Else
    the posed bounds are padded by ``extra`` plus two cells, so the level set stays inside: with
    ``voxel_size`` the extent is then grown to whole cells of exactly that size (centred), with
    ``resolution`` the two cells are measured at the unpadded spacing."""
    dims = _grid_arguments(voxel_size, resolution, lower, upper)
    tight_lo, tight_hi = _posed_bounds(meshes, transforms, device)
    tight = [tight_hi[a] - tight_lo[a] for a in range(3)]
    if lower is not None:
        lower, upper = wp.vec3(*(float(c) for c in lower)), wp.vec3(*(float(c) for c in upper))
        if any(upper[a] <= lower[a] for a in range(3)):
            raise ValueError(f"'upper' {upper} must exceed 'lower' {lower}.")
        return lower, upper, dims, tight_lo, tight_hi
    if voxel_size is not None:
        pad = extra + 2.0 * voxel_size
        dims = tuple(max(2, int(math.ceil((tight[a] + 2.0 * pad) / voxel_size)) + 1) for a in range(3))
        grow = [0.5 * ((dims[a] - 1) * voxel_size - tight[a]) for a in range(3)]
    else:
        grow = [extra + 2.0 * tight[a] / (dims[a] - 1) for a in range(3)]
    lower = wp.vec3(*(tight_lo[a] - grow[a] for a in range(3)))
    upper = wp.vec3(*(tight_hi[a] + grow[a] for a in range(3)))
    return lower, upper, dims, tight_lo, tight_hi


def swept_volume_field(meshes, transforms, voxel_size=None, *, resolution=None, lower=None, upper=None,
                       sign_mode=SweptVolumeSignMode.WINDING_NUMBER, device=None):
    """(field, lower, upper): ``swept_volume_sdf`` at the nodes of a regular grid, a 3D float32
    array (negative inside), its node (0, 0, 0) at ``lower`` and its last node at ``upper``.

    transforms: (num_meshes, num_samples) rigid poses (rest to world), a ``wp.transform`` array
    or an array of shape (num_meshes, num_samples, 7). Give ``voxel_size`` (cubic cells; the
    domain is the posed bounds padded by two cells, grown to whole cells) or ``resolution`` (node
    counts; with ``lower``/``upper``, that exact domain). Not differentiable.
    """
    if len(meshes) == 0:
        raise ValueError("'meshes' must contain at least one mesh.")
    device = wp.get_device(device) if device is not None else meshes[0].device
    for i, mesh in enumerate(meshes):
        if mesh.device != device:
            raise ValueError(f"'meshes[{i}]' is on device '{mesh.device}' but the launch device is '{device}'.")
        if sign_mode == SweptVolumeSignMode.WINDING_NUMBER and not mesh.support_winding_number:
            raise ValueError(f"'meshes[{i}]' was not built with support_winding_number=True, which "
                             "SweptVolumeSignMode.WINDING_NUMBER (the default) requires: rebuild it with "
                             "wp.Mesh(..., support_winding_number=True), or pass another sign_mode.")
    device, transforms = _prepare(meshes, transforms, device)
    lower, upper, dims, tight_lo, tight_hi = _grid(meshes, transforms, voxel_size, resolution, lower, upper,
                                                   0.0, device)
    spacing = wp.vec3(*((upper[a] - lower[a]) / (dims[a] - 1) for a in range(3)))
    # a query that finds no face within its bound has no sign: let every node reach the geometry,
    # even from an explicit domain that lies inside the solid or away from it
    span = [max(upper[a], tight_hi[a]) - min(lower[a], tight_lo[a]) for a in range(3)]
    max_dist = math.sqrt(sum(x * x for x in span))
    ids = wp.array([mesh.id for mesh in meshes], dtype=wp.uint64, device=device)
    field = wp.empty(dims, dtype=wp.float32, device=device)
    wp.launch(_field_kernel, dim=dims, inputs=[ids, transforms, lower, spacing, float(max_dist), int(sign_mode)],
              outputs=[field], device=device)
    return field, lower, upper


def swept_volume_mesh(meshes, transforms, voxel_size=None, *, resolution=None, lower=None, upper=None,
                      threshold: float = 0.0, sign_mode=SweptVolumeSignMode.WINDING_NUMBER, device=None):
    """(verts, indices): the ``threshold`` level set of ``swept_volume_field`` by marching cubes,
    one triangle mesh in world space. The default domain is padded by ``threshold`` too; the
    surface is sure to enclose every sampled pose only for ``threshold > 0.5 * |cell diagonal|``.
    ``SweptVolumeSignMode.NO_SIGN`` needs ``threshold > 0``."""
    if sign_mode == SweptVolumeSignMode.NO_SIGN and not threshold > 0.0:
        raise ValueError(f"'threshold' must be positive with SweptVolumeSignMode.NO_SIGN, got {threshold}: an "
                         "unsigned field is positive everywhere, so its zero level set is empty.")
    device, transforms = _prepare(meshes, transforms, device)
    lower, upper, dims, _, _ = _grid(meshes, transforms, voxel_size, resolution, lower, upper,
                                     max(threshold, 0.0), device)
    field, lower, upper = swept_volume_field(meshes, transforms, resolution=dims, lower=lower, upper=upper,
                                             sign_mode=sign_mode, device=device)
    return IsoSurfaceMarchingCubes.extract(field, threshold=threshold, lower=lower, upper=upper)
