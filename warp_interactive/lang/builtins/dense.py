"""Small dense linear algebra on flat float arrays, one thread per problem (warp-lang's hidden
"Utility" builtins ``dense_gemm``, ``dense_chol``, ``dense_subs``, ``dense_solve`` and their
batched forms; C++ in native/include/warp_interactive/math/dense.h). Matrices are row-major in
1D ``float32`` arrays."""

from ...types import scalars as sc
from ...types.array import array
from .registry import add_builtin

G_UTIL = "Utility"
F = array(dtype=sc.float32)
I = array(dtype=sc.int32)    # noqa: E741
I32 = sc.int32


def _dense(name, inputs, doc, differentiable=False, context=False, replayed=False):
    # The last argument is the one output, written (its old values unread: the tape keeps no copy
    # of it); every other array is read. The differentiable ones are skipped in the adjoint's
    # forward replay (their adjoints read the output as the forward left it). The factor and
    # substitution steps are replayed (``replayed``): a kernel that factors into L and then
    # solves with L reads its own write, so a tape keeps L's pre-launch copy for the replay, and
    # the replay must fill that copy again before the solve's adjoint reads it.
    last = len(inputs) - 1
    access = {i: "write" if i == last else "read" for i, t in enumerate(inputs.values()) if isinstance(t, array)}
    add_builtin(name, inputs, value_type=None, group=G_UTIL, differentiable=differentiable,
                context=context, replay=None if replayed else "", same_scalar=False, array_access=access, doc=doc)


_dense("dense_gemm", {"m": I32, "n": I32, "p": I32, "t1": I32, "t2": I32, "A": F, "B": F, "C": F},
       "`C` (m x n) = op(`A`) (m x p) times op(`B`) (p x n); op transposes when `t1`/`t2` is nonzero "
       "(`A` is then stored p x m, `B` n x p). Differentiable in `A` and `B`.", differentiable=True)
_dense("dense_chol", {"n": I32, "A": F, "regularization": sc.float32, "L": F},
       "`L` = the lower Cholesky factor of the n x n `A` + `regularization` I (the strict upper "
       "triangle of `L` is left as it was).", replayed=True)
_dense("dense_subs", {"n": I32, "L": F, "b": F, "x": F},
       "`x` = (L L^T)^-1 `b` from a Cholesky factor `L`: forward then backward substitution.", replayed=True)
_dense("dense_solve", {"n": I32, "A": F, "L": F, "b": F, "x": F},
       "`x` = `A`^-1 `b` given `L`, the Cholesky factor of `A`. Differentiable: `b`'s gradient is "
       "set to A^-1 dx and `A`'s gets -db x^T, as warp-lang.", differentiable=True)
_dense("dense_gemm_batched", {"m": I, "n": I, "p": I, "t1": I32, "t2": I32, "A_start": I, "B_start": I,
                              "C_start": I, "A": F, "B": F, "C": F},
       "`dense_gemm` of problem `b` = the thread's linear launch index: sizes `m[b]`, `n[b]`, `p[b]`, "
       "matrices at offsets `A_start[b]`, `B_start[b]`, `C_start[b]`.", context=True)
_dense("dense_chol_batched", {"A_start": I, "A_dim": I, "A": F, "regularization": sc.float32, "L": F},
       "`dense_chol` of problem `b` = the thread's linear launch index: `A_dim[b]` x `A_dim[b]` at "
       "offset `A_start[b]` of `A`, written at the same offset of `L`.", context=True, replayed=True)
_dense("dense_solve_batched", {"b_start": I, "A_start": I, "A_dim": I, "A": F, "L": F, "b": F, "x": F},
       "`dense_solve` of problem `k` = the thread's linear launch index: factor at `A_start[k]` of "
       "`L` (size `A_dim[k]`), right-hand side and solution at `b_start[k]`.", context=True)
