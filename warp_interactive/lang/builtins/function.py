"""``wp.sin``, ``wp.tid``...: the package-level names of kernel builtins.

Kept apart from the translator (lang/translation/calls.py, which pulls in the IR): ``import
warp_interactive`` creates one of these per builtin and must stay light."""

# The builtins the translator handles itself: lang/translation/intrinsics.py implements these names (and
# checks the list), other groups add theirs to INTRINSICS (name -> handler) when imported.
INTRINSIC_NAMES = ("tid", "quat_from_axis_angle", "printf", "vector", "matrix", "quaternion",
                   "identity", "quat_identity", "transform_identity")
INTRINSICS = {}
# the tile builtins (lang/tiles/ implement them; listed here so that `import
# warp_interactive` exports wp.tile_* without importing the translator)
TILE_NAMES = (
    "tile_zeros", "tile_ones", "tile_full", "tile_arange", "tile_randf", "tile_randi", "tile_load",
    "tile_store", "tile_atomic_add", "tile_extract", "tile", "untile", "tile_from_thread", "tile_map",
    "tile_reduce", "tile_sum", "tile_max", "tile_min", "tile_argmax", "tile_argmin", "tile_transpose",
    "tile_broadcast", "tile_view", "tile_assign", "tile_reshape", "tile_squeeze", "tile_astype",
    "tile_matmul", "tile_cholesky", "tile_cholesky_inplace", "tile_cholesky_solve",
    "tile_cholesky_solve_inplace", "tile_lower_solve", "tile_lower_solve_inplace", "tile_upper_solve",
    "tile_upper_solve_inplace", "tile_diag_add", "tile_scan_inclusive", "tile_scan_exclusive",
    "tile_scan_max_inclusive", "tile_scan_min_inclusive", "tile_sort", "tile_empty", "tile_dot",
    "tile_axpy", "tile_load_indexed", "tile_store_indexed", "tile_atomic_add_indexed",
    "tile_slice_indexed", "tile_scatter_add", "tile_scatter_masked", "tile_fft", "tile_ifft",
    "tile_stack", "tile_stack_push", "tile_stack_pop", "tile_stack_count", "tile_stack_clear",
    "tile_bvh_query_aabb", "tile_bvh_query_ray", "tile_bvh_query_next", "tile_mesh_query_aabb",
    "tile_mesh_query_aabb_next", "tile_query_valid",
    # the reference's older (deprecated) spellings of the block-parallel queries
    "bvh_query_aabb_tiled", "bvh_query_ray_tiled", "bvh_query_next_tiled", "mesh_query_aabb_tiled",
    "mesh_query_aabb_next_tiled")

# How a builtin runs in Python scope (``wp.sin(1.0)`` outside kernels): that launches a kernel,
# so the runtime (runtime/python_scope.py) registers it here at import; lang never imports up.
_python_call = []


def set_python_call(fn):
    _python_call[:] = [fn]


def intrinsic_names():
    return sorted(set(INTRINSIC_NAMES) | set(TILE_NAMES) | set(INTRINSICS))


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


class _TileBuiltin(BuiltinFunction):
    """``wp.tile``: the builtin in kernels, and ``wp.tile[dtype, M, N]`` the tile type in
    annotations (warp-lang's ``wp.tile`` is both)."""

    def __getitem__(self, params):
        from ...types.tile import tile_subscript
        return tile_subscript(params)


class _TileStackBuiltin(BuiltinFunction):
    """``wp.tile_stack``: a stack in kernels; outside them (a @wp.func parameter's annotation,
    ``s: wp.tile_stack(capacity=8, dtype=int)``) the stack's type."""

    def __call__(self, capacity, dtype):
        from ...types.tile import tile_stack_type
        return tile_stack_type(dtype, capacity)


def make_builtin(key, doc=""):
    """The ``wp.<key>`` object of a kernel builtin."""
    cls = {"tile": _TileBuiltin, "tile_stack": _TileStackBuiltin}.get(key, BuiltinFunction)
    return cls(key, doc)
