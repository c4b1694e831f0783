"""``wp.sin``, ``wp.tid``...: the package-level names of kernel builtins.

Kept apart from the translator (lang/calls.py, which pulls in the IR): ``import
warp_interactive`` creates one of these per builtin and must stay light."""

# The builtins the translator handles itself: lang/intrinsics.py implements these names (and
# checks the list), other groups add theirs to INTRINSICS (name -> handler) when imported.
INTRINSIC_NAMES = ("tid", "quat_from_axis_angle", "printf", "vector", "matrix", "quaternion",
                   "identity", "quat_identity", "transform_identity")
INTRINSICS = {}

# How a builtin runs in Python scope (``wp.sin(1.0)`` outside kernels): that launches a kernel,
# so the runtime (runtime/python_scope.py) registers it here at import; lang never imports up.
_python_call = []


def set_python_call(fn):
    _python_call[:] = [fn]


def intrinsic_names():
    return sorted(set(INTRINSIC_NAMES) | set(INTRINSICS))


class BuiltinFunction:
    """What ``wp.<name>`` is for a kernel builtin: kernels translate calls to it by ``key``."""

    def __init__(self, key, doc=""):
        self.key = key
        self.__name__ = key
        self.__doc__ = doc

    def __call__(self, *args, **kwargs):
        if not _python_call:
            raise RuntimeError(f"wp.{self.key}() outside kernels needs the runtime "
                               "(import warp_interactive)")
        return _python_call[0](self.key, args, kwargs)

    def __repr__(self):
        return f"<builtin wp.{self.key}>"
