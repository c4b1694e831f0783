"""``warp.optim.linear``: iterative solvers for sparse (BSR), dense and operator systems."""

from .fsai import FSAI
from .gmres import GMRES, gmres
from .nonsymmetric import BiCGSTAB, bicgstab
from .operators import LinearOperator, aslinearoperator
from .precond import preconditioner
from .solvers import CG, CR, LinearSolverState, cg, cr

__all__ = ["BiCGSTAB", "CG", "CR", "FSAI", "GMRES", "LinearOperator", "LinearSolverState", "aslinearoperator", "bicgstab",
           "cg", "cr", "gmres", "preconditioner"]
