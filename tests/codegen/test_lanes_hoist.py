"""Loop-invariant reads and local accumulators in lane-blocked forward bodies
(codegen/lanes_hoist.py): for every kernel of the table the module built with lanes (hoisted
reads, own-index elements kept in locals across the loop) gives bit-identical outputs to the
module built without lanes (the scalar body, which reads and writes memory where the source
does), and the outputs match NumPy. Aliased arguments, loops that write memory, empty loops whose
hoisted read would be out of bounds, and @wp.funcs that store are in the table; the generated
source shows what moved and what stayed."""

import sys

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.codegen.module_source import generate_source
from warp_interactive.lang import lower
from warp_interactive.codegen.target import CPU, CPU_LANES

THIS = sys.modules[__name__]
EPS = wp.constant(0.01)


@wp.kernel
def own_inside(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), acc: wp.array(dtype=wp.vec3),
               n: int):
    i = wp.tid()
    a = wp.vec3(0.0, 0.0, 0.0)
    for j in range(n):
        d = pos[j] - pos[i]                  # the thread's own element, read every iteration
        r2 = wp.dot(d, d) + EPS
        inv = 1.0 / wp.sqrt(r2)
        a = a + d * (mass[j] * inv * inv * inv)
    acc[i] = a


@wp.kernel
def array_acc(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), acc: wp.array(dtype=wp.vec3),
              n: int):
    i = wp.tid()
    for j in range(n):                       # acc[i] starts from what the array holds
        d = pos[j] - pos[i]
        r2 = wp.dot(d, d) + EPS
        acc[i] = acc[i] + d * (mass[j] / (r2 * wp.sqrt(r2)))


@wp.kernel
def add_sub_if(x: wp.array(dtype=float), out: wp.array(dtype=float), old: wp.array(dtype=float), n: int):
    i = wp.tid()
    for j in range(n):
        if x[j] < x[i]:                      # a varying condition around the updates
            out[i] += x[j] * 2.0
        else:
            out[i] -= x[j]
        prev = wp.atomic_add(out, i, 0.25)   # the atomic's old value is used
        old[i] = prev                        # a second accumulator, stored only
    out[i] = out[i] * 0.5                    # after the loop: reads the stored-back value


@wp.kernel
def counts(x: wp.array(dtype=float), c: wp.array(dtype=wp.int32), n: int):
    i = wp.tid()
    for j in range(n):
        if x[j] > x[i]:
            wp.atomic_add(c, i, 3)
        wp.atomic_sub(c, i, 1)


@wp.kernel
def mat_acc(m: wp.array(dtype=wp.mat33), out: wp.array(dtype=wp.mat33), n: int):
    i = wp.tid()
    for j in range(n):
        out[i] += m[j] * m[i] * 0.125


@wp.kernel
def matmul2d(x: wp.array2d(dtype=wp.float64), out: wp.array2d(dtype=wp.float64), n: int):
    i, j = wp.tid()
    for k in range(n):
        out[i, j] += x[i, k] * x[k, j]


@wp.kernel
def nested_acc(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float),
               n: int, m: int):
    i = wp.tid()
    for a in range(n):
        t = x[a] * x[i]                      # own read hoisted out of the outer loop
        for b in range(m):
            out[i] += t * y[b] + y[i]        # y[i] hoisted out of the inner loop
        out[i] = out[i] * 0.75


@wp.kernel
def alias_grow(x: wp.array(dtype=float), acc: wp.array(dtype=float), n: int):
    i = wp.tid()
    for j in range(n):
        acc[i] = acc[i] * 0.5 + x[i]         # launched with x and acc the same array


@wp.kernel
def empty_loop(x: wp.array(dtype=float), out: wp.array(dtype=float), n: int, far: int):
    i = wp.tid()
    s = float(1.0)
    for j in range(n):                       # n = 0: x[i + far] (out of bounds) is never read
        s += x[i + far]
    out[i] = s


