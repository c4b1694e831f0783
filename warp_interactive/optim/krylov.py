"""What the Krylov solvers share: batched dot products on the device (fixed chunking, so sums
are deterministic), the tolerances, and the iteration loop with its host-side checks.

All solver vectors are seen as flat scalar arrays; ``batch_offsets`` (scalar degrees of
freedom) splits them into independent systems, each with its own dot products and residual."""

import math
from typing import Any

import numpy as np

import warp_interactive as wp

_CHUNKS = 64


@wp.func
def batch_range(offsets: wp.array(dtype=int), b: int):
    return offsets[b], offsets[b + 1]


@wp.kernel
def _partial_dots(a: wp.array(dtype=Any), b: wp.array(dtype=Any), offsets: wp.array(dtype=int), chunks: int,
                  partial: wp.array2d(dtype=Any)):
    batch, c = wp.tid()
    lo, hi = batch_range(offsets, batch)
    step = (hi - lo + chunks - 1) // chunks
    start = lo + c * step
    end = wp.min(start + step, hi)
    s = partial.dtype(0.0)
    for i in range(start, end):
        s += a[i] * b[i]
    partial[batch, c] = s


@wp.kernel
def _sum_partials(partial: wp.array2d(dtype=Any), out: wp.array(dtype=Any)):
    batch = wp.tid()
    s = out.dtype(0.0)
    for c in range(partial.shape[1]):
        s += partial[batch, c]
    out[batch] = s


@wp.kernel
def _batch_of(offsets: wp.array(dtype=int), nbatch: int, out: wp.array(dtype=int)):
    """out[i]: the batch of scalar dof i, -1 past the last offset."""
    i = wp.tid()
    out[i] = -1
    for b in range(nbatch):
        if i >= offsets[b] and i < offsets[b + 1]:
            out[i] = b


