"""warp-lang 1.19's ``wp.config`` options: each exists with warp-lang's default; the ones with an
effect here change the compiler command line (and so the cache key) as documented in
docs/config.md; invalid values are refused with warp-lang's ValueError."""

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.compiler import cpu, nvrtc

# (option, warp-lang's default; ours where they differ on purpose: cpu_compiler_flags, whose
# default there is a clang string, is None here = "-march=native")
DEFAULTS = [("version", "1.19.0"), ("optimization_level", None), ("cpu_compiler_flags", None),
            ("use_precompiled_headers", True), ("cuda_output", None), ("ptx_target_arch", None),
            ("cuda_arch_suffix", None), ("launch_array_access_mode", wp.config.LaunchArrayAccessMode.RELAXED),
            ("enable_mempools_at_init", True), ("load_module_max_workers", 0), ("line_directives", True),
            ("compile_time_trace", False), ("llvm_cuda", False), ("legacy_cpu_linker", False),
            ("default_grid_stride", True), ("enable_mathdx_gemm", True), ("enable_mathdx_solver", True),
            ("enable_mathdx_fft", True), ("enable_tiles_in_stack_memory", True),
            ("enable_vector_component_overwrites", False), ("legacy_scalar_return_types", False),
            ("deterministic_max_records", 0), ("deterministic_debug", False)]


@pytest.fixture
def restore():
    saved = {name: getattr(wp.config, name) for name, _ in DEFAULTS}
    yield
    for name, value in saved.items():
        setattr(wp.config, name, value)


@pytest.mark.parametrize("name, default", DEFAULTS)
def test_defaults(name, default):
    assert getattr(wp.config, name) == default


@pytest.mark.parametrize("enum_name", ["DeterministicMode", "LaunchArrayAccessMode"])
def test_enums_are_config_attributes(enum_name):
    e = getattr(wp.config, enum_name)
    assert [m.value for m in e] == [0, 1, 2]


@pytest.mark.parametrize("name, bad", [("cuda_output", "sass"), ("cuda_arch_suffix", "x"),
                                       ("optimization_level", 4), ("optimization_level", True),
                                       ("launch_array_access_mode", 1)])
def test_bad_values_are_refused(restore, name, bad):
    with pytest.raises(ValueError, match=name):
        setattr(wp.config, name, bad)


@pytest.mark.parametrize("level, flag", [(None, "-O3"), (0, "-O0"), (1, "-O1"), (2, "-O2"), (3, "-O3")])
def test_optimization_level_sets_the_cpu_flag(restore, level, flag):
    wp.config.optimization_level = level
    fl = cpu.flags(False, False)
    assert [f for f in fl if f.startswith("-O")] == [flag]
    assert [f for f in cpu.flags(True, False) if f.startswith("-O")] == ["-O0"]    # debug stays -O0


@pytest.mark.parametrize("text, expected", [
    (None, ["-march=native"]),
    ("", []),
    ("-march=x86-64-v2", ["-march=x86-64-v2"]),
    # warp-lang's default (clang): the LLVM options are dropped, in both spellings
    ("-march=native -mllvm=-inline-threshold=9000 -mllvm -slp-recursion-max-depth=4 -fno-tree-vectorize",
     ["-march=native", "-fno-tree-vectorize"]),
])
def test_cpu_compiler_flags_replace_the_target_flags(restore, text, expected):
    wp.config.cpu_compiler_flags = text
    fl = cpu.flags(False, False)
    assert cpu.target_flags() == expected
    assert all(f in fl for f in expected) and ("-march=native" in fl) == ("-march=native" in expected)


