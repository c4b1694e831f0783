"""Lane-blocked CPU forward bodies (codegen/lanes.py): for every kernel of the table, the module
built with lanes gives bit-identical outputs to the module built without them (scalar body only),
and the outputs match NumPy references where one is given. The table covers the shapes the lanes
transform must get right: carried vec/mat/quat state, nested and strided uniform loops, loops and
ifs that vary per thread, atomics, @wp.func calls, while loops, random states, 2-d/3-d launches
and launch sizes that are no multiple of the lane count."""

import sys

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.codegen.module_source import generate_source
from warp_interactive.lang import lower
from warp_interactive.codegen.target import CPU, CPU_LANES, CUDA

EPS2 = wp.constant(0.01)
THIS = sys.modules[__name__]


@wp.func
def soft(d: wp.vec3):
    r2 = wp.dot(d, d) + EPS2
    return d / (r2 * wp.sqrt(r2))


@wp.kernel
def nbody(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), acc: wp.array(dtype=wp.vec3),
          n: int):
    i = wp.tid()
    p = pos[i]
    a = wp.vec3(0.0, 0.0, 0.0)
    for j in range(n):
        d = pos[j] - p
        r2 = wp.dot(d, d) + EPS2
        a = a + d * (mass[j] / (r2 * wp.sqrt(r2)))
    acc[i] = a


@wp.kernel
def nbody_func(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), acc: wp.array(dtype=wp.vec3),
               n: int):
    i = wp.tid()
    a = wp.vec3()
    for j in range(n):
        a += soft(pos[j] - pos[i]) * mass[j]
    acc[i] = a


