"""Small @wp.funcs (codegen/module_source.py SMALL_FUNC statements, callees included) are always
inlined into their callers on the CPU: a contact force called in a neighbour loop stays in the
loop's registers. Larger ones, and callers of larger ones, are left to the compiler; debug builds
and CUDA are unchanged. Inlining must not change a bit: the results are checked against NumPy
(float64, elementwise) and against the same loop built in debug mode (no inlining)."""

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.codegen import module_source
from warp_interactive.codegen.module_source import generate_source
from warp_interactive.codegen.target import CUDA
from warp_interactive.lang import lower


@wp.func
def spring(d: wp.vec3, v: wp.vec3, rest: float, k: float, kd: float):
    length = wp.length(d)
    n = d
    if length > 0.0:
        n = d / length
    vn = wp.dot(n, v)
    return n * (k * (length - rest) + kd * wp.min(vn, 0.0))


@wp.func
def big(x: float):
    # well over SMALL_FUNC statements (each line is several)
    s = x
    s = s * wp.sin(s + 0.0) + x
    s = s * wp.sin(s + 1.0) + x
    s = s * wp.sin(s + 2.0) + x
    s = s * wp.sin(s + 3.0) + x
    s = s * wp.sin(s + 4.0) + x
    s = s * wp.sin(s + 5.0) + x
    s = s * wp.sin(s + 6.0) + x
    s = s * wp.sin(s + 7.0) + x
    s = s * wp.sin(s + 8.0) + x
    s = s * wp.sin(s + 9.0) + x
    s = s * wp.sin(s + 10.0) + x
    s = s * wp.sin(s + 11.0) + x
    s = s * wp.sin(s + 12.0) + x
    s = s * wp.sin(s + 13.0) + x
    s = s * wp.sin(s + 14.0) + x
    s = s * wp.sin(s + 15.0) + x
    s = s * wp.sin(s + 16.0) + x
    s = s * wp.sin(s + 17.0) + x
    s = s * wp.sin(s + 18.0) + x
    s = s * wp.sin(s + 19.0) + x
    s = s * wp.sin(s + 20.0) + x
    s = s * wp.sin(s + 21.0) + x
    s = s * wp.sin(s + 22.0) + x
    s = s * wp.sin(s + 23.0) + x
    return s


@wp.func
def calls_big(x: float):
    return big(x) + 1.0


@wp.kernel(module="small_func_inline")
def pair_forces(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), f: wp.array(dtype=wp.vec3),
                rest: float, k: float, kd: float):
    i = wp.tid()
    acc = wp.vec3()
    for j in range(x.shape[0]):
        if j != i:
            acc += spring(x[j] - x[i], v[j] - v[i], rest, k, kd)
    f[i] = acc


@wp.kernel(module="small_func_inline_big")
def uses_big(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = calls_big(a[i]) + big(a[i])


def _qualifier_of(src, name):
    line = next(ln for ln in src.splitlines() if f" {name}_" in ln and ln.startswith("static"))
    return "always_inline" in line


def test_small_funcs_are_always_inlined_larger_ones_are_not():
    src = generate_source(lower([pair_forces]))
    assert _qualifier_of(src, "spring")
    src = generate_source(lower([uses_big]))
    assert not _qualifier_of(src, "big") and not _qualifier_of(src, "calls_big")


@pytest.mark.parametrize("options", [dict(debug=True), dict(target=CUDA)], ids=["debug", "cuda"])
def test_debug_and_cuda_sources_keep_the_plain_qualifier(options):
    assert not _qualifier_of(generate_source(lower([pair_forces]), **options), "spring")


def _reference(x, v, rest, k, kd):
    x, v = x.astype(np.float64), v.astype(np.float64)
    d = x[None, :, :] - x[:, None, :]
    dv = v[None, :, :] - v[:, None, :]
    length = np.linalg.norm(d, axis=2)
    n = np.where(length[..., None] > 0, d / np.where(length > 0, length, 1)[..., None], d)
    vn = np.sum(n * dv, axis=2)
    f = n * (k * (length - rest) + kd * np.minimum(vn, 0.0))[..., None]
    np.fill_diagonal(f[..., 0], 0), np.fill_diagonal(f[..., 1], 0), np.fill_diagonal(f[..., 2], 0)
    return f.sum(axis=1)


@pytest.mark.parametrize("seed", [0, 1])
def test_inlined_loop_matches_numpy_and_the_debug_build_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    n = 97
    x = rng.random((n, 3)).astype(np.float32)
    x[5] = x[7]                                  # a zero-length pair: the `if` not taken
    v = (rng.random((n, 3)) - 0.5).astype(np.float32)
    args = (0.1, 50.0, 2.0)
    got = {}
    for debug in (False, True):
        wp.set_module_options({"mode": "debug" if debug else "release"}, module="small_func_inline")
        f = wp.zeros(n, dtype=wp.vec3)
        wp.launch(pair_forces, dim=n, inputs=[wp.array(x, dtype=wp.vec3), wp.array(v, dtype=wp.vec3),
                                              f, *args])
        got[debug] = f.numpy()
    wp.set_module_options({"mode": "release"}, module="small_func_inline")
    np.testing.assert_allclose(got[False], _reference(x, v, *args), rtol=2e-4, atol=2e-4)
    np.testing.assert_array_equal(got[False], got[True])