def test_flags_change_the_build_key_and_the_cache_key(restore):
    base, key = cpu.build_key(False, False), wp.get_cpu_kernel_cache_key()
    assert key.startswith(f"{wp.__version__}-") and len(key.rsplit("-", 1)[1]) == 8
    assert wp.get_cpu_kernel_cache_key(cpu_compiler_flags="") != key
    assert wp.get_cpu_kernel_cache_key(cpu_compiler_flags="-march=native") == key
    wp.config.optimization_level = 1
    assert cpu.build_key(False, False) != base
    wp.config.optimization_level = None
    wp.config.cpu_compiler_flags = ""
    assert cpu.build_key(False, False) != base
    assert wp.get_cpu_kernel_cache_key() == wp.get_cpu_kernel_cache_key(cpu_compiler_flags="")


@wp.kernel(module="unique")
def cubic(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = x[i] * x[i] * x[i] - 2.0 * x[i]


def test_generic_target_without_precompiled_header(restore, monkeypatch):
    # a build with -O1, a generic target and no PCH: the same values as NumPy
    wp.config.optimization_level = 1
    wp.config.cpu_compiler_flags = ""
    wp.config.use_precompiled_headers = False
    monkeypatch.setattr(cpu, "ensure_pch", lambda *a, **k: pytest.fail("the PCH was asked for"))
    x = np.linspace(-2.0, 2.0, 37)
    xa, ya = wp.array(x, dtype=wp.float64, device="cpu"), wp.zeros(37, dtype=wp.float64, device="cpu")
    wp.launch(cubic, dim=37, inputs=[xa, ya], device="cpu")
    np.testing.assert_array_equal(ya.numpy(), x * x * x - 2.0 * x)


@pytest.mark.parametrize("output, ptx_arch, arch, expected", [
    (None, None, 90, ("cubin", 90)),
    ("ptx", None, 90, ("ptx", 90)),
    ("ptx", 75, 90, ("ptx", 75)),
    (None, 80, 95, ("ptx", 80)),       # sm_95 unknown to this NVRTC: PTX, capped at ptx_target_arch
    (None, None, 95, ("ptx", 90)),
    ("cubin", None, 90, ("cubin", 90)),
])
def test_cuda_output_and_ptx_target_arch(restore, monkeypatch, output, ptx_arch, arch, expected):
    monkeypatch.setattr(nvrtc, "supported_archs", lambda: (75, 80, 86, 89, 90))
    wp.config.cuda_output, wp.config.ptx_target_arch = output, ptx_arch
    assert nvrtc.target_for(arch) == expected


def test_cubin_output_for_an_unknown_arch_is_an_error(restore, monkeypatch):
    monkeypatch.setattr(nvrtc, "supported_archs", lambda: (75, 80, 90))
    monkeypatch.setattr(nvrtc, "version", lambda: (12, 8))
    wp.config.cuda_output = "cubin"
    with pytest.raises(wp.CompileError, match="cannot build a CUBIN for sm_95"):
        nvrtc.target_for(95)


@pytest.mark.parametrize("suffix, arch, kind, gpu", [
    (None, 90, "cubin", "sm_90"), ("a", 90, "cubin", "sm_90a"), ("a", 90, "ptx", "compute_90a"),
    ("f", 100, "cubin", "sm_100f"), ("a", 86, "cubin", "sm_86"),     # below sm_90: no suffix
])
def test_cuda_arch_suffix(restore, suffix, arch, kind, gpu):
    wp.config.cuda_arch_suffix = suffix
    assert f"--gpu-architecture={gpu}" in nvrtc.options(arch, kind, False, False)


def test_mempools_at_init_on_the_stand_in(restore, monkeypatch):
    pytest.importorskip("cuda.bindings.nvrtc", reason="the CUDA extra is not installed")
    if wp.is_cuda_available():
        pytest.skip("a real GPU is here: the stand-in driver is not installed over it")
    from cuda_fake import install
    wp.config.enable_mempools_at_init = False
    install(monkeypatch.setattr)
    d = wp.get_device("cuda:0")
    assert d.is_mempool_supported and not wp.is_mempool_enabled(d)
    assert wp.zeros(4, dtype=float, device=d).memory_kind == wp.MemoryKind.CUDA_DEVICE
