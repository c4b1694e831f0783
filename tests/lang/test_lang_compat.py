"""Language forms warp-lang 1.19 accepts in kernels: ``for i in reversed(range(...))``
(same values as Python's ``reversed``, unrolled or dynamic, and its gradient), struct constructors
with all fields positional. References: Python itself, central finite differences."""

import importlib.util

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.errors import CodegenError

RANGES = [(0, 10, 1), (0, 10, 3), (10, 0, -3), (5, 5, 1), (5, 0, 1), (0, 5, -1), (-3, 4, 2),
          (2, 9, 7), (9, 2, -7), (0, 1, 5), (7, -8, -4), (3, 4, 0)]


@wp.kernel
def k_reversed_dynamic(a: int, b: int, s: int, out: wp.array(dtype=int), n: wp.array(dtype=int)):
    c = int(0)
    for i in reversed(range(a, b, s)):
        out[c] = i
        c += 1
    n[0] = c


@wp.kernel
def k_reversed_dynamic64(a: wp.int64, b: wp.int64, out: wp.array(dtype=wp.int64),
                         n: wp.array(dtype=int)):
    c = int(0)
    for i in reversed(range(a, b)):
        out[c] = i
        c += 1
    n[0] = c


@pytest.mark.parametrize("a,b,s", RANGES)
def test_reversed_range_dynamic_matches_python(a, b, s):
    out, n = wp.zeros(32, dtype=int), wp.zeros(1, dtype=int)
    wp.launch(k_reversed_dynamic, dim=1, inputs=[a, b, s, out, n])
    expected = [] if s == 0 else list(reversed(range(a, b, s)))   # step 0: no iteration
    assert list(out.numpy()[:n.numpy()[0]]) == expected


@pytest.mark.parametrize("a,b", [(0, 5), (2**33, 2**33 + 3), (4, 4), (-2**40, -2**40 + 2)])
def test_reversed_range_int64_bounds(a, b):
    out, n = wp.zeros(8, dtype=wp.int64), wp.zeros(1, dtype=int)
    wp.launch(k_reversed_dynamic64, dim=1, inputs=[a, b, out, n])
    assert list(out.numpy()[:n.numpy()[0]]) == list(reversed(range(a, b)))


@wp.kernel
def k_reversed_unrolled(out: wp.array(dtype=int)):
    c = int(0)
    for i in reversed(range(1, 12, 4)):     # constant bounds: unrolled at build time
        out[c] = i
        c += 1
    for i in reversed(range(3)):
        out[c] = i
        c += 1


def test_reversed_range_constant_bounds_unrolled():
    out = wp.zeros(6, dtype=int)
    wp.launch(k_reversed_unrolled, dim=1, inputs=[out])
    assert list(out.numpy()) == list(reversed(range(1, 12, 4))) + [2, 1, 0]


@wp.kernel
def k_reversed_recurrence(x: wp.array(dtype=wp.float64), n: int, out: wp.array(dtype=wp.float64)):
    # a Horner-like recurrence: the order matters, so a wrong reversal changes value and gradient
    acc = wp.float64(0.0)
    for i in reversed(range(0, n, 2)):
        acc = acc * wp.float64(0.5) + wp.sin(x[i]) * wp.float64(i + 1)
    out[0] = acc


def _recurrence(x, n):
    acc = 0.0
    for i in reversed(range(0, n, 2)):
        acc = acc * 0.5 + np.sin(x[i]) * (i + 1)
    return acc


def test_reversed_range_gradient_matches_finite_differences():
    rng = np.random.default_rng(3)
    xs, n = rng.normal(size=9), 9
    x = wp.array(xs, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k_reversed_recurrence, dim=1, inputs=[x, n, out])
    tape.backward(grads={out: wp.array([1.0], dtype=wp.float64)})
    assert out.numpy()[0] == pytest.approx(_recurrence(xs, n), rel=1e-12)
    h, fd = 1e-6, np.zeros_like(xs)
    for i in range(len(xs)):
        e = np.zeros_like(xs)
        e[i] = h
        fd[i] = (_recurrence(xs + e, n) - _recurrence(xs - e, n)) / (2 * h)
    np.testing.assert_allclose(x.grad.numpy(), fd, rtol=1e-7, atol=1e-9)


