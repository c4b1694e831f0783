"""A name bound to a literal keeps the literal's value for casts and typed constructors
(`x = 0.1; wp.float64(x)` is 0.1 in float64, as warp-lang 1.19; it was 0.1 rounded to float32:
a silently wrong result); `wp.float(x)` / `wp.int(x)` / `wp.bool(x)` in kernels; warp-lang's
messages for refused vector/matrix constructions. References: NumPy's float64/float16 values."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def _bound_literals(out: wp.array(dtype=wp.float64), h: wp.array(dtype=wp.float16),
                    counts: wp.array(dtype=int)):
    x = 0.1
    n = 3
    z = x                      # a copy of a bound literal is one too
    v = wp.vec3d(x, z, 0.7)
    out[0] = wp.float64(x)
    out[1] = v[0]
    out[2] = v[1]
    out[3] = v[2]
    q = wp.quatd(x, 0.0, 0.0, 1.0)
    out[4] = q[0]
    m = wp.mat22d(x, 0.0, 0.0, x)
    out[5] = m[1, 1]
    y = x * 2.0                # computed from it: a float32 value
    out[6] = wp.float64(y)
    hv = wp.vec3h(x, 1.0, 2.0)
    h[0] = hv[0]
    f = wp.vec3f(4.0, 5.0, 6.0)
    s = f[0:n]                 # still a compile-time int where one is needed
    counts[0] = n
    counts[1] = wp.int32(s[2])


def test_bound_literals_keep_their_value():
    out = wp.zeros(7, dtype=wp.float64, device="cpu")
    h = wp.zeros(1, dtype=wp.float16, device="cpu")
    counts = wp.zeros(2, dtype=int, device="cpu")
    wp.launch(_bound_literals, 1, inputs=[out, h, counts], device="cpu")
    want = [0.1, 0.1, 0.1, 0.7, 0.1, 0.1, float(np.float32(0.1) * np.float32(2.0))]
    np.testing.assert_array_equal(out.numpy(), np.array(want, dtype=np.float64))
    assert h.numpy()[0] == np.float16(0.1)
    np.testing.assert_array_equal(counts.numpy(), [3, 6])


@wp.kernel
def _reassigned(flag: int, out: wp.array(dtype=wp.float64)):
    x = 0.1
    if flag > 0:
        x = 0.3               # joined with the branch: a run-time float32 value
    out[0] = wp.float64(x)
    w = 0.25
    for _ in range(flag):
        w = w + 0.1           # loop-carried: float32
    out[1] = wp.float64(w)


def test_a_name_changed_at_run_time_is_a_float32_value():
    out = wp.zeros(2, dtype=wp.float64, device="cpu")
    wp.launch(_reassigned, 1, inputs=[1, out], device="cpu")
    np.testing.assert_array_equal(out.numpy(), [float(np.float32(0.3)), float(np.float32(0.25) + np.float32(0.1))])


@wp.kernel
def _module_casts(a: wp.array(dtype=wp.float16), out: wp.array(dtype=float), n: wp.array(dtype=int)):
    x = wp.float(a[0]) * 2.0
    out[0] = x
    n[0] = wp.int(3.7)
    n[1] = int(wp.bool(3))


def test_wp_float_int_bool_cast_in_kernels():
    a = wp.array(np.array([1.5], np.float16), dtype=wp.float16, device="cpu")
    out = wp.zeros(1, dtype=float, device="cpu")
    n = wp.zeros(2, dtype=int, device="cpu")
    wp.launch(_module_casts, 1, inputs=[a, out, n], device="cpu")
    assert out.numpy()[0] == 3.0
    np.testing.assert_array_equal(n.numpy(), [3, 1])


def _k_anon_zero():
    wp.types.vector()


def _k_anon_copy():
    wp.types.vector(wp.types.vector(length=2, dtype=float), length=3, dtype=float)


def _k_anon_count():
    wp.types.vector(1.0, 2.0, length=5)


def _k_anon_mixed():
    wp.types.vector(1.0, 2)


def _k_vec_copy():
    wp.vec3(wp.vec2(1.0, 2.0))


def _k_vec_mixed(x: wp.float64):
    wp.vec2(x, x)


def _k_vec_fill(x: wp.float64):
    wp.vec3f(x)


def _k_mat_values(x: wp.float64):
    wp.mat22f(x, x, x, x)


def _k_vec_count():
    wp.vec3(1.0, 2.0)


@pytest.mark.parametrize("body, message", [
    (_k_anon_zero, "the `length` argument must be specified when zero-initializing a vector"),
    (_k_anon_copy, "incompatible vector of length 3 given when copy constructing a vector of length 2"),
    (_k_anon_count, r"incompatible number of values given \(2\) when constructing a vector of length 5"),
    (_k_anon_mixed, "all values given when constructing a vector must have the same type"),
    (_k_vec_copy, "incompatible vector of length 3 given when copy constructing a vector of length 2"),
    (_k_vec_mixed, "all values used to initialize this vector are expected to be of the type `float32`"),
    (_k_vec_fill, "the value used to fill this vector is expected to be of the type `float32`"),
    (_k_mat_values, "all values used to initialize this matrix are expected to be of the type `float32`"),
    (_k_vec_count, r"incompatible number of values given \(2\) when constructing a vector of length 3"),
])
def test_refused_constructions_end_with_warp_langs_reason(body, message):
    k = wp.kernel(body, module=f"test_literal_names_{body.__name__}")
    args = [wp.float64(1.0)] if body.__code__.co_argcount else []
    with pytest.raises(RuntimeError, match=message + "$") as info:
        wp.launch(k, 1, inputs=args, device="cpu")
    assert "test_literal_names.py" in str(info.value)    # and the user's file and line first


@wp.kernel
def _type_of(x: wp.float64, v: wp.vec3d, out: wp.array(dtype=wp.float64)):
    z = type(v)()                 # a zero of v's type
    m = type(wp.mat22f(1.0, 2.0, 3.0, 4.0))(2.0)
    out[0] = z[0] + z[1] + z[2]
    out[1] = type(x)(2.5) + x     # a cast to float64
    out[2] = wp.float64(m[1, 1])
    out[3] = wp.float64(type(1.0)(7))


def test_type_of_a_value_in_kernels():
    out = wp.zeros(4, dtype=wp.float64, device="cpu")
    wp.launch(_type_of, 1, inputs=[wp.float64(0.25), wp.vec3d(1.0, 2.0, 3.0), out], device="cpu")
    np.testing.assert_array_equal(out.numpy(), [0.0, 2.75, 2.0, 7.0])
