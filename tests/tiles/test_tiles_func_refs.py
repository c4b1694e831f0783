"""Tiles are passed to @wp.func by reference, as in warp-lang 1.19: in-place writes into a tile
parameter reach the caller's tile; a plain rebinding of the parameter does not. The expected
values are NumPy's (and were checked against warp-lang 1.19's CPU tiles, shared storage)."""

import numpy as np
import pytest

import warp_interactive as wp

M, N = 3, 4
RNG = np.random.default_rng(5)


@wp.func
def add_inplace(t: wp.tile[float, M, N], u: wp.tile[float, M, N]):
    t += u


@wp.func
def rebind_mul(t: wp.tile[float, M, N], u: wp.tile[float, M, N]):
    t *= 2.0                 # not an in-place form (warp-lang rebinds the name)


@wp.func
def rebind_then_inplace(t: wp.tile[float, M, N], u: wp.tile[float, M, N]):
    t = t * 2.0
    t += u


@wp.func
def inplace_then_rebind(t: wp.tile[float, M, N], u: wp.tile[float, M, N]):
    t += u
    t = t * 10.0
    t += u


@wp.func
def branch(t: wp.tile[float, M, N], u: wp.tile[float, M, N], flag: int):
    if flag > 0:
        t += u
    else:
        t -= u


@wp.func
def loop(t: wp.tile[float, M, N], u: wp.tile[float, M, N], n: int):
    for _i in range(n):
        t += u


@wp.func
def element(t: wp.tile[float, M, N], u: wp.tile[float, M, N]):
    t[1, 2] = u[0, 0] * 7.0
    t[2, 3] += u[1, 1]


@wp.func
def early(t: wp.tile[float, M, N], u: wp.tile[float, M, N], flag: int):
    t += u
    if flag > 0:
        return 1.0
    t += u
    return 2.0


@wp.func
def nested(t: wp.tile[float, M, N], u: wp.tile[float, M, N]):
    add_inplace(t, u)
    add_inplace(t, u)


@wp.func
def assign_window(t: wp.tile[float, M, N], u: wp.tile[float, M, N]):
    wp.tile_assign(t, wp.tile_view(u, offset=(0, 0), shape=(2, 2)), offset=(1, 1))


@wp.func
def matmul_out(t: wp.tile[float, M, N], u: wp.tile[float, M, N]):
    w = wp.tile_transpose(u)             # (N, M)
    sq = wp.tile_zeros(shape=(M, M), dtype=float)
    wp.tile_matmul(u, w, sq)             # out-parameter form into a local
    wp.tile_matmul(sq, u, t)             # ...and into the parameter: t += sq @ u


@wp.func
def row_add(r: wp.tile[float, N], u: wp.tile[float, N]):
    r += u


def _np_cases(a, b, flag):
    """The caller's tile after each function, by NumPy."""
    sign = 1 if flag > 0 else -1
    el = a.copy()
    el[1, 2] = b[0, 0] * 7
    el[2, 3] += b[1, 1]
    win = a.copy()
    win[1:3, 1:3] = b[0:2, 0:2]
    row = a.copy()
    row[1] += b[2]
    return {
        "add_inplace": a + b, "rebind_mul": a, "rebind_then_inplace": a,
        "inplace_then_rebind": a + b, "branch": a + sign * b, "loop": a + 3 * b, "element": el,
        "early": a + b if flag > 0 else a + 2 * b, "nested": a + 2 * b, "assign_window": win,
        "matmul_out": a + (b @ b.T) @ b, "row_view": row,
    }


