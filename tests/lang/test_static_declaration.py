"""``wp.static(expr)`` is evaluated when the kernel or @wp.func is declared, as warp-lang does,
when it names none of the function's own variables: once (a side effect runs once, in source
order), with the values of that moment (a global rebound later, even the alias of ``wp.static``
itself, does not change the kernel); an expression that reads a kernel variable (a loop index of
an unrolled loop, a local constant) is evaluated at translation instead. A Python bool is a
``range`` bound of 0 or 1."""

import numpy as np
import pytest

import warp_interactive as wp

SCALE = 3
_alias = wp.static


def test_side_effect_runs_once_at_declaration_in_source_order():
    log = []

    def bump(tag):
        log.append(tag)
        return float(len(log))

    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=float)):
        x = wp.static(bump("x"))
        y = wp.static(bump("y"))
        out[0] = x * 10.0 + y

    assert log == ["x", "y"]            # at declaration, before any launch
    out = wp.zeros(1, dtype=float)
    for _ in range(2):
        wp.launch(k, dim=1, inputs=[out])
    assert out.numpy()[0] == 12.0
    assert log == ["x", "y"]            # builds and launches evaluate nothing again


def test_value_is_the_one_at_declaration():
    global SCALE
    SCALE = 3

    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=int)):
        out[0] = wp.static(SCALE * 2)

    SCALE = 100                          # rebinding later does not reach the declared kernel
    try:
        out = wp.zeros(1, dtype=int)
        wp.launch(k, dim=1, inputs=[out])
        assert out.numpy()[0] == 6
    finally:
        SCALE = 3


def test_alias_of_static_rebound_after_declaration():
    global _alias
    _alias = wp.static

    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=int)):
        out[0] = _alias(7)

    _alias = None                        # the kernel already holds its value
    try:
        out = wp.zeros(1, dtype=int)
        wp.launch(k, dim=1, inputs=[out])
        assert out.numpy()[0] == 7
    finally:
        _alias = wp.static


def test_func_statics_are_evaluated_at_declaration():
    log = []

    def value():
        log.append(1)
        return 4

    @wp.func
    def four():
        return wp.static(value())

    assert log == [1]

    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=int)):
        out[0] = four() + four()

    out = wp.zeros(1, dtype=int)
    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy()[0] == 8 and log == [1]


def test_expressions_reading_kernel_variables_wait_for_translation():
    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=int)):
        c = 5
        for i in range(3):
            out[i] = wp.static(i * 10 + c)      # i and c are the kernel's: known when unrolled

    out = wp.zeros(3, dtype=int)
    wp.launch(k, dim=1, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), [5, 15, 25])


def test_a_failing_expression_reports_at_build_with_the_users_line():
    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=float)):
        out[0] = wp.static(1.0 / 0.0)

    with pytest.raises(wp.CodegenError, match=r"Error evaluating static expression: float division "
                                              r"by zero") as info:
        wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=float)])
    assert "out[0] = wp.static(1.0 / 0.0)" in str(info.value)


@pytest.mark.parametrize("flag,count", [(True, 1), (False, 0)])
def test_static_bool_is_a_range_bound(flag, count):
    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=int)):
        n = int(0)
        for _ in range(wp.static(flag)):
            n += 1
        out[0] = n

    out = wp.zeros(1, dtype=int)
    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy()[0] == count
