"""The reference's module and kernel API as Warp users call it: ``wp.Kernel(func=, key=,
module=, options=)``, ``kernel.options``, ``module.options``, ``wp.get_module``,
``Module.load(device, block_dim=)``, ``Module.unload``, ``module="unique"``, device queries,
constants and error names."""

import math

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.state import state


def _double(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * 2.0


def _triple(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * 3.0


def test_kernel_built_directly():
    k = wp.Kernel(func=_double, key="double_direct", module=wp.get_module("wpi_test_api_direct"),
                  options={"enable_backward": False})
    assert k.key == "double_direct"
    assert k.options == {"enable_backward": False}
    assert k.module is wp.get_module("wpi_test_api_direct")
    assert k.module.kernels["double_direct"] is k
    assert not k.backward_enabled()
    a = wp.array([1.0, 2.0], dtype=float)
    wp.launch(k, dim=2, inputs=[a])
    np.testing.assert_array_equal(a.numpy(), [2.0, 4.0])


def test_kernel_without_module_goes_to_its_python_module():
    k = wp.Kernel(func=_triple)
    assert k.module is wp.get_module(__name__)
    assert k.key == "_triple" and k.options == {}


@pytest.mark.parametrize("key", ["plain", "with.dots", "with-dash", "k:1"])
def test_kernel_keys_need_not_be_identifiers(key):
    k = wp.Kernel(func=_double, key=key, module=f"wpi_test_api_keys_{abs(hash(key))}")
    a = wp.array([1.5], dtype=float)
    wp.launch(k, dim=1, inputs=[a])
    assert a.numpy()[0] == 3.0


def test_module_options_read_through_to_the_config():
    m = wp.get_module("wpi_test_api_options")
    assert m.options["enable_backward"] is wp.config.enable_backward
    assert m.options["max_unroll"] == wp.config.max_unroll
    wp.set_module_options({"max_unroll": 3}, "wpi_test_api_options")
    assert m.options["max_unroll"] == 3
    full = wp.get_module_options("wpi_test_api_options")
    assert full["max_unroll"] == 3 and full["mode"] == wp.config.mode
    assert {"enable_backward", "mode", "fast_math", "max_unroll"} <= set(full)
    with pytest.raises(KeyError):
        m.options["no_such_option"]


def test_get_module_options_round_trip_restores():
    """``saved = dict(wp.get_module_options()); ...; wp.set_module_options(saved)`` undoes a
    change, as the reference's own tests do."""
    name = "wpi_test_api_roundtrip"
    saved = dict(wp.get_module_options(name))
    wp.set_module_options({"max_unroll": 2, "mode": "debug"}, name)
    wp.set_module_options(saved, name)
    assert wp.get_module_options(name) == saved


def test_load_with_block_dim_and_unload():
    k = wp.Kernel(func=_double, module="wpi_test_api_load")
    m = k.module
    lm = m.load("cpu", block_dim=1)
    assert lm is m.load(wp.get_device("cpu"), block_dim=256)    # one binary
    m.unload()
    assert not m.loaded
    n = len(state.build_log)
    a = wp.array([2.0], dtype=float)
    wp.launch(k, dim=1, inputs=[a])               # loads again: from the cache, no compile
    assert a.numpy()[0] == 4.0
    assert len(state.build_log) == n + 1 and not state.build_log[-1].compiled


def test_module_unique_gives_each_kernel_its_own_module():
    kernels = []
    for scale in (2.0, 5.0):
        @wp.kernel(module="unique")
        def scaled(a: wp.array(dtype=float)):
            a[wp.tid()] = a[wp.tid()] * scale   # noqa: B023
        kernels.append(scaled)
    assert kernels[0].module is not kernels[1].module
    for k, expected in zip(kernels, (2.0, 5.0)):
        a = wp.array([1.0], dtype=float)
        wp.launch(k, dim=1, inputs=[a])
        assert a.numpy()[0] == expected


def test_module_options_need_unique():
    with pytest.raises(ValueError, match='module_options requires module="unique"'):
        wp.kernel(_double, module_options={"fast_math": True})
    k = wp.kernel(_double, module="unique", module_options={"max_unroll": 4})
    assert k.module.options["max_unroll"] == 4


def test_relaunch_after_redefinition_in_a_loop():
    """The reference's tests define a kernel of the same name in a loop and launch each: every
    object runs its own code."""
    made = []
    for n in range(3):
        @wp.kernel(module="wpi_test_api_loop")
        def set_value(a: wp.array(dtype=int)):
            a[0] = n   # noqa: B023
        made.append(set_value)
    for n, k in enumerate(made):
        a = wp.zeros(1, dtype=int)
        wp.launch(k, dim=1, inputs=[a])
        assert a.numpy()[0] == n


def test_device_queries():
    assert wp.is_cpu_available() is True
    assert wp.is_device_available("cpu")
    assert wp.is_device_available(wp.get_device("cpu"))
    assert wp.is_device_available("cuda:99") is False
    v = wp.get_cuda_driver_version()
    assert isinstance(v, int) and v >= 0
    assert (v > 0) or not wp.is_cuda_available()


@pytest.mark.parametrize("name, value", [
    ("pi", math.pi), ("PI", math.pi), ("half_pi", math.pi / 2), ("HALF_PI", math.pi / 2),
    ("tau", 2 * math.pi), ("TAU", 2 * math.pi), ("e", math.e), ("E", math.e),
    ("ln2", math.log(2)), ("ln10", math.log(10)), ("log2e", math.log2(math.e)),
    ("log10e", math.log10(math.e)), ("phi", (1 + 5 ** 0.5) / 2), ("inf", math.inf),
])
def test_constants_in_python_and_kernels(name, value):
    assert getattr(wp, name) == pytest.approx(value, rel=1e-15)
    ns = {"wp": wp}
    import linecache
    src = f"def k(out: wp.array(dtype=wp.float64)):\n    out[0] = wp.float64(wp.{name})\n"
    filename = f"<wpi-test-constant-{name}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    exec(compile(src, filename, "exec"), ns)
    out = wp.zeros(1, dtype=wp.float64)
    wp.launch(wp.Kernel(ns["k"], module=f"wpi_test_api_const_{name}"), dim=1, inputs=[out])
    assert out.numpy()[0] == pytest.approx(value, rel=1e-15)


def test_nan_constant():
    assert math.isnan(wp.nan) and math.isnan(wp.NAN)


def test_reference_error_names():
    for name in ("WarpCodegenError", "WarpCodegenTypeError", "WarpCodegenValueError",
                 "WarpCodegenAttributeError", "WarpCodegenKeyError", "WarpCodegenIndexError"):
        assert issubclass(getattr(wp, name), wp.CodegenError)
