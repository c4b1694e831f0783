"""The kernel language, as tables: operators over every scalar type, control flow, functions,
constants, vector/matrix components, the ``@`` operator, printing and structs. Every result is
checked against NumPy or plain Python."""

import ctypes

import numpy as np
import pytest

import warp_interactive as wp

SIGNED = [wp.int8, wp.int16, wp.int32, wp.int64]
UNSIGNED = [wp.uint8, wp.uint16, wp.uint32, wp.uint64]
INTS = SIGNED + UNSIGNED
FLOATS = [wp.float16, wp.float32, wp.float64]
SCALARS = INTS + FLOATS


def flush_c_stdio():
    ctypes.CDLL(None).fflush(None)


def np_dtype(t):
    return wp.dtype_to_numpy(t)


# --- operators over every scalar type (one kernel per type, made by a factory) -----------------------
def _named(fn, name):
    fn.__name__ = fn.__qualname__ = name
    return wp.kernel(fn)


def _make_scalar_kernels(T):
    def arith(a: wp.array(dtype=T), b: wp.array(dtype=T), out: wp.array2d(dtype=T)):
        i = wp.tid()
        x = a[i]
        y = b[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = x * y
        out[i, 3] = x / y
        out[i, 4] = x // y
        out[i, 5] = x % y
        out[i, 6] = -x
        out[i, 7] = +x

    def compare(a: wp.array(dtype=T), b: wp.array(dtype=T), out: wp.array2d(dtype=int)):
        i = wp.tid()
        x = a[i]
        y = b[i]
        out[i, 0] = int(x < y)
        out[i, 1] = int(x <= y)
        out[i, 2] = int(x > y)
        out[i, 3] = int(x >= y)
        out[i, 4] = int(x == y)
        out[i, 5] = int(x != y)
        out[i, 6] = int(x < y < x + y)

    kernels = {"arith": _named(arith, f"arith_{T.__name__}"),
               "compare": _named(compare, f"compare_{T.__name__}")}
    if T in INTS:
        def bits(a: wp.array(dtype=T), b: wp.array(dtype=T), s: wp.array(dtype=T),
                 out: wp.array2d(dtype=T)):
            i = wp.tid()
            x = a[i]
            y = b[i]
            out[i, 0] = x & y
            out[i, 1] = x | y
            out[i, 2] = x ^ y
            out[i, 3] = x << s[i]
            out[i, 4] = x >> s[i]
            out[i, 5] = ~x
        kernels["bits"] = _named(bits, f"bits_{T.__name__}")
    return kernels


SCALAR_KERNELS = {T: _make_scalar_kernels(T) for T in SCALARS}


def _operands(T):
    if T in UNSIGNED:
        a = [7, 9, 5, 11, 0, 1, 10, 3, 8]
        b = [2, 2, 3, 4, 3, 5, 3, 1, 8]
    elif T in SIGNED:
        a = [7, -7, 7, -7, 11, 0, -1, 9, 5]
        b = [2, 2, -2, -2, 4, 3, 5, -4, 5]
    else:
        a = [7.5, -7.5, 7.5, -7.5, 1.0, 0.0, -1.25, 9.0, 2.5]
        b = [2.0, 2.0, -2.0, -2.0, 0.1, 3.0, 0.5, -4.0, 2.5]
    dt = np_dtype(T)
    return np.array(a, dtype=dt), np.array(b, dtype=dt)


@pytest.mark.parametrize("T", SCALARS, ids=lambda t: t.__name__)
def test_arithmetic_table(T):
    a, b = _operands(T)
    out = wp.zeros(shape=(len(a), 8), dtype=T)
    wp.launch(SCALAR_KERNELS[T]["arith"], dim=len(a),
              inputs=[wp.array(a, dtype=T), wp.array(b, dtype=T), out])
    got = out.numpy()
    with np.errstate(over="ignore"):
        if T in INTS:
            true_div = np.fix(a.astype(np.float64) / b).astype(a.dtype)  # C-style, as the reference
        else:
            true_div = a / b
        # warp-lang's rules: `//` floors (floats: floor(a / b)), `%` is C's truncated remainder
        floor_div = a // b if T in INTS else np.floor(a / b)
        expect = np.stack([a + b, a - b, a * b, true_div, floor_div, np.fmod(a, b), -a, +a], axis=1)
    if T is wp.float16:
        np.testing.assert_allclose(got.astype(np.float32), expect.astype(np.float32), rtol=2e-3)
    elif T in FLOATS:
        np.testing.assert_allclose(got, expect, rtol=1e-6)
    else:
        np.testing.assert_array_equal(got, expect)


def test_python_floor_semantics():
    """// floors (as Python), % truncates (as C and warp-lang): spot values written out by hand."""
    a, b = _operands(wp.int32)
    out = wp.zeros(shape=(len(a), 8), dtype=wp.int32)
    wp.launch(SCALAR_KERNELS[wp.int32]["arith"], dim=len(a), inputs=[wp.array(a), wp.array(b), out])
    got = out.numpy()
    assert got[:4, 4].tolist() == [3, -4, -4, 3]       # 7//2, -7//2, 7//-2, -7//-2
    assert got[:4, 5].tolist() == [1, -1, 1, -1]       # 7%2, -7%2, 7%-2, -7%-2
    assert got[:4, 3].tolist() == [3, -3, -3, 3]       # integer / truncates
    assert got[:, 4].tolist() == [x // y for x, y in zip(a.tolist(), b.tolist())]
    assert got[:, 5].tolist() == [int(np.fmod(x, y)) for x, y in zip(a.tolist(), b.tolist())]


@pytest.mark.parametrize("T", SCALARS, ids=lambda t: t.__name__)
def test_comparison_table(T):
    a, b = _operands(T)
    out = wp.zeros(shape=(len(a), 7), dtype=int)
    wp.launch(SCALAR_KERNELS[T]["compare"], dim=len(a),
              inputs=[wp.array(a, dtype=T), wp.array(b, dtype=T), out])
    with np.errstate(over="ignore"):
        chain = (a < b) & (b < a + b)
    expect = np.stack([a < b, a <= b, a > b, a >= b, a == b, a != b, chain], axis=1)
    np.testing.assert_array_equal(out.numpy(), expect.astype(np.int32))


@pytest.mark.parametrize("T", INTS, ids=lambda t: t.__name__)
def test_bit_operator_table(T):
    a, b = _operands(T)
    s = np.array([1, 2, 3, 0, 1, 2, 1, 0, 3], dtype=np_dtype(T))
    out = wp.zeros(shape=(len(a), 6), dtype=T)
    wp.launch(SCALAR_KERNELS[T]["bits"], dim=len(a),
              inputs=[wp.array(a, dtype=T), wp.array(b, dtype=T), wp.array(s, dtype=T), out])
    expect = np.stack([a & b, a | b, a ^ b, a << s, a >> s, ~a], axis=1)
    np.testing.assert_array_equal(out.numpy(), expect)


# --- control flow ------------------------------------------------------------------------------------
N_STATIC = wp.constant(4)
SCALE = wp.constant(2.5)
ORIGIN = wp.constant(wp.vec3(1.0, 2.0, 3.0))
PLAIN_GLOBAL = 7
NUMPY_CONSTANT = wp.constant(np.int64(3))


class Shapes:
    SPHERE = wp.constant(0)
    CUBE = wp.constant(1)


@wp.kernel
def branches(x: wp.array(dtype=float), out: wp.array2d(dtype=int)):
    i = wp.tid()
    v = x[i]
    c = 0
    if v < 0.0:
        c = -1
    elif v == 0.0:
        c = 0
    elif v < 10.0:
        c = 1
    else:
        c = 2
    out[i, 0] = c
    out[i, 1] = 5 if v > 1.0 else -5
    # a name first bound on both branches
    if i % 2 == 0:
        w = i * 10
    else:
        w = i * 100
    out[i, 2] = w
    # a condition that is an int (nonzero = true)
    k = 0
    if i:
        k = 1
    out[i, 3] = k
    out[i, 4] = int(not (v > 1.0))


def test_if_elif_else_and_ifexp():
    x = np.array([-3.0, 0.0, 0.5, 9.0, 12.0, 1.0], dtype=np.float32)
    out = wp.zeros(shape=(6, 5), dtype=int)
    wp.launch(branches, dim=6, inputs=[wp.array(x), out])
    i = np.arange(6)
    expect = np.stack([np.select([x < 0, x == 0, x < 10], [-1, 0, 1], 2),
                       np.where(x > 1.0, 5, -5), np.where(i % 2 == 0, i * 10, i * 100),
                       (i != 0).astype(int), (~(x > 1.0)).astype(int)], axis=1)
    np.testing.assert_array_equal(out.numpy(), expect)


@wp.kernel
def static_loops(out: wp.array(dtype=int)):
    s = 0
    for i in range(3):
        s += i
    out[0] = s
    t = 0
    for i in range(N_STATIC):
        t += i * i
    out[1] = t
    u = 0
    for i in range(10, 0, -3):     # 10, 7, 4, 1
        u = u * 100 + i
    out[2] = u
    w = 0
    for i in range(0, 100, 7):     # too long to unroll: a loop with constant bounds
        w += i
    out[3] = w
    m = 0
    for i in range(2):
        for j in range(3):
            m += (i + 1) * (j + 1)
    out[4] = m


def test_static_range_loops():
    out = wp.zeros(5, dtype=int)
    wp.launch(static_loops, dim=1, inputs=[out])
    assert out.numpy().tolist() == [3, 14, 10070401, sum(range(0, 100, 7)), 18]


@wp.kernel
def dynamic_loops(p: wp.array(dtype=int), out: wp.array2d(dtype=int)):
    i = wp.tid()
    start = p[0]
    stop = p[1]
    step = p[2]
    a = 0
    for k in range(stop):
        a += k
    b = 0
    for k in range(start, stop):
        b += k
    c = 0
    n = 0
    for k in range(start, stop, step):
        c = c + k * (n + 1)
        n += 1
    out[i, 0] = a
    out[i, 1] = b
    out[i, 2] = c
    out[i, 3] = n


@pytest.mark.parametrize("start,stop,step", [(2, 9, 2), (9, -4, -3), (0, 0, 1), (5, 1, 1), (-3, 4, 7),
                                              (10, 0, -1)])
def test_dynamic_range_loops(start, stop, step):
    out = wp.zeros(shape=(1, 4), dtype=int)
    wp.launch(dynamic_loops, dim=1, inputs=[wp.array([start, stop, step], dtype=int), out])
    r = list(range(start, stop, step))
    expect = [sum(range(stop)), sum(range(start, stop)), sum(k * (n + 1) for n, k in enumerate(r)), len(r)]
    assert out.numpy()[0].tolist() == expect


@wp.kernel
def int64_loops(n: wp.int64, out: wp.array(dtype=wp.int64)):
    s = wp.int64(0)
    for j in range(0, n):
        s += j
    for j in range(n, 0, -2):
        s += j * wp.int64(100)
    out[0] = s


def test_dynamic_range_with_int64_bounds():
    out = wp.zeros(1, dtype=wp.int64)
    wp.launch(int64_loops, dim=1, inputs=[7, out])
    assert out.numpy()[0] == sum(range(7)) + 100 * sum(range(7, 0, -2))


@wp.kernel
def while_break_continue(n: wp.array(dtype=int), out: wp.array2d(dtype=int)):
    i = wp.tid()
    limit = n[i]
    # while with a counter
    k = 0
    s = 0
    while k < limit:
        s += k
        k += 1
    out[i, 0] = s
    # break: the first multiple of 7 at or above limit
    j = limit
    while True:
        if j % 7 == 0:
            break
        j += 1
    out[i, 1] = j
    # continue: sum of the odd numbers below limit
    t = 0
    for m in range(limit):
        if m % 2 == 0:
            continue
        t += m
    out[i, 2] = t
    # break out of a for loop with dynamic bounds
    first = -1
    for m in range(limit):
        if m * m > limit:
            first = m
            break
    out[i, 3] = first
    # break only leaves the inner loop
    count = 0
    for a in range(limit):
        for b in range(limit):
            if b > a:
                break
            count += 1
    out[i, 4] = count


def test_while_break_continue():
    n = np.array([0, 1, 5, 8, 15], dtype=np.int32)
    out = wp.zeros(shape=(5, 5), dtype=int)
    wp.launch(while_break_continue, dim=5, inputs=[wp.array(n), out])
    expect = []
    for lim in n.tolist():
        first = next((m for m in range(lim) if m * m > lim), -1)
        expect.append([sum(range(lim)), -(-lim // 7) * 7, sum(m for m in range(lim) if m % 2),
                       first, lim * (lim + 1) // 2])
    np.testing.assert_array_equal(out.numpy(), expect)


@wp.kernel
def early_return(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if x[i] < 0.0:
        return
    for k in range(3):
        if x[i] > 100.0:
            out[i] = -1.0
            return
    out[i] = x[i] * 2.0


def test_early_return_in_kernel():
    x = np.array([1.0, -2.0, 300.0, 4.0], dtype=np.float32)
    out = wp.full(4, 9.0, dtype=float)
    wp.launch(early_return, dim=4, inputs=[wp.array(x), out])
    assert out.numpy().tolist() == [2.0, 9.0, -1.0, 8.0]


@wp.func
def find_first(a: wp.array(dtype=int), value: int):
    for k in range(a.shape[0]):
        if a[k] == value:
            return k
    return -1


@wp.func
def collatz_steps(n: int):
    steps = int(0)
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@wp.kernel
def loop_state(a: wp.array(dtype=int), n: int, out: wp.array2d(dtype=int)):
    i = wp.tid()
    # a variable changed on one branch of an if inside a dynamic loop
    best = -1
    best_k = 0
    for k in range(n):
        v = a[k] * (i + 1) % 7
        if v > best:
            best = v
            best_k = k
    out[i, 0] = best
    out[i, 1] = best_k
    # names first bound inside a loop stay visible after it; the loop variable too
    last = 0
    for k in range(n):
        inner = k * 2
        last = inner
    out[i, 2] = last
    # returns from inside a loop of a function; a while loop rewriting a parameter
    out[i, 3] = find_first(a, i)
    out[i, 4] = collatz_steps(i + 1)
    # aliasing: changing a copy leaves the original alone, also across iterations
    v0 = wp.vec3(1.0, 2.0, 3.0)
    acc = 0.0
    for k in range(n):
        w = v0
        w[0] = float(k)
        v0[1] = v0[1] + 1.0
        acc += w[0] + w[1]
    out[i, 5] = int(acc)
    out[i, 6] = int(v0[0] + v0[1])
    # a while loop whose condition uses a variable changed in a nested if
    x = i
    guard = 0
    while x > 0 and guard < 100:
        if x % 3 == 0:
            x -= 2
        else:
            x -= 1
        guard += 1
    out[i, 7] = guard


def test_loop_carried_state():
    a = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int32)
    n = len(a)
    out = wp.zeros(shape=(6, 8), dtype=int)
    wp.launch(loop_state, dim=6, inputs=[wp.array(a), n, out])

    def collatz(m):
        c = 0
        while m != 1:
            m = m // 2 if m % 2 == 0 else 3 * m + 1
            c += 1
        return c

    def guard(x):
        g = 0
        while x > 0 and g < 100:
            x -= 2 if x % 3 == 0 else 1
            g += 1
        return g

    expect = []
    for i in range(6):
        vals = [int(v) * (i + 1) % 7 for v in a]
        best = max(vals)
        first = a.tolist().index(i) if i in a.tolist() else -1
        acc = sum(k + 2.0 + k for k in range(n))   # w[1] = v0[1] before the increment
        expect.append([best, vals.index(best), 2 * (n - 1), first, collatz(i + 1), int(acc),
                       int(1.0 + 2.0 + n), guard(i)])
    np.testing.assert_array_equal(out.numpy(), expect)


CAST_TYPES = [wp.int8, wp.uint8, wp.int32, wp.uint32, wp.int64, wp.float16, wp.float32, wp.float64]


def _make_cast_kernel(T):
    def cast(x: wp.array(dtype=float), out_t: wp.array(dtype=T), back: wp.array(dtype=float),
             as_bool: wp.array(dtype=int)):
        i = wp.tid()
        t = T(x[i])
        out_t[i] = t
        back[i] = float(t)
        as_bool[i] = int(wp.bool(t))
    return _named(cast, f"cast_{T.__name__}")


CAST_KERNELS = {T: _make_cast_kernel(T) for T in CAST_TYPES}


@pytest.mark.parametrize("T", CAST_TYPES, ids=lambda t: t.__name__)
def test_cast_table(T):
    x = np.array([0.0, 1.0, 2.75, 100.5, 7.0, 0.25], dtype=np.float32)
    out_t, back = wp.zeros(len(x), dtype=T), wp.zeros(len(x), dtype=float)
    as_bool = wp.zeros(len(x), dtype=int)
    wp.launch(CAST_KERNELS[T], dim=len(x), inputs=[wp.array(x), out_t, back, as_bool])
    expect = x.astype(np_dtype(T))   # float -> int truncates toward zero, as in C and NumPy
    np.testing.assert_array_equal(out_t.numpy(), expect)
    np.testing.assert_array_equal(back.numpy(), expect.astype(np.float32))
    np.testing.assert_array_equal(as_bool.numpy(), (expect != 0).astype(np.int32))


@wp.kernel
def literals_adopt_types(d: wp.array(dtype=wp.float64), l: wp.array(dtype=wp.int64),
                         h: wp.array(dtype=wp.float16), u: wp.array(dtype=wp.uint8),
                         vd: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    d[i] = 0.5
    d[i] += 1
    wp.atomic_add(d, i, 2.0)
    l[i] = 3
    l[i] = l[i] * 2 + 1
    wp.atomic_max(l, i, 100)
    h[i] = 1.5
    h[i] = h[i] * 2.0 - 1
    u[i] = 250
    u[i] += 10            # wraps, as uint8 does
    v = wp.vec3d(1.0, 2.0, 3.0) * 2.0
    v[0] = 0.25
    v.z = 5
    vd[i] = v + wp.vec3d(1.0)


def test_literals_adopt_the_types_they_meet():
    d, l = wp.zeros(2, dtype=wp.float64), wp.zeros(2, dtype=wp.int64)
    h, u = wp.zeros(2, dtype=wp.float16), wp.zeros(2, dtype=wp.uint8)
    vd = wp.zeros(2, dtype=wp.vec3d)
    wp.launch(literals_adopt_types, dim=2, inputs=[d, l, h, u, vd])
    assert d.numpy().tolist() == [3.5, 3.5]
    assert l.numpy().tolist() == [100, 100]
    assert h.numpy().tolist() == [2.0, 2.0]
    assert u.numpy().tolist() == [4, 4]
    assert vd.numpy().tolist() == [[1.25, 5.0, 6.0]] * 2


# --- functions -------------------------------------------------------------------------------------
@wp.func
def sign_of(x: float):
    if x < 0.0:
        return -1.0
    return 1.0


@wp.func
def divmod_(a: int, b: int):
    return a // b, a % b


@wp.func
def min_max_sum(a: float, b: float):
    if a < b:
        return a, b, a + b
    return b, a, a + b


@wp.func
def twice(x: float):
    return x * 2.0


@wp.func
def twice(x: int):  # noqa: F811  (an overload for int)
    return x * 3


@wp.func
def twice(x: wp.vec3):  # noqa: F811
    return x * 4.0


@wp.func
def generic_add(a, b):
    return a + b


@wp.func
def hypot_sq(a: float, b: float):
    return square(a) + square(b)


@wp.func
def square(x: float):
    return x * x


@wp.func
def nothing(out: wp.array(dtype=float), i: int):
    out[i] = 42.0


@wp.kernel
def use_functions(x: wp.array(dtype=float), ints: wp.array2d(dtype=int),
                  floats: wp.array2d(dtype=float), vecs: wp.array(dtype=wp.vec3),
                  side: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    floats[i, 0] = sign_of(v)
    q, r = divmod_(i - 3, 2)
    ints[i, 0] = q
    ints[i, 1] = r
    lo, hi, total = min_max_sum(v, 1.0)
    floats[i, 1] = lo
    floats[i, 2] = hi
    floats[i, 3] = total
    floats[i, 4] = twice(v)
    ints[i, 2] = twice(i)
    vecs[i] = twice(wp.vec3(v, 1.0, 2.0)) + generic_add(wp.vec3(1.0), wp.vec3(v))
    floats[i, 5] = generic_add(v, 0.5)
    ints[i, 3] = generic_add(i, 10)
    floats[i, 6] = hypot_sq(v, 2.0)
    nothing(side, i)
    # tuple packing and swapping; chained assignment gives independent variables
    a, b = i, i * 10
    a, b = b, a
    c = d = a
    c += 1
    ints[i, 4] = a - b + (c - d - 1)


def test_user_functions():
    x = np.array([-1.5, 0.0, 2.0, 3.5], dtype=np.float32)
    ints = wp.zeros(shape=(4, 5), dtype=int)
    floats = wp.zeros(shape=(4, 7), dtype=float)
    vecs = wp.zeros(4, dtype=wp.vec3)
    side = wp.zeros(4, dtype=float)
    wp.launch(use_functions, dim=4, inputs=[wp.array(x), ints, floats, vecs, side])
    i = np.arange(4)
    np.testing.assert_array_equal(ints.numpy(), np.stack(
        [(i - 3) // 2, np.fmod(i - 3, 2), i * 3, i + 10, i * 9], axis=1))
    f = floats.numpy()
    np.testing.assert_array_equal(f[:, 0], np.where(x < 0, -1.0, 1.0))
    np.testing.assert_array_equal(f[:, 1], np.minimum(x, 1.0))
    np.testing.assert_array_equal(f[:, 2], np.maximum(x, 1.0))
    np.testing.assert_array_equal(f[:, 3], x + 1.0)
    np.testing.assert_array_equal(f[:, 4], 2 * x)
    np.testing.assert_array_equal(f[:, 5], x + 0.5)
    np.testing.assert_allclose(f[:, 6], x * x + 4.0)
    expect_v = 4 * np.stack([x, np.ones(4), 2 * np.ones(4)], axis=1) + 1.0 + x[:, None]
    np.testing.assert_allclose(vecs.numpy(), expect_v)
    assert side.numpy().tolist() == [42.0] * 4


def test_func_in_python_scope():
    assert square(3.0) == 9.0
    assert divmod_(7, 2) == (3, 1)


def _make_closure_kernel(factor, offset_vec, name):
    def closure_kernel(out: wp.array(dtype=wp.vec3)):
        i = wp.tid()
        out[i] = offset_vec * factor + wp.vec3(float(i))
    return _named(closure_kernel, name)


CLOSURE_A = _make_closure_kernel(2.0, wp.vec3(1.0, 0.0, 0.0), "closure_a")
CLOSURE_B = _make_closure_kernel(-1.0, wp.vec3(0.0, 5.0, 0.0), "closure_b")


@wp.kernel
def module_constants(out: wp.array(dtype=float), vout: wp.array(dtype=wp.vec3)):
    out[0] = SCALE * 2.0
    out[1] = float(N_STATIC + PLAIN_GLOBAL)
    vout[0] = ORIGIN + wp.vec3(SCALE)
    s = 0
    for k in range(NUMPY_CONSTANT):
        s += Shapes.CUBE
    out[2] = float(s + Shapes.SPHERE)


def test_closure_and_module_constants():
    for kern, factor, off in ((CLOSURE_A, 2.0, [1.0, 0.0, 0.0]), (CLOSURE_B, -1.0, [0.0, 5.0, 0.0])):
        out = wp.zeros(3, dtype=wp.vec3)
        wp.launch(kern, dim=3, inputs=[out])
        expect = np.asarray(off) * factor + np.arange(3)[:, None]
        np.testing.assert_array_equal(out.numpy(), expect)
    out = wp.zeros(3, dtype=float)
    vout = wp.zeros(1, dtype=wp.vec3)
    wp.launch(module_constants, dim=1, inputs=[out, vout])
    assert out.numpy().tolist() == [5.0, 11.0, 3.0]
    assert vout.numpy()[0].tolist() == [3.5, 4.5, 5.5]


# --- short-circuit and/or ------------------------------------------------------------------------------
@wp.func
def probe(counter: wp.array(dtype=int), result: bool):
    wp.atomic_add(counter, 0, 1)
    return result


@wp.kernel
def short_circuit(idx: wp.array(dtype=int), data: wp.array(dtype=float), out: wp.array2d(dtype=int),
                  counter: wp.array(dtype=int)):
    i = wp.tid()
    j = idx[i]
    n = data.shape[0]
    # the right side would read far out of bounds (and crash) if it ran for a bad j
    ok = j >= 0 and j < n and data[j] > 0.0
    out[i, 0] = int(ok)
    bad = j < 0 or j >= n or data[j] <= 0.0
    out[i, 1] = int(bad)
    if j >= 0 and j < n and data[j] > 0.0:
        out[i, 2] = 1
    # evaluation counts: each probe adds one when it runs
    x = probe(counter, False) and probe(counter, True)
    y = probe(counter, True) or probe(counter, True)
    z = probe(counter, True) and probe(counter, False) and probe(counter, True)
    out[i, 3] = int(x) + 2 * int(y) + 4 * int(z)


def test_short_circuit_and_or():
    idx = np.array([0, -1000000000, 1, 1000000000, 2], dtype=np.int32)
    data = np.array([1.0, -1.0, 3.0], dtype=np.float32)
    out = wp.zeros(shape=(5, 4), dtype=int)
    counter = wp.zeros(1, dtype=int)
    wp.launch(short_circuit, dim=5, inputs=[wp.array(idx), wp.array(data), out, counter])
    ok = [1, 0, 0, 0, 1]
    np.testing.assert_array_equal(out.numpy()[:, 0], ok)
    np.testing.assert_array_equal(out.numpy()[:, 1], [1 - v for v in ok])
    np.testing.assert_array_equal(out.numpy()[:, 2], ok)
    np.testing.assert_array_equal(out.numpy()[:, 3], [2] * 5)
    assert counter.numpy()[0] == 5 * (1 + 1 + 2)


# --- vector and matrix components, the @ operator ---------------------------------------------------------
@wp.kernel
def components(vs: wp.array(dtype=wp.vec3), ms: wp.array(dtype=wp.mat33),
               scal: wp.array2d(dtype=float), vout: wp.array(dtype=wp.vec3),
               mout: wp.array(dtype=wp.mat33), qout: wp.array(dtype=wp.quat)):
    i = wp.tid()
    v = vs[i]
    m = ms[i]
    scal[i, 0] = v[0]
    scal[i, 1] = v.y
    scal[i, 2] = m[1, 2]
    scal[i, 3] = m[2][0]
    row = m[1]
    scal[i, 4] = row[0] + row.z
    k = i % 3
    scal[i, 5] = v[k] + m[k, k]
    v[1] = 10.0
    v.z = v.x + 1.0
    v[0] += 0.5
    vout[i] = v
    m[0, 1] = -1.0
    m[2] = wp.vec3(7.0, 8.0, 9.0)
    m[1, 1] *= 3.0
    m[1][2] = 5.0
    mout[i] = m
    q = wp.quat(0.0, 0.0, 0.0, 1.0)
    q.x = 0.5
    q[2] = float(i)
    qout[i] = q


def test_vector_matrix_components():
    n = 3
    rng = np.random.default_rng(2)
    v = rng.random((n, 3), dtype=np.float32)
    m = rng.random((n, 3, 3), dtype=np.float32)
    scal = wp.zeros(shape=(n, 6), dtype=float)
    vout, mout = wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.mat33)
    qout = wp.zeros(n, dtype=wp.quat)
    wp.launch(components, dim=n, inputs=[wp.array(v, dtype=wp.vec3), wp.array(m, dtype=wp.mat33),
                                         scal, vout, mout, qout])
    k = np.arange(n) % 3
    expect = np.stack([v[:, 0], v[:, 1], m[:, 1, 2], m[:, 2, 0], m[:, 1, 0] + m[:, 1, 2],
                       v[np.arange(n), k] + m[np.arange(n), k, k]], axis=1)
    np.testing.assert_allclose(scal.numpy(), expect, rtol=1e-6)
    ev = v.copy()
    ev[:, 1] = 10.0
    ev[:, 2] = ev[:, 0] + 1.0
    ev[:, 0] += 0.5
    np.testing.assert_allclose(vout.numpy(), ev, rtol=1e-6)
    em = m.copy()
    em[:, 0, 1] = -1.0
    em[:, 2] = [7.0, 8.0, 9.0]
    em[:, 1, 1] *= 3.0
    em[:, 1, 2] = 5.0
    np.testing.assert_allclose(mout.numpy(), em, rtol=1e-6)
    np.testing.assert_array_equal(qout.numpy(), [[0.5, 0.0, float(i), 1.0] for i in range(n)])


@wp.kernel
def composite_misc(out_m: wp.array(dtype=wp.mat22), out_i: wp.array(dtype=wp.vec3i),
                   flags: wp.array(dtype=int)):
    m = wp.mat22(wp.vec2(1.0, 2.0), wp.vec2(3.0, 4.0))
    out_m[0] = m
    out_m[1] = -m + m * 2.0 - m / 2.0
    a = wp.vec3i(1, 2, 3)
    b = wp.vec3i(4, 5, 6)
    out_i[0] = a + b * 2
    out_i[1] = -a
    flags[0] = int(a == wp.vec3i(1, 2, 3))
    flags[1] = int(a != b)
    flags[2] = int(m == wp.mat22(1.0, 2.0, 3.0, 4.0))
    flags[3] = len(a)


def test_composite_constructors_and_operators():
    out_m, out_i = wp.zeros(2, dtype=wp.mat22), wp.zeros(2, dtype=wp.vec3i)
    flags = wp.zeros(4, dtype=int)
    wp.launch(composite_misc, dim=1, inputs=[out_m, out_i, flags])
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(out_m.numpy(), [m, -m + 2 * m - m / 2])
    assert out_i.numpy().tolist() == [[9, 12, 15], [-1, -2, -3]]
    assert flags.numpy().tolist() == [1, 1, 1, 3]
    assert wp.mat22(wp.vec2(1.0, 2.0), wp.vec2(3.0, 4.0)) == wp.mat22(1.0, 2.0, 3.0, 4.0)


@wp.kernel
def element_components(vs: wp.array(dtype=wp.vec3), ms: wp.array2d(dtype=wp.mat22)):
    i = wp.tid()
    vs[i].y = 5.0
    vs[i][2] += 1.0
    ms[i, 0][1, 0] = float(i)
    ms[i, 1][0] = wp.vec2(7.0, 8.0)


def test_writing_components_of_array_elements():
    vs = wp.array(np.ones((3, 3), dtype=np.float32), dtype=wp.vec3)
    ms = wp.zeros((3, 2), dtype=wp.mat22)
    wp.launch(element_components, dim=3, inputs=[vs, ms])
    assert vs.numpy().tolist() == [[1.0, 5.0, 2.0]] * 3
    m = ms.numpy()
    assert m[:, 0, 1, 0].tolist() == [0.0, 1.0, 2.0] and m[:, 0].sum() == 3.0
    assert m[:, 1, 0].tolist() == [[7.0, 8.0]] * 3 and m[:, 1, 1].sum() == 0.0


mat23 = wp.types.matrix(shape=(2, 3), dtype=float)


@wp.kernel
def matmul_ops(a: wp.array(dtype=wp.mat33), b: wp.array(dtype=wp.mat33), v: wp.array(dtype=wp.vec3),
               mm: wp.array(dtype=wp.mat33), mv: wp.array(dtype=wp.vec3), vm: wp.array(dtype=wp.vec3),
               rect: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    mm[i] = a[i] @ b[i]
    mv[i] = a[i] @ v[i]
    vm[i] = v[i] @ a[i]
    r = mat23(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    rect[i] = r @ v[i]
    m2 = a[i] * b[i]
    mm[i] = mm[i] - m2 + m2


def test_matmul_operator():
    n = 4
    rng = np.random.default_rng(3)
    a = rng.random((n, 3, 3), dtype=np.float32)
    b = rng.random((n, 3, 3), dtype=np.float32)
    v = rng.random((n, 3), dtype=np.float32)
    outs = [wp.zeros(n, dtype=wp.mat33), wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.vec3),
            wp.zeros(n, dtype=wp.vec2)]
    wp.launch(matmul_ops, dim=n, inputs=[wp.array(a, dtype=wp.mat33), wp.array(b, dtype=wp.mat33),
                                         wp.array(v, dtype=wp.vec3)] + outs)
    np.testing.assert_allclose(outs[0].numpy(), a @ b, rtol=1e-5)
    np.testing.assert_allclose(outs[1].numpy(), np.einsum("nij,nj->ni", a, v), rtol=1e-5)
    np.testing.assert_allclose(outs[2].numpy(), np.einsum("ni,nij->nj", v, a), rtol=1e-5)
    r = np.arange(1.0, 7.0).reshape(2, 3)
    np.testing.assert_allclose(outs[3].numpy(), v @ r.T, rtol=1e-5)


# --- printing ------------------------------------------------------------------------------------------
@wp.kernel
def printing(x: wp.array(dtype=float)):
    i = wp.tid()
    print("value", i, x[i])
    wp.printf("printf %d %.2f|\n", i, x[i])
    print(wp.vec3(1.0, 2.0, 3.0))
    print(wp.int64(-5), wp.uint8(200), True, wp.float64(0.25))
    print("100%")


def test_print_and_printf(capfd):
    capfd.readouterr()
    wp.launch(printing, dim=1, inputs=[wp.array([1.5], dtype=float)])
    flush_c_stdio()
    out = capfd.readouterr().out
    # the reference's formats: a vector's components each followed by a space, True/False
    assert out.splitlines() == ["value 0 1.5", "printf 0 1.50|", "1 2 3 ", "-5 200 True 0.25", "100%"]


def test_print_many_threads_whole_lines(capfd):
    n = 64
    capfd.readouterr()
    wp.launch(printing, dim=n, inputs=[wp.array(np.arange(n, dtype=np.float32))])
    flush_c_stdio()
    lines = capfd.readouterr().out.splitlines()
    assert sorted(x for x in lines if x.startswith("value")) == sorted(f"value {i} {i}" for i in range(n))
    assert lines.count("1 2 3 ") == n


# --- structs -----------------------------------------------------------------------------------------------
@wp.struct
class Inner:
    a: float
    b: wp.vec2


@wp.struct
class State:
    count: int
    scale: float
    pos: wp.vec3
    rot: wp.mat22
    data: wp.array(dtype=float)
    inner: Inner


@wp.kernel
def read_struct(s: State, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = float(s.count) + s.scale * s.data[i] + s.pos.y + s.rot[1, 0] + s.inner.a + s.inner.b[1]


@wp.kernel
def write_structs(s: State, out: wp.array(dtype=State)):
    i = wp.tid()
    t = State()
    t.count = s.count + i
    t.scale = s.scale * 2.0
    t.pos = s.pos * float(i)
    t.rot = s.rot
    t.rot[0, 0] = float(i)
    t.pos.x = -1.0
    t.inner = s.inner
    t.inner.a = float(i) * 0.5
    t.inner.b.y = 9.0
    s.data[i] = s.data[i] + 1.0
    out[i] = t


def _state():
    s = State()
    s.count = 3
    s.scale = 0.5
    s.pos = wp.vec3(1.0, 2.0, 3.0)
    s.rot = wp.mat22(1.0, 2.0, 3.0, 4.0)
    s.data = wp.array(np.arange(4, dtype=np.float32))
    inner = Inner()
    inner.a = 10.0
    inner.b = wp.vec2(20.0, 30.0)
    s.inner = inner
    return s


def test_struct_fields_in_kernels():
    s = _state()
    out = wp.zeros(4, dtype=float)
    wp.launch(read_struct, dim=4, inputs=[s, out])
    np.testing.assert_allclose(out.numpy(), 3 + 0.5 * np.arange(4) + 2.0 + 3.0 + 10.0 + 30.0)


def test_struct_written_into_array_of_structs():
    s = _state()
    out = wp.zeros(4, dtype=State)
    wp.launch(write_structs, dim=4, inputs=[s, out])
    rec = out.numpy()
    assert rec["count"].tolist() == [3, 4, 5, 6]
    assert rec["scale"].tolist() == [1.0] * 4
    np.testing.assert_array_equal(rec["pos"], [[-1.0, 2.0 * i, 3.0 * i] for i in range(4)])
    np.testing.assert_array_equal(rec["rot"], [[[i, 2.0], [3.0, 4.0]] for i in range(4)])
    assert rec["inner"]["a"].tolist() == [0.0, 0.5, 1.0, 1.5]
    np.testing.assert_array_equal(rec["inner"]["b"], [[20.0, 9.0]] * 4)
    np.testing.assert_array_equal(s.data.numpy(), np.arange(4) + 1.0)
    t = out[2]
    assert isinstance(t, State) and t.count == 5 and t.inner.a == 1.0
    assert list(t.pos) == [-1.0, 4.0, 6.0]


@wp.struct
class Mixed:
    h: wp.float16
    flag: wp.bool
    c: wp.int8
    u: wp.uint64
    vh: wp.vec3h
    md: wp.mat22d


@wp.kernel
def mixed_struct(s: Mixed, out: wp.array(dtype=Mixed), f: wp.array(dtype=wp.float64)):
    f[0] = wp.float64(s.h) + wp.float64(s.c) + wp.float64(s.u) + wp.float64(s.vh[1]) + s.md[1, 1]
    if s.flag:
        f[1] = wp.float64(1.0)
    t = s
    t.h = t.h * wp.float16(2.0)
    t.vh.z = wp.float16(-1.0)
    t.flag = not s.flag
    out[0] = t


def test_struct_with_every_kind_of_field():
    s = Mixed(h=1.5, flag=True, c=-3, u=2 ** 40, vh=wp.vec3h(1.0, 2.0, 3.0),
              md=wp.mat22d(1.0, 2.0, 3.0, 4.0))
    out, f = wp.zeros(1, dtype=Mixed), wp.zeros(2, dtype=wp.float64)
    wp.launch(mixed_struct, dim=1, inputs=[s, out, f])
    assert f.numpy().tolist() == [1.5 - 3 + 2 ** 40 + 2.0 + 4.0, 1.0]
    t = out[0]
    assert (t.h, t.flag, t.c, t.u) == (3.0, False, -3, 2 ** 40)
    assert list(t.vh) == [1.0, 2.0, -1.0] and t.md[1, 0] == 3.0
    rec = wp.array([s, t], dtype=Mixed).numpy()
    assert rec["h"].tolist() == [1.5, 3.0] and rec["md"].shape == (2, 2, 2)


def test_every_kernel_here_also_builds_its_adjoint():
    """The adjoint of each kernel above compiles (struct fields, stores of structs, matrices from
    rows, loops with state...), even where no test differentiates it."""
    from warp_interactive.runtime.module import get_module
    lm = get_module(write_structs.module.name).load(wp.get_device("cpu"), backward=True)
    assert lm.entry(write_structs.ir.name, "backward")
