"""``wp.static(expr)``: evaluated once in Python when the kernel is translated; its value is part
of the generated code (and so of the module hash); unrolls over Python lists of functions;
decides ``if`` branches at build time; errors point at the user's line."""

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.state import state

OFFSET = 3


@wp.func
def add(a: int, b: int):
    return a + b


@wp.func
def mul(a: int, b: int):
    return a * b


@wp.func
def sub(a: int, b: int):
    return a - b


FUNCS = [add, mul, sub]


@wp.func
def offset_plus_two():
    return wp.static(OFFSET + 2)


@wp.kernel(module="wpi_test_static_values")
def static_values(v: wp.vec2, out: wp.array(dtype=int)):
    c = 4                                         # a literal: a compile-time constant
    out[0] = offset_plus_two()
    out[1] = wp.static(offset_plus_two() + c)     # a @wp.func called in Python at build time
    out[2] = wp.static(len(FUNCS))
    out[3] = wp.static(len(v) + 1)                # len() of a kernel vector is static
    if wp.static(OFFSET == 3):
        out[4] = 1
    else:
        out[4] = 2


def test_static_values():
    out = wp.zeros(5, dtype=int)
    wp.launch(static_values, 1, [wp.vec2(), out])
    np.testing.assert_array_equal(out.numpy(), [5, 9, 3, 3, 1])


def test_untaken_static_branch_is_not_generated():
    @wp.kernel(module="wpi_test_static_dead_branch")
    def dead(out: wp.array(dtype=int)):
        if wp.static(OFFSET > 100):
            out[0] = undefined_name  # noqa: F821  (never translated)
        else:
            out[0] = 7

    out = wp.zeros(1, dtype=int)
    wp.launch(dead, 1, [out])
    assert out.numpy()[0] == 7
    from warp_interactive.lang import ir
    assert not any(isinstance(stmt, ir.If) for stmt in dead.ir.body.stmts)


@pytest.mark.parametrize("a, b", [(3, 4), (-2, 5), (0, 9)])
def test_unrolled_loops_over_python_lists_of_funcs(a, b):
    @wp.kernel(module="wpi_test_static_funcs")
    def over_funcs(x: int, y: int, out: wp.array(dtype=int)):
        for i in range(wp.static(len(FUNCS))):
            out[i] = wp.static(FUNCS[i])(x, y)
        j = int(0)
        for f in wp.static(FUNCS):
            out[3 + j] = f(x, y)
            j += 1

    out = wp.zeros(6, dtype=int)
    wp.launch(over_funcs, 1, [a, b, out])
    expected = [a + b, a * b, a - b]
    np.testing.assert_array_equal(out.numpy(), expected + expected)


@pytest.mark.parametrize("max_unroll", [2, 16])
def test_static_loop_variable_forces_unrolling(max_unroll):
    """``wp.static(i)`` needs ``i`` constant: the loop unrolls whatever max_unroll says."""
    @wp.kernel(module=f"wpi_test_static_force_unroll_{max_unroll}")
    def force(out: wp.array(dtype=int)):
        s = int(0)
        for i in range(0, 8):
            s += wp.static(i * i)
        out[0] = s

    wp.set_module_options({"max_unroll": max_unroll}, f"wpi_test_static_force_unroll_{max_unroll}")
    out = wp.zeros(1, dtype=int)
    wp.launch(force, 1, [out])
    assert out.numpy()[0] == sum(i * i for i in range(8))


def test_static_is_evaluated_once_per_translation():
    calls = []

    def counted():
        calls.append(1)
        return 5

    @wp.kernel(module="wpi_test_static_once")
    def once(out: wp.array(dtype=int)):
        out[0] = wp.static(counted())

    out = wp.zeros(1, dtype=int)
    for _ in range(3):
        wp.launch(once, 1, [out])
    assert out.numpy()[0] == 5
    assert len(calls) == 1


@pytest.mark.parametrize("value, other", [(17, 42), (2.5, 3.5), (True, False),
                                         (wp.vec3(1.0, 2.0, 3.0), wp.vec3(1.0, 2.0, 4.0)),
                                         (wp.uint8(7), wp.uint8(8)), (wp.float64(0.5), wp.float64(1.5))])
