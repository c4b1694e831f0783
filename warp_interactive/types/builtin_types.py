"""The concrete named composite types of the reference (vec3, mat33d, quat, transformh...)."""

from .composite import matrix, quaternion, transformation, vector
from .scalars import float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64

_SUFFIX = {"": float32, "f": float32, "d": float64, "h": float16}
_INT_SUFFIX = {"ub": uint8, "b": int8, "us": uint16, "s": int16, "ui": uint32, "i": int32,
               "ul": uint64, "l": int64}


def _named_types():
    out = {}
    for suffix, dt in list(_SUFFIX.items()) + list(_INT_SUFFIX.items()):
        for n in (2, 3, 4):
            out[f"vec{n}{suffix}"] = vector(n, dt)
    for suffix, dt in _SUFFIX.items():
        for n in (2, 3, 4):
            out[f"mat{n}{n}{suffix}"] = matrix((n, n), dt)
        out[f"quat{suffix}"] = quaternion(dt)
        out[f"transform{suffix}"] = transformation(dt)
        out[f"spatial_vector{suffix}"] = vector(6, dt)
        out[f"spatial_matrix{suffix}"] = matrix((6, 6), dt)
    return out


named_types = _named_types()
globals().update(named_types)
