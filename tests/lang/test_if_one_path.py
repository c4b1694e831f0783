"""A name first assigned on one path of an ``if`` only, read after it (an ``if``/``elif`` chain
without ``else``), as warp-lang 1.19 means it (lang/translation/one_path.py): the value of the path that ran;
when none ran, the literal constant of the chain's last branch (warp-lang's constants are declared
up front), else zero (warp-lang's value for vectors and tiles; its computed scalars are undefined
there). The expected tables were measured with warp-lang 1.19 on this machine's CPU (its scalar
rows where no branch ran are undefined: zero here). Forward and adjoint (finite differences), in
kernels, functions, loops and tiled kernels (one-lane and cooperative CPU blocks)."""

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.codegen.module_source import generate_source
from warp_interactive.lang import lower
from warp_interactive.codegen.target import CUDA

F64 = wp.float64


@wp.kernel
def chain(x: wp.array(dtype=int), y: wp.array(dtype=F64), out: wp.array2d(dtype=F64),
          vecs: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    a = x[i]
    b = y[i]
    if a == 0:
        s = b * F64(2.0)                   # computed scalar
        c = F64(7.0)                       # a constant
        n = a + 1                          # computed int
        v = wp.vec3d(b, F64(1.0), F64(2.0))
    elif a == 1:
        s = b * b * F64(3.0)
        c = F64(8.0)
        n = a + 10
        v = wp.vec3d(F64(4.0), b, F64(6.0))
    out[i, 0] = s
    out[i, 1] = c
    out[i, 2] = F64(n)
    vecs[i] = v * b


X = [0, 1, 2, 3]
Y = [1.0, 2.0, 3.0, 4.0]
# warp-lang 1.19 measured: s, c, n (rows 2 and 3: no branch ran; its s and n were undefined there)
WANT = [[2.0, 7.0, 1.0], [12.0, 8.0, 11.0], [0.0, 8.0, 0.0], [0.0, 8.0, 0.0]]
WANT_VECS = [[1.0, 1.0, 2.0], [8.0, 4.0, 12.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]


def _run_chain(y_np, requires_grad=False):
    x = wp.array(np.array(X, dtype=np.int32), dtype=int)
    y = wp.array(y_np, dtype=F64, requires_grad=requires_grad)
    out = wp.zeros((4, 3), dtype=F64, requires_grad=requires_grad)
    vecs = wp.zeros(4, dtype=wp.vec3d, requires_grad=requires_grad)
    wp.launch(chain, dim=4, inputs=[x, y, out, vecs], device="cpu")
    return y, out, vecs


def test_chain_values_as_warp_lang():
    _, out, vecs = _run_chain(np.array(Y))
    np.testing.assert_array_equal(out.numpy(), WANT)
    np.testing.assert_array_equal(vecs.numpy(), WANT_VECS)


def _chain_reference(y, w_out, w_vecs):
    """sum(w * outputs) of the chain, in NumPy."""
    s = np.array([2 * y[0], 3 * y[1] ** 2, 0.0, 0.0])
    vecs = np.array([[y[0], 1, 2], [4, y[1], 6], [0, 0, 0], [0, 0, 0]]) * y[:, None]
    return (w_out[:, 0] * s).sum() + (w_vecs * vecs).sum()


def test_chain_adjoint():
    rng = np.random.default_rng(0)
    y_np, w_out, w_vecs = np.array(Y), rng.uniform(-1, 1, (4, 3)), rng.uniform(-1, 1, (4, 3))
    tape = wp.Tape()
    with tape:
        y, out, vecs = _run_chain(y_np, requires_grad=True)
    tape.backward(grads={out: wp.array(w_out, dtype=F64), vecs: wp.array(w_vecs, dtype=wp.vec3d)})
    eps, fd = 1e-6, np.zeros(4)
    for j in range(4):
        hi, lo = y_np.copy(), y_np.copy()
        hi[j] += eps
        lo[j] -= eps
        fd[j] = (_chain_reference(hi, w_out, w_vecs) - _chain_reference(lo, w_out, w_vecs)) / (2 * eps)
    np.testing.assert_allclose(y.grad.numpy(), fd, rtol=1e-7, atol=1e-9)


@wp.func
def pick(a: int, b: F64):
    if a == 0:
        r = b
    elif a == 1:
        r = -b
    return r


@wp.kernel
def in_loop(x: wp.array(dtype=int), y: wp.array(dtype=F64), out: wp.array2d(dtype=F64)):
    i = wp.tid()
    for j in range(3):                       # (unrolled: each iteration translated in turn)
        a = x[i] + j
        if a == 2:
            s = y[i] * F64(2.0)
        out[i, j] = s + pick(a, y[i])


def test_in_a_loop_and_a_function():
    """In an unrolled loop the name keeps the value of the last iteration that assigned it (as in
    Python and warp-lang, whose measured rows are these; its last row's was undefined)."""
    x = wp.array(np.array(X, dtype=np.int32), dtype=int)
    y = wp.array(np.array(Y), dtype=F64)
    out = wp.zeros((4, 3), dtype=F64)
    wp.launch(in_loop, dim=4, inputs=[x, y, out], device="cpu")
    picked = np.array([[1.0, -1.0, 0.0], [-2.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    carried = np.array([[0.0, 0.0, 2.0], [0.0, 4.0, 4.0], [6.0, 6.0, 6.0], [0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(out.numpy(), carried + picked)


@wp.kernel
def tile_chain(op: int, a: wp.array(dtype=int), b: wp.array(dtype=int), c: wp.array(dtype=int)):
    i, _ = wp.tid()
    s1 = wp.tile_load(a, shape=8)
    s2 = wp.tile_load(b, shape=8)
    if op == 0:
        s3 = s1 & s2
    elif op == 1:
        s3 = s1 | s2
    elif op == 2:
        s3 = s1 ^ s2
    wp.tile_store(c, s3)


@pytest.mark.parametrize("blocks", [False, True], ids=["one_lane", "blocks"])
@pytest.mark.parametrize("op", [0, 1, 2, 3])
def test_tile_chain(op, blocks):
    """tile/test_tile_atomic_bitwise's pattern; no branch ran: a zero tile (warp-lang measured)."""
    old, wp.config.enable_cpu_blocks = wp.config.enable_cpu_blocks, blocks
    try:
        rng = np.random.default_rng(op)
        an, bn = rng.integers(0, 1 << 20, 8).astype(np.int32), rng.integers(0, 1 << 20, 8).astype(np.int32)
        c = wp.zeros(8, dtype=int)
        wp.launch_tiled(tile_chain, dim=1, inputs=[op, wp.array(an), wp.array(bn), c], block_dim=4, device="cpu")
    finally:
        wp.config.enable_cpu_blocks = old
    want = [an & bn, an | bn, an ^ bn, np.zeros(8, dtype=np.int32)][op]
    np.testing.assert_array_equal(c.numpy(), want)


@wp.kernel
def tile_grad(op: int, a: wp.array(dtype=F64), c: wp.array(dtype=F64)):
    i, _ = wp.tid()
    t = wp.tile_load(a, shape=4)
    if op == 0:
        u = t * t
    elif op == 1:
        u = t * F64(3.0)
    wp.tile_store(c, u + t)


@pytest.mark.parametrize("op", [0, 1, 2])
def test_tile_chain_adjoint(op):
    an = np.array([0.5, -1.0, 2.0, 3.0])
    a = wp.array(an, dtype=F64, requires_grad=True)
    c = wp.zeros(4, dtype=F64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(tile_grad, dim=1, inputs=[op, a, c], block_dim=1, device="cpu")
    tape.backward(grads={c: wp.array(np.ones(4), dtype=F64)})
    np.testing.assert_allclose(c.numpy(), [an * an + an, 4 * an, an][op])
    np.testing.assert_allclose(a.grad.numpy(), [2 * an + 1, np.full(4, 4.0), np.ones(4)][op])


BAD = {
    "dynamic_loop": ("""
@wp.kernel
def k(n: int, o: wp.array(dtype=float)):
    for j in range(n):
        if j == 2:
            s = 1.5 * float(j)
        o[j] = s
""", "variable 's' is assigned only on one path through the if at line 6 inside a loop, where it "
     "would keep an earlier iteration's value; assign it before the loop"),
    "array": ("""
@wp.kernel
def k(n: int, a: wp.array(dtype=float), o: wp.array(dtype=float)):
    if n > 5:
        arr = a
    o[0] = arr[0]
""", "variable 'arr' is assigned only on one path through the if at line 5, and a value of type "
     "array(dtype=float32, ndim=1) has no value for the other path"),
    "view": ("""
@wp.kernel
def k(n: int, a: wp.array2d(dtype=float), o: wp.array(dtype=float)):
    t = wp.tile_load(a, shape=(2, 4))
    if n > 5:
        row = t[0]
    wp.tile_store(o, row)
""", "variable 'row' is a view of a tile on one path only through the if at line 6"),
}


@pytest.mark.parametrize("name", BAD)
def test_values_without_a_zero_stay_errors(name, tmp_path):
    import importlib.util
    source, message = BAD[name]
    path = tmp_path / f"one_path_{name}.py"
    path.write_text("import warp_interactive as wp\n" + source)
    spec = importlib.util.spec_from_file_location(f"one_path_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(wp.WarpCodegenError) as info:
        module.k.ir
    assert message in str(info.value)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("kernel", [chain, in_loop, tile_grad], ids=lambda k: k.key)
def test_cuda_text(kernel):
    """The joins are plain selects of zero-initialised values in the CUDA build too."""
    src = generate_source(lower([kernel]), CUDA)
    assert "? " in src and "{};" in src
