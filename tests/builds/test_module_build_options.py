"""wp.ModuleBuildOptions: the class (warp-lang's merging rules and checks) and the module option
``extra_build_options`` reaching the CPU build: include directories and preamble in the compile,
and every input in the module's hash (a change rebuilds, a file dependency's contents included)."""

import os

import numpy as np
import pytest

import warp_interactive as wp

ADDON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "addon_include")
MBO = wp.ModuleBuildOptions


# --- the class --------------------------------------------------------------------------------
@pytest.mark.parametrize("parts, expect", [
    # include dirs and dependencies keep their first occurrence, in order
    ([dict(extra_cpu_include_dirs=["/a", "/b"]), dict(extra_cpu_include_dirs=["/b", "/c"])],
     dict(extra_cpu_include_dirs=["/a", "/b", "/c"])),
    ([dict(extra_cuda_include_dirs=["/x"]), dict(extra_cuda_include_dirs=["/x"]),
      dict(extra_cuda_include_dirs=["/y"])], dict(extra_cuda_include_dirs=["/x", "/y"])),
    ([dict(extra_build_dependencies=["/f"]), dict(extra_build_dependencies=["/g", "/f"])],
     dict(extra_build_dependencies=["/f", "/g"])),
    # preambles joined in order, a newline between non-empty ones (none added to the last)
    ([dict(extra_cpu_preamble="#define A 1"), dict(extra_cpu_preamble="#define B 2")],
     dict(extra_cpu_preamble="#define A 1\n#define B 2")),
    ([dict(extra_cuda_preamble="#define A 1\n"), dict(extra_cuda_preamble="#define B 2")],
     dict(extra_cuda_preamble="#define A 1\n#define B 2")),
    ([dict(extra_cpu_preamble=""), dict(extra_cpu_preamble="#define B 2"), dict()],
     dict(extra_cpu_preamble="#define B 2")),
    ([dict(extra_cpu_preamble="x"), dict(extra_cuda_preamble="y")],
     dict(extra_cpu_preamble="x", extra_cuda_preamble="y")),
])
def test_merged(parts, expect):
    inputs = [MBO(**p) for p in parts]
    before = [dict(vars(o)) for o in inputs]
    out = inputs[0].merged(*inputs[1:])
    want = dict(vars(MBO())) | expect
    assert vars(out) == want
    assert [vars(o) for o in inputs] == before          # the inputs are not modified
    assert all(out is not o for o in inputs)


@pytest.mark.parametrize("call, error, text", [
    (lambda: MBO(extra_cpu_preamble=3), TypeError, "extra_cpu_preamble must be a str, got int"),
    (lambda: MBO(extra_cuda_preamble=None), TypeError, "extra_cuda_preamble must be a str, got NoneType"),
    (lambda: MBO().merged(MBO(), {}), TypeError, "others must contain ModuleBuildOptions instances, got dict"),
    (lambda: MBO("x"), TypeError, "positional"),
])
def test_class_errors(call, error, text):
    with pytest.raises(error, match=text):
        call()


def test_defaults_are_empty_and_lists_are_copies():
    dirs = ["/a"]
    o = MBO(extra_cpu_include_dirs=dirs)
    dirs.append("/b")
    assert o.extra_cpu_include_dirs == ["/a"]
    assert vars(MBO()) == {"extra_cuda_include_dirs": [], "extra_cpu_include_dirs": [],
                           "extra_cuda_preamble": "", "extra_cpu_preamble": "",
                           "extra_build_dependencies": []}


# --- the module option ------------------------------------------------------------------------
@wp.func_native("return wpi_test_addon_affine(x, ADDON_K);")
def addon_affine(x: float) -> float: ...


