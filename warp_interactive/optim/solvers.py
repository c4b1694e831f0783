"""The Krylov solvers as warp-lang's: ``cg``, ``cr``, ``bicgstab`` (functions) and ``CG``,
``CR``, ``BiCGSTAB`` (pre-allocated states, what ``run=False`` returns). ``GMRES`` is in
gmres.py. Every coefficient (alpha, beta, omega) is computed on the device from the batched dot
products, and a system whose residual is within its tolerance takes zero steps, so batches and
device-checked loops (``check_every=0``) need no host synchronization per iteration."""

import operator
from typing import Any

import warp_interactive as wp

from .krylov import BatchedDots, init_tolerance, run_loop
from .operators import aslinearoperator, as_scalar_array


def scalar_count(b):
    return b.shape[0] * (b.dtype._length_ if wp.types.type_is_vector(b.dtype) else 1)


@wp.func
def _ratio(active: bool, num: Any, den: Any):
    if active and den != type(den)(0.0):
        return num / den
    return type(num)(0.0)


@wp.kernel
def _cg_step(tol: wp.array(dtype=Any), rr: wp.array(dtype=Any), rz: wp.array(dtype=Any), pAp: wp.array(dtype=Any),
             batch_of: wp.array(dtype=int), x: wp.array(dtype=Any), r: wp.array(dtype=Any), p: wp.array(dtype=Any),
             Ap: wp.array(dtype=Any)):
    i = wp.tid()
    b = batch_of[i]
    if b >= 0:
        alpha = _ratio(rr[b] > tol[b], rz[b], pAp[b])
        x[i] = x[i] + alpha * p[i]
        r[i] = r[i] - alpha * Ap[i]


@wp.kernel
def _cg_direction(tol: wp.array(dtype=Any), rr: wp.array(dtype=Any), rz_old: wp.array(dtype=Any),
                  rz_new: wp.array(dtype=Any), batch_of: wp.array(dtype=int), z: wp.array(dtype=Any),
                  p: wp.array(dtype=Any)):
    i = wp.tid()
    b = batch_of[i]
    if b >= 0:
        beta = _ratio(rr[b] > tol[b], rz_new[b], rz_old[b])
        p[i] = z[i] + beta * p[i]


class LinearSolverState:
    """Buffers of one solver for ``A x = b`` (with ``M`` its preconditioner), allocated once;
    calling it solves, optionally with another compatible ``A``, ``b``, ``x`` or ``M``."""

    def __init__(self, A, b, x, tol=None, atol=None, maxiter=0, M=None, callback=None, check_every=10,
                 use_cuda_graph=True):
        self._A = aslinearoperator(A)
        self._M = aslinearoperator(M)
        self._b, self._x = b, x
        self._tol, self._atol = tol, atol
        self._callback = callback
        self._check_every = check_every
        self._use_cuda_graph = use_cuda_graph
        self._device = self._A.device
        self._scalar_type = self._A.scalar_type
        self._n = scalar_count(b)
        if maxiter is None or maxiter == 0:
            maxiter = self._n // self._A.batch_count
        self._maxiter = int(maxiter)
        self._state = wp.zeros(2, dtype=int, device=self._device)
        self._dots = BatchedDots(self._n, self._scalar_type, self._device, self._A.batch_offsets, columns=4)
        self._tol_sq = wp.zeros(self._dots.nbatch, dtype=self._scalar_type, device=self._device)
        self._allocate()

    def _vector(self):
        v = wp.zeros(self._b.shape[0], dtype=self._b.dtype, device=self._device)
        return v, as_scalar_array(v)

    def _allocate(self):
        raise NotImplementedError

    def _run(self, A, b, x, M):
        raise NotImplementedError

    def _check_compatible(self, A, b, x, M):
        if A is not self._A:
            for name in ("shape", "dtype", "device", "batch_count"):
                if getattr(A, name) != getattr(self._A, name):
                    raise ValueError(f"Incompatible A.{name}: expected {getattr(self._A, name)}, got {getattr(A, name)}")
            if A.batch_offsets is not self._A.batch_offsets:
                raise ValueError("A.batch_offsets must be the same array as at construction")
            if A.max_batch_length != self._A.max_batch_length:
                raise ValueError("For batched systems, A.max_batch_length must match the value used at construction")
        for name, new, old in (("b", b, self._b), ("x", x, self._x)):
            if new is not old:
                if new.shape != old.shape:
                    raise ValueError(f"Incompatible {name}.shape: expected {old.shape}, got {new.shape}")
                if new.dtype != old.dtype:
                    raise ValueError(f"Incompatible {name}.dtype: expected {old.dtype}, got {new.dtype}")
        if M is not None and self._M is not None and M is not self._M:
            if M.shape != self._M.shape:
                raise ValueError(f"Incompatible M.shape: expected {self._M.shape}, got {M.shape}")
            if M.dtype != self._M.dtype:
                raise ValueError(f"Incompatible M.dtype: expected {self._M.dtype}, got {M.dtype}")

    def __call__(self, A=None, b=None, x=None, M=None):
        A = aslinearoperator(A) if A is not None else self._A
        M = aslinearoperator(M) if M is not None else self._M
        b = b if b is not None else self._b
        x = x if x is not None else self._x
        self._check_compatible(A, b, x, M)
        return self._run(A, b, x, M)

    def _begin(self, b, x):
        """The set-up every solve starts with: the scalar views of x and b, and each system's
        squared tolerance (from ||b||, tol and atol) into ``self._tol_sq``."""
        xs, bs = as_scalar_array(x), as_scalar_array(b)
        init_tolerance(bs, self._tol, self._atol, self._dots, self._tol_sq)
        return xs, bs

    @staticmethod
    def _precondition(M, src, dst):
        """dst := M src (a copy without a preconditioner)."""
        if M is None:
            wp.copy(dst, src)
        else:
            M.matvec(src, dst, dst, alpha=1.0, beta=0.0)

    def _loop(self, do_cycle, cycle, r_norm_sq):
        return run_loop(do_cycle, cycle, r_norm_sq, self._maxiter, self._tol_sq, self._callback, self._check_every,
                        self._state)


