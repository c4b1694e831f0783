"""Declarations of the geometry builtins: meshes, BVHs, hash grids and sparse volumes.

The C++ lives in native/include/warp_interactive/geometry/{bvh,mesh,hashgrid,volume}.h. Structures are
passed to kernels by id (``mesh.id``: a uint64 address of the native descriptor).

Out-parameter forms (``wp.mesh_query_ray(mesh, o, d, t_max, t, u, v, sign, n, f)``,
``wp.hash_grid_query_next(query, index)``) declare ``writes``: the call assigns new values to
those argument variables (see Overload.writes).
"""

from ...types.query_types import BvhQuery, HashGridQuery, MeshQueryAABB, MeshQueryPoint, MeshQueryRay, MeshQuerySphere, MeshView, vec3
from ...types import scalars as sc
from ...types.composite import matrix, vector
from .registry import Any, Array, add_builtin, type_name

G_MESH, G_BVH, G_GRID, G_VOL = "Geometry", "Geometry", "Geometry", "Volumes"
u64, f32, i32, b = sc.uint64, sc.float32, sc.int32, sc.bool_
mat33 = matrix((3, 3), sc.float32)


def _add(name, inputs, ret, group, differentiable=False, **kw):
    add_builtin(name, inputs, value_type=ret, group=group, differentiable=differentiable,
                same_scalar=False, **kw)


# --- meshes ---------------------------------------------------------------------------------------
_POINT_DOC = ("Closest point on the mesh to `point` within `max_dist`; the result has `result`, "
              "`face`, barycentrics `u`, `v` and `sign` (-1 inside, +1 outside{}).")
_q = {"id": u64, "point": vec3, "max_dist": f32}
_add("mesh_query_point", _q, MeshQueryPoint, G_MESH, True,
     doc=_POINT_DOC.format(", by the parity of three ray casts"))
_add("mesh_query_point_no_sign", _q, MeshQueryPoint, G_MESH, True,
     doc=_POINT_DOC.format("; not computed: 0"))
_add("mesh_query_point_sign_normal", _q, MeshQueryPoint, G_MESH, True,
     doc=_POINT_DOC.format(", from the closest face's normal"))
_add("mesh_query_point_sign_normal", {**_q, "epsilon": f32}, MeshQueryPoint, G_MESH, True,
     doc=_POINT_DOC.format(", from the closest face's normal; faces within `epsilon` (relative) "
                           "of the closest distance count as ties"))
_add("mesh_query_point_sign_winding_number", _q, MeshQueryPoint, G_MESH, True,
     doc=_POINT_DOC.format(", from the generalized winding number (> 0.5 is inside; the fast "
                           "winding number with accuracy 2 when the mesh was built with "
                           "support_winding_number=True; without it, as warp-lang, inside when at "
                           "least two of the rays along +x, +y, +z first meet a face from behind)"))
_add("mesh_query_point_sign_winding_number", {**_q, "accuracy": f32, "threshold": f32},
     MeshQueryPoint, G_MESH, True, doc="As above; inside where the winding number > threshold. "
     "`accuracy` (with support_winding_number=True): a BVH node farther than accuracy times its "
     "radius from `point` contributes its second-order dipole expansion (Barill et al. 2018), "
     "nearer ones are summed exactly; larger is more exact and slower, <= 0 gives the exact sum. "
     "Without support_winding_number both are ignored (the ray vote above).")
_add("mesh_query_furthest_point_no_sign", {"id": u64, "point": vec3, "min_dist": f32},
     MeshQueryPoint, G_MESH, doc="Furthest point of the mesh from `point` (at least `min_dist`).")
# older out-parameter forms
_add("mesh_query_point", {**_q, "inside": f32, "face": i32, "bary_u": f32, "bary_v": f32}, b,
     G_MESH, writes=(3, 4, 5, 6), doc="Out-parameter form: writes inside (sign), face, u, v.")
_add("mesh_query_point_no_sign", {**_q, "face": i32, "bary_u": f32, "bary_v": f32}, b, G_MESH,
     writes=(3, 4, 5), doc="Out-parameter form: writes face, u, v.")

_r = {"id": u64, "start": vec3, "dir": vec3, "max_t": f32}
_add("mesh_query_ray", _r, MeshQueryRay, G_MESH, True,
     doc="Closest ray hit within max_t: `result`, `t`, `u`, `v`, `sign` (+1 front face), "
         "`normal`, `face`.")
