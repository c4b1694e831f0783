"""Bitwise operators between integer tiles (``a & b``, ``|``, ``^`` and the in-place forms), their
per-lane forms in cooperative CPU blocks (``s[0] &= x`` in every lane combines every lane's
operation, as warp-lang's shared tiles do atomically), and ``assert`` in kernels (warp-lang's rule:
checked in debug mode only; a failed check here is raised after the launch). Against NumPy."""

import numpy as np
import pytest

import warp_interactive as wp

RNG = np.random.default_rng(42)
N = 64
A = RNG.integers(0, np.iinfo(np.uint32).max, size=N, dtype=np.uint32)
B = RNG.integers(0, np.iinfo(np.uint32).max, size=N, dtype=np.uint32)
OPS = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


@wp.kernel
def tilewise(a: wp.array(dtype=wp.uint32), b: wp.array(dtype=wp.uint32), c: wp.array2d(dtype=wp.uint32)):
    i = wp.tid()
    s1 = wp.tile_load(a, shape=16, offset=i * 16)
    s2 = wp.tile_load(b, shape=16, offset=i * 16)
    wp.tile_store(c[0], s1 & s2, offset=i * 16)
    wp.tile_store(c[1], s1 | s2, offset=i * 16)
    wp.tile_store(c[2], s1 ^ s2, offset=i * 16)
    s3 = s1
    s3 &= s2
    wp.tile_store(c[3], s3, offset=i * 16)
    s4 = s1
    s4 |= s2
    wp.tile_store(c[4], s4, offset=i * 16)
    s5 = s1
    s5 ^= s2
    wp.tile_store(c[5], s5, offset=i * 16)


def test_bitwise_operators_between_tiles():
    c = wp.zeros((6, N), dtype=wp.uint32)
    wp.launch_tiled(tilewise, dim=N // 16, inputs=[wp.array(A), wp.array(B), c], block_dim=8, device="cpu")
    want = [A & B, A | B, A ^ B] * 2
    np.testing.assert_array_equal(c.numpy(), np.array(want))


@wp.kernel
def vec_tiles(a: wp.array(dtype=wp.vec3ui), b: wp.array(dtype=wp.vec3ui), c: wp.array(dtype=wp.vec3ui)):
    s1 = wp.tile_load(a, shape=4)
    s2 = wp.tile_load(b, shape=4)
    wp.tile_store(c, (s1 ^ s2) | s1)


def test_bitwise_operators_on_vector_tiles():
    a, b = A[:12].reshape(4, 3), B[:12].reshape(4, 3)
    c = wp.zeros(4, dtype=wp.vec3ui)
    wp.launch_tiled(vec_tiles, dim=1, inputs=[wp.array(a, dtype=wp.vec3ui), wp.array(b, dtype=wp.vec3ui), c],
                    block_dim=1, device="cpu")
    np.testing.assert_array_equal(c.numpy(), (a ^ b) | a)


@wp.kernel(module="unique")      # its own module: a build error must not stop the others
def float_bits(a: wp.array(dtype=float), c: wp.array(dtype=float)):
    t = wp.tile_load(a, shape=4)
    wp.tile_store(c, t & t)


def test_bitwise_operator_on_float_tiles_is_a_build_error():
    with pytest.raises(wp.WarpCodegenError, match="integer dtype"):
        wp.launch_tiled(float_bits, dim=1, inputs=[wp.zeros(4), wp.zeros(4)], block_dim=1, device="cpu")


@wp.kernel
def lane_bits(a: wp.array(dtype=wp.uint32), b: wp.array(dtype=wp.uint32), c: wp.array(dtype=wp.uint32),
              op: int):
    word, bit = wp.tid()
    s = wp.tile_zeros(shape=1, dtype=wp.uint32)
    s[0] = a[word]
    mask = wp.uint32(1) << wp.uint32(bit)
    if op == 0:
        s[0] &= (b[word] & mask) | ~mask      # each lane clears its bit where b has none
    elif op == 1:
        s[0] |= b[word] & mask
    else:
        s[0] ^= b[word] & mask
    c[word] = s[0]


@pytest.fixture
def cpu_blocks():
    old = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = True
    yield
    wp.config.enable_cpu_blocks = old


@pytest.mark.parametrize("op", [0, 1, 2])
def test_per_lane_bitwise_writes_combine_every_lane(cpu_blocks, op):
    c = wp.zeros(N, dtype=wp.uint32)
    wp.launch_tiled(lane_bits, dim=N, inputs=[wp.array(A), wp.array(B), c, op], block_dim=32, device="cpu")
    low = np.uint32(0xFFFFFFFF)        # 32 lanes: every bit has its lane
    want = [A & B, A | B, A ^ B][op] & low
    np.testing.assert_array_equal(c.numpy(), want)


def _checked(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    assert n == 3
    assert a[i] >= 0.0, "negative input"
    a[i] = a[i] * 2.0


def _in_mode(mode):
    name = f"tiles_bitwise_assert_{mode}"
    wp.set_module_options({"mode": mode}, module=name)
    return wp.Kernel(_checked, module=name)


def test_assert_is_checked_in_debug_mode_only():
    x = np.array([1.0, -1.0, 2.0], dtype=np.float32)
    a = wp.array(x)
    wp.launch(_in_mode("release"), dim=3, inputs=[a, 3], device="cpu")       # compiled out
    np.testing.assert_array_equal(a.numpy(), x * 2.0)
    debug = _in_mode("debug")
    a = wp.array(x)
    with pytest.raises(wp.LaunchError, match=r"assertion failed in kernel '_checked'.*negative input"):
        wp.launch(debug, dim=3, inputs=[a, 3], device="cpu")
    np.testing.assert_array_equal(a.numpy(), [2.0, -1.0, 4.0])      # the failing thread stopped there
    a = wp.array(np.abs(x))
    wp.launch(debug, dim=3, inputs=[a, 3], device="cpu")
    np.testing.assert_array_equal(a.numpy(), np.abs(x) * 2.0)