class BatchedDots:
    """``compute(a, b, col)``: the per-batch dot products of two scalar arrays into
    ``result[col]`` (shape (columns, batches))."""

    def __init__(self, n, scalar_type, device, batch_offsets=None, columns=1):
        self.device = device
        self.scalar_type = scalar_type
        if batch_offsets is None:
            batch_offsets = wp.array([0, n], dtype=int, device=device)
        self.offsets = batch_offsets
        self.nbatch = batch_offsets.shape[0] - 1
        self.chunks = max(1, min(_CHUNKS, n // 4096 + 1))
        self.partial = wp.empty((self.nbatch, self.chunks), dtype=scalar_type, device=device)
        self.result = wp.zeros((columns, self.nbatch), dtype=scalar_type, device=device)
        self.batch_of = wp.empty(n, dtype=int, device=device)
        if n:
            wp.launch(_batch_of, dim=n, device=device, inputs=[batch_offsets, self.nbatch, self.batch_of])

    def col(self, c):
        return self.result[c]

    def compute(self, a, b, col=0):
        wp.launch(_partial_dots, dim=(self.nbatch, self.chunks), device=self.device,
                  inputs=[a, b, self.offsets, self.chunks, self.partial])
        wp.launch(_sum_partials, dim=self.nbatch, device=self.device, inputs=[self.partial, self.result[col]])
        return self.result[col]


def dtype_epsilon(dtype):
    if dtype is wp.float64:
        return 1.0e-16
    if dtype is wp.float16:
        return 1.0e-4
    return 1.0e-8


def tolerances(dtype, tol, atol):
    """(relative, absolute) tolerances with warp-lang's defaults (eps^(3/4); an absolute floor
    of eps^(9/4))."""
    eps = dtype_epsilon(dtype)
    if tol is None and atol is None:
        tol = atol = eps ** 0.75
    elif tol is None:
        tol = atol
    elif atol is None:
        atol = tol
    return tol, max(atol, eps ** 2.25)


@wp.kernel
def _init_tolerance(rtol: Any, atol: Any, b_norm_sq: wp.array(dtype=Any), atol_sq: wp.array(dtype=Any)):
    i = wp.tid()
    a = wp.max(rtol * wp.sqrt(b_norm_sq[i]), atol)
    atol_sq[i] = a * a


def init_tolerance(b, tol, atol, dots, atol_sq):
    """atol_sq[batch] = max(tol * |b|, atol)^2."""
    scalar = dots.scalar_type
    dots.compute(b, b, 0)
    rtol, atol = tolerances(scalar, tol, atol)
    wp.launch(_init_tolerance, dim=dots.nbatch, device=dots.device,
              inputs=[scalar(rtol), scalar(atol), dots.col(0), atol_sq])


@wp.kernel
def _update_condition(maxiter: int, cycle: int, r_norm_sq: wp.array(dtype=Any), atol_sq: wp.array(dtype=Any),
                      state: wp.array(dtype=int)):
    """state = (iterations done, 1 while running): counts a cycle while some batch is above its
    tolerance."""
    converged = int(1)
    for b in range(r_norm_sq.shape[0]):
        if r_norm_sq[b] > atol_sq[b]:
            converged = 0
    if state[1] != 0:
        state[0] = state[0] + cycle
        if converged != 0 or state[0] >= maxiter:
            state[1] = 0


def run_loop(do_cycle, cycle, r_norm_sq, maxiter, atol_sq, callback, check_every, state):
    """Run cycles of ``cycle`` iterations until every batch's residual is within tolerance
    (checked on the host every ``check_every`` iterations) or ``maxiter``. Returns
    (iterations, residual norm, tolerance); with ``check_every == 0`` the loop runs ``maxiter``
    iterations (updates stop on the device once converged) and returns device arrays
    (iteration count, squared residuals, squared tolerances)."""
    if check_every <= 0:
        return _run_device_checked(do_cycle, cycle, r_norm_sq, maxiter, atol_sq, callback, state)
    atol_sq_host = atol_sq.numpy()
    atol = math.sqrt(float(atol_sq_host.max()))
    check_every = max(check_every, cycle)
    it = 0
    r_host = r_norm_sq.numpy()
    if callback is not None:
        callback(it, math.sqrt(float(r_host.max())), atol)
    if (r_host <= atol_sq_host).all():
        return it, math.sqrt(float(r_host.max())), atol
    while True:
        do_cycle()
        it += cycle
        if it >= maxiter:
            break
        if it % check_every < cycle:
            r_host = r_norm_sq.numpy()
            if (r_host <= atol_sq_host).all():
                break
            if callback is not None:
                callback(it, math.sqrt(float(r_host.max())), atol)
    err = math.sqrt(float(r_norm_sq.numpy().max()))
    if callback is not None:
        callback(it, err, atol)
    return it, err, atol


def _run_device_checked(do_cycle, cycle, r_norm_sq, maxiter, atol_sq, callback, state):
    state.assign(np.array([0, 1], dtype=np.int32))
    iters = state[0:1]
    # an already converged start counts no iteration
    wp.launch(_update_condition, dim=1, device=state.device, inputs=[maxiter, 0, r_norm_sq, atol_sq, state])
    # on the CPU the flag is read without a transfer: stop once every batch has converged
    # (later cycles would change nothing: converged batches take zero steps)
    host_flag = state.numpy() if state.device.is_cpu and not getattr(state.device, "is_capturing", False) else None
    for k in range(0, maxiter, cycle):
        if host_flag is not None and k % (8 * cycle) == 0 and host_flag[1] == 0:
            break
        do_cycle()
        wp.launch(_update_condition, dim=1, device=state.device, inputs=[maxiter, cycle, r_norm_sq, atol_sq, state])
        if isinstance(callback, wp.Kernel):
            wp.launch(callback, dim=1, device=state.device, inputs=[iters, r_norm_sq, atol_sq])
    return iters, r_norm_sq, atol_sq
