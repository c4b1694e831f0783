"""Innermost range loops with a small body get a tick-free copy on the CPU for runs of at most
1024 iterations (codegen/polls.py: short_copy); a longer run takes the polled copy. Both copies
must compute what Python's range computes: the tables cross the 1024 boundary, negative and
odd steps, empty ranges, break/continue/return inside the body and the loop variable's type.
(That a long run can still be interrupted: tests/test_reliability_interrupt.py.)"""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def k_range_sum(starts: wp.array(dtype=wp.int32), stops: wp.array(dtype=wp.int32), steps: wp.array(dtype=wp.int32),
                out: wp.array(dtype=wp.int64)):
    t = wp.tid()
    s = wp.int64(0)
    for i in range(starts[t], stops[t], steps[t]):
        s += wp.int64(i) * wp.int64(3) + wp.int64(1)
    out[t] = s


@wp.kernel
def k_break_continue(stops: wp.array(dtype=wp.int32), brk: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int64)):
    t = wp.tid()
    s = wp.int64(0)
    for i in range(stops[t]):
        if i % 3 == 1:
            continue
        if i == brk[t]:
            break
        s += wp.int64(i)
    out[t] = s


@wp.func
def first_at_least(a: wp.array(dtype=wp.int32), lo: int, hi: int, v: int):
    for k in range(lo, hi):
        if a[k] >= v:
            return k
    return -1


@wp.kernel
def k_search(a: wp.array(dtype=wp.int32), his: wp.array(dtype=wp.int32), vs: wp.array(dtype=wp.int32),
             out: wp.array(dtype=wp.int32)):
    t = wp.tid()
    out[t] = first_at_least(a, 0, his[t], vs[t])


@wp.kernel
def k_unsigned_rows(offsets: wp.array(dtype=wp.int32), values: wp.array(dtype=float), out: wp.array(dtype=float)):
    """The CSR row loop of bsr_mv: unsigned bounds, an outer loop that ticks."""
    t = wp.tid()
    for row in range(t * 4, t * 4 + 4):
        v = float(0.0)
        for k in range(wp.uint32(offsets[row]), wp.uint32(offsets[row + 1])):
            v += values[k]
        out[row] = v


RANGES = [(0, 0, 1), (0, 1, 1), (5, 3, 1), (0, 1023, 1), (0, 1024, 1), (0, 1025, 1), (-7, 3000, 1),
          (0, 2048, 2), (0, 2049, 2), (1, 3075, 3), (100, -100, -1), (2000, -100, -1), (3000, 0, -3),
          (0, 10, -1), (-1024, 0, 1), (7, 7, -2)]


def test_range_loop_matches_python_across_the_short_bound():
    starts, stops, steps = (np.array(c, dtype=np.int32) for c in zip(*RANGES))
    out = wp.zeros(len(RANGES), dtype=wp.int64)
    wp.launch(k_range_sum, dim=len(RANGES), inputs=[wp.array(starts), wp.array(stops), wp.array(steps), out])
    want = [sum(3 * i + 1 for i in range(a, b, c)) for a, b, c in RANGES]
    assert out.numpy().tolist() == want


@pytest.mark.parametrize("stop", [0, 5, 1024, 1025, 5000])
@pytest.mark.parametrize("brk", [-1, 0, 4, 1000, 1024, 4000])
def test_break_and_continue_in_both_copies(stop, brk):
    out = wp.zeros(1, dtype=wp.int64)
    wp.launch(k_break_continue, dim=1, inputs=[wp.array([stop], dtype=wp.int32), wp.array([brk], dtype=wp.int32), out])
    want = 0
    for i in range(stop):
        if i % 3 == 1:
            continue
        if i == brk:
            break
        want += i
    assert out.numpy()[0] == want


def test_return_from_a_short_and_a_long_loop_in_a_func():
    a = np.arange(3000, dtype=np.int32) * 2
    his = np.array([0, 10, 10, 1024, 1025, 3000, 3000, 3000], dtype=np.int32)
    vs = np.array([0, 0, 19, 2047, 2048, 2048, 5999, 6000], dtype=np.int32)
    out = wp.zeros(len(his), dtype=wp.int32)
    wp.launch(k_search, dim=len(his), inputs=[wp.array(a), wp.array(his), wp.array(vs), out])
    want = [next((k for k in range(h) if a[k] >= v), -1) for h, v in zip(his, vs)]
    assert out.numpy().tolist() == want


def test_unsigned_row_loops_with_short_and_long_rows():
    rng = np.random.default_rng(3)
    counts = rng.choice([0, 1, 5, 1024, 1025, 3000], size=16)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    values = rng.standard_normal(int(offsets[-1])).astype(np.float32)
    out = wp.zeros(16, dtype=float)
    wp.launch(k_unsigned_rows, dim=4, inputs=[wp.array(offsets), wp.array(values), out])
    want = [values[offsets[r]:offsets[r + 1]].astype(np.float64).sum() for r in range(16)]
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)


def test_which_loops_get_the_short_copy():
    """Only innermost loops with a small body and no polling call."""
    from warp_interactive.codegen.module_source import generate_source
    from warp_interactive.lang import lower
    src = generate_source(lower([k_unsigned_rows, k_search, k_break_continue]))
    assert src.count("wp::range_short(") == 3   # the row loop, the search loop, k_break_continue's
    assert src.count("#if WPI_POLLS") == 3
    assert "range_short" not in generate_source(lower([k_range_sum_nested]))


@wp.kernel
def k_range_sum_nested(n: int, out: wp.array(dtype=float)):
    """Neither loop qualifies: the outer one holds a loop, the inner one's body is long."""
    t = wp.tid()
    s = float(0.0)
    for i in range(n):
        for j in range(n):
            a = wp.sin(float(i)) * wp.cos(float(j)) + wp.exp(float(i + j) * 0.001)
            b = wp.sqrt(wp.abs(a) + 1.0) * wp.log(float(j) + 2.0) - wp.tanh(a)
            c = wp.atan2(a, b) + wp.sinh(b * 0.01) + wp.floor(a) * wp.ceil(b)
            d = wp.min(a, b) * wp.max(c, a) + wp.pow(wp.abs(c) + 1.0, 0.5) + wp.asin(wp.clamp(a, -1.0, 1.0))
            e = wp.acos(wp.clamp(b, -1.0, 1.0)) + wp.atan(c) + wp.cosh(d * 0.01) + wp.round(a * b)
            f = wp.trunc(c * d) + wp.log2(wp.abs(e) + 1.0) + wp.log10(wp.abs(d) + 1.0) + wp.exp(a * 0.01)
            s += a + b + c + d + e + f
    out[t] = s
