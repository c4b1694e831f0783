"""NVRTC builds without a GPU: CUBIN/PTX output, the cache, compile errors mapped to the user's
Python line, and the record-then-check machinery scripts/test.sh uses."""

import os

import numpy as np
import pytest

# every test here compiles with NVRTC (or reads its output): without the extra, skip, saying why
pytest.importorskip("cuda.bindings.nvrtc", reason='the CUDA extra is not installed (pip install -e ".[cuda]": cuda-bindings and the NVRTC wheel)')

import warp_interactive as wp  # noqa: E402
from warp_interactive.codegen.target import CUDA  # noqa: E402
from warp_interactive.compiler import nvrtc, nvrtc_check  # noqa: E402
from warp_interactive.errors import CompileError  # noqa: E402
from warp_interactive.compiler.cache import module_hash  # noqa: E402
from warp_interactive.runtime.module import get_module  # noqa: E402

MOD = "nvrtc_tests"


@wp.kernel(module=MOD)
def scale(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = wp.sin(a[i]) * s   # the line test_error_maps_to_python_line breaks


@wp.kernel(module=MOD)
def gather2d(src: wp.array2d(dtype=wp.vec3), idx: wp.array(dtype=int), out: wp.array(dtype=float)):
    i, j = wp.tid()
    v = src[idx[i], j]
    wp.atomic_add(out, i, wp.length(v))


def _stack_cas(dtype):
    """A kernel whose only atomics address the thread's own stack array."""
    @wp.kernel(module=MOD, enable_backward=False)
    def stack_cas(vals: wp.array(dtype=dtype), out: wp.array(dtype=dtype)):
        t = wp.tid()
        a = wp.zeros(shape=(3,), dtype=dtype)
        old = wp.atomic_cas(a, 1, dtype(0), vals[t])
        old2 = wp.atomic_cas(a, 1, vals[t], dtype(2))
        out[t] = old + old2 + a[1]
    return stack_cas


CAS_TYPES = {wp.int32: np.int32, wp.uint32: np.uint32, wp.int64: np.int64, wp.uint64: np.uint64,
             wp.float32: np.float32, wp.float64: np.float64}
STACK_CAS = {dt: _stack_cas(dt) for dt in CAS_TYPES}


def _source(backward=True, mode=None):
    m = get_module(MOD)
    if mode:
        m.options["mode"] = mode
    try:
        return m.source(CUDA, backward)
    finally:
        m.options.pop("mode", None)
        m.invalidate()


def _line_of(text):
    import inspect
    lines, first = inspect.getsourcelines(scale.func)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


def test_cubin_for_sm90_has_every_entry_point():
    cubin = nvrtc.compile_source(_source(), 90, name=MOD)
    assert cubin[:4] == b"\x7fELF"
    for k in (scale, gather2d):
        for which in ("forward", "backward"):
            assert f"{k.ir.name}_cuda_{which}".encode() in cubin


def test_unknown_new_arch_falls_back_to_ptx_of_newest_known():
    newest = max(nvrtc.supported_archs())
    kind, arch = nvrtc.target_for(newest + 1000)
    assert (kind, arch) == ("ptx", newest)
    ptx = nvrtc.compile_source(_source(backward=False), newest + 1000, name=MOD)
    text = ptx.decode()
    assert f".target sm_{newest}" in text and f".entry {scale.ir.name}_cuda_forward" in text


def test_too_old_arch_is_a_clear_error():
    with pytest.raises(CompileError, match=r"cannot build for sm_20.*supports sm_"):
        nvrtc.target_for(20)


def test_error_maps_to_python_line():
    src = _source(backward=False)
    broken = src.replace("wp::sin(", "wp::sin_missing(", 1)
    assert broken != src
    with pytest.raises(CompileError) as e:
        nvrtc.compile_source(broken, 90, name=MOD)
    msg = str(e.value)
    assert f'File "{__file__}", line {_line_of("a[i] = wp.sin(a[i]) * s")}' in msg
    assert "a[i] = wp.sin(a[i]) * s" in msg                 # the user's line, quoted
    assert "sin_missing" in msg and "NVRTC log" in msg      # and the compiler's own words
    assert f"module '{MOD}'" in msg


def test_python_location_reads_markers():
    src = "\n".join([
        "static inline __device__ void f_1(int x) {",
        "    int a = 0;  // py:/x/y.py:10",
        "    a = 1;",
        "    a = 2;  // py:12",
        "    a = 3;",
        "}"])
    assert nvrtc.python_location(src, 5) == ("/x/y.py", 12, "f_1")
    assert nvrtc.python_location(src, 3) == ("/x/y.py", 10, "f_1")
    assert nvrtc.python_location(src, 1) is None


def test_debug_build_has_bounds_checks_and_error_record():
    src = _source(backward=True, mode="debug")
    assert "wp::check_bounds(" in src
    cubin = nvrtc.compile_source(src, 90, debug=True, name=MOD)
    assert b"wpi_cuda_error" in cubin


def test_fast_math_and_lineinfo_options():
    assert "--use_fast_math" in nvrtc.options(90, "cubin", False, True)
    assert "--generate-line-info" in nvrtc.options(90, "cubin", False, False, line_info=True)
    opts = nvrtc.options(90, "cubin", True, False)
    assert "--device-debug" in opts and "--gpu-architecture=sm_90" in opts
    assert "--gpu-architecture=compute_90" in nvrtc.options(90, "ptx", False, False)


def test_module_cache_hit_and_corruption_rebuild():
    src = _source(backward=False)
    h = module_hash(src, nvrtc.build_key(90, False, False))
    path, kind, built = nvrtc.compile_module(src, h, 90, name=MOD)
    path2, _, built2 = nvrtc.compile_module(src, h, 90, name=MOD)
    assert (kind, path2, built2) == ("cubin", path, False)
    assert os.path.exists(os.path.join(os.path.dirname(path), nvrtc.SOURCE))  # readable .cu beside it
    with open(path, "r+b") as f:       # a damaged entry is detected and rebuilt
        f.write(b"junk")
    _, _, built3 = nvrtc.compile_module(src, h, 90, name=MOD)
    assert built3


def test_build_key_changes_with_options():
    assert nvrtc.build_key(90, False, False) != nvrtc.build_key(90, True, False)
    assert nvrtc.build_key(90, False, False) != nvrtc.build_key(90, False, True)
    assert nvrtc.build_key(90, False, False) != nvrtc.build_key(80, False, False)


def test_record_then_check(tmp_path, monkeypatch):
    folder = tmp_path / "rec"
    monkeypatch.setenv(nvrtc_check.ENV, str(folder))
    m = get_module(MOD)
    first = nvrtc_check.record_module(m)
    assert nvrtc_check.record_module(m) == first            # same source, same file
    name, debug, fast, source = nvrtc_check.read_recorded(first)
    assert (name, debug, fast) == (MOD, False, False) and "_cuda_backward" in source
    assert nvrtc_check.recorded_sources(str(folder)) == [first]
    assert nvrtc_check.check_file(first)[:4] == b"\x7fELF"
    # a CPU build records too (that is how the whole suite is covered)
    a = wp.array(np.ones(4, dtype=np.float32))
    wp.launch(scale, dim=4, inputs=[a, 2.0], device="cpu")
    np.testing.assert_allclose(a.numpy(), np.sin(1.0) * 2.0, rtol=1e-6)


def _recording(folder, name, kernels, options="debug=0 fast_math=0"):
    """A file in the record format holding empty kernels of the given names."""
    body = "".join(f'extern "C" __global__ void {k}(int n) {{}}\n' for k in kernels)
    path = folder / f"{name}-{'-'.join(kernels)}-{options[6]}.cu"
    path.write_text(f"// module: {name}\n// options: {options}\n{body}")
    return str(path)


def test_distinct_sources_keep_one_build_per_module_state(tmp_path):
    """A module that gained kernels during the run is compiled once, in its largest state;
    other modules, other options and states that are not contained in another all stay."""
    grown = [_recording(tmp_path, "lib", ks) for ks in (["a"], ["a", "b"], ["a", "b", "c"])]
    branch = _recording(tmp_path, "lib", ["a", "d"])          # not inside [a, b, c]
    other = _recording(tmp_path, "other", ["a"])              # same kernel name, other module
    debug = _recording(tmp_path, "lib", ["a"], "debug=1 fast_math=0")
    kept = nvrtc_check.distinct_sources(sorted(grown + [branch, other, debug]))
    assert kept == sorted([grown[2], branch, other, debug])


def _recorded(folder, name, body):
    path = folder / f"{name}.cu"
    path.write_text(f"// module: {name}\n// options: debug=0 fast_math=0\n"
                    f'#include "warp_interactive/builtin.h"\n{body}\n')
    return str(path)


def test_check_reports_broken_recorded_source(tmp_path):
    # a good source first: the check's worker then holds a precompiled builtin.h, which must
    # not let a broken module through
    good = _recorded(tmp_path, "good", '__global__ void k(float* a) { a[0] = wp::sin(a[1]); }')
    assert nvrtc_check.check_file(good)[:4] == b"\x7fELF"
    bad = _recorded(tmp_path, "broken", "__global__ void k() { undefined_thing(); }")
    with pytest.raises(CompileError, match="undefined_thing"):
        nvrtc_check.check_file(bad)
    # an error only ptxas finds (static shared memory beyond sm_90's 48 KB) fails it too
    big = _recorded(tmp_path, "big_shared",
                    "__global__ void k(float* a) { __shared__ float s[16384]; "
                    "s[threadIdx.x] = a[threadIdx.x]; __syncthreads(); a[threadIdx.x] = s[1023 - threadIdx.x]; }")
    with pytest.raises(CompileError, match="shared"):
        nvrtc_check.check_file(big)


def test_check_builds_what_a_build_without_precompiled_header_builds():
    """The check's precompiled header changes how NVRTC works, not its output: the CUBIN is the
    one a plain build of the same source makes (asked for twice: the second use reads the PCH)."""
    src = _source()
    plain = nvrtc.compile_source(src, 90, kind="cubin")
    pch = nvrtc_check.pch_options()
    assert pch == (["-pch"] if nvrtc.version() >= (12, 8) else [])
    for _ in range(2):
        assert nvrtc.compile_source(src, 90, kind="cubin", extra=pch) == plain


def test_check_order_is_largest_first(tmp_path):
    paths = []
    for name, size in (("a", 10), ("b", 300), ("c", 10), ("d", 50)):
        (tmp_path / name).write_text("x" * size)
        paths.append(str(tmp_path / name))
    assert [os.path.basename(p) for p in nvrtc_check.largest_first(paths)] == ["b", "d", "a", "c"]


def test_moving_a_kernel_keeps_its_module_hash():
    """The `// py:` markers name the file and lines; they must not force rebuilds when a kernel
    only moved (lines added above it, a notebook cell run again under a new name)."""
    import re
    src = _source()
    moved = re.sub(r"// py:(?:[^\n]*:)?(\d+)$", lambda m: f"// py:<cell-7>:{int(m.group(1)) + 40}",
                   src, flags=re.M)
    assert moved != src
    key = nvrtc.build_key(90, False, False)
    assert module_hash(moved, key) == module_hash(src, key)
    assert module_hash(src.replace("wp::sin(", "wp::cos(", 1), key) != module_hash(src, key)


@pytest.mark.parametrize("dtype", list(STACK_CAS), ids=lambda t: t.__name__)
def test_atomic_cas_on_a_stack_array_is_no_hardware_atomic(dtype):
    """CUDA's atomics cannot address a thread's local memory: on a stack array, atomic_cas is the
    plain compare and write (as the other atomics are), so the PTX holds no atomic instruction;
    on a global array it is one (the semantics on a stack array: tests/lang/test_fixedarray.py)."""
    from warp_interactive.codegen.module_source import generate_source
    from warp_interactive.lang.definitions.lower import lower
    k = STACK_CAS[dtype]
    ptx = nvrtc.compile_source(generate_source(lower([k]), CUDA, backward=False), 90, name=MOD,
                               kind="ptx").decode()
    assert ".entry" in ptx and "atom." not in ptx


def test_atomic_cas_on_a_global_array_stays_atomic():
    from warp_interactive.codegen.module_source import generate_source
    from warp_interactive.lang.definitions.lower import lower

    @wp.kernel(module=MOD, enable_backward=False)
    def global_cas(a: wp.array(dtype=int)):
        wp.atomic_cas(a, 0, 0, wp.tid())

    ptx = nvrtc.compile_source(generate_source(lower([global_cas]), CUDA, backward=False), 90,
                               name=MOD, kind="ptx").decode()
    assert "atom." in ptx
