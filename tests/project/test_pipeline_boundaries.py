"""The boundaries between the stages: a launch reads a kernel's loaded entry (KernelEntry), never
attributes the runtime wrote onto the Kernel; build/ and the launch code never ask which kind
of device they have (the device's builder and launcher objects do)."""

import ast
import ctypes
import os

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.build.entry import KernelEntry
from warp_interactive.runtime.fastlaunch import plan_of
from warp_interactive.types.arraydesc import ARRAY_DESC_SIZE

PACKAGE = os.path.dirname(wp.__file__)


@wp.kernel
def scale_rows(a: wp.array2d(dtype=float), s: float, out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = a[i, j] * s


@wp.kernel
def axpy_vec(x: wp.array(dtype=wp.vec3), alpha: float, y: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    y[i] = alpha * x[i] + y[i]


# lang's own lazily filled caches (lang/analysis/access.py): the only attributes a Kernel gains after
# it is made
LANG_CACHES = {"_access", "_read_write", "_read_write_fields"}


def _launch_everything(k, inputs, outputs, dim):
    wp.launch(k, dim=dim, inputs=inputs, outputs=outputs)           # general path, makes a plan
    wp.launch(k, dim=dim, inputs=inputs, outputs=outputs)           # fast plan
    cmd = wp.launch(k, dim=dim, inputs=inputs, outputs=outputs, record_cmd=True)
    cmd.launch()
    tape = wp.Tape()
    with tape:
        wp.launch(k, dim=dim, inputs=inputs, outputs=outputs)
    tape.backward(grads={outputs[0]: wp.ones_like(outputs[0])})
    wp.timing_begin()
    try:
        wp.launch(k, dim=dim, inputs=inputs, outputs=outputs)
        cmd.launch()
    finally:
        results = wp.timing_end()
    assert [r.name for r in results if r.kind == "forward"] == [k.key, k.key]
    old = wp.config.verify_autograd_array_access
    wp.config.verify_autograd_array_access = True
    try:
        with wp.Tape():
            wp.launch(k, dim=dim, inputs=inputs, outputs=outputs)
    finally:
        wp.config.verify_autograd_array_access = old


@pytest.mark.parametrize("kernel,make", [
    (scale_rows, lambda: ([wp.array(np.ones((3, 4), np.float32), requires_grad=True), 2.0],
                          [wp.zeros((3, 4), dtype=float, requires_grad=True)], (3, 4))),
    (axpy_vec, lambda: ([wp.array(np.ones((5, 3), np.float32), dtype=wp.vec3, requires_grad=True), 3.0],
                        [wp.zeros(5, dtype=wp.vec3, requires_grad=True)], 5)),
])
def test_launches_write_nothing_onto_the_kernel(kernel, make):
    inputs, outputs, dim = make()
    before = set(vars(kernel))
    _launch_everything(kernel, inputs, outputs, dim)
    added = set(vars(kernel)) - before
    assert added <= LANG_CACHES, f"attributes written onto the Kernel by a launch: {added - LANG_CACHES}"
    assert plan_of(kernel) is not None and plan_of(kernel).entry.kernel is kernel


@pytest.mark.parametrize("kernel,arity,params", [
    (scale_rows, 2, {"a": ARRAY_DESC_SIZE, "s": 4, "out": ARRAY_DESC_SIZE}),
    (axpy_vec, 1, {"x": ARRAY_DESC_SIZE, "alpha": 4, "y": ARRAY_DESC_SIZE}),
])
def test_kernel_entry_of_a_cpu_load(kernel, arity, params):
    lm = kernel.module.load("cpu", backward=True)
    entry = lm.kernel(kernel.cpp)
    assert isinstance(entry, KernelEntry) and lm.kernel(kernel.cpp) is entry
    assert entry.tid_arity == arity == kernel.ir.tid_arity
    assert entry.block_width == 1 and entry.key == kernel.key
    assert entry.forward and entry.backward and entry.forward != entry.backward
    fields = dict(entry.args._fields_)
    assert list(fields) == list(params)
    assert {n: ctypes.sizeof(t) for n, t in fields.items()} == params
    # by-value adjoints of the scalar parameters follow the forward fields
    extra = [n for n, _ in entry.backward_args._fields_][len(params):]
    assert extra == [n + "@adj" for n, t in kernel.arg_types.items() if not hasattr(t, "ndim")]
    with pytest.raises(KeyError, match="not_a_kernel"):
        lm.kernel("not_a_kernel")


def test_tid_arity_error_comes_from_the_entry():
    a = wp.zeros((2, 2), dtype=float)
    with pytest.raises(ValueError, match="unpacks wp.tid\\(\\) into 2 indices but is launched with a 1-dimensional dim"):
        wp.launch(scale_rows, dim=4, inputs=[a, 1.0], outputs=[a])


def _device_kind_reads(path):
    """(line, attribute) of every ``.is_cuda`` / ``.is_cpu`` read in the file at ``path``."""
    with open(path) as f:
        tree = ast.parse(f.read())
    return [(n.lineno, n.attr) for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and n.attr in ("is_cuda", "is_cpu")]


DEVICE_BLIND = ["build/" + f for f in sorted(os.listdir(os.path.join(PACKAGE, "build"))) if f.endswith(".py")] + \
    ["runtime/launch.py", "runtime/fastlaunch.py", "runtime/args.py", "runtime/module.py", "lang/definitions/module.py"]


@pytest.mark.parametrize("rel", DEVICE_BLIND)
def test_no_device_kind_branches(rel):
    assert _device_kind_reads(os.path.join(PACKAGE, rel)) == []


# what may ask whether a device is a GPU: the device registry and the CUDA device's own objects
# (its memory, streams, modules and launcher); everything else asks the device (Device.memory,
# transfer_memory, place, synchronize, is_capturing, launcher, builder ...)
# runtime/cuda_queries.py (warp-lang's CUDA-only queries: on the CPU they raise or answer a fixed
# value, as there) and runtime/diagnostics.py (reports the flag) are allowed until the device answers them
IS_CUDA_ALLOWED = ("runtime/device.py", "runtime/cuda/", "runtime/cuda_queries.py", "runtime/diagnostics.py")


def _is_cuda_reads_outside_the_device_objects():
    found = {}
    for root, _dirs, files in os.walk(PACKAGE):
        for f in files:
            rel = os.path.relpath(os.path.join(root, f), PACKAGE).replace(os.sep, "/")
            if f.endswith(".py") and not rel.startswith(IS_CUDA_ALLOWED):
                lines = [line for line, attr in _device_kind_reads(os.path.join(root, f)) if attr == "is_cuda"]
                if lines:
                    found[rel] = lines
    return found


def test_no_is_cuda_outside_the_device_objects():
    assert _is_cuda_reads_outside_the_device_objects() == {}


def test_device_kind_scan_finds_branches():
    # the scan above sees a branch where there is one (the device objects themselves)
    assert _device_kind_reads(os.path.join(PACKAGE, "runtime", "device.py"))


# --- lang -> codegen: a ModuleIR, and codegen never translates ------------------------------------
@wp.func
def mir_inner(x: float):
    y = x
    for _ in range(3):          # a dynamic-free loop still reaches the unroller
        y = y * 0.5 + x
    return y


@wp.func
def mir_safe_sqrt(x: float):
    return wp.sqrt(x) + mir_inner(x)


@wp.func_grad(mir_safe_sqrt)
def mir_adj_safe_sqrt(x: float, adj_ret: float):
    if x > 0.0:
        wp.adjoint[x] += 1.0 / (2.0 * wp.sqrt(x)) * adj_ret


@wp.func
def mir_counted(counter: wp.array(dtype=int), i: int):
    return float(wp.atomic_add(counter, i, 1))


@wp.func_replay(mir_counted)
def mir_replay_counted(counter: wp.array(dtype=int), i: int):
    return float(counter[i] - 1)


@wp.func_native("return a * b + 1.0f;", adj_snippet="adj_a += b * adj_ret; adj_b += a * adj_ret;")
def mir_native(a: float, b: float) -> float: ...


@wp.func
def mir_looping(n: int):
    s = float(0.0)
    for k in range(n):           # a dynamic loop: its callers poll for interrupts
        s += float(k)
    return s


@wp.kernel
def mir_kernel(x: wp.array(dtype=float), counter: wp.array(dtype=int), n: int, y: wp.array(dtype=float)):
    i = wp.tid()
    g = wp.grad(mir_inner)(x[i])
    y[i] = mir_safe_sqrt(x[i]) + mir_counted(counter, i) + mir_native(x[i], g) + mir_looping(n)


@wp.kernel
def mir_other(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = mir_inner(x[i])


@wp.kernel
def mir_lanes(x: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for k in range(n):
        s += float(k)
    x[i] = x[i] * 2.0 + s + mir_looping(n)      # lane-blocked on the CPU, calling a polling function


def _forbid_translation(monkeypatch):
    """Make every way into translation raise: the translator, and the lazily translated IR of
    kernels, functions and custom-gradient helpers."""
    from warp_interactive.lang.definitions.custom_grad import HelperOverload
    from warp_interactive.lang.definitions.func import FuncOverload
    from warp_interactive.lang.definitions.kernel import Kernel
    from warp_interactive.lang.translation.translator import Translator

    def refuse(*args, **kwargs):
        raise AssertionError("codegen started a translation")
    monkeypatch.setattr(Translator, "translate", refuse)
    for cls in (Kernel, FuncOverload, HelperOverload):
        monkeypatch.setattr(cls, "ir", property(refuse))


def test_module_ir_holds_every_function_the_kernels_reach():
    from warp_interactive.lang import lower
    mir = lower([mir_kernel, mir_other])
    assert list(mir.kernels) == [mir_kernel.cpp, mir_other.cpp]
    assert mir.kernels[mir_kernel.cpp].fir is mir_kernel.ir
    names = {f.name for f in mir.functions.values()}
    assert {"mir_inner", "mir_safe_sqrt", "mir_counted", "mir_native", "mir_looping"} <= names
    sqrt_ir = next(f for f in mir.functions.values() if f.name == "mir_safe_sqrt")
    counted = next(f for f in mir.functions.values() if f.name == "mir_counted")
    assert sqrt_ir.grad in mir.functions and mir.functions[sqrt_ir.grad].diff_params == ("x",)
    assert counted.replay in mir.functions and mir.functions[counted.replay].forward_only
    assert next(f for f in mir.functions.values() if f.name == "mir_native").native is not None


@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_codegen_never_starts_a_translation(monkeypatch, target):
    """Given a ModuleIR, codegen writes the module without reaching into translation (nor the
    kernels' or functions' lazily translated IR): the text is the same as with it allowed."""
    from warp_interactive.codegen.module_source import ModuleParts, generate_source
    from warp_interactive.codegen.target import CPU, CUDA
    from warp_interactive.lang import lower
    t = CPU if target == "cpu" else CUDA
    mir = lower([mir_kernel, mir_other, mir_lanes])
    expected = generate_source(mir, t)
    _forbid_translation(monkeypatch)
    assert generate_source(mir, t) == expected
    assert ModuleParts(mir, t).source([mir_other.cpp]).count("mir_inner") >= 1
    for f in mir.functions.values():
        assert f.cpp in expected
    assert "WPI_KCALL_STOP()" in expected      # the loop in mir_looping, seen through the ModuleIR
    assert target == "cuda" or f"{mir_lanes.cpp}_forward_lanes" in expected


def test_forbidding_translation_is_seen():
    from warp_interactive.lang import lower

    @wp.kernel
    def fresh_kernel(x: wp.array(dtype=float)):
        x[wp.tid()] = 1.0

    with pytest.MonkeyPatch.context() as mp:
        _forbid_translation(mp)
        with pytest.raises(AssertionError, match="started a translation"):
            lower([fresh_kernel])


def test_codegen_refuses_live_kernels():
    from warp_interactive.codegen.module_source import generate_source
    with pytest.raises(TypeError, match="ModuleIR"):
        generate_source([mir_other])


def test_codegen_imports_no_definitions_and_no_translator():
    import grimp
    graph = grimp.build_graph("warp_interactive", cache_dir=None)
    codegen = {m for m in graph.modules if m.startswith("warp_interactive.codegen")}
    reached = set()
    for m in codegen:
        reached |= graph.find_modules_directly_imported_by(m)
    lang = sorted(m for m in reached if m.startswith("warp_interactive.lang"))
    assert not [m for m in lang if m.startswith(("warp_interactive.lang.definitions",
                                                 "warp_interactive.lang.translation.translator"))], lang