@wp.kernel(module="unique")
def addon_kernel(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = addon_affine(a[i])


def _both(preamble, dirs=(ADDON_DIR,), deps=()):
    return MBO(extra_cpu_include_dirs=list(dirs), extra_cuda_include_dirs=list(dirs),
               extra_cpu_preamble=preamble, extra_cuda_preamble=preamble,
               extra_build_dependencies=list(deps))


def _set(opts):
    wp.set_module_options({"extra_build_options": opts}, module=addon_kernel.module)


def _hash(opts):
    _set(opts)
    return addon_kernel.module.build.module_hash()


@pytest.fixture
def restore_options():
    yield
    _set(None)


def test_include_dirs_and_preamble_reach_the_cpu_build_and_a_change_rebuilds(restore_options):
    """The kernel calls a function of a header found through the include dirs, with a constant
    the preamble defines; changing the preamble with set_module_options rebuilds."""
    a = np.linspace(-2.0, 3.0, 7).astype(np.float32)
    for k in (2.0, 3.0):
        _set(_both(f'#include "wpi_test_addon.h"\n#define ADDON_K {k}f'))
        out = wp.zeros(a.size, dtype=float, device="cpu")
        wp.launch(addon_kernel, dim=a.size, inputs=[wp.array(a, device="cpu"), out], device="cpu")
        np.testing.assert_allclose(out.numpy(), k * a + 1.0, rtol=1e-6)
    src = addon_kernel.module.source()
    at = src.index('#include "wpi_test_addon.h"\n')
    assert src.index('#include "warp_interactive/builtin.h"') < at < src.index("wpi_test_addon_affine(x")
    # each backend its own preamble
    _set(_both("").merged(MBO(extra_cuda_preamble="#define ONLY_CUDA 1", extra_cpu_preamble="#define ONLY_CPU 1")))
    from warp_interactive.codegen.target import CUDA
    cpu, cuda = addon_kernel.module.source(), addon_kernel.module.source(CUDA)
    assert "#define ONLY_CPU 1\n" in cpu and "ONLY_CUDA" not in cpu
    assert "#define ONLY_CUDA 1\n" in cuda and "ONLY_CPU" not in cuda


def test_without_the_include_dir_the_header_is_not_found(restore_options):
    _set(_both('#include "wpi_test_addon.h"\n#define ADDON_K 2.0f', dirs=()))
    with pytest.raises(wp.CompileError, match="wpi_test_addon.h"):
        wp.launch(addon_kernel, dim=1, inputs=[wp.zeros(1, dtype=float, device="cpu"),
                                               wp.zeros(1, dtype=float, device="cpu")], device="cpu")


def test_every_input_is_in_the_module_hash(restore_options, tmp_path):
    dep = tmp_path / "dep.txt"
    dep.write_text("one")
    other = tmp_path / "inc"
    other.mkdir()
    base = '#include "wpi_test_addon.h"\n#define ADDON_K 2.0f'
    h = {
        "none": _hash(None),
        "empty": _hash(MBO()),
        "pre": _hash(_both(base)),
        "pre_newline": _hash(_both(base + "\n")),
        "pre_other": _hash(_both(base.replace("2.0f", "4.0f"))),
        "cpu_dir": _hash(_both(base, dirs=(ADDON_DIR, str(other)))),
        "cuda_only_dir": _hash(_both(base).merged(MBO(extra_cuda_include_dirs=[str(other)]))),
        "cuda_only_pre": _hash(_both(base).merged(MBO(extra_cuda_preamble="#define Q 1"))),
        "dep_one": _hash(_both(base, deps=[str(dep)])),
    }
    dep.write_text("two")
    h["dep_two"] = _hash(_both(base, deps=[str(dep)]))
    assert h["none"] == h["empty"]
    assert h["pre"] == h["pre_newline"]                      # the preamble is normalised
    # the CPU binary does not depend on CUDA-only inputs
    assert h["cuda_only_dir"] == h["pre"] and h["cuda_only_pre"] == h["pre"]
    distinct = ["none", "pre", "pre_other", "cpu_dir", "dep_one", "dep_two"]
    assert len({h[k] for k in distinct}) == len(distinct), h


@pytest.mark.parametrize("opts, error, text", [
    ("not options", TypeError,
     "Module option 'extra_build_options' must be a ModuleBuildOptions instance, got str"),
    (MBO(extra_cpu_include_dirs=["relative/dir"]), ValueError,
     r"extra_include_dirs entries must be absolute existing directories: 'relative/dir' \(not absolute\)"),
    (MBO(extra_cpu_include_dirs=["/no/such/wpi/dir"]), ValueError, r"'/no/such/wpi/dir' \(not a directory\)"),
    (MBO(extra_build_dependencies=["dep.txt"]), ValueError,
     r"extra_build_dependencies entries must be absolute existing files: 'dep.txt' \(not absolute\)"),
    (MBO(extra_build_dependencies=[ADDON_DIR]), ValueError, r"\(not a file\)"),
])
def test_invalid_options_are_refused_at_build(restore_options, opts, error, text):
    _set(opts)
    with pytest.raises(error, match=text):
        wp.launch(addon_kernel, dim=1, inputs=[wp.zeros(1, dtype=float, device="cpu"),
                                               wp.zeros(1, dtype=float, device="cpu")], device="cpu")


def test_kernel_module_options_take_build_options():
    @wp.kernel(module="unique", module_options={"extra_build_options": _both(
        '#include "wpi_test_addon.h"\n#define ADDON_K 5.0f')})
    def addon_kernel5(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = addon_affine(a[i])

    src = addon_kernel5.module.source()
    assert "#define ADDON_K 5.0f\n" in src
    assert src.index('#include "warp_interactive/builtin.h"') < src.index("#define ADDON_K 5.0f")