_add("mesh_query_ray", {**_r, "t": f32, "bary_u": f32, "bary_v": f32, "sign": f32,
                        "normal": vec3, "face": i32}, b, G_MESH, writes=(4, 5, 6, 7, 8, 9),
     doc="Out-parameter form: returns whether the ray hit; writes t, u, v, sign, normal, face.")
_add("mesh_query_ray", {**_r, "root": i32}, MeshQueryRay, G_MESH, True,
     doc="As above, searching only the BVH subtree of node `root` (mesh_get_group_root gives a "
         "group's; -1: the whole mesh).")
_add("mesh_query_ray_anyhit", _r, b, G_MESH,
     doc="True if the ray hits any face with `0 <= t < max_t` (stops at the first hit found).")
_add("mesh_query_ray_anyhit", {**_r, "root": i32}, b, G_MESH,
     doc="As above, traversing from BVH node `root` (-1: the whole tree).")
_add("mesh_query_ray_count_intersections", {"id": u64, "start": vec3, "dir": vec3}, i32, G_MESH,
     doc="The number of faces the ray crosses at `t >= 0` (every hit, e.g. for inside/outside parity).")
_add("mesh_query_ray_count_intersections", {"id": u64, "start": vec3, "dir": vec3, "root": i32}, i32,
     G_MESH, doc="As above, traversing from BVH node `root` (-1: the whole tree).")
_add("mesh_get_bvh", {"id": u64}, u64, G_MESH,
     doc="The id of the mesh's triangle BVH, for the bvh_query_* builtins (items are face indices).")
_add("mesh_query_aabb", {"id": u64, "lower": vec3, "upper": vec3}, MeshQueryAABB, G_MESH,
     doc="Iterate the triangles whose bounds overlap the box with mesh_query_aabb_next.")
_add("mesh_query_aabb_next", {"query": MeshQueryAABB, "index": i32}, b, G_MESH, writes=(0, 1),
     doc="Advance the query; writes the next triangle to `index`; False when done.")
_add("mesh_query_sphere", {"id": u64, "center": vec3, "radius": f32}, MeshQuerySphere, G_MESH,
     doc="Iterate the triangles whose closest point to `center` is within `radius` (touching "
         "included; a negative radius counts as zero; a zero-area face is its longest edge) with "
         "mesh_query_next.")
for _qt in (MeshQueryAABB, MeshQuerySphere):
    _add("mesh_query_next", {"query": _qt, "index": i32}, b, G_MESH, writes=(0, 1),
         doc="Advance a mesh_query_aabb or mesh_query_sphere query; writes the next face to "
             "`index`; False when done (`index` unchanged).")
_add("mesh_query_aabb_next", {"query": MeshQuerySphere, "index": i32}, b, G_MESH, writes=(0, 1),
     doc="mesh_query_next for a sphere query.")
_add("mesh_get_group_root", {"id": u64, "group": i32}, i32, G_MESH,
     doc="The BVH node of `group`'s triangles (wp.Mesh(groups=...)), or -1 (the whole mesh) "
         "where the group has none; pass it as a query's `root`.")
_add("mesh_get", {"id": u64}, MeshView, G_MESH,
     doc="The mesh's arrays: `.points`, `.velocities` (empty without) and `.indices` (flat, 3 "
         "per triangle), read in place.")
_e = {"id": u64, "face": i32, "bary_u": f32, "bary_v": f32}
_add("mesh_eval_position", _e, vec3, G_MESH, True, doc="u*p0 + v*p1 + (1-u-v)*p2 of `face`.")
_add("mesh_eval_velocity", _e, vec3, G_MESH, True, doc="The velocity at barycentrics u, v.")
_add("mesh_eval_face_normal", {"id": u64, "face": i32}, vec3, G_MESH, doc="Unit face normal.")
_add("mesh_get_point", {"id": u64, "index": i32}, vec3, G_MESH,
     doc="The point of face-vertex slot `index` (points[indices[index]]).")
_add("mesh_get_velocity", {"id": u64, "index": i32}, vec3, G_MESH,
     doc="The velocity of face-vertex slot `index`.")
_add("mesh_get_index", {"id": u64, "index": i32}, i32, G_MESH, doc="indices[index].")