@wp.kernel
def stores_in_loop(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for j in range(n):
        y[i + 1] = float(j)                  # a store at another thread's element: nothing moves
        s += x[i] * float(j)
    out[i] = s


@wp.func
def put(a: wp.array(dtype=float), k: int, v: float):
    a[k] = v


@wp.kernel
def func_store(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for j in range(n):
        put(y, i, float(j))                  # a @wp.func stores: the read of x[i] stays
        s += x[i] + y[i]
    out[i] = s


def _nbody_ref(pos, mass, eps=0.01):
    d = pos[None, :, :].astype(np.float64) - pos[:, None, :]
    r2 = (d * d).sum(-1) + eps
    return (d * (mass[None, :] / (r2 * np.sqrt(r2)))[:, :, None]).sum(1)


def _add_sub_ref(x, out0, n):
    out, old = out0.astype(np.float64).copy(), np.zeros(len(x))
    for i in range(len(x)):
        for j in range(n):
            out[i] += 2.0 * x[j] if x[j] < x[i] else -x[j]
            old[i] = out[i]
            out[i] += 0.25
        out[i] *= 0.5
    return out, old


def _nested_ref(x, y, out0, n, m):
    out = out0.astype(np.float64).copy()
    for i in range(len(out)):
        for a in range(n):
            t = x[a] * x[i]
            for b in range(m):
                out[i] += t * y[b] + y[i]
            out[i] *= 0.75
    return out


rng = np.random.default_rng(11)
POS = rng.random((45, 3), dtype=np.float32)
MASS = rng.random(45, dtype=np.float32)
ACC0 = rng.random((45, 3), dtype=np.float32)
X = rng.random(64, dtype=np.float32)
Y = rng.random(64, dtype=np.float32)
M = rng.standard_normal((21, 3, 3)).astype(np.float32)
X2 = rng.random((9, 9))


def _arr(a, dtype=float):
    return wp.array(a, dtype=dtype)


def _alias_inputs():
    a = _arr(X[:29])
    return [a, a, 5]


# name -> (kernel, dim, inputs() -> list, indices of the outputs, reference(outputs) or None)
CASES = {
    "own_inside": (own_inside, 45, lambda: [_arr(POS, wp.vec3), _arr(MASS), wp.zeros(45, dtype=wp.vec3), 45],
                   [2], lambda o: np.testing.assert_allclose(o[0], _nbody_ref(POS, MASS), rtol=2e-4)),
    "array_acc": (array_acc, 45, lambda: [_arr(POS, wp.vec3), _arr(MASS), _arr(ACC0, wp.vec3), 45], [2],
                  lambda o: np.testing.assert_allclose(o[0], ACC0 + _nbody_ref(POS, MASS), rtol=2e-4)),
    "add_sub_if": (add_sub_if, 37, lambda: [_arr(X[:37]), _arr(Y[:37]), wp.zeros(37, dtype=float), 37], [1, 2],
                   lambda o: [np.testing.assert_allclose(a, b, rtol=1e-5)
                              for a, b in zip(o, _add_sub_ref(X[:37], Y[:37], 37))]),
    "counts": (counts, 30, lambda: [_arr(X[:30]), wp.zeros(30, dtype=wp.int32), 30], [1],
               lambda o: np.testing.assert_array_equal(o[0], 3 * (X[None, :30] > X[:30, None]).sum(1) - 30)),
    "mat_acc": (mat_acc, 21, lambda: [_arr(M, wp.mat33), wp.zeros(21, dtype=wp.mat33), 21], [1],
                lambda o: np.testing.assert_allclose(o[0], np.einsum("jab,ibc->iac", M, M) * 0.125,
                                                     rtol=1e-4, atol=1e-5)),
    "matmul2d": (matmul2d, (9, 9), lambda: [_arr(X2, wp.float64), wp.zeros((9, 9), dtype=wp.float64), 9], [1],
                 lambda o: np.testing.assert_allclose(o[0], X2 @ X2, rtol=1e-12)),
    "nested_acc": (nested_acc, 19, lambda: [_arr(X), _arr(Y), _arr(Y[:19]), 13, 11], [2],
                   lambda o: np.testing.assert_allclose(o[0], _nested_ref(X, Y, Y[:19], 13, 11), rtol=1e-5)),
    # x and acc one array: the entry sees them overlap and runs the scalar body (x[i] re-read)
    "alias_grow": (alias_grow, 29, _alias_inputs, [1],
                   lambda o: np.testing.assert_allclose(o[0], X[:29] * 1.5 ** 5, rtol=1e-5)),
    "alias_apart": (alias_grow, 29, lambda: [_arr(X[:29]), _arr(Y[:29]), 5], [1],
                    lambda o: np.testing.assert_allclose(
                        o[0], Y[:29] * 0.5 ** 5 + X[:29] * sum(0.5 ** k for k in range(5)), rtol=1e-5)),
    "empty_loop": (empty_loop, 21, lambda: [_arr(X[:21]), wp.zeros(21, dtype=float), 0, 1 << 28], [1],
                   lambda o: np.testing.assert_array_equal(o[0], 1.0)),
    "stores_in_loop": (stores_in_loop, 20, lambda: [_arr(X[:20]), wp.zeros(21, dtype=float),
                                                    wp.zeros(20, dtype=float), 6], [2],
                       lambda o: np.testing.assert_allclose(o[0], X[:20] * 15.0, rtol=1e-6)),
    "func_store": (func_store, 20, lambda: [_arr(X[:20]), wp.zeros(20, dtype=float), wp.zeros(20, dtype=float), 6],
                   [2], lambda o: np.testing.assert_allclose(o[0], X[:20] * 6 + 15.0, rtol=1e-6)),
}
SIZES = [1, CPU_LANES - 1, CPU_LANES, CPU_LANES + 1, 3 * CPU_LANES + 5]


def _run_all():
    out = {}
    for name, (kernel, dim, inputs, outs, _ref) in CASES.items():
        args = inputs()
        wp.launch(kernel, dim=dim, inputs=args)
        out[name] = [args[k].numpy().copy() for k in outs]
    for n in SIZES:
        args = [_arr(POS[:n], wp.vec3), _arr(MASS[:n]), _arr(ACC0[:n], wp.vec3), n]
        wp.launch(array_acc, dim=n, inputs=args)
        out[f"array_acc_{n}"] = [args[2].numpy().copy()]
    return out


@pytest.fixture(scope="module")
def results():
    """Every case run with lanes, then with the scalar body only (two builds of this module)."""
    res = {}
    try:
        for lanes in (True, False):
            wp.set_module_options({"cpu_lanes": lanes}, THIS)
            res[lanes] = _run_all()
    finally:
        wp.set_module_options({"cpu_lanes": True}, THIS)
    return res


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


@pytest.mark.parametrize("name", list(CASES) + [f"array_acc_{n}" for n in SIZES])
def test_bit_identical_to_scalar_body(results, name):
    for a, b in zip(results[True][name], results[False][name]):
        assert np.array_equal(_bits(a), _bits(b)), f"{name}: lanes differ from the scalar body"


@pytest.mark.parametrize("name", list(CASES))
def test_reference(results, name):
    CASES[name][4](results[True][name])


def test_sizes_reference(results):
    for n in SIZES:
        np.testing.assert_allclose(results[True][f"array_acc_{n}"][0], ACC0[:n] + _nbody_ref(POS[:n], MASS[:n]),
                                   rtol=2e-4, atol=1e-6)


def _lanes_source(kernel):
    src = generate_source(lower([kernel]), CPU, backward=False)
    body = src[src.index(f"{kernel.ir.name}_forward_lanes("):]
    return src, body[:body.index("\n}\n")]


def _loop_start(body):
    return body.index("for (var_")


# kernel -> (own-index reads moved in front of their loop, array parameters kept in locals)
SHAPES = {
    own_inside: (["wp::load(var_pos, var_0)"], []),
    array_acc: (["wp::load(var_pos, var_0)"], ["acc"]),
    add_sub_if: (["wp::load(var_x, var_0)"], ["out", "old"]),
    counts: (["wp::load(var_x, var_0)"], ["c"]),
    mat_acc: (["wp::load(var_m, var_0)"], ["out"]),
    alias_grow: (["wp::load(var_x, var_0)"], ["acc"]),
    stores_in_loop: ([], []),
    func_store: ([], []),
}


@pytest.mark.parametrize("kernel", list(SHAPES), ids=lambda k: k.key)
def test_what_moves(kernel):
    moved, accumulated = SHAPES[kernel]
    src, body = _lanes_source(kernel)
    loop = _loop_start(body)
    for call in moved:
        assert call in body and body.index(call) < loop, f"{call} not before the loop"
    if not moved:
        assert "_runs0" not in body or accumulated, "nothing should move"
    for name in accumulated:
        assert f"wp::load(var_{name}, var_0);" in body[:loop]       # read once before the loop
        assert f"wp::array_store(var_{name}, var_0, " in body[body.rindex("if (_runs0)"):]
        assert f"(var_{name}, var_0" not in body[loop:body.rindex("if (_runs0)")]
        others = [p.name for p in kernel.ir.params if p.name != name and hasattr(p.type, "dtype")]
        for other in others:
            assert f"wp::data_disjoint(a.u_{name}, a.u_{other})" in src
    if not accumulated:
        assert "data_disjoint" not in src


def test_stores_keep_reads_in_the_loop():
    """A loop that stores (directly or through a @wp.func) re-reads x[i] every iteration."""
    for kernel in (stores_in_loop, func_store):
        _, body = _lanes_source(kernel)
        assert body.index("wp::load(var_x, var_0)") > _loop_start(body)
