"""Restarted GMRES (``gmres`` / ``GMRES``): Arnoldi with modified Gram-Schmidt on the device
(batched dot products), the small Hessenberg least-squares problem of each cycle solved on the
host per system, then one update of ``x``. ``M`` is a right preconditioner unless
``is_left_preconditioner``."""

from typing import Any

import numpy as np

import warp_interactive as wp

from .solvers import LinearSolverState, solve_or_state


@wp.kernel
def _axpy_batched(coef: wp.array(dtype=Any), scale: Any, batch_of: wp.array(dtype=int), x: wp.array(dtype=Any),
                  y: wp.array(dtype=Any)):
    """y += scale * coef[batch] * x."""
    i = wp.tid()
    b = batch_of[i]
    if b >= 0:
        y[i] = y[i] + scale * coef[b] * x[i]


@wp.kernel
def _normalize_batched(norm_sq: wp.array(dtype=Any), batch_of: wp.array(dtype=int), x: wp.array(dtype=Any),
                       out: wp.array(dtype=Any)):
    """out = x / |x|_batch (zero for a zero norm and for inactive dofs)."""
    i = wp.tid()
    b = batch_of[i]
    v = out.dtype(0.0)
    if b >= 0:
        s = norm_sq[b]
        if s > type(s)(0.0):
            v = x[i] / wp.sqrt(s)
    out[i] = v


class GMRES(LinearSolverState):
    """Pre-allocated restarted GMRES(k) solver, ``k = restart``."""

    def __init__(self, A, b, x, tol=None, atol=None, restart=31, maxiter=0, M=None, callback=None, check_every=31,
                 use_cuda_graph=True, is_left_preconditioner=False):
        self._restart = int(restart)
        if self._restart < 1:
            raise ValueError("restart must be positive")
        self._is_left_preconditioner = is_left_preconditioner
        super().__init__(A, b, x, tol=tol, atol=atol, maxiter=maxiter, M=M, callback=callback,
                         check_every=check_every, use_cuda_graph=use_cuda_graph)

    def _allocate(self):
        k = self._restart = max(1, min(self._restart, max(self._maxiter, 1)))
        self._basis = [self._vector() for _ in range(k + 1)]
        self._w, self._ws = self._vector()
        self._t, self._ts = self._vector()
        nb = self._dots.nbatch
        self._H = wp.zeros((k + 1, k, nb), dtype=self._scalar_type, device=self._device)
        self._coef = wp.zeros((k, nb), dtype=self._scalar_type, device=self._device)
        self._rnorm = wp.zeros(nb, dtype=self._scalar_type, device=self._device)

    def _run(self, A, b, x, M):
        dots, dev, n, k = self._dots, self._device, self._n, self._restart
        xs, bs = self._begin(b, x)
        left = M is not None and self._is_left_preconditioner
        rnorm = self._rnorm
        s = self._scalar_type

        def residual_into(out, outs):
            """rnorm := ||b - A x||^2 (the convergence test, preconditioned or not, as
            warp-lang's); out := the residual the Krylov space starts from (M r when left
            preconditioned); returns its squared norms."""
            A.matvec(x, b, self._t, alpha=-1.0, beta=1.0)
            dots.compute(self._ts, self._ts, 0)
            wp.copy(rnorm, dots.col(0))
            if not left:
                wp.copy(out, self._t)
                return dots.col(0)
            M.matvec(self._t, out, out, alpha=1.0, beta=0.0)
            return dots.compute(outs, outs, 0)

        def cycle():
            V0, V0s = self._basis[0]
            start_sq = residual_into(self._w, self._ws)
            beta = np.sqrt(np.maximum(start_sq.numpy().astype(np.float64), 0.0))
            wp.launch(_normalize_batched, dim=n, device=dev, inputs=[start_sq, dots.batch_of, self._ws, V0s])
            for j in range(k):
                self._arnoldi(A, M, left, j)
            H = self._H.numpy().astype(np.float64)
            coef, res = _least_squares(H, beta, self._tol_sq.numpy().astype(np.float64),
                                       rnorm.numpy().astype(np.float64))
            self._coef.assign(coef.astype(self._H.numpy().dtype))
            self._t.zero_()
            for j in range(k):
                wp.launch(_axpy_batched, dim=n, device=dev,
                          inputs=[self._coef[j], s(1.0), dots.batch_of, self._basis[j][1], self._ts])
            if M is not None and not left:
                M.matvec(self._t, self._w, self._w, alpha=1.0, beta=0.0)
                wp.launch(_axpy_batched, dim=n, device=dev, inputs=[_ones(self, dots), s(1.0), dots.batch_of,
                                                                     self._ws, xs])
            else:
                wp.launch(_axpy_batched, dim=n, device=dev, inputs=[_ones(self, dots), s(1.0), dots.batch_of,
                                                                     self._ts, xs])
            if left:    # the least-squares residual is the preconditioned one: recompute b - A x
                residual_into(self._w, self._ws)
            else:
                rnorm.assign((res ** 2).astype(rnorm.numpy().dtype))

        residual_into(self._w, self._ws)
        return self._loop(cycle, k, rnorm)

    def _arnoldi(self, A, M, left, j):
        """Column j of the Hessenberg matrix and basis vector j + 1 (modified Gram-Schmidt)."""
        dots, dev, n = self._dots, self._device, self._n
        Vj = self._basis[j][0]
        w, ws = self._w, self._ws
        if M is None:
            A.matvec(Vj, w, w, alpha=1.0, beta=0.0)
        elif left:
            A.matvec(Vj, self._t, self._t, alpha=1.0, beta=0.0)
            M.matvec(self._t, w, w, alpha=1.0, beta=0.0)
        else:
            M.matvec(Vj, self._t, self._t, alpha=1.0, beta=0.0)
            A.matvec(self._t, w, w, alpha=1.0, beta=0.0)
        s = self._scalar_type
        for i in range(j + 1):
            h = dots.compute(ws, self._basis[i][1], 1)
            wp.copy(self._H[i, j], h)
            wp.launch(_axpy_batched, dim=n, device=dev, inputs=[h, s(-1.0), dots.batch_of, self._basis[i][1], ws])
        norm_sq = dots.compute(ws, ws, 2)
        wp.launch(_sqrt_into, dim=dots.nbatch, device=dev, inputs=[norm_sq, self._H[j + 1, j]])
        wp.launch(_normalize_batched, dim=n, device=dev, inputs=[norm_sq, dots.batch_of, ws, self._basis[j + 1][1]])