def _check_restart(restart):
    if restart is None:
        return None
    if isinstance(restart, bool):
        raise TypeError("restart must be an integer or None")
    try:
        restart = operator.index(restart)
    except TypeError as error:
        raise TypeError("restart must be an integer or None") from error
    if restart < 1:
        raise ValueError("restart must be positive")
    return restart


class _Restartable(LinearSolverState):
    """CG and CR: ``restart`` iterations per cycle, after which the residual is recomputed as
    ``b - A x`` and the search direction restarts."""

    def __init__(self, A, b, x, tol=None, atol=None, maxiter=0, M=None, callback=None, check_every=10,
                 use_cuda_graph=True, *, restart=None):
        self._restart = _check_restart(restart)
        super().__init__(A, b, x, tol=tol, atol=atol, maxiter=maxiter, M=M, callback=callback,
                         check_every=check_every, use_cuda_graph=use_cuda_graph)

    def _configure_restart(self):
        if self._restart is not None:
            self._restart = max(1, min(self._restart, self._maxiter))
            if self._check_every > 0:
                self._check_every = max(self._check_every, self._restart)

    def _cycles(self, iteration, reset):
        if self._restart is None:
            return iteration, 1
        k = self._restart

        def cycle():
            for _ in range(k - 1):
                iteration()
            iteration(update_direction=False)
            reset()
        return cycle, k


class CG(_Restartable):
    """Pre-allocated Conjugate Gradient solver (symmetric positive definite systems)."""

    def _allocate(self):
        self._configure_restart()
        self._r, self._rs = self._vector()
        self._z, self._zs = self._vector()
        self._p, self._ps = self._vector()
        self._Ap, self._Aps = self._vector()
        self._rz_old = wp.zeros(self._dots.nbatch, dtype=self._scalar_type, device=self._device)

    def _run(self, A, b, x, M):
        dots, dev, n = self._dots, self._device, self._n
        r, rs, z, zs, p, ps, Ap, Aps = self._r, self._rs, self._z, self._zs, self._p, self._ps, self._Ap, self._Aps
        xs, bs = self._begin(b, x)
        rr, rz, pAp, rz_old, tol = dots.col(0), dots.col(1), dots.col(2), self._rz_old, self._tol_sq

        def update_rr_rz():
            dots.compute(rs, rs, 0)
            if M is None:
                wp.copy(rz, rr)
            else:
                M.matvec(r, z, z, alpha=1.0, beta=0.0)
                dots.compute(rs, zs, 1)

        def reset():
            A.matvec(x, b, r, alpha=-1.0, beta=1.0)
            update_rr_rz()
            wp.copy(p, z if M is not None else r)

        def iteration(update_direction=True):
            wp.copy(rz_old, rz)
            A.matvec(p, Ap, Ap, alpha=1.0, beta=0.0)
            dots.compute(ps, Aps, 2)
            wp.launch(_cg_step, dim=n, device=dev, inputs=[tol, rr, rz_old, pAp, dots.batch_of, xs, rs, ps, Aps])
            if update_direction:
                update_rr_rz()
                wp.launch(_cg_direction, dim=n, device=dev,
                          inputs=[tol, rr, rz_old, rz, dots.batch_of, zs if M is not None else rs, ps])

        Ap.zero_()
        z.zero_()
        reset()
        cycle, size = self._cycles(iteration, reset)
        return self._loop(cycle, size, rr)


