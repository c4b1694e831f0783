"""Partial cooperative CPU blocks (``wp.config.enable_cpu_blocks``, a ``wp.launch(..., block_dim=B)``
whose size is not a multiple of ``B``): warp-lang's CPU tiles give lane ``l`` the elements whose
row-major index ``k`` has ``k % B == l``, so the missing lanes' elements are left out of
reductions and scans, and an axis slice with none of its elements gets the operator's identity
(a custom operator has none: a run-time error). Checked against NumPy on the present elements."""

import numpy as np
import pytest

import warp_interactive as wp


@pytest.fixture(autouse=True)
def cpu_blocks():
    old = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = True
    yield
    wp.config.enable_cpu_blocks = old


def present(shape, block_dim, active):
    """The elements a partial block of ``active`` lanes (of ``block_dim``) holds."""
    return (np.arange(int(np.prod(shape))).reshape(shape) % block_dim) < active


SCAN_N = 48


@wp.kernel
def scans(x: wp.array(dtype=float), inc: wp.array(dtype=float), exc: wp.array(dtype=float),
          hi: wp.array(dtype=float), lo: wp.array(dtype=float)):
    t = wp.tile_load(x, shape=SCAN_N)
    wp.tile_store(inc, wp.tile_scan_inclusive(t))
    wp.tile_store(exc, wp.tile_scan_exclusive(t))
    wp.tile_store(hi, wp.tile_scan_max_inclusive(t))
    wp.tile_store(lo, wp.tile_scan_min_inclusive(t))


