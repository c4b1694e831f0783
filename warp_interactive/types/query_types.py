"""Kernel-side types of the geometry queries' results (C++ structs in the native headers).

A query result is a value with read-only fields (``query.result``, ``query.face``...); the
iterator-like queries (``bvh_query_aabb``, ``hash_grid_query``...) are opaque values that the
``*_next`` builtins advance.
"""

from . import scalars as sc
from .composite import vector

vec3 = vector(3, sc.float32)


class NativeStruct:
    """A C++ struct of the header library used as a kernel value type."""

    def __init__(self, name, cpp, fields):
        self.__name__ = name
        self._cpp = cpp
        self._wp_native_fields_ = dict(fields)

    def __repr__(self):
        return f"<kernel type {self.__name__}>"

    def __getitem__(self, scalar):
        """``wp.HashGridQuery[wp.float16]`` as the reference spells a precision: the query
        state is the same struct for every precision here (queries bin in float32)."""
        return self


MeshQueryPoint = NativeStruct("MeshQueryPoint", "wp::mesh_query_point_t", {
    "result": sc.bool_, "sign": sc.float32, "face": sc.int32, "u": sc.float32, "v": sc.float32})
MeshQueryRay = NativeStruct("MeshQueryRay", "wp::mesh_query_ray_t", {
    "result": sc.bool_, "sign": sc.float32, "face": sc.int32, "t": sc.float32, "u": sc.float32,
    "v": sc.float32, "normal": vec3})
MeshQueryAABB = NativeStruct("MeshQueryAABB", "wp::bvh_query_t", {})
BvhQuery = NativeStruct("BvhQuery", "wp::bvh_query_t", {})
HashGridQuery = NativeStruct("HashGridQuery", "wp::hash_grid_query_t", {})
MeshQuerySphere = NativeStruct("MeshQuerySphere", "wp::mesh_query_sphere_t", {})


def _mesh_view():
    from .array import array
    return NativeStruct("Mesh", "wp::mesh_view_t", {
        "points": array(dtype=vec3), "velocities": array(dtype=vec3),
        "indices": array(dtype=sc.int32)})


MeshView = _mesh_view()   # what wp.mesh_get returns: the mesh's arrays