# --- BVHs -----------------------------------------------------------------------------------------
_add("bvh_query_aabb", {"id": u64, "lower": vec3, "upper": vec3}, BvhQuery, G_BVH,
     doc="Iterate the items whose boxes overlap [lower, upper] with bvh_query_next.")
_add("bvh_query_ray", {"id": u64, "start": vec3, "dir": vec3}, BvhQuery, G_BVH,
     doc="Iterate the items whose boxes the ray meets with bvh_query_next.")
_add("bvh_query_next", {"query": BvhQuery, "index": i32}, b, G_BVH, writes=(0, 1),
     doc="Advance the query; writes the next item to `index`; False when done.")
_add("bvh_query_next", {"query": BvhQuery, "index": i32, "max_dist": f32}, b, G_BVH,
     writes=(0, 1), doc="As above; ray and capsule queries keep only boxes met at t <= max_dist "
     "(in multiples of |dir|), box and sphere queries ignore it.")
_add("bvh_query_aabb", {"id": u64, "lower": vec3, "upper": vec3, "root": i32}, BvhQuery, G_BVH,
     doc="As bvh_query_aabb, searching only the subtree of node `root` (-1: the whole tree).")
_add("bvh_query_ray", {"id": u64, "start": vec3, "dir": vec3, "root": i32}, BvhQuery, G_BVH,
     doc="As bvh_query_ray, searching only the subtree of node `root` (-1: the whole tree).")
_cap = {"id": u64, "start": vec3, "dir": vec3, "radius": f32}
_add("bvh_query_capsule", _cap, BvhQuery, G_BVH,
     doc="Iterate the items whose boxes, inflated by `radius` (negative: zero), the segment "
         "start + t dir meets, t in [0, max_dist] of bvh_query_next (1.0: the capsule from start "
         "to start + dir). Conservative near box corners.")
_add("bvh_query_capsule", {**_cap, "root": i32}, BvhQuery, G_BVH,
     doc="As above, from BVH node `root` (-1: the whole tree).")
_add("bvh_get_group_root", {"id": u64, "group": i32}, i32, G_BVH,
     doc="The node of `group`'s subtree (wp.Bvh(groups=...)), or -1 (the whole tree) where the "
         "group has no items; pass it as a query's `root`.")

_add("bvh_query_sphere", {"id": u64, "center": vec3, "radius": f32}, BvhQuery, G_BVH,
     doc="Iterate the items whose boxes are within `radius` of `center` (touching included; a "
         "negative radius counts as zero) with bvh_query_next.")
_add("bvh_query_sphere", {"id": u64, "center": vec3, "radius": f32, "root": i32}, BvhQuery, G_BVH,
     doc="As above, starting the traversal at BVH node `root` (-1: the whole tree).")

# --- hash grids -------------------------------------------------------------------------------------
for _t in (f32, sc.float16, sc.float64):
    _hq = {"id": u64, "point": vector(3, _t), "max_dist": _t}
    _add("hash_grid_query", _hq, HashGridQuery, G_GRID,
         doc="Iterate the points in the cells within max_dist of `point` with hash_grid_query_next "
             "(callers check the distance themselves); `point` in the grid's precision.")
    _add("hash_grid_query", {**_hq, "group": i32}, HashGridQuery, G_GRID,
         doc="As above, yielding only the points of `group` when the grid was built with groups "
             "(none if no point has it); a grid built without groups ignores `group`.")
_add("hash_grid_query_next", {"query": HashGridQuery, "index": i32}, b, G_GRID, writes=(0, 1),
     doc="Advance the query; writes the next point index to `index`; False when done.")
_add("hash_grid_point_id", {"id": u64, "index": i32}, i32, G_GRID,
     doc="The point at position `index` of the grid's cell order (spatially coherent order).")

# --- volumes ----------------------------------------------------------------------------------------------
_s = {"id": u64, "uvw": vec3, "sampling_mode": i32}
_add("volume_sample_f", _s, f32, G_VOL, True,
     doc="Sample a float volume at index-space `uvw` (wp.Volume.CLOSEST or LINEAR).")
_add("volume_sample_v", _s, vec3, G_VOL, True, doc="Sample a vec3 volume at index-space `uvw`.")
_add("volume_sample_i", {"id": u64, "uvw": vec3}, i32, G_VOL,
     doc="The value of an int32 volume at the voxel nearest to `uvw`.")