def test_reversed_range_unsigned_bounds_is_a_clear_error():
    @wp.kernel(module="unique")    # its failed build must not take this file's module down
    def k_bad(n: wp.uint32, out: wp.array(dtype=int)):
        for i in reversed(range(n)):
            out[0] = int(i)

    with pytest.raises(CodegenError, match=r"reversed\(range\(...\)\) needs signed integer bounds"):
        wp.launch(k_bad, dim=1, inputs=[wp.uint32(3), wp.zeros(1, dtype=int)])


@wp.struct
class Inner:
    v: wp.vec2d


@wp.struct
class Outer:
    a: wp.float64
    inner: Inner
    k: int


@wp.kernel
def k_struct_ctor(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    s = Outer(x[0] * x[1], Inner(wp.vec2d(x[1], wp.float64(3.0) * x[0])), 7)
    z = Outer()
    out[0] = s.a + s.inner.v[0] * s.inner.v[1] + wp.float64(s.k) + z.a + wp.float64(z.k)


def test_struct_constructor_all_fields_positional_value_and_gradient():
    xs = np.array([0.7, -1.3])
    x = wp.array(xs, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k_struct_ctor, dim=1, inputs=[x, out])
    tape.backward(grads={out: wp.array([1.0], dtype=wp.float64)})
    a, b = xs
    assert out.numpy()[0] == pytest.approx(a * b + b * 3 * a + 7)
    np.testing.assert_allclose(x.grad.numpy(), [b + 3 * b, a + 3 * a], rtol=1e-12)


@pytest.mark.parametrize("call,message", [
    ("Outer(wp.float64(1.0))", r"takes no arguments \(every field zero\) or all 3 fields in order "
                               r"\(a, inner, k\), got 1 positional"),
    ("Outer(a=wp.float64(1.0))", r"got 0 positional and keyword argument"),
])
def test_struct_constructor_wrong_arity_is_a_clear_error(tmp_path, call, message):
    src = tmp_path / "k_struct_bad.py"
    src.write_text(
        "import warp_interactive as wp\n"
        "@wp.struct\n"
        "class Outer:\n"
        "    a: wp.float64\n"
        "    inner: wp.vec2d\n"
        "    k: int\n"
        "@wp.kernel(module='unique')\n"
        "def k(out: wp.array(dtype=wp.float64)):\n"
        f"    s = {call}\n"
        "    out[0] = s.a\n")
    spec = importlib.util.spec_from_file_location("k_struct_bad", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(CodegenError, match=message) as info:
        wp.launch(mod.k, dim=1, inputs=[wp.zeros(1, dtype=wp.float64)])
    assert "k_struct_bad.py" in str(info.value)


def test_undefined_name_is_a_codegen_error_and_a_key_error():
    @wp.kernel(module="unique")
    def k_undef(a: wp.array(dtype=float)):
        a[0] = undefined_helper_xyz(a[0])  # noqa: F821

    for kind in (CodegenError, KeyError):
        with pytest.raises(kind, match=r"(?s)^  File .*\nname 'undefined_helper_xyz' is not defined$") as info:
            wp.launch(k_undef, dim=1, inputs=[wp.zeros(1, dtype=float)])
        assert "a[0] = undefined_helper_xyz(a[0])" in str(info.value)


@pytest.mark.parametrize("flag,expected", [(False, 7.0), (True, None)])
def test_untaken_static_branch_may_name_undefined_things(flag, expected):
    @wp.kernel(module="unique")
    def k_branch(a: wp.array(dtype=float)):
        if wp.static(flag):
            a[0] = undefined_helper_xyz(a[0])  # noqa: F821
        else:
            a[0] = 7.0

    a = wp.zeros(1, dtype=float)
    if expected is None:
        with pytest.raises(KeyError):
            wp.launch(k_branch, dim=1, inputs=[a])
    else:
        wp.launch(k_branch, dim=1, inputs=[a])
        assert a.numpy()[0] == expected
