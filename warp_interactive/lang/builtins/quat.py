"""Quaternion, transform and spatial (6D) builtins."""

from ...types import composite as comp
from ...types import scalars as sc
from ...errors import TypeMismatch
from .registry import Float, Matrix, Quaternion, Transformation, Vector, add_builtin, same_as, scalar_type_of

G_QUAT, G_TF, G_SPATIAL = "Quaternion Math", "Transformations", "Spatial Math"


def _needs(kind, n):
    def check(t):
        if kind == "vec" and (not comp.is_vector(t) or t._length_ != n):
            raise TypeMismatch(f"needs a {n}-vector, got {getattr(t, '__name__', t)}")
        if kind == "mat" and (not comp.is_matrix(t) or t._shape_ != (n, n)):
            raise TypeMismatch(f"needs a {n}x{n} matrix, got {getattr(t, '__name__', t)}")
        return t
    return check


_v3, _v6, _m33 = _needs("vec", 3), _needs("vec", 6), _needs("mat", 3)


def _float_rotation(t):
    """A 3x3 rotation, or a 4x4 matrix whose upper-left 3x3 block is one (as in the reference)."""
    if not comp.is_matrix(t) or t._shape_ not in ((3, 3), (4, 4)) or not sc.is_float(t._wp_scalar_type_):
        raise TypeMismatch(f"needs a floating-point 3x3 or 4x4 matrix, got {getattr(t, '__name__', t)}")
    return t


def _quat_of(i):
    return lambda ts: comp.quaternion(ts[i]._wp_scalar_type_)


def _vec3_of(i):
    return lambda ts: comp.vector(3, ts[i]._wp_scalar_type_)


# --- quaternions --------------------------------------------------------------------------------------
add_builtin("dot", {"a": Quaternion, "b": Quaternion}, value_func=scalar_type_of(0), group=G_QUAT,
            doc="The 4D dot product of two quaternions.")
for _name, _doc in (("length", "The norm of `q`."), ("length_sq", "The squared norm of `q`.")):
    add_builtin(_name, {"q": Quaternion}, value_func=scalar_type_of(0), group=G_QUAT, doc=_doc)
add_builtin("normalize", {"q": Quaternion}, value_func=same_as(0), group=G_QUAT,
            doc="`q / length(q)`; the zero quaternion stays zero.")
add_builtin("quat_from_axis_angle", {"axis": Vector, "angle": Float},
            value_func=lambda ts: (_v3(ts[0]), comp.quaternion(ts[1]))[1], group=G_QUAT,
            doc="The rotation by `angle` radians about `axis` (normalized here). The axis may also "
                "be given as three scalars: `quat_from_axis_angle(x, y, z, angle)`.")
add_builtin("quat_to_axis_angle", {"q": Quaternion, "axis": Vector, "angle": Float},
            value_func=lambda ts: (_v3(ts[1]), None)[1], group=G_QUAT,
            doc="Writes the rotation axis (unit) of `q` to `axis` and its angle (radians, in "
                "[0, pi]: the axis is negated when `q.w < 0`) to `angle`.")
add_builtin("quat_from_matrix", {"m": Matrix}, value_func=lambda ts: _quat_of(0)([_float_rotation(ts[0])]),
            group=G_QUAT, doc="The unit quaternion of the 3x3 rotation matrix `m`; of a 4x4 matrix, the "
                              "rotation of its upper-left 3x3 block.")
add_builtin("quat_to_matrix", {"q": Quaternion},
            value_func=lambda ts: comp.matrix((3, 3), ts[0]._wp_scalar_type_), group=G_QUAT,
            doc="The 3x3 rotation matrix of the (unit) quaternion `q`.")
add_builtin("quat_rpy", {"roll": Float, "pitch": Float, "yaw": Float},
            value_func=lambda ts: comp.quaternion(ts[0]), group=G_QUAT,
            doc="The rotation by `roll` about x, then `pitch` about y, then `yaw` about z (radians, "
                "fixed axes).")
