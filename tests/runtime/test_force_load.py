"""wp.force_load: builds and loads the given modules (or every module holding kernels) on the
given devices (or all), as warp-lang's; a later launch finds the module loaded."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel(module="wpi_test_force_load_a")
def fill_a(x: wp.array(dtype=float)):
    x[wp.tid()] = 2.0


@wp.kernel(module="wpi_test_force_load_b")
def fill_b(x: wp.array(dtype=float)):
    x[wp.tid()] = 3.0


def _cpu_loaded(module):
    return any(dev == "cpu" for dev, _ in module.loaded)


def _fresh(*modules):
    for m in modules:
        m.invalidate()
    assert not any(_cpu_loaded(m) for m in modules)


@pytest.mark.parametrize("device", ["cpu", ["cpu"], None])
def test_given_modules_load_on_the_given_devices(device):
    a, b = fill_a.module, fill_b.module
    _fresh(a, b)
    wp.force_load(device=device, modules=[a])
    assert _cpu_loaded(a) and not _cpu_loaded(b)
    x = wp.zeros(4, dtype=float, device="cpu")
    wp.launch(fill_a, 4, inputs=[x], device="cpu")
    np.testing.assert_array_equal(x.numpy(), 2.0)


SCRIPT = """
import warp_interactive as wp
@wp.kernel(module="m1")
def k1(x: wp.array(dtype=float)):
    x[0] = 1.0
@wp.kernel(module="m2")
def k2(x: wp.array(dtype=float)):
    x[0] = 2.0
mods = [wp.get_module("m1"), wp.get_module("m2")]
print([bool(m.loaded) for m in mods])
wp.force_load()
print([sorted(d for d, _ in m.loaded) for m in mods])
"""


def test_no_modules_given_loads_every_module_with_kernels(tmp_path):
    # in a process of its own: here it would load every module the other test files made
    import os
    import subprocess
    import sys
    env = dict(os.environ, WARP_INTERACTIVE_CACHE_DIR=str(tmp_path / "cache"))
    script = tmp_path / "two_modules.py"      # kernels need a source file
    script.write_text(SCRIPT)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[-2] == "[False, False]"
    devices = [d.alias for d in wp.get_devices()]
    assert lines[-1] == str([sorted(devices)] * 2)


def test_unknown_device_is_refused():
    with pytest.raises((RuntimeError, ValueError), match="nodevice"):
        wp.force_load(device="nodevice", modules=[fill_a.module])
