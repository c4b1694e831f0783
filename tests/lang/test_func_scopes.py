"""Which @wp.func a definition makes or joins, and what a kernel reads through closures:
warp-lang's rules (its test_codegen_instancing), checked against the Python functions
themselves, run in Python scope.

- A definition joins the function its name is bound to in the defining scope: two
  ``@wp.func def f`` in one factory call are overloads of one function, also when one calls the
  other (their closures differ; the second must not replace the first).
- Each call of a factory, and another factory's ``f`` of the same module, is its own function.
  Joined into one, they would all run the last definition's body: a silently wrong result.
- Several generic definitions (``f(x: Any)``, ``f(x: Any, y: Any)``) coexist as overloads.
- A closure cell still empty when the kernel is declared is read when the kernel is translated.
"""

from typing import Any

import numpy as np
import pytest

import warp_interactive as wp


def make_constant_a():
    @wp.func
    def f():
        return 17
    return f


def make_constant_b():
    @wp.func
    def f():
        return 42
    return f


def make_selfref(value: int):
    @wp.func
    def f():
        return value

    @wp.func
    def f(x: int):
        return f() * x      # the other overload
    return f


def make_generic(value: int):
    @wp.func
    def g(x: Any):
        return x * type(x)(value)

    @wp.func
    def g(x: Any, y: Any):
        return g(x + y)
    return g


def make_late_cell_kernel():
    def body(out: wp.array(dtype=int)):
        out[0] = LATE
    k = wp.kernel(body, module="unique")
    LATE = wp.constant(99)      # assigned after the kernel's declaration: a closure cell
    return k


LATE = wp.constant(42)          # the global the empty cell must not fall back to

const_a1, const_b, const_a2 = make_constant_a(), make_constant_b(), make_constant_a()
selfref_2, selfref_3 = make_selfref(2), make_selfref(3)
generic_2, generic_3 = make_generic(2), make_generic(3)


@wp.kernel
def call_constants(out: wp.array(dtype=int)):
    out[0] = const_a1()
    out[1] = const_b()
    out[2] = const_a2()


@wp.kernel
def call_selfref(out: wp.array(dtype=int)):
    out[0] = selfref_2()
    out[1] = selfref_2(5)
    out[2] = selfref_3()
    out[3] = selfref_3(5)


@wp.kernel
def call_generic(ai: wp.array(dtype=int), af: wp.array(dtype=float)):
    ai[0] = generic_2(4)
    ai[1] = generic_3(4)
    ai[2] = generic_2(4, 5)
    ai[3] = generic_3(4, 5)
    af[0] = generic_2(1.5)
    af[1] = generic_3(1.5)
    af[2] = generic_2(1.5, 2.0)
    af[3] = generic_3(1.5, 2.0)


def _launch(kernel, *arrays):
    wp.launch(kernel, dim=1, inputs=list(arrays), device="cpu")
    return [a.numpy() for a in arrays]


def test_factories_without_closures_keep_their_own_bodies():
    assert const_a1 is not const_b and const_a1 is not const_a2
    (out,) = _launch(call_constants, wp.zeros(3, dtype=int, device="cpu"))
    expected = [const_a1(), const_b(), const_a2()]          # Python scope: the defs' own bodies
    assert expected == [17, 42, 17]
    np.testing.assert_array_equal(out, expected)


def test_self_referencing_overloads_in_a_factory():
    (out,) = _launch(call_selfref, wp.zeros(4, dtype=int, device="cpu"))
    np.testing.assert_array_equal(out, [selfref_2(), selfref_2(5), selfref_3(), selfref_3(5)])
    np.testing.assert_array_equal(out, [2, 10, 3, 15])


@pytest.mark.parametrize("fn, value", [(generic_2, 2), (generic_3, 3)])
def test_generic_overloads_of_two_arities_coexist(fn, value):
    sigs = sorted(len(src.tree.args.args) for _py, src in fn.generics)
    assert sigs == [1, 2]
    ai, af = _launch(call_generic, wp.zeros(4, dtype=int, device="cpu"), wp.zeros(4, dtype=float, device="cpu"))
    np.testing.assert_array_equal(ai, [4 * 2, 4 * 3, 9 * 2, 9 * 3])
    np.testing.assert_allclose(af, [1.5 * 2, 1.5 * 3, 3.5 * 2, 3.5 * 3])


def test_generic_overload_picks_the_definition_by_arity():
    ov = wp.overload(generic_2, [float, float])
    assert list(ov.arg_types) == ["x", "y"]


def test_closure_cell_filled_after_the_declaration():
    kernel = make_late_cell_kernel()
    (out,) = _launch(kernel, wp.zeros(1, dtype=int, device="cpu"))
    assert out[0] == 99


def test_module_level_redefinition_still_replaces():
    """Defining a module-level name again (a re-run cell, a reloaded module) replaces the
    definition in place, so kernels calling it rebuild (docs/compatibility.md)."""
    ns = {"wp": wp, "__name__": "wpi_test_func_scopes_ns"}
    import linecache
    for n, factor in enumerate((2, 3)):
        text = f"@wp.func\ndef h(v: float) -> float:\n    return v * {factor}.0\n"
        filename = f"<wpi test_func_scopes {n}>"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        exec(compile(text, filename, "exec"), ns)
        if n == 0:
            first = ns["h"]
    assert ns["h"] is first
    assert ns["h"](2.0) == 6.0
