"""A builtin called with types none of its overloads takes: warp-lang's wording leads the message
(its RuntimeError; a TypeError too in Python scope, as before), followed by our reasons."""

import pytest

import warp_interactive as wp


def _k_float(value: wp.float32, out: wp.array(dtype=wp.int32)):
    out[0] = wp.bit_count(value)


def _k_vec(value: wp.vec2i, out: wp.array(dtype=wp.int32)):
    out[0] = wp.bit_count(value)


@pytest.mark.parametrize("body, arg, got", [(_k_float, wp.float32(1.0), "float32"), (_k_vec, wp.vec2i(1, 2), "vec2i")])
def test_kernel_scope(body, arg, got):
    k = wp.kernel(body, module=f"test_overload_messages_{body.__name__}")
    out = wp.zeros(1, dtype=wp.int32, device="cpu")
    with pytest.raises(RuntimeError, match=rf"Couldn't find function overload for 'bit_count' that accepts \({got}\)") as e:
        wp.launch(k, 1, inputs=[arg, out], device="cpu")
    assert "test_overload_messages.py" in str(e.value) and "must be Int" in str(e.value)


@pytest.mark.parametrize("value, got", [(wp.float32(0), "float32"), (wp.float64(0), "float64"),
                                        (wp.bool(0), "bool"), (wp.vec2i(0), "vec2i")])
def test_python_scope(value, got):
    with pytest.raises(RuntimeError, match=f"Couldn't find a function 'bit_count' compatible with the arguments '{got}'"):
        wp.bit_count(value)
    with pytest.raises(TypeError):
        wp.bit_count(value)


def _k_expect_vec():
    wp.expect_neq(wp.vec3f(0.0, 0.0, 0.0), wp.vec2f(0.0, 0.0))


def _k_expect_mat():
    wp.expect_eq(wp.mat33(), wp.mat22())


@pytest.mark.parametrize("body", [_k_expect_vec, _k_expect_mat])
def test_expect_of_two_types_ends_with_warp_langs_reason(body):
    k = wp.kernel(body, module=f"test_overload_messages_{body.__name__}")
    with pytest.raises(RuntimeError, match="Can't test equality for objects with different types$"):
        wp.launch(k, 1, device="cpu")
