"""``wp.sin``, ``wp.tid``...: the package-level names of kernel builtins.

Kept apart from the translator (lang/calls.py, which pulls in the IR): ``import
warp_interactive`` creates one of these per builtin and must stay light."""

# The builtins the translator handles itself: lang/intrinsics.py implements these names (and
# checks the list), other groups add theirs to INTRINSICS (name -> handler) when imported.
INTRINSIC_NAMES = ("tid", "quat_from_axis_angle", "printf", "vector", "matrix", "quaternion",
                   "identity", "quat_identity", "transform_identity")
INTRINSICS = {}


def intrinsic_names():
    return sorted(set(INTRINSIC_NAMES) | set(INTRINSICS))


class BuiltinFunction:
    """What ``wp.<name>`` is for a kernel builtin: kernels translate calls to it by ``key``."""

    def __init__(self, key, doc=""):
        self.key = key
        self.__name__ = key
        self.__doc__ = doc

    def __call__(self, *args, **kwargs):
        from .python_scope import call_in_python
        return call_in_python(self.key, args, kwargs)

    def __repr__(self):
        return f"<builtin wp.{self.key}>"
