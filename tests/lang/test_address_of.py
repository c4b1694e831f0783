"""``wp.address_of(expr)``: the address of a local, an array element, a struct field or a
vector/matrix component, handed to native snippets that write through it (warp-lang's). The
reference is the value each write must leave, computed here by hand."""

import numpy as np
import pytest

import warp_interactive as wp

MODULE = "wpi_test_address_of"


@wp.func_native("*(int32_t*)ptr = 42;")
def set_42(ptr: wp.uint64): ...


@wp.func_native("*(float*)ptr = *(float*)ptr + 1.0f;")
def add_one(ptr: wp.uint64): ...


@wp.func_native("*(double*)ptr = *(double*)ptr * 2.0;")
def double_f64(ptr: wp.uint64): ...


@wp.struct
class Inner:
    a: wp.int8          # the next field's offset is not 0 (padding)
    value: wp.float32


@wp.struct
class Outer:
    k: wp.int64
    inner: Inner
    w: wp.vec3d


@wp.func
def bump_field(s: Inner) -> float:
    add_one(wp.address_of(s.value))          # the function's own copy of its argument
    return s.value


@wp.kernel(module=MODULE)
def addresses(ints: wp.array(dtype=wp.int32), arr: wp.array2d(dtype=wp.float32),
              out: wp.array(dtype=wp.float32), outers: wp.array(dtype=Outer)):
    i = wp.tid()
    val = wp.int32(7)
    set_42(wp.address_of(val))
    ints[i] = val
    add_one(wp.address_of(arr[i, 1]))
    box = Inner()
    box.value = wp.float32(4.0)
    add_one(wp.address_of(box.value))
    v = wp.vec3(1.0, 2.0, 3.0)
    add_one(wp.address_of(v.z))
    add_one(wp.address_of(v[0]))
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    add_one(wp.address_of(m[1, 0]))
    add_one(wp.address_of(m[0][1]))
    add_one(wp.address_of(outers[i].inner.value))
    double_f64(wp.address_of(outers[i].w.y))
    q = bump_field(box)
    out[i * 8 + 0] = box.value
    out[i * 8 + 1] = v[0]
    out[i * 8 + 2] = v.z
    out[i * 8 + 3] = m[1, 0]
    out[i * 8 + 4] = m[0, 1]
    out[i * 8 + 5] = outers[i].inner.value
    out[i * 8 + 6] = float(outers[i].w[1])
    out[i * 8 + 7] = q


def test_writes_through_addresses_reach_the_values():
    n = 5
    ints = wp.zeros(n, dtype=wp.int32)
    arr_np = np.arange(3 * n, dtype=np.float32).reshape(n, 3)
    arr = wp.array(arr_np, dtype=wp.float32)
    out = wp.zeros(8 * n, dtype=wp.float32)
    fill = [Outer() for _ in range(n)]
    for k, o in enumerate(fill):
        o.inner.value = float(10 * k)
        o.w = wp.vec3d(0.0, 1.5 + k, 0.0)
    outers = wp.array(fill, dtype=Outer)
    wp.launch(addresses, n, inputs=[ints, arr, out, outers])
    np.testing.assert_array_equal(ints.numpy(), np.full(n, 42))
    expected_arr = arr_np.copy()
    expected_arr[:, 1] += 1.0                 # only the addressed element changed
    np.testing.assert_array_equal(arr.numpy(), expected_arr)
    got = out.numpy().reshape(n, 8)
    for k in range(n):
        np.testing.assert_array_equal(got[k], [5.0, 2.0, 4.0, 4.0, 3.0, 10 * k + 1.0, 2 * (1.5 + k), 6.0])


def _kernel(body, name):
    src = (f"def {name}(out: wp.array(dtype=wp.float32)):\n" + "".join(f"    {line}\n" for line in body))
    ns = {"wp": wp, "add_one": add_one}
    import linecache
    filename = f"<wpi-address-of-{name}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    exec(compile(src, filename, "exec"), ns)
    return wp.Kernel(ns[name], module="unique")


@pytest.mark.parametrize("body, message", [
    (["add_one(wp.address_of(1.0))"], "takes a local variable"),
    (["add_one(wp.address_of(wp.sin(1.0)))"], "takes a local variable"),
    (["v = wp.vec3(1.0)", "i = wp.tid()", "add_one(wp.address_of(v[i]))"], "must be a constant"),
    (["v = wp.vec3(1.0)", "add_one(wp.address_of(v[3]))"], "out of range"),
    (["x = float(1.0)", "add_one(wp.address_of(x.y))"], "no field 'y'"),
    (["add_one(wp.address_of(out[0], out[1]))"], "takes one expression"),
])
def test_errors_name_the_problem(body, message):
    with pytest.raises(RuntimeError, match=message):
        wp.launch(_kernel(body, "bad_address"), 1, inputs=[wp.zeros(2, dtype=wp.float32)])


def test_outside_kernels_it_refuses():
    with pytest.raises(RuntimeError, match=r"only be called inside a @wp.kernel or @wp.func body"):
        wp.address_of(1.0)
