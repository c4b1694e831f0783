"""``wp.matmul``: d = alpha * a @ b + beta * c for 2-d float arrays, or batched over a leading
dimension (3-d arrays), computed by NumPy's BLAS on the CPU and recorded on an active tape with
its adjoint (grad_a += alpha * G b^T, grad_b += alpha * a^T G, grad_c += beta * G)."""

import numpy as np

from .. import hooks
from ..state import state
from ..types.array import write_values

FLOAT_DTYPES = ("float16", "float32", "float64")


def _check(a, b, c, d):
    arrays = {"a": a, "b": b, "c": c, "d": d}
    for name, x in arrays.items():
        if not hasattr(x, "ptr") or not hasattr(x, "ndim"):
            raise TypeError(f"wp.matmul: {name} must be a wp.array, got {type(x).__name__}")
        if x.ndim not in (2, 3) or x.ndim != a.ndim:
            raise ValueError(f"wp.matmul: a, b, c, d must all be 2-d (or all 3-d, batched); "
                             f"{name} has {x.ndim} dimensions, a has {a.ndim}")
        if getattr(x.dtype, "__name__", "") not in FLOAT_DTYPES:
            raise TypeError(f"wp.matmul: {name} has dtype {getattr(x.dtype, '__name__', x.dtype)}; "
                            f"expected one of {', '.join(FLOAT_DTYPES)}")
        if x.dtype is not a.dtype:
            raise TypeError(f"wp.matmul: every array needs a's dtype {a.dtype.__name__}, "
                            f"{name} has {x.dtype.__name__}")
    m, k = a.shape[-2:]
    k2, n = b.shape[-2:]
    batch = a.shape[:-2]
    if k != k2 or c.shape[-2:] != (m, n) or d.shape[-2:] != (m, n) or \
            any(x.shape[:-2] != batch for x in (b, c, d)):
        raise ValueError(f"wp.matmul: shapes do not fit d = a @ b + c: a {a.shape}, b {b.shape}, "
                         f"c {c.shape}, d {d.shape}")
    devices = {str(x.device) for x in arrays.values()}
    if len(devices) > 1:
        raise ValueError(f"wp.matmul: arrays are on different devices: {sorted(devices)}")


def _host(x):
    return x.numpy()


def _add_to_grad(x, update):
    if x.grad is None:
        return
    x.grad.assign(x.grad.numpy() + update.astype(x.grad.numpy().dtype, copy=False))


def matmul(a, b, c, d, alpha=1.0, beta=1.0, allow_tf32x3_arith=False, device=None):
    """d = alpha * a @ b + beta * c (2-d arrays, or 3-d for a batch of products). ``c`` may be
    ``d`` (accumulate in place). Recorded on an active ``wp.Tape`` and differentiable."""
    _check(a, b, c, d)
    an, bn = _host(a), _host(b)
    result = alpha * np.matmul(an, bn)
    if beta != 0.0:
        result = result + beta * _host(c)
    if state.tape_writes[0]:     # a tape keeps what its recorded steps read of d
        hooks.before_write(d, "wp.matmul()")
    write_values(d, result.astype(_host(d).dtype, copy=False))   # the tape records the product
    if state.tapes:     # its backward keeps its own copies of a and b
        state.tapes[-1].record_func(_Backward(a, b, c, d, alpha, beta, an, bn), [a, b, c, d], reads=())


class _Backward:
    """The adjoint of one matmul; keeps a and b as they were (they may change later)."""

    def __init__(self, a, b, c, d, alpha, beta, an, bn):
        self.a, self.b, self.c, self.d = a, b, c, d
        self.alpha, self.beta = alpha, beta
        self.an, self.bn = an.copy(), bn.copy()
        self.key = "matmul"

    def __call__(self):
        if self.d.grad is None:
            return
        g = self.d.grad.numpy().astype(np.float64)
        self.d.grad.zero_()                  # d was overwritten: its earlier value gets only beta * G
        _add_to_grad(self.a, self.alpha * np.matmul(g, np.swapaxes(self.bn, -1, -2)))
        _add_to_grad(self.b, self.alpha * np.matmul(np.swapaxes(self.an, -1, -2), g))
        if self.c.grad is not None:
            if self.c.ptr == self.d.ptr:     # d = a @ b + d: d's old value gets beta * G
                self.c.grad.assign((self.beta * g).astype(self.c.grad.numpy().dtype))
            else:
                _add_to_grad(self.c, self.beta * g)


def matmul_new(a, b):
    """``a @ b`` for 2-d (or batched 3-d) wp arrays: a new array, recorded on a tape."""
    from ..types.array_factories import zeros
    if not hasattr(b, "ptr"):
        return NotImplemented
    shape = tuple(a.shape[:-1]) + (b.shape[-1],)
    rg = bool(a.requires_grad or b.requires_grad)
    d = zeros(shape, dtype=a.dtype, device=a.device, requires_grad=rg)
    matmul(a, b, d, d, alpha=1.0, beta=0.0)
    return d
