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


def test_device_kind_scan_finds_branches():
    # the scan above sees a branch where there is one (the device objects themselves)
    assert _device_kind_reads(os.path.join(PACKAGE, "runtime", "device.py"))
