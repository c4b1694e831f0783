"""Euler angles, twists, 4x4 transform matrices, setting a transform's parts, and moving twists
and wrenches between frames (C++ in native/include/warp_interactive/math/frames.h)."""

import ast

from ...types import composite as comp
from ...types import scalars as sc
from .function import INTRINSICS
from .numeric import _outputs, tuple_form
from ...errors import TypeMismatch
from .registry import Array, Index, Matrix, Quaternion, Transformation, Vector, add_builtin, resolve

G_QUAT, G_TF, G_SPATIAL = "Quaternion Math", "Transformations", "Spatial Math"


def _vec(n, ts_index=0):
    def check(t):
        if not comp.is_vector(t) or t._length_ != n or not sc.is_float(t._wp_scalar_type_):
            raise TypeMismatch(f"needs a floating-point {n}-vector, got {getattr(t, '__name__', t)}")
        return t
    return check


_v3, _v6 = _vec(3), _vec(6)


def _quat(ts):
    return comp.quaternion(ts[0]._wp_scalar_type_)


def _m44(t):
    if t._shape_ != (4, 4) or not sc.is_float(t._wp_scalar_type_):
        raise TypeMismatch(f"needs a floating-point 4x4 matrix, got {t.__name__}")
    return t


_AXES = ("`i`, `j`, `k` are axis indices in {0, 1, 2} with `i != j` and `j != k` (other values "
         "give the identity / zero angles)")
add_builtin("quat_from_euler", {"e": Vector, "i": Index, "j": Index, "k": Index},
            value_func=lambda ts: (_v3(ts[0]), _quat(ts))[1], group=G_QUAT,
            doc="The rotation by `e[i]`, `e[j]`, `e[k]` radians about the fixed axes `i`, `j`, `k` in "
                "that order (`qk * qj * qi`; `e` is indexed by axis). " + _AXES + ".")
add_builtin("quat_to_euler", {"q": Quaternion, "i": Index, "j": Index, "k": Index},
            value_func=lambda ts: comp.vector(3, ts[0]._wp_scalar_type_), group=G_QUAT,
            doc="The Euler angles of `q` for the fixed-axis sequence `i`, `j`, `k`, indexed by axis "
                "(the inverse of quat_from_euler for `i != k`; for `i == k` the third angle is in "
                "slot `3 - i - j`). The second angle is in [-pi/2, pi/2] (in [0, pi] for `i == k`), "
                "the others in [-2 pi, 2 pi]. " + _AXES + ".")
add_builtin("quat_to_rpy", {"q": Quaternion}, value_func=lambda ts: comp.vector(3, ts[0]._wp_scalar_type_),
            group=G_QUAT, doc="`(roll, pitch, yaw)`: `quat_to_euler(q, 0, 1, 2)`, the inverse of quat_rpy.")
add_builtin("quat_between_vectors", {"a": Vector, "b": Vector},
            value_func=lambda ts: (_v3(ts[0]), _v3(ts[1]), comp.quaternion(ts[0]._wp_scalar_type_))[2],
            group=G_QUAT,
            doc="The shortest-arc rotation taking the direction of `a` to the direction of `b` "
                "(opposite directions: the half turn about an axis perpendicular to `a`).")
add_builtin("quat_twist", {"axis": Vector, "q": Quaternion}, value_func=lambda ts: (_v3(ts[0]), ts[1])[1],
            group=G_QUAT, doc="The twist of `q` about the unit `axis` (swing-twist decomposition): "
                              "its vector part projected on the axis, normalized.")
add_builtin("quat_twist_angle", {"axis": Vector, "q": Quaternion},
            value_func=lambda ts: (_v3(ts[0]), ts[1]._wp_scalar_type_)[1], group=G_QUAT,
            doc="The unsigned twist angle of `q` about the unit `axis`: in [0, pi] if `q.w >= 0`, "
                "else in (pi, 2 pi].")
add_builtin("quat_twist_angle_signed", {"axis": Vector, "q": Quaternion},
            value_func=lambda ts: (_v3(ts[0]), ts[1]._wp_scalar_type_)[1], group=G_QUAT,
            doc="The signed twist angle of `q` about the unit `axis` (right-handed): in [-pi, pi] if "
                "`q.w >= 0`, else in [-2 pi, 2 pi].")

# --- 4x4 matrices --------------------------------------------------------------------------------------
_M = "`[[R diag(s), p], [0, 0, 0, 1]]`"
add_builtin("transform_compose", {"position": Vector, "rotation": Quaternion, "scale": Vector},
            value_func=lambda ts: (_v3(ts[0]), _v3(ts[2]), comp.matrix((4, 4), ts[1]._wp_scalar_type_))[2],
            group=G_TF, doc=f"The 4x4 matrix {_M} of a position, rotation and per-axis scale.")
add_builtin("transform_decompose", {"m": Matrix}, value_func=_outputs("transform_decompose"), group=G_TF,
            doc=f"`p, q, s = transform_decompose(m)`: position, rotation and (positive) scale of {_M}.")
add_builtin("transform_decompose", {"m": Matrix, "p": Vector, "q": Quaternion, "s": Vector},
            value_func=lambda ts: (_m44(ts[0]), _v3(ts[1]), _v3(ts[3]), None)[3], group=G_TF,
            hidden=True)
INTRINSICS["transform_decompose"] = tuple_form("transform_decompose")
add_builtin("transform_to_matrix", {"xform": Transformation},
            value_func=lambda ts: comp.matrix((4, 4), ts[0]._wp_scalar_type_), group=G_TF,
            doc="The 4x4 matrix `[[R, p], [0, 0, 0, 1]]` of a transform.")
