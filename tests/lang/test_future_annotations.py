"""``from __future__ import annotations`` (PEP 563: every annotation is text) in a module of
kernels, funcs and structs: the texts are evaluated where they were written (module globals, a
function's closure, the scope that defined a struct), as warp-lang does. Values against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import warp_interactive as wp


@wp.struct
class Pair:
    x: float
    y: wp.vec2


@wp.func
def weighted(p: Pair, w: float) -> float:
    return w * (p.x + p.y[0] + p.y[1])


@wp.kernel
def apply(pairs: wp.array(dtype=Pair), w: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = weighted(pairs[i], w)


def make_fill(dtype):
    def fill(out: wp.array(dtype=dtype), v: dtype):     # dtype: a closure variable in the text
        out[wp.tid()] = v * dtype(2)
    return wp.kernel(fill, module="unique")


def make_local_struct():
    scale_type = wp.float64

    @wp.struct
    class Local:
        s: scale_type          # a name of the defining function, in the annotation text

    return Local


def test_struct_func_and_kernel_annotations_as_text():
    assert weighted.func.__annotations__["w"] == "float"       # PEP 563 is on in this module
    xs = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    ys = np.array([[0.5, 0.25], [1.0, 2.0], [-1.0, 4.0]], dtype=np.float32)
    pairs = []
    for x, y in zip(xs, ys):
        p = Pair()
        p.x, p.y = float(x), wp.vec2(*y)
        pairs.append(p)
    out = wp.zeros(3, dtype=float, device="cpu")
    wp.launch(apply, dim=3, inputs=[wp.array(pairs, dtype=Pair, device="cpu"), 2.0, out], device="cpu")
    np.testing.assert_allclose(out.numpy(), 2.0 * (xs + ys.sum(axis=1)), rtol=1e-6)


@pytest.mark.parametrize("dtype, value", [(wp.float32, 1.5), (wp.float64, 2.25), (wp.int32, 7)])
def test_closure_names_in_annotation_text(dtype, value):
    out = wp.zeros(4, dtype=dtype, device="cpu")
    wp.launch(make_fill(dtype), dim=4, inputs=[out, value], device="cpu")
    np.testing.assert_array_equal(out.numpy(), np.full(4, value * 2))


def test_struct_in_a_function_sees_its_names():
    Local = make_local_struct()
    s = Local()
    assert s.s == 0.0
    s.s = 0.1
    assert s.s == 0.1                  # float64: the value is kept exactly


def test_an_annotation_text_that_names_nothing_is_a_clear_error():
    with pytest.raises(TypeError, match="cannot evaluate the annotation 'NoSuchType' of field 'a'"):
        @wp.struct
        class Bad:
            a: NoSuchType  # noqa: F821
