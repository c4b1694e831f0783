"""Launch timings attribute time per kernel and pass: forward and adjoint launches of a tape
each get an entry, with wall and process-CPU milliseconds."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def _spin(a: wp.array(dtype=float), b: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for j in range(n):
        s = s + wp.sin(a[i] + float(j) * 1.0e-3)
    b[i] = s


@wp.kernel
def _total(b: wp.array(dtype=float), loss: wp.array(dtype=float)):
    wp.atomic_add(loss, 0, b[wp.tid()])


@pytest.mark.parametrize("threads", [1, None])
def test_tape_launches_recorded_per_kernel_and_pass(threads):
    old = wp.config.num_threads
    wp.config.num_threads = threads
    try:
        a = wp.array(np.linspace(0, 1, 256, dtype=np.float32), requires_grad=True)
        b = wp.zeros(256, dtype=float, requires_grad=True)
        loss = wp.zeros(1, dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(_spin, 256, inputs=[a, b, 2000])     # built before recording starts
            wp.launch(_total, 256, inputs=[b, loss])
        tape.backward(loss=loss)
        tape.zero()
        tape = wp.Tape()
        wp.timing_begin()
        try:
            with tape:
                wp.launch(_spin, 256, inputs=[a, b, 2000])
                wp.launch(_total, 256, inputs=[b, loss])
            tape.backward(loss=loss)
        finally:
            results = wp.timing_end()
    finally:
        wp.config.num_threads = old
    kinds = sorted((r.name, r.kind) for r in results)
    assert kinds == [("_spin", "backward"), ("_spin", "forward"), ("_total", "backward"), ("_total", "forward")]
    spin_fwd = next(r for r in results if (r.name, r.kind) == ("_spin", "forward"))
    # 512k sin evaluations: measurable CPU time, and no more than the threads could spend in the wall time
    assert spin_fwd.cpu_elapsed > 0.0
    assert spin_fwd.cpu_elapsed <= spin_fwd.elapsed * 64 + 5.0
    expected = np.cos(np.linspace(0, 1, 256, dtype=np.float64)[:, None] + np.arange(2000) * 1e-3).sum(axis=1)
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-3)