@wp.kernel
def calls(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), out: wp.array3d(dtype=float), flag: int,
          n: int, res: wp.array(dtype=float)):
    u = wp.tile_load(b, shape=(M, N))
    t0 = wp.tile_load(a, shape=(M, N))
    add_inplace(t0, u)
    wp.tile_store(out[0], t0)
    t1 = wp.tile_load(a, shape=(M, N))
    rebind_mul(t1, u)
    wp.tile_store(out[1], t1)
    t2 = wp.tile_load(a, shape=(M, N), storage="shared")
    rebind_then_inplace(t2, u)
    wp.tile_store(out[2], t2)
    t3 = wp.tile_load(a, shape=(M, N))
    inplace_then_rebind(t3, u)
    wp.tile_store(out[3], t3)
    t4 = wp.tile_load(a, shape=(M, N))
    branch(t4, u, flag)
    wp.tile_store(out[4], t4)
    t5 = wp.tile_load(a, shape=(M, N))
    loop(t5, u, n)
    wp.tile_store(out[5], t5)
    t6 = wp.tile_load(a, shape=(M, N))
    element(t6, u)
    wp.tile_store(out[6], t6)
    t7 = wp.tile_load(a, shape=(M, N))
    res[0] = early(t7, u, flag)
    wp.tile_store(out[7], t7)
    t8 = wp.tile_load(a, shape=(M, N))
    nested(t8, u)
    wp.tile_store(out[8], t8)
    t9 = wp.tile_load(a, shape=(M, N))
    assign_window(t9, u)
    wp.tile_store(out[9], t9)
    t10 = wp.tile_load(a, shape=(M, N))
    matmul_out(t10, u)
    wp.tile_store(out[10], t10)
    t11 = wp.tile_load(a, shape=(M, N))
    row = t11[1]                        # a view: the function's write reaches t11's row
    row_add(row, u[2])
    wp.tile_store(out[11], t11)


NAMES = list(_np_cases(np.zeros((M, N)), np.zeros((M, N)), 1))


@pytest.mark.parametrize("flag", [0, 1])
def test_tile_parameters_are_references(flag):
    a = RNG.integers(-4, 5, (M, N)).astype(np.float32)
    b = RNG.integers(-4, 5, (M, N)).astype(np.float32)
    out, res = wp.zeros((len(NAMES), M, N), dtype=float), wp.zeros(1, dtype=float)
    wp.launch_tiled(calls, dim=1, inputs=[wp.array(a), wp.array(b), out, flag, 3, res], block_dim=16)
    got = out.numpy()
    for i, (name, want) in enumerate(_np_cases(a, b, flag).items()):
        np.testing.assert_allclose(got[i], want, rtol=1e-6, err_msg=name)
    assert res.numpy()[0] == (1.0 if flag else 2.0)


@wp.func
def push_two(s: wp.tile_stack(capacity=4, dtype=int), v: int):
    wp.tile_stack_push(s, v, True)
    wp.tile_stack_push(s, v + 1, True)


@wp.kernel
def stack_in_func(out: wp.array(dtype=int)):
    s = wp.tile_stack(capacity=4, dtype=int)
    push_two(s, 10)
    out[0] = wp.tile_stack_count(s)
    v, slot = wp.tile_stack_pop(s)
    out[1] = v


def test_stack_pushed_in_a_function_reaches_the_caller():
    out = wp.zeros(2, dtype=int)
    wp.launch_tiled(stack_in_func, dim=1, inputs=[out], block_dim=1)
    np.testing.assert_array_equal(out.numpy(), [2, 11])


@wp.func
def square_into(t: wp.tile[wp.float64, 2, 3], u: wp.tile[wp.float64, 2, 3]):
    t += wp.tile_map(wp.mul, u, u)
    t[0, 1] = t[0, 1] * u[1, 2]


@wp.kernel
def grad_through_ref(x: wp.array2d(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    t = wp.tile_load(x, shape=(2, 3))
    u = wp.tile_map(wp.sin, t)
    square_into(t, u)
    wp.tile_store(loss, wp.tile_sum(wp.tile_map(wp.mul, t, t)))


def test_gradient_through_a_tile_written_by_a_function():
    x = RNG.standard_normal((2, 3))
    xa = wp.array(x, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch_tiled(grad_through_ref, dim=1, inputs=[xa, loss], block_dim=1)
    tape.backward(loss=loss)

    def f(v):
        t = v + np.sin(v) ** 2
        t[0, 1] *= np.sin(v[1, 2])
        return np.sum(t * t)
    assert loss.numpy()[0] == pytest.approx(f(x), rel=1e-12)
    eps, fd = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        p, m = x.copy(), x.copy()
        p[i] += eps
        m[i] -= eps
        fd[i] = (f(p) - f(m)) / (2 * eps)
    np.testing.assert_allclose(xa.grad.numpy(), fd, rtol=1e-6, atol=1e-8)
