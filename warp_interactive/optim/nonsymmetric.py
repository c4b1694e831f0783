"""Solvers for general (nonsymmetric) systems: ``bicgstab`` / ``BiCGSTAB`` and ``gmres`` /
``GMRES`` (restarted, the Hessenberg least-squares problem of each cycle solved on the host,
one small solve per system per cycle)."""

from typing import Any

import warp_interactive as wp

from .solvers import LinearSolverState, _ratio, solve_or_state


@wp.kernel
def _bicg_half_step(tol: wp.array(dtype=Any), rr: wp.array(dtype=Any), rho: wp.array(dtype=Any),
                    r0v: wp.array(dtype=Any), batch_of: wp.array(dtype=int), x: wp.array(dtype=Any),
                    r: wp.array(dtype=Any), y: wp.array(dtype=Any), v: wp.array(dtype=Any)):
    """x += alpha y, r -= alpha v with alpha = rho / (r0, v) (r becomes s)."""
    i = wp.tid()
    b = batch_of[i]
    if b >= 0:
        alpha = _ratio(rr[b] > tol[b], rho[b], r0v[b])
        x[i] = x[i] + alpha * y[i]
        r[i] = r[i] - alpha * v[i]


@wp.kernel
def _bicg_stabilize(tol: wp.array(dtype=Any), rr: wp.array(dtype=Any), st: wp.array(dtype=Any),
                    tt: wp.array(dtype=Any), batch_of: wp.array(dtype=int), x: wp.array(dtype=Any),
                    r: wp.array(dtype=Any), z: wp.array(dtype=Any), t: wp.array(dtype=Any)):
    """x += omega z, r -= omega t with omega = (t, s) / (t, t)."""
    i = wp.tid()
    b = batch_of[i]
    if b >= 0:
        omega = _ratio(rr[b] > tol[b], st[b], tt[b])
        x[i] = x[i] + omega * z[i]
        r[i] = r[i] - omega * t[i]


@wp.kernel
def _bicg_direction(tol: wp.array(dtype=Any), rr: wp.array(dtype=Any), rho_new: wp.array(dtype=Any),
                    r0v: wp.array(dtype=Any), st: wp.array(dtype=Any), tt: wp.array(dtype=Any),
                    batch_of: wp.array(dtype=int), p: wp.array(dtype=Any), r: wp.array(dtype=Any),
                    v: wp.array(dtype=Any)):
    """p = r + beta (p - omega v), beta = (rho_new / rho) (alpha / omega) = rho_new / (r0v omega)."""
    i = wp.tid()
    b = batch_of[i]
    if b >= 0:
        active = rr[b] > tol[b]
        omega = _ratio(active, st[b], tt[b])
        rho_r0v = _ratio(active, rho_new[b], r0v[b])
        beta = _ratio(active, rho_r0v, omega)
        p[i] = r[i] + beta * (p[i] - omega * v[i])


class BiCGSTAB(LinearSolverState):
    """Pre-allocated BiCGSTAB solver; ``M`` is a right preconditioner unless
    ``is_left_preconditioner``."""

    def __init__(self, A, b, x, tol=None, atol=None, maxiter=0, M=None, callback=None, check_every=10,
                 use_cuda_graph=True, is_left_preconditioner=False):
        self._is_left_preconditioner = is_left_preconditioner
        super().__init__(A, b, x, tol=tol, atol=atol, maxiter=maxiter, M=M, callback=callback,
                         check_every=check_every, use_cuda_graph=use_cuda_graph)

    def _allocate(self):
        self._v = {k: self._vector() for k in ("r", "r0", "p", "v", "t", "y", "z", "Mt")}
        self._rho = wp.zeros((2, self._dots.nbatch), dtype=self._scalar_type, device=self._device)

    def _check_compatible(self, A, b, x, M):
        if (M is None) != (self._M is None):
            raise ValueError("BiCGSTAB was constructed " + ("without" if self._M is None else "with")
                             + " a preconditioner; pass the same kind of M")
        super()._check_compatible(A, b, x, M)

    def _run(self, A, b, x, M):
        dots, dev, n, tol = self._dots, self._device, self._n, self._tol_sq
        (r, rs), (r0, r0s), (p, ps), (v, vs), (t, ts), (y, ys), (z, zs), (Mt, Mts) = (
            self._v[k] for k in ("r", "r0", "p", "v", "t", "y", "z", "Mt"))
        xs, bs = self._begin(b, x)
        rr, r0v, st, tt = dots.col(0), dots.col(1), dots.col(2), dots.col(3)
        rho, r0v_kept = self._rho[0], self._rho[1]
        left = M is not None and self._is_left_preconditioner
        A.matvec(x, b, r, alpha=-1.0, beta=1.0)
        dots.compute(rs, rs, 0)
        wp.copy(p, r)
        wp.copy(r0, r)
        wp.copy(rho, rr)
        v.zero_()
        t.zero_()

        def apply_M(src, dst):
            self._precondition(M, src, dst)

        def iteration():
            apply_M(p, y)
            A.matvec(y, v, v, alpha=1.0, beta=0.0)
            dots.compute(r0s, vs, 1)
            wp.copy(r0v_kept, r0v)          # col 1 is reused for (r0, r) below
            wp.launch(_bicg_half_step, dim=n, device=dev, inputs=[tol, rr, rho, r0v, dots.batch_of, xs, rs, ys, vs])
            dots.compute(rs, rs, 0)
            apply_M(r, z)
            A.matvec(z, t, t, alpha=1.0, beta=0.0)
            if left:                        # omega from the preconditioned residuals
                M.matvec(t, Mt, Mt, alpha=1.0, beta=0.0)
                dots.compute(zs, Mts, 2)
                dots.compute(Mts, Mts, 3)
            else:
                dots.compute(rs, ts, 2)
                dots.compute(ts, ts, 3)
            wp.launch(_bicg_stabilize, dim=n, device=dev, inputs=[tol, rr, st, tt, dots.batch_of, xs, rs, zs, ts])
            dots.compute(rs, rs, 0)
            rho_new = dots.compute(r0s, rs, 1)
            wp.launch(_bicg_direction, dim=n, device=dev,
                      inputs=[tol, rr, rho_new, r0v_kept, st, tt, dots.batch_of, ps, rs, vs])
            wp.copy(rho, rho_new)

        return self._loop(iteration, 1, rr)


def bicgstab(A, b, x, tol=None, atol=None, maxiter=0, M=None, callback=None, check_every=10, use_cuda_graph=True,
             is_left_preconditioner=False, run=True):
    """BiCGSTAB for general ``A`` (see ``cg`` for the arguments and results)."""
    state = BiCGSTAB(A, b, x, tol=tol, atol=atol, maxiter=maxiter, M=M, callback=callback, check_every=check_every,
                     use_cuda_graph=use_cuda_graph, is_left_preconditioner=is_left_preconditioner)
    return solve_or_state(state, run)