add_builtin("quat_inverse", {"q": Quaternion}, value_func=same_as(0), group=G_QUAT,
            doc="The conjugate of `q`: the inverse rotation of a unit quaternion.")
add_builtin("quat_rotate", {"q": Quaternion, "p": Vector}, value_func=lambda ts: _v3(ts[1]),
            group=G_QUAT, doc="The vector `p` rotated by the unit quaternion `q`.")
add_builtin("quat_rotate_inv", {"q": Quaternion, "p": Vector}, value_func=lambda ts: _v3(ts[1]),
            group=G_QUAT, doc="The vector `p` rotated by the inverse of the unit quaternion `q`.")
add_builtin("quat_slerp", {"q0": Quaternion, "q1": Quaternion, "t": Float}, value_func=same_as(0),
            group=G_QUAT, doc="Spherical linear interpolation from `q0` (t = 0) to `q1` (t = 1) "
                              "along the shorter arc.")

# --- transforms ------------------------------------------------------------------------------------------
add_builtin("transform_get_translation", {"t": Transformation}, value_func=_vec3_of(0), group=G_TF,
            doc="The translation part `p` of the transform.")
add_builtin("transform_get_rotation", {"t": Transformation}, value_func=_quat_of(0), group=G_TF,
            doc="The rotation part `q` of the transform.")
add_builtin("transform_multiply", {"a": Transformation, "b": Transformation}, value_func=same_as(0),
            group=G_TF, doc="The composition `a b`: applying it applies `b`, then `a`.")
add_builtin("transform_point", {"t": Transformation, "p": Vector}, value_func=lambda ts: _v3(ts[1]),
            group=G_TF, doc="The point `p` transformed by `t` (rotated, then translated).")
add_builtin("transform_vector", {"t": Transformation, "v": Vector}, value_func=lambda ts: _v3(ts[1]),
            group=G_TF, doc="The vector `v` rotated by `t` (no translation).")
add_builtin("transform_inverse", {"t": Transformation}, value_func=same_as(0), group=G_TF,
            doc="The inverse transform (for a unit rotation).")

# --- spatial vectors and matrices ------------------------------------------------------------------------
_sv = (lambda ts: comp.vector(6, _v3(ts[0])._wp_scalar_type_))
add_builtin("spatial_vector", {"w": Vector, "v": Vector}, value_func=lambda ts: (_v3(ts[1]), _sv(ts))[1],
            group=G_SPATIAL, doc="The 6-vector `(w, v)` (angular, linear) from two 3-vectors.")
add_builtin("spatial_top", {"a": Vector}, value_func=lambda ts: (_v6(ts[0]), _vec3_of(0)(ts))[1],
            group=G_SPATIAL, doc="The first three components of a spatial vector.")
add_builtin("spatial_bottom", {"a": Vector}, value_func=lambda ts: (_v6(ts[0]), _vec3_of(0)(ts))[1],
            group=G_SPATIAL, doc="The last three components of a spatial vector.")
add_builtin("spatial_dot", {"a": Vector, "b": Vector},
            value_func=lambda ts: (_v6(ts[0]), _v6(ts[1]))[0]._wp_scalar_type_, group=G_SPATIAL,
            doc="The dot product of two spatial vectors.")
add_builtin("spatial_cross", {"a": Vector, "b": Vector},
            value_func=lambda ts: (_v6(ts[0]), _v6(ts[1]))[0], group=G_SPATIAL,
            doc="The motion cross product `(wa x wb, va x wb + wa x vb)`.")
add_builtin("spatial_cross_dual", {"a": Vector, "b": Vector},
            value_func=lambda ts: (_v6(ts[0]), _v6(ts[1]))[0], group=G_SPATIAL,
            doc="The force cross product `(wa x wb + va x vb, wa x vb)`.")
add_builtin("spatial_adjoint", {"r": Matrix, "s": Matrix},
            value_func=lambda ts: (_m33(ts[0]), _m33(ts[1]),
                                   comp.matrix((6, 6), ts[0]._wp_scalar_type_))[2],
            group=G_SPATIAL, doc="The 6x6 block matrix `[[r, 0], [s, r]]`.")