@wp.kernel
def strided_bounds(x: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = x[i]
    for j in range(2, n, 3):                 # start, stop from args and constants, step 3
        s = s * 0.5 + x[j] * float(j)
    for j in range(n // 2 + 1):              # a bound computed from an argument
        s += x[j % n] / float(j + 1)
    for j in range(n - 1, -1, -2):           # a negative step
        s -= x[j] * 0.25
    out[i] = s


@wp.kernel
def nested(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float),
           n: int, m: int):
    i = wp.tid()
    s = float(0.0)
    c = int(0)                               # uniform state carried by the loops
    for a in range(n):
        t = x[a] * float(i)
        for b in range(m):
            s += t * y[b] + float(c)
            c += 1
        s = s * 0.75
    out[i] = s


@wp.kernel
def varying(x: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for k in range(i % 7):                   # bound differs per thread: stays in a region
        s += x[k]
    for j in range(n):
        v = x[j]
        if v > x[i]:                         # varying condition inside the uniform loop
            s += v
        else:
            s -= v * 0.5
        if j == i:                           # only the thread's own index
            s *= 2.0
    c = int(0)
    while c < i % 5:                         # a varying while loop
        s += 1.0
        c += 1
    out[i] = s


@wp.kernel
def with_break(x: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for j in range(n):                       # uniform bounds, but a per-thread break
        if x[j] > x[i]:
            break
        s += x[j]
    for j in range(n):
        s += x[j] * 0.125
    out[i] = s


@wp.kernel
def atomics(x: wp.array(dtype=float), counts: wp.array(dtype=int), sums: wp.array(dtype=float),
            n: int):
    i = wp.tid()
    for j in range(n):
        if x[j] < x[i]:
            wp.atomic_add(counts, i, 1)      # integer atomics: exact in any order
        wp.atomic_add(counts, n + (j % 4), 1)
        wp.atomic_add(sums, i, x[j])         # one thread per address: a fixed order


@wp.kernel
def composite(q: wp.array(dtype=wp.quat), m: wp.array(dtype=wp.mat33), v: wp.array(dtype=wp.vec3),
              out_q: wp.array(dtype=wp.quat), out_m: wp.array(dtype=wp.mat33), out_v: wp.array(dtype=wp.vec3),
              n: int):
    i = wp.tid()
    acc_q = q[i]
    acc_m = wp.mat33(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
    acc_v = v[i]
    for j in range(n):
        acc_q = wp.normalize(acc_q * q[j])
        acc_m = acc_m * 0.5 + m[j] * m[i] * 0.25
        acc_v = wp.quat_rotate(q[j], acc_v) + acc_m * v[j] * 0.01
    out_q[i] = acc_q
    out_m[i] = acc_m
    out_v[i] = acc_v


@wp.kernel
def grid2d(x: wp.array2d(dtype=float), out: wp.array2d(dtype=float), n: int):
    i, j = wp.tid()
    s = float(0.0)
    for k in range(n):
        s += x[i, k] * x[k, j]
    out[i, j] = s


@wp.kernel
def grid3d(x: wp.array(dtype=float), out: wp.array3d(dtype=float), n: int):
    i, j, k = wp.tid()
    s = float(i * 100 + j * 10 + k)
    for a in range(n):
        s = s * 0.5 + x[a]
    out[i, j, k] = s


@wp.kernel
def random_walk(seed: int, out: wp.array(dtype=float), steps: int):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    s = float(0.0)
    for j in range(steps):
        s += wp.randf(state)                 # advances state in place, every iteration
    out[i] = s


@wp.kernel
def uniform_if(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64), n: int, flag: int):
    i = wp.tid()
    s = wp.float64(0.0)
    if flag > 0:                             # uniform condition around a uniform loop
        for j in range(n):
            s += x[j] * x[i]
    else:
        s = x[i]
    out[i] = s


@wp.kernel
def early_return(x: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    if i % 3 == 0:
        return
    s = float(0.0)
    for j in range(n):
        s += x[j]
    out[i] = s


@wp.struct
class Params:
    n: int
    scale: float


@wp.kernel
def struct_bound(x: wp.array(dtype=float), p: Params, out: wp.array(dtype=float)):
    i = wp.tid()
    loc = Params()                           # a struct local carried across regions (per lane)
    loc.scale = x[i]
    s = float(0.0)
    for j in range(p.n):                     # a bound read from a struct argument
        s += x[j] * p.scale + loc.scale
    out[i] = s


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def _nbody_ref(pos, mass):
    d = pos[None, :, :].astype(np.float64) - pos[:, None, :]
    r2 = (d * d).sum(-1) + 0.01
    return (d * (mass[None, :] / (r2 * np.sqrt(r2)))[:, :, None]).sum(1)


def _strided_ref(x, n):
    out = []
    for i in range(len(x)):
        s = np.float32(x[i])
        for j in range(2, n, 3):
            s = s * np.float32(0.5) + x[j] * np.float32(j)
        for j in range(n // 2 + 1):
            s += x[j % n] / np.float32(j + 1)
        for j in range(n - 1, -1, -2):
            s -= x[j] * np.float32(0.25)
        out.append(s)
    return np.array(out, dtype=np.float32)


def _nested_ref(dim, n, m):
    out = np.zeros(dim)
    for i in range(dim):
        s, c = 0.0, 0
        for a in range(n):
            for b in range(m):
                s += X[a] * i * Y[b] + c
                c += 1
            s *= 0.75
        out[i] = s
    return out


rng = np.random.default_rng(7)
X = rng.random(64, dtype=np.float32)
Y = rng.random(64, dtype=np.float32)
POS = rng.random((45, 3), dtype=np.float32)
MASS = rng.random(45, dtype=np.float32)
QUAT = rng.standard_normal((21, 4)).astype(np.float32)
QUAT /= np.linalg.norm(QUAT, axis=1, keepdims=True)
MAT = rng.standard_normal((21, 3, 3)).astype(np.float32)
VEC = rng.standard_normal((21, 3)).astype(np.float32)
X2 = rng.random((9, 9), dtype=np.float32)
XD = rng.random(37)


def _arr(a, dtype=float):
    return wp.array(a, dtype=dtype)


# name -> (kernel, dim, inputs() -> list, indices of the outputs, reference(outputs) or None,
#          whether the kernel gets a lanes body)
CASES = {
    "nbody": (nbody, 45, lambda: [_arr(POS, wp.vec3), _arr(MASS), wp.zeros(45, dtype=wp.vec3), 45],
              [2], lambda o: np.testing.assert_allclose(o[0], _nbody_ref(POS, MASS), rtol=2e-4), True),
    "nbody_func": (nbody_func, 45, lambda: [_arr(POS, wp.vec3), _arr(MASS), wp.zeros(45, dtype=wp.vec3), 45],
                   [2], lambda o: np.testing.assert_allclose(o[0], _nbody_ref(POS, MASS), rtol=2e-4), True),
    "strided_bounds": (strided_bounds, 61, lambda: [_arr(X[:61]), wp.zeros(61, dtype=float), 61], [1],
                       lambda o: np.testing.assert_allclose(o[0], _strided_ref(X[:61], 61), rtol=1e-5),
                       True),
    "nested": (nested, 19, lambda: [_arr(X), _arr(Y), wp.zeros(19, dtype=float), 13, 11], [2],
               lambda o: np.testing.assert_allclose(o[0], _nested_ref(19, 13, 11), rtol=1e-5), True),
    "varying": (varying, 50, lambda: [_arr(X[:50]), wp.zeros(50, dtype=float), 50], [1], None, True),
    "with_break": (with_break, 30, lambda: [_arr(X[:30]), wp.zeros(30, dtype=float), 30], [1],
                   lambda o: np.testing.assert_allclose(
                       o[0], [np.sum(X[:np.argmax(np.append(X[:30] > X[i], True))]) + X[:30].sum() / 8
                              for i in range(30)], rtol=1e-5), True),
    "atomics": (atomics, 40, lambda: [_arr(X[:40]), wp.zeros(44, dtype=int), wp.zeros(40, dtype=float), 40],
                [1, 2], lambda o: np.testing.assert_array_equal(
                    o[0], np.concatenate([(X[None, :40] < X[:40, None]).sum(1), [400] * 4])), True),
    "composite": (composite, 21, lambda: [_arr(QUAT, wp.quat), _arr(MAT, wp.mat33), _arr(VEC, wp.vec3),
                                          wp.zeros(21, dtype=wp.quat), wp.zeros(21, dtype=wp.mat33),
                                          wp.zeros(21, dtype=wp.vec3), 21], [3, 4, 5], None, True),
    "grid2d": (grid2d, (9, 9), lambda: [_arr(X2), wp.zeros((9, 9), dtype=float), 9], [1],
               lambda o: np.testing.assert_allclose(o[0], X2 @ X2, rtol=1e-5), True),
    "grid3d": (grid3d, (3, 5, 7), lambda: [_arr(X), wp.zeros((3, 5, 7), dtype=float), 17], [1], None, True),
    "random_walk": (random_walk, 27, lambda: [5, wp.zeros(27, dtype=float), 33], [1],
                    lambda o: np.testing.assert_allclose(o[0], 16.5, atol=5.0), True),
    "uniform_if": (uniform_if, 37, lambda: [_arr(XD, wp.float64), wp.zeros(37, dtype=wp.float64), 37, 1],
                   [1], lambda o: np.testing.assert_allclose(o[0], XD * XD.sum(), rtol=1e-12), True),
    "uniform_if_else": (uniform_if, 37, lambda: [_arr(XD, wp.float64), wp.zeros(37, dtype=wp.float64), 37, 0],
                        [1], lambda o: np.testing.assert_array_equal(o[0], XD), True),
    "early_return": (early_return, 20, lambda: [_arr(X[:20]), wp.zeros(20, dtype=float), 20], [1],
                     lambda o: np.testing.assert_allclose(
                         o[0], [0.0 if i % 3 == 0 else X[:20].sum() for i in range(20)], rtol=1e-5), False),
}
PARAMS = Params()
PARAMS.n = 23
PARAMS.scale = 1.5
CASES["struct_bound"] = (struct_bound, 33, lambda: [_arr(X[:33]), PARAMS, wp.zeros(33, dtype=float)], [2],
                         lambda o: np.testing.assert_allclose(o[0], X[:23].sum() * 1.5 + 23 * X[:33], rtol=1e-5),
                         True)
# launch sizes around the lane count, for the n-body kernel
SIZES = [1, CPU_LANES - 1, CPU_LANES, CPU_LANES + 1, 3 * CPU_LANES + 5]


def _run_all():
    out = {}
    for name, (kernel, dim, inputs, outs, _ref, _q) in CASES.items():
        args = inputs()
        wp.launch(kernel, dim=dim, inputs=args)
        out[name] = [args[k].numpy().copy() for k in outs]
    for n in SIZES:
        args = [_arr(POS[:n], wp.vec3), _arr(MASS[:n]), wp.zeros(n, dtype=wp.vec3), n]
        wp.launch(nbody, dim=n, inputs=args)
        out[f"nbody_{n}"] = [args[2].numpy().copy()]
    # a non-contiguous input: the entry's unit-stride test fails, the scalar body runs
    full = _arr(np.repeat(POS, 2, axis=0), wp.vec3)
    args = [full[::2], _arr(MASS), wp.zeros(45, dtype=wp.vec3), 45]
    wp.launch(nbody, dim=45, inputs=args)
    out["nbody_strided"] = [args[2].numpy().copy()]
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
    a = np.ascontiguousarray(a)
    return a.view(np.uint8)


@pytest.mark.parametrize("name", list(CASES) + [f"nbody_{n}" for n in SIZES] + ["nbody_strided"])
def test_lanes_bit_identical(results, name):
    with_lanes, scalar = results[True][name], results[False][name]
    for a, b in zip(with_lanes, scalar):
        assert np.array_equal(_bits(a), _bits(b)), f"{name}: lanes differ from the scalar body"


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c[4] is not None])
def test_lanes_reference(results, name):
    CASES[name][4](results[True][name])


def test_sizes_and_strides_reference(results):
    for n in SIZES:
        np.testing.assert_allclose(results[True][f"nbody_{n}"][0], _nbody_ref(POS[:n], MASS[:n]),
                                   rtol=2e-4, atol=1e-6)
    np.testing.assert_array_equal(results[True]["nbody_strided"][0], results[True]["nbody"][0])


@pytest.mark.parametrize("name", list(CASES))
def test_which_kernels_get_lanes(name):
    kernel, qualifies = CASES[name][0], CASES[name][5]
    src = generate_source(lower([kernel]), CPU, backward=False)
    assert (f"{kernel.ir.name}_forward_lanes(" in src) == qualifies
    # never on CUDA, in debug builds, or when turned off
    assert "_forward_lanes" not in generate_source(lower([kernel]), CUDA, backward=False)
    assert "_forward_lanes" not in generate_source(lower([kernel]), CPU, debug=True, backward=False)
    assert "_forward_lanes" not in generate_source(lower([kernel]), CPU, backward=False, lanes=False)


def test_straight_line_kernels_get_no_lanes():
    assert "_forward_lanes" not in generate_source(lower([saxpy]), CPU, backward=False)


def test_nbody_lanes_shape():
    """The n-body body splits into three lane regions with the j loop outside them, and the
    carried acceleration is stored per lane, one float array per component."""
    src = generate_source(lower([nbody]), CPU, backward=False)
    body = src[src.index(f"{nbody.ir.name}_forward_lanes("):]
    body = body[:body.index("\n}\n")]
    assert body.count(f"for (int _l = 0; _l < {CPU_LANES}; ++_l)") == 3
    assert body.index("range_continues") < body.index("wp::sqrt")
    assert f"wpi_lanes_soa<wp::vec_t<3, wp::float32>, wp::float32, 3, {CPU_LANES}>" in body


def test_fast_math_lanes_reference():
    """With fast_math the lanes body may round differently from the scalar body, but stays
    close to the float64 reference (including sizes that leave a scalar remainder)."""
    try:
        wp.set_module_options({"fast_math": True, "cpu_lanes": True}, THIS)
        for n in (3 * CPU_LANES + 5, 45):
            args = [_arr(POS[:n], wp.vec3), _arr(MASS[:n]), wp.zeros(n, dtype=wp.vec3), n]
            wp.launch(nbody, dim=n, inputs=args)
            np.testing.assert_allclose(args[2].numpy(), _nbody_ref(POS[:n], MASS[:n]), rtol=1e-3, atol=1e-5)
    finally:
        wp.set_module_options({"fast_math": False, "cpu_lanes": True}, THIS)


def test_config_switch():
    """wp.config.cpu_lanes is the default of the module option."""
    from warp_interactive.runtime.module import get_module
    module = get_module(__name__)
    saved, saved_options = wp.config.cpu_lanes, dict(module.options)
    module.options.pop("cpu_lanes", None)     # the option, when set, overrides the config
    try:
        wp.config.cpu_lanes = False
        assert "_forward_lanes(" not in module.source(None, False)
        wp.config.cpu_lanes = True
        assert f"{nbody.ir.name}_forward_lanes(" in module.source(None, False)
    finally:
        wp.config.cpu_lanes = saved
        module.options.clear()
        module.options.update(saved_options)