add_builtin("transform_from_matrix", {"mat": Matrix},
            value_func=lambda ts: comp.transformation(_m44(ts[0])._wp_scalar_type_), group=G_TF,
            doc="The transform of a 4x4 matrix `[[R, p], [0, 0, 0, 1]]` (R a rotation).")

# --- setting parts ---------------------------------------------------------------------------------------
for _part, _arg, _pat, _rule in (("rotation", "q", Quaternion, lambda ts: ts[0]),
                                 ("translation", "p", Vector, lambda ts: (_v3(ts[1]), ts[0])[1])):
    add_builtin(f"transform_set_{_part}_copy", {"xform": Transformation, _arg: _pat}, value_func=_rule,
                group=G_TF, doc=f"A copy of `xform` with its {_part} replaced by `{_arg}`.")
    add_builtin(f"transform_set_{_part}", {"xform": Transformation, _arg: _pat},
                value_func=lambda ts, r=_rule: (r(ts), None)[1], group=G_TF,
                doc=f"Replace the {_part} of the transform variable `xform` by `{_arg}` (in place: "
                    f"the variable is rebound; `xform.{_arg} = {_arg}` is the same).")


def _set_part(name):
    def handler(tr, obj, node, kwargs):
        args = tr.args_of(node)
        if kwargs or len(args) != 2:
            raise tr.scope.error(f"wp.{name}(xform, value) takes 2 positional arguments")
        if not isinstance(node.args[0], ast.Name):
            raise tr.scope.error(f"argument 1 of wp.{name}() must be a variable name: the call assigns "
                                 f"a new transform to it (for an array element, load it into a "
                                 f"variable, set it, and store it back)", node.args[0])
        try:   # type-checks against the declared overload
            resolve(name, [a.type for a in args])
        except TypeMismatch as e:
            raise tr.scope.error(str(e)) from None
        tr.scope.bind(node.args[0].id, tr.call_builtin(name + "_copy", args))
        return None
    return handler


INTRINSICS["transform_set_rotation"] = _set_part("transform_set_rotation")
INTRINSICS["transform_set_translation"] = _set_part("transform_set_translation")

# --- spatial vectors between frames ----------------------------------------------------------------------
_sv = (lambda ts: (_v6(ts[1]), ts[1])[1])
add_builtin("transform_twist", {"t": Transformation, "x": Vector}, value_func=_sv, group=G_SPATIAL,
            doc="The twist `x = (w, v)` moved by `t = (R, p)`: `(R w, R v + p x R w)`.")
add_builtin("transform_wrench", {"t": Transformation, "x": Vector}, value_func=_sv, group=G_SPATIAL,
            doc="The wrench `x = (tau, f)` moved by `t = (R, p)`: `(R tau + p x R f, R f)`.")
add_builtin("velocity_at_point", {"qd": Vector, "r": Vector},
            value_func=lambda ts: (_v6(ts[0]), _v3(ts[1]))[1], group=G_SPATIAL,
            doc="The velocity `v + w x r` of the point at offset `r` of a body with twist `qd = (w, v)`.")


# --- dense matrices of a kinematic chain -------------------------------------------------------------------
def _chain_arrays(ts, layout):
    """Checks the arrays of spatial_jacobian / spatial_mass (``layout``: position -> (what, test))."""
    for pos, (what, ok) in layout.items():
        t = ts[pos]
        if not ok(t):
            raise TypeMismatch(f"argument {pos + 1} must be {what}, got {getattr(t, '__name__', t)}")
    return None


def _elem(kind, n=None):
    def ok(t):
        d = getattr(t, "dtype", None)
        if kind == "int":
            return d is sc.int32
        if kind == "float":
            return sc.is_scalar(d) and sc.is_float(d)
        return comp.is_composite(d) and d._shape_ == n and sc.is_float(d._wp_scalar_type_)
    return ok


def _same_float(ts, a, b):
    if ts[a].dtype._wp_scalar_type_ is not ts[b].dtype:
        raise TypeMismatch("the input and output arrays must have one scalar type")


def _jacobian_rule(ts):
    _chain_arrays(ts, {0: ("an array of spatial vectors", _elem("vec", (6,))),
                       1: ("an int32 array", _elem("int")), 2: ("an int32 array", _elem("int")),
                       6: ("a float array", _elem("float"))})
    return _same_float(ts, 0, 6)


def _mass_rule(ts):
    _chain_arrays(ts, {0: ("an array of 6x6 matrices", _elem("mat", (6, 6))),
                       4: ("a float array", _elem("float"))})
    return _same_float(ts, 0, 4)


add_builtin("spatial_jacobian", {"S": Array, "joint_parents": Array, "joint_qd_start": Array,
                                 "joint_start": Index, "joint_count": Index, "J_start": Index,
                                 "J_out": Array},
            value_func=_jacobian_rule, group=G_SPATIAL, same_scalar=False, replay="",
            doc="Write the spatial Jacobian of the chain of `joint_count` joints from `joint_start` "
                "into `J_out` from `J_start`: a row-major `(6 joint_count) x n_dof` matrix (n_dof = "
                "the chain's degrees of freedom, per `joint_qd_start`) whose 6 rows of joint i hold, "
                "in the columns of i and of each ancestor a (per `joint_parents`, -1 ends), the "
                "motion subspace `S[joint_qd_start[a] + k]` of a's degrees of freedom.")
add_builtin("spatial_mass", {"I_s": Array, "joint_start": Index, "joint_count": Index, "M_start": Index,
                             "M": Array},
            value_func=_mass_rule, group=G_SPATIAL, same_scalar=False, replay="",
            doc="Write the block-diagonal `(6 joint_count)` square mass matrix of the chain into `M` "
                "from `M_start` (row major): block l is the spatial inertia `I_s[joint_start + l]`.")
