"""``warp.optim.linear``: iterative solvers for sparse (BSR), dense and operator systems."""

from .operators import LinearOperator, aslinearoperator
from .precond import preconditioner
from .solvers import CG, CR, LinearSolverState, cg, cr

__all__ = ["CG", "CR", "LinearOperator", "LinearSolverState", "aslinearoperator", "cg", "cr", "preconditioner"]