@wp.kernel
def _cr_step(tol: wp.array(dtype=Any), rr: wp.array(dtype=Any), zAz: wp.array(dtype=Any), yAp: wp.array(dtype=Any),
             batch_of: wp.array(dtype=int), x: wp.array(dtype=Any), r: wp.array(dtype=Any), z: wp.array(dtype=Any),
             p: wp.array(dtype=Any), Ap: wp.array(dtype=Any), y: wp.array(dtype=Any)):
    i = wp.tid()
    b = batch_of[i]
    if b >= 0:
        alpha = _ratio(rr[b] > tol[b], zAz[b], yAp[b])
        x[i] = x[i] + alpha * p[i]
        r[i] = r[i] - alpha * Ap[i]
        z[i] = z[i] - alpha * y[i]


@wp.kernel
def _cr_direction(tol: wp.array(dtype=Any), rr: wp.array(dtype=Any), zAz_old: wp.array(dtype=Any),
                  zAz_new: wp.array(dtype=Any), batch_of: wp.array(dtype=int), z: wp.array(dtype=Any),
                  Az: wp.array(dtype=Any), p: wp.array(dtype=Any), Ap: wp.array(dtype=Any)):
    i = wp.tid()
    b = batch_of[i]
    if b >= 0:
        beta = _ratio(rr[b] > tol[b], zAz_new[b], zAz_old[b])
        p[i] = z[i] + beta * p[i]
        Ap[i] = Az[i] + beta * Ap[i]


class CR(_Restartable):
    """Pre-allocated Conjugate Residual solver (symmetric systems)."""

    def _allocate(self):
        self._configure_restart()
        names = ("r", "z", "p", "Ap", "Az", "y")
        self._v = {k: self._vector() for k in names}
        self._zAz_old = wp.zeros(self._dots.nbatch, dtype=self._scalar_type, device=self._device)

    def _run(self, A, b, x, M):
        dots, dev, n, tol = self._dots, self._device, self._n, self._tol_sq
        (r, rs), (z, zs), (p, ps), (Ap, Aps), (Az, Azs), (y, ys) = (self._v[k] for k in ("r", "z", "p", "Ap", "Az", "y"))
        xs, bs = self._begin(b, x)
        rr, zAz, yAp, zAz_old = dots.col(0), dots.col(1), dots.col(2), self._zAz_old

        def precondition(src, dst):
            self._precondition(M, src, dst)

        def reset():
            A.matvec(x, b, r, alpha=-1.0, beta=1.0)
            precondition(r, z)
            A.matvec(z, Az, Az, alpha=1.0, beta=0.0)
            dots.compute(rs, rs, 0)
            dots.compute(zs, Azs, 1)
            wp.copy(p, z)
            wp.copy(Ap, Az)

        def iteration(update_direction=True):
            wp.copy(zAz_old, zAz)
            precondition(Ap, y)
            dots.compute(ys, Aps, 2)
            wp.launch(_cr_step, dim=n, device=dev,
                      inputs=[tol, rr, zAz_old, yAp, dots.batch_of, xs, rs, zs, ps, Aps, ys])
            dots.compute(rs, rs, 0)
            if update_direction:
                A.matvec(z, Az, Az, alpha=1.0, beta=0.0)
                dots.compute(zs, Azs, 1)
                wp.launch(_cr_direction, dim=n, device=dev,
                          inputs=[tol, rr, zAz_old, zAz, dots.batch_of, zs, Azs, ps, Aps])

        reset()
        cycle, size = self._cycles(iteration, reset)
        return self._loop(cycle, size, rr)


def solve_or_state(state, run):
    """What the function forms return: the solve's result, or with ``run=False`` the state."""
    return state if not run else state()


def cg(A, b, x, tol=None, atol=None, maxiter=0, M=None, callback=None, check_every=10, use_cuda_graph=True, run=True,
       *, restart=None):
    """Conjugate Gradient for symmetric positive definite ``A``: solves in place into ``x``
    (the initial guess). Returns (iterations, residual norm, absolute tolerance); with
    ``check_every=0`` device arrays of (iterations, squared residuals, squared tolerances);
    with ``run=False`` the ``CG`` state."""
    state = CG(A, b, x, tol=tol, atol=atol, maxiter=maxiter, M=M, callback=callback, check_every=check_every,
               use_cuda_graph=use_cuda_graph, restart=restart)
    return solve_or_state(state, run)


def cr(A, b, x, tol=None, atol=None, maxiter=0, M=None, callback=None, check_every=10, use_cuda_graph=True, run=True,
       *, restart=None):
    """Conjugate Residual for symmetric ``A`` (see ``cg`` for the arguments and results)."""
    state = CR(A, b, x, tol=tol, atol=atol, maxiter=maxiter, M=M, callback=callback, check_every=check_every,
               use_cuda_graph=use_cuda_graph, restart=restart)
    return solve_or_state(state, run)