@wp.kernel
def _sqrt_into(x: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = wp.sqrt(x[i])


def _ones(state, dots):
    ones = getattr(state, "_ones_arr", None)
    if ones is None:
        ones = state._ones_arr = wp.full(dots.nbatch, 1.0, dtype=state._scalar_type, device=state._device)
    return ones


def _least_squares(H, beta, tol_sq, r_sq):
    """Per system: y minimizing |beta e1 - H y| and that residual norm; systems already within
    tolerance (squared residual ``r_sq``) take no step."""
    k = H.shape[1]
    nb = H.shape[2]
    coef = np.zeros((k, nb))
    res = beta.copy()
    for b in range(nb):
        if r_sq[b] <= tol_sq[b] or beta[b] == 0.0:
            continue
        rhs = np.zeros(k + 1)
        rhs[0] = beta[b]
        y, *_ = np.linalg.lstsq(H[:, :, b], rhs, rcond=None)
        coef[:, b] = y
        res[b] = np.linalg.norm(rhs - H[:, :, b] @ y)
    return coef, res


def gmres(A, b, x, tol=None, atol=None, restart=31, maxiter=0, M=None, callback=None, check_every=31,
          use_cuda_graph=True, is_left_preconditioner=False, run=True):
    """Restarted GMRES(``restart``) for general ``A`` (see ``cg`` for the other arguments and
    the results); iterations count in whole cycles."""
    state = GMRES(A, b, x, tol=tol, atol=atol, restart=restart, maxiter=maxiter, M=M, callback=callback,
                  check_every=check_every, use_cuda_graph=use_cuda_graph, is_left_preconditioner=is_left_preconditioner)
    return solve_or_state(state, run)