_add("volume_sample_grad_f", {**_s, "grad": vec3}, f32, G_VOL, True, writes=(3,),
     doc="Sample a float volume and write its index-space gradient to `grad`. Differentiable in "
         "uvw through the value and the gradient (the interpolant's second derivatives).")
_add("volume_sample_grad_v", {**_s, "grad": mat33}, vec3, G_VOL, True, writes=(3,),
     doc="Sample a vec3 volume and write its index-space Jacobian to `grad` (row i: the "
         "gradient of component i).")
_ijk = {"id": u64, "i": i32, "j": i32, "k": i32}
for suffix, t in (("f", f32), ("v", vec3), ("i", i32)):
    _add(f"volume_lookup_{suffix}", _ijk, t, G_VOL, doc="The value of voxel (i, j, k).")
    _add(f"volume_store_{suffix}", {**_ijk, "value": t}, None, G_VOL, replay="",
         doc="Store into voxel (i, j, k) where the volume has a leaf there (else nothing).")

# vec4f / vec4d volumes: reached through the generic spellings (dtype=wp.vec4 / wp.vec4d)
VEC4_VOLUME = {}
for _sc, _suf in ((f32, "v4f"), (sc.float64, "v4d")):
    _v4, _m43 = vector(4, _sc), matrix((4, 3), _sc)
    VEC4_VOLUME[_v4] = (_suf, _m43)
    _tpl = (lambda ts, ret, c=_sc._cpp: f"<{c}>")
    _hid = dict(hidden=True, export=False, template=_tpl)
    _add(f"volume_lookup_{_suf}", _ijk, _v4, G_VOL, cpp="volume_lookup_v4", **_hid,
         doc="The value of voxel (i, j, k) of a vec4 volume.")
    _add(f"volume_store_{_suf}", {**_ijk, "value": _v4}, None, G_VOL, cpp="volume_store_v4",
         replay="", **_hid, doc="Store into voxel (i, j, k) of a vec4 volume.")
    _add(f"volume_sample_{_suf}", _s, _v4, G_VOL, True, cpp="volume_sample_v4", **_hid,
         doc="Sample a vec4 volume at index-space `uvw`.")
    _add(f"volume_sample_grad_{_suf}", {**_s, "grad": _m43}, _v4, G_VOL, True, writes=(3,),
         cpp="volume_sample_grad_v4", **_hid,
         doc="Sample a vec4 volume, writing its 4x3 index-space Jacobian to `grad`.")


# --- index volumes: indices into user arrays ------------------------------------------------------
def _index_data_rule(ts):
    from ...errors import TypeMismatch
    from ...types.composite import is_vector
    data, background = ts[3], ts[4]
    t = data.dtype
    floats = (f32, sc.float64)
    if data.ndim != 1 or not (t in floats or (is_vector(t) and t._wp_scalar_type_ in floats)):
        raise TypeMismatch(f"voxel_data must be a 1-d array of float32/float64 or of their "
                           f"vectors, got {type_name(data)}")
    if background is not t:
        raise TypeMismatch(f"background must be {type_name(t)} like voxel_data, got "
                           f"{type_name(background)}")
    return t


def _index_grad_rule(ts):
    from ...errors import TypeMismatch
    from ...types.composite import matrix, vector
    t = _index_data_rule(ts)
    # one row per value component: a vec3 for scalar data, an N x 3 matrix for N-vectors
    want = vector(3, t) if sc.is_scalar(t) else matrix((t._length_, 3), t._wp_scalar_type_)
    if ts[5] is not want:
        raise TypeMismatch(f"grad must be {type_name(want)}, got {type_name(ts[5])}")
    return t


_add("volume_voxel_count", {"id": u64}, i32, G_VOL,
     doc="The number of indexable voxels: the active voxels of an index volume, 512 per tile "
         "otherwise (the length per-voxel data for volume_sample_index needs).")
_add("volume_lookup_index", _ijk, i32, G_VOL,
     doc="The index of voxel (i, j, k): for index volumes its index into external data, for "
         "other volumes its position in get_voxels() order; -1 where there is none.")
_xd = {**_s, "voxel_data": Array, "background": Any}
add_builtin("volume_sample_index", _xd, value_func=_index_data_rule, group=G_VOL,
            differentiable=True, same_scalar=False,
            doc="Sample `voxel_data[index]` at index-space `uvw` (CLOSEST or trilinear LINEAR); "
                "`background` where a voxel has no index. Differentiable in uvw, voxel_data "
                "and background.")
