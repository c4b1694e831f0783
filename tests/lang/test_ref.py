"""wp.ref[T]: @wp.func parameters passed by reference. The callee's writes (plain and augmented
assignments, field and component writes, forwarding to another reference parameter) reach the
caller's local, array element, struct field or vector component; values against NumPy, gradients
against the analytic ones; warp-lang's refusals (literals, constant locals, temporaries, kernel
parameters) with their messages."""

import numpy as np
import pytest

import warp_interactive as wp

MODULE = "wpi_test_ref"


def test_the_annotation_object():
    r = wp.ref[wp.int32]
    assert repr(r) == "wp.ref[int32]" and r.dtype is wp.int32
    assert wp.ref[wp.vec3].dtype is wp.vec3
    assert wp.ref[wp.int32] == wp.ref[wp.int32] and wp.ref[wp.int32] != wp.ref[wp.float32]
    assert len({wp.ref[wp.int32], wp.ref[wp.int32]}) == 1


@wp.func
def add_to(x: wp.ref[wp.float32], delta: wp.float32):
    x += delta


@wp.func
def double(x: wp.ref[wp.float32]):
    x = x * wp.float32(2.0)          # a plain assignment writes the caller's storage too


@wp.func
def add_then_double(x: wp.ref[wp.float32]) -> wp.float32:
    add_to(x, 1.0)                   # forwarded to another reference parameter
    double(x)
    return x + 100.0


@wp.func
def swap(a: wp.ref[wp.float32], b: wp.ref[wp.float32]):
    t = a
    a = b
    b = t


@wp.struct
class Counter:
    value: wp.int32
    pos: wp.vec3


@wp.func
def bump(c: wp.ref[Counter]):
    c.value += 1
    c.pos[2] = 9.0


@wp.func
def bump_int(c: wp.ref[wp.int32]):
    c += 10


@wp.kernel(module=MODULE)
def ref_kernel(arr: wp.array(dtype=float), vecs: wp.array(dtype=wp.vec3), out: wp.array2d(dtype=float)):
    i = wp.tid()
    add_to(arr[i], 10.0)                           # an array element
    add_to(vecs[i][1], 0.5)                        # a component of an array element
    v = float(arr[i])
    r = add_then_double(v)                         # a local; the function's own result too
    out[i, 0] = v
    out[i, 1] = r
    c = Counter()
    c.value = wp.int32(i)
    bump(c)                                        # a struct
    bump_int(c.value)                              # a struct field
    out[i, 2] = float(c.value) + c.pos[2]
    w = wp.vec3(1.0, 2.0, 3.0)
    add_to(w[2], float(i))                         # a vector component
    out[i, 3] = w[2]
    p = float(1.0) * float(i)
    q = float(7.0)
    swap(p, q)
    out[i, 4] = p * 100.0 + q


def test_writes_reach_the_caller():
    n = 4
    a0 = np.arange(n, dtype=np.float32) + 0.25
    v0 = np.random.default_rng(0).standard_normal((n, 3)).astype(np.float32)
    arr, vecs = wp.array(a0), wp.array(v0, dtype=wp.vec3)
    out = wp.zeros((n, 5), dtype=float)
    wp.launch(ref_kernel, n, inputs=[arr, vecs, out])
    i = np.arange(n)
    a1 = a0 + 10.0
    v_after = (a1 + 1.0) * 2.0
    want = np.stack([v_after, v_after + 100.0, i + 11.0 + 9.0, 3.0 + i, 700.0 + i], axis=1)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(arr.numpy(), a1)
    v1 = v0.copy()
    v1[:, 1] += 0.5
    np.testing.assert_allclose(vecs.numpy(), v1)


@wp.func
def scale_sin(x: wp.ref[wp.float32], s: wp.float32):
    x = wp.sin(x) * s


@wp.kernel(module=MODULE)
def ref_grad_kernel(x: wp.array(dtype=float), s: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    scale_sin(v, s[i])
    scale_sin(v, s[i])
    y[i] = v


def test_gradients_flow_through_references():
    """warp-lang refuses backward kernels that call wp.ref functions; here the reference is
    copied in and out, so gradients are those of the same code written with returns."""
    rng = np.random.default_rng(1)
    x0, s0 = rng.standard_normal(5).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    x, s = wp.array(x0, requires_grad=True), wp.array(s0, requires_grad=True)
    y = wp.zeros(5, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(ref_grad_kernel, 5, inputs=[x, s, y])
    tape.backward(grads={y: wp.ones(5, dtype=float)})
    u = np.sin(x0) * s0
    np.testing.assert_allclose(y.numpy(), np.sin(u) * s0, rtol=1e-5)
    np.testing.assert_allclose(x.grad.numpy(), np.cos(u) * s0 * np.cos(x0) * s0, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(s.grad.numpy(), np.cos(u) * s0 * np.sin(x0) + np.sin(u), rtol=1e-4, atol=1e-6)


@wp.func
def make_value() -> wp.float32:
    return 1.0


@wp.func
def make_counter() -> Counter:
    return Counter()


def _kernel(body):
    import linecache
    src = ("def bad(a: wp.array(dtype=float)):\n"
           "    i = wp.tid()\n"
           f"    {body}\n")
    fname = f"<ref-test {abs(hash(body))}>"
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
    ns = {"wp": wp, "add_to": add_to, "bump_int": bump_int, "make_value": make_value,
          "make_counter": make_counter}
    exec(compile(src, fname, "exec"), ns)
    k = wp.kernel(ns["bad"], module="unique")
    wp.launch(k, 1, inputs=[wp.zeros(1, dtype=float)])


@pytest.mark.parametrize("body, text", [
    ("add_to(wp.float32(5.0), 1.0)", "reference argument requires an addressable expression"),
    ("add_to(make_value(), 1.0)", "reference argument requires an addressable expression"),
    ("bump_int(make_counter().value)", "reference argument requires an addressable expression"),
    ("add_to(a[i] + 1.0, 1.0)", "reference argument requires an addressable expression"),
    ("x = 1.0; add_to(x, 2.0)", r"constant local 'x', use the following syntax: x = wp.float32\(1.0\)"),
])
def test_arguments_must_be_addressable(body, text):
    with pytest.raises(wp.CodegenError, match=text):
        _kernel(body)


def test_kernels_cannot_take_references():
    with pytest.raises(wp.CodegenError, match="kernels cannot take references"):
        @wp.kernel(module="unique")
        def bad(x: wp.ref[wp.float32]):
            pass

        wp.launch(bad, 1, inputs=[1.0])


@wp.func(module=wp.Module("wpi_test_func_module_object"))
def in_module_object(x: float) -> float:
    return x * 3.0


@wp.kernel(module=MODULE)
def module_object_kernel(out: wp.array(dtype=float)):
    out[0] = in_module_object(2.0)


def test_func_in_a_module_object():
    """``@wp.func(module=wp.Module(name))``, as warp-lang's tests declare functions."""
    out = wp.zeros(1, dtype=float)
    wp.launch(module_object_kernel, 1, inputs=[out])
    assert out.numpy()[0] == 6.0
