"""The records of the builtins the translator handles itself (``Intrinsic`` in registry.py):
calls with compile-time keyword arguments (``dtype=``, ``shape=``, ``storage=``), a variable
number of components, or results that are tiles. Their handlers fill ``function.INTRINSICS``
when the translation and tile modules load; these records are what ``import warp_interactive``
exports as ``wp.<name>`` and what docs/functions.md lists. tests/project/test_functions_doc.py checks
that every handler has a record here or in the registry, and every record a handler.

``differentiable`` says whether gradients flow through the call (for tiles: checked against
finite differences in the tests docs/tiles.md names)."""

from .registry import declare_intrinsic

CONSTRUCT = "Constructors and special calls"
TILES = "Tiles"
VOLUMES = "Volumes"


def _declare(group, table):
    for name, sig, diff, doc in table:
        declare_intrinsic(name, f"{name}({sig})", doc, group, differentiable=diff)


_declare(CONSTRUCT, [
    ("vector", "*components, length: int = None, dtype: Scalar = None", True,
     "A vector of `length` components of `dtype` (inferred from the arguments): zero, filled from one "
     "scalar, from components, or converted from another vector."),
    ("matrix", "*components, shape: (int, int), dtype: Scalar = None", True,
     "A `shape` matrix from row-major components, one scalar (fill), or nothing (zero)."),
    ("quaternion", "*components, dtype: Scalar = None", True,
     "A quaternion from `(x, y, z, w)`, from `(vector3, w)`, or zero."),
    ("transformation", "p: vector3, q: quaternion, dtype: Float = None", True,
     "A transform of translation `p` and rotation `q`."),
    ("identity", "n: int, dtype: Scalar = float32", False, "The `n x n` identity matrix."),
    ("quat_identity", "dtype: Float = float32", False, "The identity rotation `(0, 0, 0, 1)`."),
    ("transform_identity", "dtype: Float = float32", False,
     "The identity transform (zero translation, identity rotation)."),
    ("printf", "fmt: str, *args", False, "C-style formatted print from a kernel."),
    ("print", "value", False, "Print a value (any scalar, vector, matrix, tile...) as `print(value)` does."),
    ("cast", "a, dtype", False, "The bits of `a` reinterpreted as `dtype` (a scalar or composite type of "
                                "the same size): `cast(float32(1.0), int32) == 0x3f800000`."),
])

_declare(VOLUMES, [
    ("volume_sample", "id: uint64, uvw: vec3, sampling_mode: int, dtype", True,
     "Sample a volume of element type `dtype` at index-space `uvw` (closest or trilinear)."),
    ("volume_sample_grad", "id: uint64, uvw: vec3, sampling_mode: int, grad: vec3, dtype = float32", True,
     "Sample a float volume at index-space `uvw` and write the gradient to `grad` (a vec3 variable); "
     "vec3 volumes are not supported yet."),
    ("volume_lookup", "id: uint64, i: int32, j: int32, k: int32, dtype", False,
     "The value of voxel `(i, j, k)` of a volume of element type `dtype` (the background outside)."),
    ("volume_store", "id: uint64, i: int32, j: int32, k: int32, value", False,
     "Write `value` to voxel `(i, j, k)` of an allocated volume."),
])

_declare("Textures", [
    ("texture_sample", "tex: Texture1D | Texture2D | Texture3D, coords, dtype: float | vec2f | vec4f, lod: float = -1.0",
     True, "Sample a texture at `u`, `uv`/`u, v` or `uvw`/`u, v, w` (texel `i` centred at `i + 0.5`; "
           "normalized or texel coordinates, the texture's filter and address modes) at level of detail "
           "`lod` (mip levels blend by the mip filter); the channels beyond the texture's read 0. "
           "Differentiable in the coordinates and `lod`."),
])

