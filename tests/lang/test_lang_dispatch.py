"""Calls resolved by argument types at translation (lang/translation/dispatch.py): the protocol warp.fem's
operators and integrands are built on."""

from typing import Any

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.lang.translation import dispatch


@wp.struct
class Twice:
    x: float


@wp.struct
class Square:
    x: float


@wp.func
def twice_of(a: Twice, y: float):
    return 2.0 * a.x + y


@wp.func
def square_of(a: Square, y: float):
    return a.x * a.x + y


class ByType:
    __name__ = "apply"

    def _wp_resolve_call_(self, types):
        table = {Twice: twice_of, Square: square_of}
        if types[0] not in table:
            raise TypeError(f"nothing for {types[0].__name__}")
        return table[types[0]]


apply = ByType()
Twice._wp_call_ = apply      # values of these types are callable: a(y)
Square._wp_call_ = apply


class DoubleOf:
    def _wp_resolve_call_(self, types):
        return wp.float64            # a compile-time value: the caller calls it as a cast


double_of = DoubleOf()


@wp.struct
class Values:
    nu: float
    unused: int


@wp.func
def spread_target(a: Any, y: float, nu: float):
    return apply(a, y) + a(y) + nu


class Spread:
    def _wp_resolve_call_(self, types):
        return dispatch.Call(spread_target, ((0,), (1,), (2, "nu")))


spread = Spread()


@wp.kernel
def run_twice(a: Twice, v: Values, out: wp.array(dtype=wp.float64)):
    out[0] = double_of(a)(spread(a, 1.0, v))


@wp.kernel
def run_square(a: Square, v: Values, out: wp.array(dtype=wp.float64)):
    out[0] = double_of(a)(spread(a, 1.0, v))


@pytest.mark.parametrize("kernel,cls,expected", [
    (run_twice, Twice, 2 * (2 * 3.0 + 1.0) + 0.5),
    (run_square, Square, 2 * (3.0 * 3.0 + 1.0) + 0.5),
])
def test_resolved_by_argument_type(kernel, cls, expected):
    a = cls()
    a.x = 3.0
    v = Values()
    v.nu = 0.5
    out = wp.zeros(1, dtype=wp.float64)
    wp.launch(kernel, dim=1, inputs=[a, v, out])
    np.testing.assert_allclose(out.numpy(), [expected])


def test_resolver_error_points_at_the_call():
    @wp.kernel
    def bad(out: wp.array(dtype=float)):
        out[0] = apply(1.0, 2.0)

    with pytest.raises(wp.errors.CodegenError if hasattr(wp, "errors") else Exception,
                       match=r"apply\(\): nothing for float32") as e:
        wp.launch(bad, dim=1, inputs=[wp.zeros(1)])
    assert "out[0] = apply(1.0, 2.0)" in str(e.value)


@wp.kernel(module="unique")
def run_keywords(a: Twice, v: Values, out: wp.array(dtype=float)):
    out[0] = apply(a, y=4.0)            # the keyword goes to the function the type chose
    out[1] = a(y=5.0)


@pytest.mark.parametrize("cls,expected", [(Twice, [2 * 3.0 + 4.0, 2 * 3.0 + 5.0])])
def test_keyword_arguments_reach_the_resolved_function(cls, expected):
    a = cls()
    a.x = 3.0
    out = wp.zeros(2, dtype=float)
    wp.launch(run_keywords, dim=1, inputs=[a, Values(), out])
    np.testing.assert_allclose(out.numpy(), expected)


@wp.kernel(module="unique")
def bad_keyword_name(a: Twice, v: Values, out: wp.array(dtype=float)):
    out[0] = apply(a, z=4.0)


@wp.kernel(module="unique")
def keyword_to_a_spread(a: Twice, v: Values, out: wp.array(dtype=float)):
    out[0] = spread(a, 1.0, v=v)


@wp.kernel(module="unique")
def keyword_to_a_value(a: Twice, v: Values, out: wp.array(dtype=wp.float64)):
    out[0] = double_of(a=a)(1.0)


@pytest.mark.parametrize("kernel,dtype,message", [
    (bad_keyword_name, float, "z"),                                # no such parameter in the chosen function
    (keyword_to_a_spread, float, "positional arguments only"),     # a spreading Call takes none
    (keyword_to_a_value, wp.float64, "positional arguments only"),  # nor does a compile-time value
])
def test_keyword_arguments_that_cannot_be_taken(kernel, dtype, message):
    with pytest.raises(wp.errors.CodegenError, match=message):
        wp.launch(kernel, dim=1, inputs=[Twice(), Values(), wp.zeros(1, dtype=dtype)])
