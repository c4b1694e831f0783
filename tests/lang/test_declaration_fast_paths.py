"""Declaring kernels stays cheap on a reload of a large module: parsed definitions
are remembered by their text, ``wp.static`` is looked for only where it can be named, and a
replaced kernel is retired without scanning the module. None of it may change what a kernel
computes, which line an error names, or what a replaced kernel object runs."""

from typing import Any

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive as wpm     # a second name for the package: wpm.static is wp.static

COUNT = 5
_later = []


def _declare(kind):
    """A kernel reading wp.static(COUNT + 1) through a name of ``kind``, made with COUNT = 5."""
    global COUNT
    COUNT = 5
    if kind == "closure-alias":
        s = wp.static

        @wp.kernel(module="unique")
        def k(out: wp.array(dtype=int)):
            out[0] = s(COUNT + 1)
    elif kind == "module-attribute":
        @wp.kernel(module="unique")
        def k(out: wp.array(dtype=int)):
            out[0] = wpm.static(COUNT + 1)
    else:
        @wp.kernel(module="unique")
        def k(out: wp.array(dtype=int)):
            out[0] = wp.static(COUNT + 1)
    return k


@pytest.mark.parametrize("kind", ["wp.static", "closure-alias", "module-attribute"])
def test_static_through_any_name_is_evaluated_at_declaration(kind):
    global COUNT
    k = _declare(kind)
    COUNT = 50                     # rebound after declaration: the kernel keeps 5 + 1
    try:
        out = wp.zeros(1, dtype=int)
        wp.launch(k, dim=1, inputs=[out])
        assert out.numpy()[0] == 6
    finally:
        COUNT = 5


def _bad_kernel():
    @wp.kernel(module="unique")
    def bad(out: wp.array(dtype=float)):
        out[0] = wp.length(1.0)    # no length() of a float: a build error at this line
    return bad


def _bad_kernel_again():

    @wp.kernel(module="unique")
    def bad(out: wp.array(dtype=float)):
        out[0] = wp.length(1.0)    # no length() of a float: a build error at this line
    return bad


def test_identical_definitions_at_different_lines_report_their_own_line():
    """The two definitions have the same text (one parse is shared): each error names its line."""
    import inspect
    lines = []
    for make in (_bad_kernel, _bad_kernel_again):
        src, first = inspect.getsourcelines(make)
        line = first + next(i for i, t in enumerate(src) if "wp.length(1.0)" in t)
        out = wp.zeros(1, dtype=float)
        with pytest.raises(wp.errors.CodegenError if hasattr(wp, "errors") else Exception) as e:
            wp.launch(make(), dim=1, inputs=[out])
        assert f"line {line}," in str(e.value), (line, str(e.value))
        lines.append(line)
    assert lines[0] != lines[1]


def _versions(n):
    made = []
    for c in range(n):
        @wp.kernel(module="retire_fast_path")
        def k(out: wp.array(dtype=float)):
            out[0] = wp.static(float(c))
        made.append(k)
    return made


def test_each_replaced_kernel_keeps_running_its_own_code():
    made = _versions(4)
    out = wp.zeros(1, dtype=float)
    for c, k in reversed(list(enumerate(made))):
        wp.launch(k, dim=1, inputs=[out])
        assert out.numpy()[0] == float(c)


def test_a_replaced_generic_kernel_takes_its_specialisations_along():
    made = []
    for c in (1.0, 2.0):
        @wp.kernel(module="retire_generic")
        def g(x: wp.array(dtype=Any), out: wp.array(dtype=Any)):
            out[0] = x[0] * wp.static(c)
        made.append(g)
        for dt in (wp.float32, wp.float64):
            out = wp.zeros(1, dtype=dt)
            wp.launch(g, dim=1, inputs=[wp.array([3.0], dtype=dt), out])
            assert out.numpy()[0] == 3.0 * c
    for c, g in zip((1.0, 2.0), made):    # the first object still runs its own code
        for dt in (wp.float32, wp.float64):
            out = wp.zeros(1, dtype=dt)
            wp.launch(g, dim=1, inputs=[wp.array([3.0], dtype=dt), out])
            assert out.numpy()[0] == 3.0 * c
