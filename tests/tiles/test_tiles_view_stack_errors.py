"""warp-lang 1.19's build errors for reshaping a non-contiguous tile view and for tile stacks
(measured with warp-lang on this machine's CPU: the same cases, the same words), and the views
it does reshape (against NumPy)."""

import importlib.util

import numpy as np
import pytest

import warp_interactive as wp

NOT_CONTIGUOUS = ("tile_reshape() requires a contiguous tile; a tile view with shape {} and strides {} "
                  "cannot be reshaped in place. Copy the view into a new tile first, e.g. with wp.tile_assign().")

# (expression reshaped, the expected flattened result or the (shape, strides) of warp-lang's error)
RESHAPES = {
    "rows": ("wp.tile_reshape(t[1:3, :], shape=(16,))", lambda a: a[1:3].ravel()),
    "row": ("wp.tile_reshape(t[1], shape=(2, 4))", lambda a: a[1]),
    "copy_of_strided": ("wp.tile_reshape(t[::2, ::2] * 1.0, shape=(8,))", lambda a: a[::2, ::2].ravel()),
    "columns": ("wp.tile_reshape(t[:, 1:3], shape=(8,))", ((4, 2), (8, 1))),
    "steps": ("wp.tile_reshape(t[::2, ::2], shape=(8,))", ((2, 4), (16, 2))),
    "reversed": ("wp.tile_reshape(t[::-1], shape=(32,))", ((4, 8), (-8, 1))),
    "part_of_a_row": ("wp.tile_reshape(t[0:1, 0:4], shape=(4,))", ((1, 4), (8, 1))),
}


def _module(tmp_path, name, body):
    path = tmp_path / f"{name}.py"
    path.write_text("import warp_interactive as wp\n\n\n" + body)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("case", RESHAPES)
def test_reshape_of_views(case, tmp_path):
    expr, want = RESHAPES[case]
    m = _module(tmp_path, f"reshape_{case}", f"""
@wp.kernel(enable_backward=False)
def k(a: wp.array2d(dtype=float), o: wp.array(dtype=float)):
    t = wp.tile_load(a, shape=(4, 8))
    r = {expr}
    wp.tile_store(o, wp.tile_reshape(r, shape=(-1,)))
""")
    a_np = np.arange(32, dtype=np.float32).reshape(4, 8)
    out = wp.zeros(32, dtype=float)
    launch = lambda: wp.launch_tiled(m.k, dim=1, inputs=[wp.array(a_np), out], block_dim=1, device="cpu")
    if callable(want):
        launch()
        flat = want(a_np).ravel()
        np.testing.assert_array_equal(out.numpy()[:flat.size], flat)
        return
    with pytest.raises(ValueError) as info:
        launch()
    assert NOT_CONTIGUOUS.format(*want) in str(info.value)
    assert isinstance(info.value, RuntimeError) and "r = wp.tile_reshape" in str(info.value)


STACK_ERRORS = {
    "zero_capacity": ("s = wp.tile_stack(capacity=0, dtype=int)", ValueError,
                      "tile_stack() requires capacity to be a positive integer, got 0"),
    "negative_capacity": ("s = wp.tile_stack(capacity=-2, dtype=int)", ValueError,
                          "tile_stack() requires capacity to be a positive integer, got -2"),
    "bool_capacity": ("s = wp.tile_stack(capacity=True, dtype=int)", ValueError,
                      "tile_stack() requires capacity to be a positive integer, got True"),
    "push_float_into_int": ("s = wp.tile_stack(capacity=4, dtype=int)\n    wp.tile_stack_push(s, 1.0, True)",
                            TypeError, "tile_stack_push() value type float32 does not match stack dtype int32"),
    "push_vec_into_float": ("s = wp.tile_stack(capacity=4, dtype=float)\n    wp.tile_stack_push(s, wp.vec3(), True)",
                            TypeError, "tile_stack_push() value type vec3f does not match stack dtype float32"),
    "reshape_size": ("t = wp.tile_reshape(wp.tile_zeros(shape=8, dtype=float), shape=(16,))", ValueError,
                     "New shape (16,) has total size 16 which does not match original size 8"),
}


@pytest.mark.parametrize("case", STACK_ERRORS)
def test_stack_errors(case, tmp_path):
    body, kind, message = STACK_ERRORS[case]
    m = _module(tmp_path, f"stack_{case}", f"""
@wp.kernel(enable_backward=False)
def k():
    {body}
""")
    with pytest.raises(kind) as info:
        wp.launch_tiled(m.k, dim=1, inputs=[], block_dim=1, device="cpu")
    assert message in str(info.value) and isinstance(info.value, RuntimeError)
