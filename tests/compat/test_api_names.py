"""Smaller public names of warp-lang 1.19: wp.from_ptr (its pointer-to-pointer reading),
wp.handle, wp.Launch, wp.print_diagnostics, wp.get_cpu_kernel_cache_key, wp.clear_lto_cache."""

import ctypes
import re

import numpy as np
import pytest

import warp_interactive as wp


@pytest.mark.parametrize("np_dtype, wp_dtype, shape", [
    (np.float32, wp.float32, None), (np.float64, wp.float64, None), (np.int32, wp.int32, (2, 3)),
    (np.uint8, wp.uint8, (3, 2)),
])
def test_from_ptr_reads_the_address_through_a_pointer(np_dtype, wp_dtype, shape):
    data = np.arange(6).astype(np_dtype)
    box = ctypes.c_size_t(data.ctypes.data)          # warp-lang's from_ptr reads the address here
    a = wp.from_ptr(ctypes.addressof(box), 6, dtype=wp_dtype, shape=shape, device="cpu")
    assert a.ptr == data.ctypes.data and not a.requires_grad
    np.testing.assert_array_equal(a.numpy().reshape(-1), data)
    data[0] = 9                                      # no copy: the array sees the memory
    assert a.numpy().reshape(-1)[0] == 9


def test_from_ptr_of_null_is_empty():
    a = wp.from_ptr(0, 0, dtype=wp.float32, device="cpu")
    assert a.size == 0 and a.ptr in (0, None)


def test_handle_is_uint64():
    assert wp.handle is wp.uint64


def test_launch_is_what_record_cmd_returns():
    @wp.kernel
    def set_value(a: wp.array(dtype=float), v: float):
        a[wp.tid()] = v

    a = wp.zeros(4, dtype=float, device="cpu")
    cmd = wp.launch(set_value, dim=4, inputs=[a, 2.5], device="cpu", record_cmd=True)
    assert isinstance(cmd, wp.Launch)
    cmd.launch()
    np.testing.assert_array_equal(a.numpy(), 2.5)


def test_print_diagnostics(capsys):
    info = wp.print_diagnostics()
    out = capsys.readouterr().out
    assert info["warp_python"] == wp.config.version and info["numpy"] == np.__version__
    assert [d["alias"] for d in info["devices"]][0] == "cpu"
    for section in ("Software", "Build", "CUDA", "Devices"):
        assert re.search(rf"^{section}$", out, re.M)
    assert info["cpu_flags"] in out


def test_cpu_kernel_cache_key_format():
    key = wp.get_cpu_kernel_cache_key()
    assert re.fullmatch(rf"{re.escape(wp.__version__)}-\w+-\w+-[0-9a-f]{{8}}", key)
    assert wp.clear_lto_cache() is None


@pytest.mark.parametrize("lower, upper, expect_lower, expect_upper", [
    (1.0, 3.0, (1.0, 1.0, 1.0), (3.0, 3.0, 3.0)),               # one number: all three axes
    ((0.0, 1.0, 2.0), wp.vec3(2.0, 3.0, 4.0), (0.0, 1.0, 2.0), (2.0, 3.0, 4.0)),
    (None, None, (0.0, 0.0, 0.0), (2.0, 2.0, 2.0)),             # default: integer node coordinates
])
def test_marching_cubes_bounds_as_wp_vec3(lower, upper, expect_lower, expect_upper):
    # a sphere of radius 0.8 around the middle node of a 3^3 grid: vertices on every axis
    idx = np.indices((3, 3, 3)).astype(np.float32)
    field = wp.array(np.sqrt(((idx - 1.0) ** 2).sum(axis=0)) - 0.8, dtype=wp.float32, device="cpu")
    mc = wp.geometry.IsoSurfaceMarchingCubes(3, 3, 3, lower, upper)
    mc.surface(field, 0.0)
    v = mc.verts.numpy()
    lo, hi = np.array(expect_lower), np.array(expect_upper)
    centre = (lo + hi) / 2
    # the vertices lie 0.8 node spacings from the middle node, along the grid axes
    np.testing.assert_allclose(np.abs(v - centre).max(axis=0), 0.8 * (hi - lo) / 2, rtol=1e-6)
