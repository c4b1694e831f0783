"""NumPy/SciPy references for the builtins of the issue-16 wave (same format as builtin_refs.py,
whose REFS these entries join)."""

import numpy as np
from scipy import special

import builtin_refs as base
from warp_interactive.types.array import array as array_type

F = dict


def _bits(ts, x):
    x = np.asarray(x)
    as_bytes = x.view(np.uint8).reshape(len(x), -1)
    return np.unpackbits(as_bytes, axis=1).sum(1).astype(np.int32)


def _unot(ts, a):
    if isinstance(ts[0], array_type):   # a (non-null) array
        return np.zeros(base.N_THREADS, dtype=bool)
    return np.asarray(a) == 0


def _norm(v):
    return np.linalg.norm(v, axis=-1)


def _huber(ts, v, delta=None):
    d = 1.0 if delta is None else delta
    n = _norm(v)
    return np.where(n <= d, 0.5 * n * n, d * (n - 0.5 * d))


def _pseudo_huber(ts, v, delta=None):
    d = 1.0 if delta is None else delta
    return d * np.sqrt(1 + _norm(v) ** 2 / (d * d))


def _smooth_normalize(ts, v, delta=None):
    return v / _pseudo_huber(ts, v, delta)[:, None]


def _decomposition_check(kind):
    """The tuple and out-parameter forms of svd2/svd3/qr3/eig3: the factors rebuild A, are
    orthogonal, and match NumPy's singular values / eigenvalues."""
    def check(ts, args, outs, tol):
        A = args[0]
        n = A.shape[-1]
        eye = np.broadcast_to(np.eye(n), A.shape)
        t = tol * 10
        if kind == "svd":
            U, s, V = outs
            base._close(U @ (s[:, :, None] * np.swapaxes(V, 1, 2)), A, t)
            base._close(s, np.linalg.svd(A, compute_uv=False), t)
            base._close(np.swapaxes(U, 1, 2) @ U, eye, t)
            base._close(np.swapaxes(V, 1, 2) @ V, eye, t)
        elif kind == "qr":
            Q, R = outs
            base._close(Q @ R, A, t)
            base._close(np.swapaxes(Q, 1, 2) @ Q, eye, t)
            assert np.all(np.abs(np.tril(R, -1)) <= t) and np.all(np.diagonal(R, 0, 1, 2) >= -tol)
        else:
            Q, d = outs
            base._close(d, np.linalg.eigvalsh(A), t)
            base._close(Q @ (d[:, :, None] * np.swapaxes(Q, 1, 2)), A, t)
    return check


def _div(ts, a, b):
    return base._bcast(a, b, np.divide)


EXTRA_REFS = {
    "copysign": F(ref=lambda ts, x, y: np.copysign(x, y)),
    "erfinv": base._unary(special.erfinv, domain=("unit",), tol=5),
    "erfcinv": base._unary(special.erfcinv, domain=("erfc",), tol=5),
    "bit_count": F(ref=_bits),
    "unot": F(ref=_unot),
    "div_approx": F(ref=_div, domain=("nonzero", "nonzero")),
    "norm_l1": base._unary(lambda v: np.abs(v).sum(-1)),
    "norm_l2": base._unary(_norm),
    "norm_huber": F(ref=_huber, domain=("any", "pos")),
    "norm_pseudo_huber": F(ref=_pseudo_huber, domain=("any", "pos")),
    "smooth_normalize": F(ref=_smooth_normalize, domain=("any", "pos")),
    "inverse_approx": F(ref=lambda ts, m: np.linalg.inv(m), domain=("wellcond",), tol=10),
    "svd2": F(check=_decomposition_check("svd"), out=(1, 2, 3)),
}
# the tuple forms of the decompositions share the names of their out-parameter forms
for _name, _kind, _dom in (("svd3", "svd", "any"), ("qr3", "qr", "wellcond"), ("eig3", "eig", "sym")):
    EXTRA_REFS[_name + "/tuple"] = F(check=_decomposition_check(_kind), domain=(_dom,))
EXTRA_REFS["svd2/tuple"] = F(check=_decomposition_check("svd"))