add_builtin("volume_sample_grad_index", {**_xd, "grad": Any}, value_func=_index_grad_rule,
            group=G_VOL, differentiable=True, same_scalar=False, writes=(5,),
            doc="As volume_sample_index, writing the index-space gradient to `grad` (vec3 for "
                "float data, mat33 of d value_i / d uvw_k for vec3 data).")

for name, arg in (("volume_world_to_index", "xyz"), ("volume_index_to_world", "uvw"),
                  ("volume_world_to_index_dir", "xyz"), ("volume_index_to_world_dir", "uvw")):
    _add(name, {"id": u64, arg: vec3}, vec3, G_VOL, True,
         doc="Transform between world and index space" + (" (a direction)" if "dir" in name else ""))


# --- generic spellings: wp.volume_sample(id, uvw, mode, dtype=...), volume_lookup, volume_store ------
def _dtype_arg(tr, node, kwargs, n_fixed, name):
    """The dtype= of a generic volume call (keyword or trailing positional), canonicalised."""
    from ...types.composite import is_vector
    from ..ir import PyValue
    dnode = kwargs.get("dtype")
    if dnode is None and len(node.args) > n_fixed:
        dnode = node.args[n_fixed]
    if dnode is None:
        raise tr.scope.error(f"wp.{name}() needs dtype= (float32, vec3 or int32)")
    v = tr.eval(dnode)
    t = sc.canonical_scalar(v.obj) if isinstance(v, PyValue) else None
    if t is f32 or t is i32 or t is vec3 or t in VEC4_VOLUME:
        return t
    raise tr.scope.error(f"wp.{name}(): dtype must be float32, int32, vec3, vec4f or vec4d, got "
                         f"{getattr(getattr(v, 'obj', None), '__name__', v)}", dnode)


def _suffix(t):
    if t in VEC4_VOLUME:
        return VEC4_VOLUME[t][0]
    return {f32: "f", i32: "i"}.get(t, "v")


def _volume_sample(tr, obj, node, kwargs):
    t = _dtype_arg(tr, node, kwargs, 3, "volume_sample")
    args = [tr.eval_var(a) for a in node.args[:3]]
    if t is i32:
        args = args[:2]   # integer grids are read at the nearest voxel
    return tr.call_builtin(f"volume_sample_{_suffix(t)}", args)


def _volume_sample_grad(tr, obj, node, kwargs):
    """``wp.volume_sample_grad(volume, uvw, mode, grad, dtype=...)``: float32 volumes with a vec3
    grad, vec3 volumes with a mat33 grad (row i: the gradient of component i)."""
    t = _dtype_arg(tr, node, kwargs, 4, "volume_sample_grad")
    if t is i32:
        raise tr.scope.error("wp.volume_sample_grad(): dtype=int32 volumes have no gradient "
                             "(float32, vec3 or vec4)")
    args = [tr.eval_var(a) for a in node.args[:4]]
    want = vec3 if t is f32 else (mat33 if t is vec3 else VEC4_VOLUME[t][1])
    if len(args) == 4 and args[3].type is not want:   # one row per value component
        raise tr.scope.error(f"wp.volume_sample_grad(): Incompatible gradient type, expected "
                             f"{type_name(want)}, got {type_name(args[3].type)}", node.args[3])
    return tr.call_with_writes(f"volume_sample_grad_{_suffix(t)}", args, node)


def _volume_lookup(tr, obj, node, kwargs):
    t = _dtype_arg(tr, node, kwargs, 4, "volume_lookup")
    return tr.call_builtin(f"volume_lookup_{_suffix(t)}", [tr.eval_var(a) for a in node.args[:4]])


def _volume_store(tr, obj, node, kwargs):
    if kwargs or len(node.args) != 5:
        raise tr.scope.error("wp.volume_store(volume, i, j, k, value) takes 5 positional arguments")
    args = [tr.eval_var(a) for a in node.args]
    t = args[4].type
    if args[4].literal:
        args[4] = tr.retype_literal(args[4], f32 if sc.is_float(t) else i32)
        t = args[4].type
    return tr.call_builtin(f"volume_store_{_suffix(t)}", args)


def _register_generic():
    from .function import INTRINSICS
    INTRINSICS.update(volume_sample=_volume_sample, volume_lookup=_volume_lookup,
                      volume_store=_volume_store, volume_sample_grad=_volume_sample_grad)


_register_generic()