_SHAPE = "shape: tuple[int, ...]"
_STORAGE = "storage: str = 'register'"
_declare(TILES, [
    # construction
    ("tile_zeros", f"{_SHAPE}, dtype = float, {_STORAGE}", False, "A tile of zeros."),
    ("tile_ones", f"{_SHAPE}, dtype = float, {_STORAGE}", False, "A tile of ones."),
    ("tile_full", f"{_SHAPE}, value, dtype = None, {_STORAGE}", False, "A tile filled with `value`."),
    ("tile_empty", f"{_SHAPE}, dtype = float, {_STORAGE}", False, "A tile whose elements are not initialised."),
    ("tile_arange", f"*args, dtype = None, {_STORAGE}", False,
     "`(stop)`, `(start, stop)` or `(start, stop, step)`: a 1-d tile of evenly spaced values (compile-time bounds)."),
    ("tile_randf", f"{_SHAPE}, rng: uint32, min = 0.0, max = 1.0, {_STORAGE}", False,
     "A tile of uniform random floats in `[min, max)` from the generator state `rng`."),
    ("tile_randi", f"{_SHAPE}, rng: uint32, min = None, max = None, {_STORAGE}", False,
     "A tile of random integers (in `[min, max)` when given) from the generator state `rng`."),
    ("tile_from_thread", f"{_SHAPE}, value, thread_idx: int, {_STORAGE}", False,
     "A tile filled with the `value` held by lane `thread_idx` of the block."),
    ("tile", "x, preserve_type: bool = False", True,
     "A tile of the block's per-thread values `x` (one element per lane; a vector or matrix value adds "
     "its dimensions unless `preserve_type`)."),
    ("untile", "a: tile", True, "Each lane's element of a tile made by `tile()`, back as a per-thread value."),
    # memory
    ("tile_load", f"a: array, {_SHAPE}, offset = None, {_STORAGE}, bounds_check: bool = True, aligned: bool = False",
     True, "A tile read from array `a` at `offset` (elements outside the array read as zero)."),
    ("tile_store", "a: array, t: tile, offset = None, bounds_check: bool = True, aligned: bool = False", True,
     "Write tile `t` into array `a` at `offset` (elements outside the array are skipped)."),
    ("tile_atomic_add", "a: array, t: tile, offset = None, bounds_check: bool = True", True,
     "Atomically add tile `t` into array `a` at `offset`; returns the previous values as a tile."),
    ("tile_load_indexed", f"a: array, indices: tile, {_SHAPE}, offset = None, axis: int = 0, {_STORAGE}", True,
     "A tile read from `a` with the rows (or slices along `axis`) chosen by the 1-d index tile `indices`."),
    ("tile_store_indexed", "a: array, indices: tile, t: tile, offset = None, axis: int = 0", True,
     "Write `t` into `a` at the positions along `axis` named by `indices`."),
    ("tile_atomic_add_indexed", "a: array, indices: tile, t: tile, offset = None, axis: int = 0", True,
     "Atomically add `t` into `a` at the positions along `axis` named by `indices`."),
    ("tile_scatter_add", "a: tile, *indices, value, has_value: bool, atomic: bool = True", True,
     "Each lane with `has_value` adds its `value` to element `indices` of tile `a`."),
    ("tile_scatter_masked", "a: tile, *indices, value, has_value: bool", True,
     "Each lane with `has_value` writes its `value` to element `indices` of tile `a`."),
    # element access and layout
    ("tile_extract", "a: tile, *indices: int", True, "Element `indices` of a tile, as a value every lane receives."),
    ("tile_view", "t: tile, offset: tuple[int, ...] = None, shape: tuple[int, ...] = None", True,
     "A window of `t` starting at `offset` sharing its storage (and gradient)."),
    ("tile_slice_indexed", "t: tile, indices: tile", True,
     "The rows of `t` named by the 1-d index tile `indices`."),
    ("tile_assign", "dst: tile, src: tile, offset: tuple[int, ...] = None", True,
     "Write `src` into `dst` at `offset`, in place."),
    ("tile_transpose", "a: tile", True, "The transpose of a 2-d tile."),
    ("tile_broadcast", f"a: tile, {_SHAPE}", True, "`a` broadcast to `shape` (NumPy's rules)."),
    ("tile_reshape", f"t: tile, {_SHAPE}", True, "`t` with a new shape of the same size (one dimension may be -1)."),
    ("tile_squeeze", "t: tile, axis: int | tuple[int, ...] = None", True, "`t` without its dimensions of length one."),
    ("tile_astype", "t: tile, dtype", False, "The elements of `t` converted to `dtype`."),
    # maps and reductions
    ("tile_map", "op, a: tile, *args: tile", True,
     "`op` (a builtin or @wp.func) applied elementwise to tiles of one shape."),
    ("tile_reduce", "op, a: tile, axis: int = None", False,
     "The reduction of `a` (or of each slice along `axis`) by the binary `op`: a one-element tile."),
    ("tile_sum", "a: tile, axis: int = None", True, "The sum of the elements of `a` (or along `axis`)."),
    ("tile_max", "a: tile", True, "The largest element of `a`, as a one-element tile."),
    ("tile_min", "a: tile", True, "The smallest element of `a`, as a one-element tile."),
    ("tile_argmax", "a: tile", False, "The index of the largest element of `a` (the first on ties)."),
    ("tile_argmin", "a: tile", False, "The index of the smallest element of `a` (the first on ties)."),
    ("tile_dot", "a: tile, b: tile", True, "The sum of the elementwise products of two tiles of one shape."),
    ("tile_axpy", "alpha, src: tile, dest: tile", True, "`dest += alpha * src`, in place."),
    ("tile_scan_inclusive", "a: tile", True, "The running sums of a 1-d tile, each including its own element."),
    ("tile_scan_exclusive", "a: tile", True, "The running sums of a 1-d tile, each excluding its own element."),
    ("tile_scan_max_inclusive", "a: tile", False, "The running maxima of a 1-d tile."),
    ("tile_scan_min_inclusive", "a: tile", False, "The running minima of a 1-d tile."),
    ("tile_sort", "keys: tile, values: tile", False, "Sort 1-d `keys` ascending in place, moving `values` with them."),
    # linear algebra
    ("tile_matmul", "a: tile, b: tile, out: tile = None, alpha = 1.0, beta = 1.0", True,
     "`alpha * a @ b`, or with `out`: `out = alpha * a @ b + beta * out` in place."),
    ("tile_diag_add", "a: tile, d: tile", True, "Square tile `a` with the 1-d tile `d` added to its diagonal."),
    ("tile_cholesky", "A: tile, fill_mode: str = 'lower'", True,
     "The Cholesky factor of a symmetric positive definite tile."),
    ("tile_cholesky_inplace", "A: tile, fill_mode: str = 'lower'", False, "`tile_cholesky`, overwriting `A`."),
    ("tile_cholesky_solve", "L: tile, y: tile, fill_mode: str = 'lower'", True,
     "`x` with `L L^T x = y`, given the Cholesky factor `L`."),
    ("tile_cholesky_solve_inplace", "L: tile, y: tile, fill_mode: str = 'lower'", False,
     "`tile_cholesky_solve`, overwriting `y` with `x`."),
    ("tile_lower_solve", "L: tile, y: tile", True, "`x` with `L x = y` for lower-triangular `L`."),
    ("tile_lower_solve_inplace", "L: tile, y: tile", False, "`tile_lower_solve`, overwriting `y`."),
    ("tile_upper_solve", "U: tile, z: tile", True, "`x` with `U x = z` for upper-triangular `U`."),
    ("tile_upper_solve_inplace", "U: tile, z: tile", False, "`tile_upper_solve`, overwriting `z`."),
    ("tile_fft", "inout: tile", True, "The forward FFT of each row of a tile of complex numbers (vec2), in place."),
    ("tile_ifft", "inout: tile", True, "The inverse FFT of each row of a tile of complex numbers (vec2), in place."),
    # block-wide stack
    ("tile_stack", "capacity: int, dtype", False, "An empty block-wide stack of at most `capacity` values."),
    ("tile_stack_push", "s, value, has_value: bool", True, "Each lane with `has_value` pushes `value` onto `s`."),
    ("tile_stack_pop", "s", True, "Pop one value per lane from `s` (with whether one was there)."),
    ("tile_stack_count", "s", False, "The number of values on the stack."),
    ("tile_stack_clear", "s", False, "Empty the stack."),
    # block-parallel queries
    ("tile_bvh_query_aabb", "id: uint64, low: vec3, high: vec3", False,
     "A block-wide query of the BVH's leaves overlapping a box (one candidate per lane per step)."),
    ("tile_bvh_query_ray", "id: uint64, start: vec3, dir: vec3", False,
     "A block-wide query of the BVH's leaves a ray crosses."),
    ("tile_bvh_query_next", "query", False, "The next candidate of a block-wide BVH query, one per lane."),
    ("tile_mesh_query_aabb", "id: uint64, low: vec3, high: vec3", False,
     "A block-wide query of the mesh's faces whose bounds overlap a box."),
    ("tile_mesh_query_aabb_next", "query", False, "The next candidate of a block-wide mesh query, one per lane."),
    ("tile_query_valid", "query", False, "Whether this lane's candidate of a block-wide query is valid."),
])

# the reference's older spellings of the block-parallel queries
_declare(TILES, [(f"{old}_tiled", sig, False, f"The older spelling of `tile_{old}`.")
                 for old, sig in [("bvh_query_aabb", "id: uint64, low: vec3, high: vec3"),
                                  ("bvh_query_ray", "id: uint64, start: vec3, dir: vec3"),
                                  ("bvh_query_next", "query"),
                                  ("mesh_query_aabb", "id: uint64, low: vec3, high: vec3"),
                                  ("mesh_query_aabb_next", "query")]])