def test_static_value_is_in_the_module_hash(value, other):
    """Two kernels alike but for a captured wp.static() value get different binaries; the same
    value gives the same hash."""
    def make(v, name):
        if isinstance(v, wp.vec3):
            @wp.kernel(module=name)
            def k(out: wp.array(dtype=float)):
                out[0] = wp.static(v)[2]
            return k

        @wp.kernel(module=name)
        def k(out: wp.array(dtype=float)):   # noqa: F811
            out[0] = float(wp.static(v))
        return k

    tag = type(value).__name__
    a = make(value, f"wpi_test_static_hash_{tag}_a").module.get_module_hash()
    b = make(value, f"wpi_test_static_hash_{tag}_b").module.get_module_hash()
    c = make(other, f"wpi_test_static_hash_{tag}_c").module.get_module_hash()
    assert a == b != c


def test_static_function_value_is_in_the_module_hash():
    hashes = []
    for f in (add, mul, add):
        @wp.kernel(module=f"wpi_test_static_fhash_{len(hashes)}")
        def k(out: wp.array(dtype=int)):
            out[0] = wp.static(f)(2, 3)   # noqa: B023
        hashes.append(k.module.get_module_hash())
    assert hashes[0] == hashes[2] != hashes[1]


def _build(fn, *inputs):
    wp.launch(wp.Kernel(fn, module="unique"), 1, inputs=list(inputs))


class _NotAWarpValue:
    pass


def _div_zero():
    wp.static(1.0 / 0.0)


def _runtime_name(i: int):
    wp.static(i * 2)


def _returns_array():
    wp.static(wp.zeros(3))


def _returns_none():
    wp.static(print())


def _returns_object():
    wp.static(_NotAWarpValue())


@pytest.mark.parametrize("fn, inputs, message", [
    (_div_zero, [], r"Error evaluating static expression: float division by zero"),
    (_runtime_name, [3], r"Error evaluating static expression: name 'i' is not defined\. Make sure "
                         r"all variables used in the static expression are constant\."),
    (_returns_array, [], r"Static expression returns an unsupported value: a Warp array cannot be "
                         r"created inside Warp kernels"),
    (_returns_none, [], r"Static expression returns an unsupported value: None is returned"),
    (_returns_object, [], r"Static expression returns an unsupported value: value of type "
                          r".*_NotAWarpValue"),
])
def test_static_errors_point_at_the_users_line(fn, inputs, message):
    with pytest.raises(wp.CodegenError, match=message) as info:
        _build(fn, *inputs)
    err = info.value
    assert err.filename == __file__
    assert err.lineno == fn.__code__.co_firstlineno + 1
    assert "wp.static(" in err.source_line


def test_static_in_python_scope_is_the_value():
    assert wp.static(3) == 3
    assert wp.static(add) is add


def test_static_struct_with_an_array_is_refused():
    @wp.struct
    class Inner:
        data: wp.array(dtype=int)

    @wp.struct
    class Outer:
        inner: Inner
        x: int

    def make():
        o = Outer()
        o.inner = Inner()
        o.inner.data = wp.zeros(2, dtype=int)
        return o

    def k():
        wp.static(make())

    with pytest.raises(wp.CodegenError, match=r"the returned Warp struct contains a data type that "
                                              r"cannot be constructed inside Warp kernels: a Warp "
                                              r"array cannot be created inside Warp kernels at "
                                              r"Outer\.inner"):
        _build(k)


def test_build_log_unchanged_by_repeated_launches():
    out = wp.zeros(5, dtype=int)
    wp.launch(static_values, 1, [wp.vec2(), out])
    n = len(state.build_log)
    wp.launch(static_values, 1, [wp.vec2(), out])
    assert len(state.build_log) == n


def _reads_loop_variable(out: wp.array(dtype=int)):
    i = 0
    while i < 3:
        out[0] = wp.static(i)
        i += 1


def test_a_variable_a_dynamic_loop_changes_is_not_static():
    """``i = 0`` is a compile-time constant until a loop assigns it: inside that loop (even
    before the assignment) wp.static(i) would freeze the first iteration's value."""
    with pytest.raises(wp.CodegenError, match="name 'i' is not defined"):
        _build(_reads_loop_variable, wp.zeros(1, dtype=int))