@pytest.mark.parametrize("block_dim,active", [(8, 3), (16, 15), (7, 1), (32, 20), (8, 8)])
def test_scans_leave_out_missing_lanes(block_dim, active):
    x_np = np.random.default_rng(block_dim * 100 + active).uniform(-2.0, 2.0, SCAN_N).astype(np.float32)
    x = wp.array(x_np)
    outs = [wp.zeros(SCAN_N, dtype=float) for _ in range(4)]
    wp.launch(scans, dim=active, inputs=[x] + outs, block_dim=block_dim, device="cpu")
    keep = present((SCAN_N,), block_dim, active)
    xs = x_np[keep]
    inc, exc, hi, lo = (o.numpy()[keep] for o in outs)
    np.testing.assert_allclose(inc, np.cumsum(xs), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(exc, np.concatenate([[0.0], np.cumsum(xs)[:-1]]), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(hi, np.maximum.accumulate(xs))
    np.testing.assert_array_equal(lo, np.minimum.accumulate(xs))


@wp.func
def product(a: float, b: float):
    return a * b


ROWS, COLS = 12, 8


@wp.kernel
def axis_reductions(x: wp.array2d(dtype=float), s0: wp.array(dtype=float), p0: wp.array(dtype=float),
                    mn1: wp.array(dtype=float), mx1: wp.array(dtype=float), s1: wp.array(dtype=float), total: wp.array(dtype=float), extremes: wp.array(dtype=float),
                    where: wp.array(dtype=int)):
    t = wp.tile_load(x, shape=(ROWS, COLS))
    wp.tile_store(s0, wp.tile_sum(t, axis=0))
    wp.tile_store(p0, wp.tile_reduce(wp.mul, t, axis=0))
    wp.tile_store(mn1, wp.tile_reduce(wp.min, t, axis=1))
    wp.tile_store(mx1, wp.tile_reduce(wp.max, t, axis=1))
    wp.tile_store(s1, wp.tile_sum(t, axis=1))
    i = wp.tid()
    if i == 0:
        total[0] = wp.tile_sum(t)[0]
        total[1] = wp.tile_reduce(wp.add, t)[0]
        extremes[0] = wp.tile_max(t)[0]
        extremes[1] = wp.tile_min(t)[0]
        where[0] = wp.tile_argmax(t)[0]
        where[1] = wp.tile_argmin(t)[0]
    else:      # every lane reaches the same block-wide operations
        wp.tile_sum(t)
        wp.tile_reduce(wp.add, t)
        wp.tile_max(t)
        wp.tile_min(t)
        wp.tile_argmax(t)
        wp.tile_argmin(t)


def run_axis_reductions(x_np, block_dim, active):
    x = wp.array(x_np)
    outs = [wp.zeros(n, dtype=float) for n in (COLS, COLS, ROWS, ROWS, ROWS, 2, 2)]
    where = wp.zeros(2, dtype=int)
    wp.launch(axis_reductions, dim=active, inputs=[x] + outs + [where], block_dim=block_dim, device="cpu")
    return [o.numpy() for o in outs] + [where.numpy()]


# (block_dim, active): 16 | 8 columns -> some rows have no present element (empty axis-1 slices)
@pytest.mark.parametrize("block_dim,active", [(16, 5), (32, 9), (24, 24), (5, 2)])
def test_axis_and_full_reductions_leave_out_missing_lanes(block_dim, active):
    rng = np.random.default_rng(block_dim + active)
    x_np = (1.0 + rng.uniform(-0.05, 0.05, (ROWS, COLS))).astype(np.float32)
    s0, p0, mn1, mx1, s1, total, extremes, where = run_axis_reductions(x_np, block_dim, active)
    keep = present((ROWS, COLS), block_dim, active)
    masked = np.ma.masked_array(x_np, ~keep)
    np.testing.assert_allclose(s0, masked.sum(axis=0).filled(0.0), rtol=1e-5)
    np.testing.assert_allclose(p0, masked.prod(axis=0).filled(1.0), rtol=1e-5)
    np.testing.assert_array_equal(mn1, masked.min(axis=1).filled(np.inf))      # empty rows: +inf
    np.testing.assert_array_equal(mx1, masked.max(axis=1).filled(-np.inf))
    np.testing.assert_allclose(s1, masked.sum(axis=1).filled(0.0), rtol=1e-5)
    np.testing.assert_allclose(total, [x_np[keep].sum()] * 2, rtol=1e-5)
    np.testing.assert_array_equal(extremes, [x_np[keep].max(), x_np[keep].min()])
    flat = np.where(keep.ravel(), x_np.ravel(), np.nan)
    np.testing.assert_array_equal(where, [np.nanargmax(flat), np.nanargmin(flat)])


@wp.kernel
def custom_rows(x: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    wp.tile_store(out, wp.tile_reduce(product, wp.tile_load(x, shape=(ROWS, COLS)), axis=1))


def test_empty_slice_of_a_custom_reduction_is_an_error():
    x, out = wp.ones((ROWS, COLS), dtype=float), wp.zeros(ROWS, dtype=float)
    # block_dim 16, 5 lanes: rows 0, 2, 4... hold lanes 0..7 and 8..15: odd rows have no element
    with pytest.raises(wp.LaunchError, match="no declared identity"):
        wp.launch(custom_rows, dim=5, inputs=[x, out], block_dim=16, device="cpu")
    x_np = np.arange(1, ROWS * COLS + 1, dtype=np.float32).reshape(ROWS, COLS) ** 0.1
    x = wp.array(x_np)
    for block_dim, active in ((16, 16), (5, 2), (3, 1)):   # every row keeps an element: no error
        wp.launch(custom_rows, dim=active, inputs=[x, out], block_dim=block_dim, device="cpu")
        masked = np.ma.masked_array(x_np, ~present((ROWS, COLS), block_dim, active))
        np.testing.assert_allclose(out.numpy(), masked.prod(axis=1), rtol=1e-5)


@wp.kernel
def sum_axis0(x: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    wp.tile_store(out, wp.tile_sum(wp.tile_load(x, shape=(ROWS, COLS)), axis=0))


@wp.kernel
def scan_loss(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    wp.tile_store(out, wp.tile_scan_inclusive(wp.tile_load(x, shape=SCAN_N)))


@pytest.mark.parametrize("block_dim,active", [(16, 5), (32, 32)])
def test_gradients_skip_missing_lanes(block_dim, active):
    x = wp.array(np.ones((ROWS, COLS), dtype=np.float32), requires_grad=True)
    out = wp.zeros(COLS, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(sum_axis0, dim=active, inputs=[x, out], block_dim=block_dim, device="cpu")
    out.grad.fill_(1.0)
    tape.backward()
    np.testing.assert_array_equal(x.grad.numpy(), present((ROWS, COLS), block_dim, active).astype(np.float32))
    # the scan's gradient: d sum(out) / d x_i = the number of outputs at or after i, present i only
    y = wp.array(np.ones(SCAN_N, dtype=np.float32), requires_grad=True)
    ys = wp.zeros(SCAN_N, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(scan_loss, dim=active, inputs=[y, ys], block_dim=block_dim, device="cpu")
    ys.grad.fill_(1.0)
    tape.backward()
    keep = present((SCAN_N,), block_dim, active)
    np.testing.assert_array_equal(y.grad.numpy(), np.where(keep, SCAN_N - np.arange(SCAN_N), 0).astype(np.float32))


@wp.kernel
def widths(out: wp.array(dtype=int)):
    out[wp.tid()] = wp.block_dim()


def test_block_dim_after_a_wider_launch():
    # the worker's lane stacks stay reserved for the widest block; wp.block_dim() is the launch's
    for b in (64, 8, 32, 4):
        out = wp.zeros(2 * b, dtype=int)
        wp.launch(widths, dim=2 * b, inputs=[out], block_dim=b, device="cpu")
        np.testing.assert_array_equal(out.numpy(), np.full(2 * b, b))
