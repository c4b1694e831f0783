"""NumPy/SciPy references for the builtin table (tests/builtin_funcs/test_builtins_table.py).

``REFS[name]`` describes how to test every overload of builtin ``name``:
- ``ref(types, *args) -> result`` (or a tuple: the outputs of out-parameters, then the new value of
  each mutated argument), vectorised over a leading batch axis; or ``check(types, args, outs)``
  that asserts properties itself (decompositions, random samples);
- ``domain``: per argument, the kind of random input to draw (see ``draw``);
- ``out``: indices of out-parameters; ``mutates``: indices of arguments written back (random states);
- ``tol``: a multiplier of the dtype's tolerance.
Values are NumPy arrays: scalars (N,), vectors (N, n), matrices (N, r, c), quaternions (N, 4) as
(x, y, z, w), transforms (N, 7) as (p, q).
"""

import numpy as np
from scipy import special
from scipy.spatial.transform import Rotation

import warp_interactive as wp

F = dict


def _mat_n(t):
    return t._shape_


def mul_ref(ts, a, b):
    ka, kb = getattr(ts[0], "_kind_", "scalar"), getattr(ts[1], "_kind_", "scalar")
    if ka == "quaternion" and kb == "quaternion":
        return qmul(a, b)
    if ka == "transform" and kb == "transform":
        return tf_mul(a, b)   # composition; a transform times a scalar scales its 7 components
    if ka == "matrix" and kb == "vector":
        return np.einsum("nij,nj->ni", a, b)
    if ka == "vector" and kb == "matrix":
        return np.einsum("ni,nij->nj", a, b)
    if ka == "matrix" and kb == "matrix":
        return a @ b
    return _bcast(a, b, np.multiply)


def _bcast(a, b, op):
    a, b = np.asarray(a), np.asarray(b)
    while a.ndim < b.ndim:
        a = a[..., None]
    while b.ndim < a.ndim:
        b = b[..., None]
    return op(a, b)


# --- quaternions and transforms (x, y, z, w) -----------------------------------------------------------
def qmul(a, b):
    av, aw, bv, bw = a[:, :3], a[:, 3:], b[:, :3], b[:, 3:]
    return np.concatenate([aw * bv + bw * av + np.cross(av, bv),
                           aw * bw - np.sum(av * bv, -1, keepdims=True)], -1)


def qconj(q):
    return np.concatenate([-q[:, :3], q[:, 3:]], -1)


def qrot(q, v):
    p = np.concatenate([v, np.zeros((len(v), 1))], -1)
    return qmul(qmul(q, p), qconj(q))[:, :3]


def tf_mul(a, b):
    return np.concatenate([qrot(a[:, 3:], b[:, :3]) + a[:, :3], qmul(a[:, 3:], b[:, 3:])], -1)


def tf_inv(t):
    qi = qconj(t[:, 3:])
    return np.concatenate([-qrot(qi, t[:, :3]), qi], -1)


def same_quat(a, b):
    """Compare unit quaternions up to sign."""
    s = np.sign(np.sum(a * b, -1, keepdims=True))
    return a * np.where(s == 0, 1, s), b


def slerp(q0, q1, t):
    d = np.sum(q0 * q1, -1, keepdims=True)
    q1 = np.where(d < 0, -q1, q1)
    d = np.abs(d)
    th = np.arccos(np.clip(d, -1, 1))
    t = t[:, None]
    s = np.sin(th)
    w0 = np.where(s > 1e-6, np.sin((1 - t) * th) / np.where(s > 1e-6, s, 1), 1 - t)
    w1 = np.where(s > 1e-6, np.sin(t * th) / np.where(s > 1e-6, s, 1), t)
    return w0 * q0 + w1 * q1


def axis_angle_out(ts, q, axis, angle):
    """warp-lang's convention: the angle in [0, pi], the axis negated when w < 0."""
    u = q[:, :3] * np.where(q[:, 3:] < 0, -1, 1)
    n = np.linalg.norm(u, axis=-1, keepdims=True)
    return u / np.where(n > 0, n, 1), 2 * np.arctan2(n[:, 0], np.abs(q[:, 3]))


# --- random: the PCG hash and the samplers, as the header defines them ----------------------------------
def pcg(x):
    x = np.asarray(x, dtype=np.uint64) & 0xFFFFFFFF
    state = (x * 747796405 + 2891336453) & 0xFFFFFFFF
    word = (((state >> ((state >> 28) + 4)) ^ state) * 277803737) & 0xFFFFFFFF
    return ((word >> 22) ^ word).astype(np.uint32)


class Stream:
    """A batch of random states advanced like the kernel's ``state``."""

    def __init__(self, s):
        self.s = np.asarray(s, dtype=np.uint32)

    def u32(self):
        self.s = pcg(self.s)
        return self.s

    def f(self):
        return (self.u32() >> 8).astype(np.float64) / 16777216.0


def _sampler(fn):
    def ref(ts, s):
        st = Stream(s)
        return fn(st), st.s
    return ref


def _sphere_surface(st, hemi=False):
    z = st.f() if hemi else 1 - 2 * st.f()
    r = np.sqrt(np.maximum(0, 1 - z * z))
    phi = 2 * np.pi * st.f()
    return np.stack([r * np.cos(phi), r * np.sin(phi), z], -1)


def _disk(st):
    r = np.sqrt(st.f())
    th = 2 * np.pi * st.f()
    return np.stack([r * np.cos(th), r * np.sin(th)], -1)


def _ring(st):
    th = 2 * np.pi * st.f()
    return np.stack([np.cos(th), np.sin(th)], -1)


def _triangle(st):
    r = np.sqrt(st.f())
    v = st.f() * r
    return np.stack([1 - r, v], -1)


def _randn(st):
    u1 = st.f() + 5.96e-8   # warp-lang's draw: u1 in (0, 1), then u2
    u2 = st.f()
    return np.sqrt(-2 * np.log(u1)) * np.cos(2 * np.pi * u2)


def _randi3(ts, s, lo, hi):
    st = Stream(s)
    u = st.u32().astype(np.int64)
    span = (hi.astype(np.int64) - lo)
    return np.where(span > 0, lo + u % np.where(span > 0, span, 1), lo), st.s


def _sample_cdf(ts, s, cdf):
    st = Stream(s)
    u = st.f().astype(np.float32)
    return np.searchsorted(cdf, u, side="right"), st.s


# --- noise: an independent check by finite differences of a NumPy Perlin noise --------------------------
# warp-lang's noise: corner gradients hashed from the integer corner (coordinates times primes, xor'ed,
# the seed added to the last product), 1D a slope 2 randf - 1, else normalize(randf - 0.5 per axis);
# the corners' `gradient . offset` blended with the smootherstep along x, then y, ...
_PRIMES = (73856093, 19349663, 53471161, 10000019)


def _corner_gradient(seed, c):
    """Gradients (n, d) at integer corners c (n, d) for states seed (n,)."""
    d = c.shape[1]
    c32 = c.astype(np.int64) & 0xFFFFFFFF
    h = (c32[:, d - 1] * _PRIMES[d - 1] + np.asarray(seed, dtype=np.uint64).astype(np.int64)) & 0xFFFFFFFF
    for i in range(d - 1):
        h = h ^ ((c32[:, i] * _PRIMES[i]) & 0xFFFFFFFF)
    st = Stream(h)
    if d == 1:
        return (2.0 * st.f() - 1.0)[:, None]
    g = np.stack([st.f() - 0.5 for _ in range(d)], -1)
    return g / np.linalg.norm(g, axis=-1, keepdims=True)


def perlin(seed, p, periods=None):
    """Value of warp-lang's gradient noise at points p (N, d), float64; periods wrap the cells with
    C's remainder (the sign of the cell index kept, as the reference)."""
    n, d = p.shape
    c0 = np.floor(p).astype(np.int64)
    f = p - c0
    c1 = c0 + 1
    if periods is not None:
        c0 = np.fmod(c0, periods)
        c1 = np.fmod(c0 + 1, periods)
    values = {}
    for corner in range(1 << d):
        bits = np.array([(corner >> i) & 1 for i in range(d)])
        c = np.where(bits, c1, c0)
        values[corner] = np.sum(_corner_gradient(seed, c) * (f - bits), axis=-1)
    fade = f * f * f * (f * (f * 6 - 15) + 10)
    for axis in range(d):
        values = {m: values[2 * m] + (values[2 * m + 1] - values[2 * m]) * fade[:, axis]
                  for m in range(len(values) // 2)}
    return values[0]


def _as_points(x):
    return x[:, None] if x.ndim == 1 else x


def noise_ref(ts, s, x):
    return perlin(s, _as_points(x.astype(np.float64)))


def pnoise_ref(ts, s, x, *periods):
    return perlin(s, _as_points(x.astype(np.float64)), np.stack(periods, -1).astype(np.int64))


def _rand_init2(seed, offset):
    return pcg((np.asarray(seed, dtype=np.uint64) + int(pcg(offset))) & 0xFFFFFFFF)


def _fd_grad(seed, p, h=1e-4):
    return np.stack([(perlin(seed, p + h * e) - perlin(seed, p - h * e)) / (2 * h)
                     for e in np.eye(p.shape[1])], -1)


def curlnoise_ref(ts, s, x, octaves=None, lacunarity=None, gain=None):
    """The curl by central differences of the potentials, octaves summed (vectorised: each
    thread's octaves are masked in). 2D: (-dpsi/dy, dpsi/dx); 3D/4D: three potentials whose
    states follow one another by rand_init(state, 10019689), rand_init(state, 13112221), octave
    after octave (warp-lang's)."""
    n = len(s)
    octaves = np.ones(n, dtype=np.int64) if octaves is None else octaves.astype(np.int64)
    lac = np.full(n, 2.0) if lacunarity is None else lacunarity.astype(np.float64)
    gain = np.full(n, 0.5) if gain is None else gain.astype(np.float64)
    k = 1 if x.shape[1] == 2 else 3
    grads = np.zeros((k, n, x.shape[1]))
    freq, amp = np.ones(n), np.ones(n)
    state = np.asarray(s, dtype=np.uint32)
    for o in range(int(octaves.max())):
        live = (o < octaves)[:, None]
        for kk in range(k):
            if kk:
                state = _rand_init2(state, (10019689, 13112221)[kk - 1])
            g = _fd_grad(state, x.astype(np.float64) * freq[:, None])
            grads[kk] += np.where(live, amp[:, None] * g, 0.0)   # d/d pt: no freq factor (warp-lang's)
        freq, amp = freq * lac, amp * gain
    if k == 1:
        return np.stack([-grads[0, :, 1], grads[0, :, 0]], -1)
    g = grads
    return np.stack([g[2, :, 1] - g[1, :, 2], g[0, :, 2] - g[2, :, 0], g[1, :, 0] - g[0, :, 1]], -1)


# --- checks of decompositions and distributions ----------------------------------------------------------
def _close(a, b, tol):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def check_svd3(ts, args, outs, tol):
    A, (U, s, V) = args[0], outs
    _close(U @ (s[:, :, None] * np.swapaxes(V, 1, 2)), A, tol * 10)
    _close(s, np.linalg.svd(A, compute_uv=False), tol * 10)
    _close(np.swapaxes(U, 1, 2) @ U, np.broadcast_to(np.eye(3), U.shape), tol * 10)
    _close(np.swapaxes(V, 1, 2) @ V, np.broadcast_to(np.eye(3), V.shape), tol * 10)


def check_qr3(ts, args, outs, tol):
    A, (Q, R) = args[0], outs
    _close(Q @ R, A, tol * 10)
    _close(np.swapaxes(Q, 1, 2) @ Q, np.broadcast_to(np.eye(3), Q.shape), tol * 10)
    assert np.all(np.abs(np.tril(R, -1)) <= tol * 10) and np.all(np.diagonal(R, 0, 1, 2) >= -tol)


def check_eig3(ts, args, outs, tol):
    A, (Q, d) = args[0], outs
    _close(d, np.linalg.eigvalsh(A), tol * 10)
    _close(Q @ (d[:, :, None] * np.swapaxes(Q, 1, 2)), A, tol * 10)


def check_poisson(ts, args, outs, tol):
    lam = args[1]
    k = outs[0].astype(np.float64)
    assert np.all(k >= 0)
    for lo, hi in ((0.5, 8), (12, 60)):     # Knuth's branch and the rejection branch
        sel = (lam >= lo) & (lam <= hi)
        z = (k[sel] - lam[sel]) / np.sqrt(lam[sel])   # standardized: mean 0, variance 1
        assert abs(z.mean()) < 5 / np.sqrt(sel.sum()), (lo, hi, z.mean())
        assert abs(z.var() - 1) < 0.25, (lo, hi, z.var())
    # the state advanced
    assert np.all(outs[1] != args[0])


# --- the table --------------------------------------------------------------------------------------------
def _round_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _unary(fn, **kw):
    return F(ref=lambda ts, x: fn(x), **kw)


def _ipow(ts, a, b):
    return np.power(a.astype(np.int64), b.astype(np.int64)).astype(a.dtype)


def _floordiv(ts, a, b):
    """warp-lang's `//`: integers floor the quotient, floats are floor(a / b) (a / b rounded first)."""
    if np.asarray(a).dtype.kind in "iu":
        return np.floor_divide(a, b)
    return np.floor(np.divide(a, b))


def _classify(fn):
    def ref(ts, x):
        x = np.asarray(x)
        if x.dtype.kind in "iu":
            return np.full(len(x), fn is np.isfinite)
        r = fn(x.reshape(len(x), -1))
        return r.all(-1) if fn is np.isfinite else r.any(-1)
    return F(ref=ref, domain=("special",))


def _minmax(red, pair):
    def ref(ts, a, b=None):
        return red(a, -1) if b is None else pair(a, b)
    return F(ref=ref)


def _len_ref(ts, a):
    t = ts[0]
    kind = getattr(t, "_kind_", None)
    n = {"matrix": lambda: t._shape_[0], "quaternion": lambda: 4, "transform": lambda: 7,
         "vector": lambda: t._length_}.get(kind, lambda: len(a))()
    return np.full(N_THREADS, n)


def _spatial_cross(ts, a, b):
    wa, va, wb, vb = a[:, :3], a[:, 3:], b[:, :3], b[:, 3:]
    return np.concatenate([np.cross(wa, wb), np.cross(va, wb) + np.cross(wa, vb)], -1)


def _spatial_cross_dual(ts, a, b):
    wa, va, wb, vb = a[:, :3], a[:, 3:], b[:, :3], b[:, 3:]
    return np.concatenate([np.cross(wa, wb) + np.cross(va, vb), np.cross(wa, vb)], -1)


def _spatial_adjoint(ts, r, s):
    out = np.zeros((len(r), 6, 6))
    out[:, :3, :3], out[:, 3:, 3:], out[:, 3:, :3] = r, r, s
    return out


def _skew(ts, v):
    z = np.zeros(len(v))
    x, y, w = v[:, 0], v[:, 1], v[:, 2]
    return np.stack([np.stack([z, -w, y], -1), np.stack([w, z, -x], -1), np.stack([-y, x, z], -1)], 1)


def _diag(ts, d):
    return np.einsum("ni,ij->nij", d, np.eye(d.shape[1]))


def _quat_from_aa(ts, axis, angle):
    n = axis / np.linalg.norm(axis, axis=-1, keepdims=True)
    return np.concatenate([n * np.sin(angle / 2)[:, None], np.cos(angle / 2)[:, None]], -1)


def _quat_from_matrix(ts, m):
    return Rotation.from_matrix(m[:, :3, :3]).as_quat()   # a 4x4 matrix: its upper-left block


def _quat_to_matrix(ts, q):
    return Rotation.from_quat(q).as_matrix()


def _quat_rpy(ts, r, p, y):
    return Rotation.from_euler("xyz", np.stack([r, p, y], -1)).as_quat()


def _tp_mat(ts, m, p):
    return np.einsum("nij,nj->ni", m[:, :3, :3], p) + m[:, :3, 3]


def _tv_mat(ts, m, v):
    return np.einsum("nij,nj->ni", m[:, :3, :3], v)


def _tp(ts, t, p):
    if getattr(ts[0], "_kind_", "") == "matrix":
        return _tp_mat(ts, t, p)
    return qrot(t[:, 3:], p) + t[:, :3]


def _tv(ts, t, v):
    if getattr(ts[0], "_kind_", "") == "matrix":
        return _tv_mat(ts, t, v)
    return qrot(t[:, 3:], v)


def _select(ts, c, a, b):
    c = np.asarray(c).astype(bool).reshape((len(c),) + (1,) * (np.ndim(a) - 1))
    return np.where(c, b, a)


def _where(ts, c, a, b):
    return _select(ts, c, b, a)


def _cmp(op):
    return F(ref=lambda ts, a, b: op(a, b), domain=("any", "eqhalf"))


def _eqne(op):
    def ref(ts, a, b):
        r = (a == b).reshape(len(a), -1).all(-1)
        return r if op == "eq" else ~r
    return F(ref=ref, domain=("any", "eqhalf"))


def _flat_eq(a, b):
    return (a == b).reshape(len(a), -1).all(-1)


def _lower_bound(ts, arr, *rest):
    """NumPy's searchsorted, clamped to the range's last index (warp-lang returns the closest
    element, never one past the range; an empty range gives its start)."""
    if len(rest) == 1:
        return np.minimum(np.searchsorted(arr, rest[0], side="left"), len(arr) - 1)
    lo, hi, v = rest
    return np.array([a + min(np.searchsorted(arr[a:b], x, side="left"), max(b - a - 1, 0))
                     for a, b, x in zip(lo, hi, v)])


REFS = {
    # operators
    "add": F(ref=lambda ts, a, b: a + b),
    "sub": F(ref=lambda ts, a, b: a - b),
    "mul": F(ref=mul_ref),
    "div": F(ref=lambda ts, a, b: (_bcast(a, b, np.divide) if np.asarray(a).dtype.kind == "f"
                                   else _bcast(a, b, lambda x, y: np.trunc(x / y).astype(x.dtype))),
                domain=("any", "nonzero")),
    "floordiv": F(ref=_floordiv, domain=("any", "nonzero")),
    "mod": F(ref=lambda ts, a, b: np.fmod(a, b), domain=("any", "nonzero")),
    "neg": _unary(lambda x: -x),
    "pos": _unary(lambda x: x),
    "lt": _cmp(np.less), "le": _cmp(np.less_equal), "gt": _cmp(np.greater),
    "ge": _cmp(np.greater_equal), "eq": _eqne("eq"), "ne": _eqne("ne"),
    "bit_and": F(ref=lambda ts, a, b: a & b), "bit_or": F(ref=lambda ts, a, b: a | b),
    "bit_xor": F(ref=lambda ts, a, b: a ^ b),
    "lshift": F(ref=lambda ts, a, b: np.left_shift(a, b), domain=("any", "shift")),
    "rshift": F(ref=lambda ts, a, b: np.right_shift(a, b), domain=("any", "shift")),
    "invert": _unary(np.invert),
    "tid": F(ref=lambda ts: np.arange(N_THREADS)),
    "len": F(ref=_len_ref),
    # scalar math
    "sqrt": _unary(np.sqrt, domain=("pos",)), "cbrt": _unary(np.cbrt),
    "exp": _unary(np.exp), "log": _unary(np.log, domain=("pos",)),
    "log2": _unary(np.log2, domain=("pos",)), "log10": _unary(np.log10, domain=("pos",)),
    "sin": _unary(np.sin), "cos": _unary(np.cos), "tan": _unary(np.tan, domain=("unit",)),
    "asin": _unary(np.arcsin, domain=("unit",)), "acos": _unary(np.arccos, domain=("unit",)),
    "atan": _unary(np.arctan), "sinh": _unary(np.sinh), "cosh": _unary(np.cosh),
    "tanh": _unary(np.tanh), "degrees": _unary(np.degrees), "radians": _unary(np.radians),
    "erf": _unary(special.erf), "erfc": _unary(special.erfc),
    "frac": _unary(lambda x: x - np.trunc(x)), "floor": _unary(np.floor), "ceil": _unary(np.ceil),
    "round": _unary(_round_away), "rint": _unary(np.rint), "trunc": _unary(np.trunc),
    "atan2": F(ref=lambda ts, y, x: np.arctan2(y, x)),
    "min": _minmax(np.min, np.minimum), "max": _minmax(np.max, np.maximum),
    "abs": _unary(np.abs),
    "sign": _unary(lambda x: np.where(x < 0, -1, 1).astype(np.asarray(x).dtype)),
    "clamp": F(ref=lambda ts, x, a, b: np.minimum(np.maximum(x, a), b), domain=("any", "lo", "hi")),
    "step": _unary(lambda x: np.where(x < 0, 1, 0).astype(np.asarray(x).dtype)),
    "nonzero": _unary(lambda x: np.where(x != 0, 1, 0).astype(np.asarray(x).dtype)),
    "pow": F(ref=lambda ts, a, b: (np.power(a, b) if np.asarray(a).dtype.kind == "f" else _ipow(ts, a, b)),
             domain=("pos", "small")),
    "lerp": F(ref=lambda ts, a, b, t: _bcast(a, 1 - t, np.multiply) + _bcast(b, t, np.multiply),
              domain=("any", "any", "t01")),
    "smoothstep": F(ref=lambda ts, e0, e1, x: (lambda t: t * t * (3 - 2 * t))(
        np.clip((x - e0) / (e1 - e0), 0, 1)), domain=("lo", "hi", "any")),
    "isnan": _classify(np.isnan), "isinf": _classify(np.isinf), "isfinite": _classify(np.isfinite),
    # vectors and matrices
    "dot": F(ref=lambda ts, a, b: np.sum(a * b, -1)),
    "ddot": F(ref=lambda ts, a, b: np.sum(a * b, (-2, -1))),
    "cross": F(ref=lambda ts, a, b: np.cross(a, b)),
    "outer": F(ref=lambda ts, a, b: np.einsum("ni,nj->nij", a, b)),
    "length": _unary(lambda a: np.linalg.norm(a, axis=-1)),
    "length_sq": _unary(lambda a: np.sum(a * a, -1)),
    "normalize": _unary(lambda a: a / np.linalg.norm(a, axis=-1, keepdims=True)),
    "cw_mul": F(ref=lambda ts, a, b: a * b),
    "cw_div": F(ref=lambda ts, a, b: a / b if np.asarray(a).dtype.kind == "f" else np.trunc(a / b).astype(a.dtype),
                domain=("any", "nonzero")),   # integers truncate, as `div`
    "argmin": _unary(lambda a: np.argmin(a, -1)), "argmax": _unary(lambda a: np.argmax(a, -1)),
    "transpose": _unary(lambda m: np.swapaxes(m, 1, 2)),
    "inverse": F(ref=lambda ts, m: np.linalg.inv(m), domain=("wellcond",), tol=10),
    "determinant": F(ref=lambda ts, m: np.linalg.det(m), domain=("wellcond",), tol=10),
    "trace": _unary(lambda m: np.trace(m, axis1=1, axis2=2)),
    "diag": F(ref=_diag), "get_diag": _unary(lambda m: np.diagonal(m, 0, 1, 2)),
    "skew": F(ref=_skew),
    "matrix_from_rows": F(ref=lambda ts, *rows: np.stack(rows, 1)),
    "matrix_from_cols": F(ref=lambda ts, *cols: np.stack(cols, 2)),
    "svd3": F(check=check_svd3, out=(1, 2, 3)),
    "qr3": F(check=check_qr3, out=(1, 2), domain=("wellcond",)),
    "eig3": F(check=check_eig3, out=(1, 2), domain=("sym",)),
    # quaternions, transforms, spatial
    "quat_from_axis_angle": F(ref=_quat_from_aa, domain=("nonzero", "any")),
    "quat_to_axis_angle": F(ref=axis_angle_out, out=(1, 2)),
    "quat_from_matrix": F(ref=_quat_from_matrix, domain=("rot",), quat_sign=True),
    "quat_to_matrix": F(ref=_quat_to_matrix),
    "quat_rpy": F(ref=_quat_rpy, quat_sign=True),
    "quat_inverse": _unary(qconj),
    "quat_rotate": F(ref=lambda ts, q, v: qrot(q, v)),
    "quat_rotate_inv": F(ref=lambda ts, q, v: qrot(qconj(q), v)),
    "quat_slerp": F(ref=lambda ts, a, b, t: slerp(a, b, t), domain=("any", "any", "t01")),
    "transform_get_translation": _unary(lambda t: t[:, :3]),
    "transform_get_rotation": _unary(lambda t: t[:, 3:]),
    "transform_multiply": F(ref=lambda ts, a, b: tf_mul(a, b)),
    "transform_point": F(ref=_tp), "transform_vector": F(ref=_tv),
    "transform_inverse": _unary(tf_inv),
    "spatial_vector": F(ref=lambda ts, w, v: np.concatenate([w, v], -1)),
    "spatial_top": _unary(lambda a: a[:, :3]), "spatial_bottom": _unary(lambda a: a[:, 3:]),
    "spatial_dot": F(ref=lambda ts, a, b: np.sum(a * b, -1)),
    "spatial_cross": F(ref=_spatial_cross), "spatial_cross_dual": F(ref=_spatial_cross_dual),
    "spatial_adjoint": F(ref=_spatial_adjoint),
    # utility
    "select": F(ref=_select), "where": F(ref=_where),
    # these print a line per failing thread: the reference says which threads fail
    "expect_eq": F(fails=lambda ts, a, b: ~_flat_eq(a, b), domain=("any", "eqhalf")),
    "expect_neq": F(fails=lambda ts, a, b: _flat_eq(a, b), domain=("any", "eqhalf")),
    "expect_near": F(fails=lambda ts, a, b, tol=None: ~(np.abs(a - b).reshape(len(a), -1) <= (
                         np.full(len(a), 1e-6) if tol is None else tol)[:, None]).all(-1),
                     domain=("any", "eqhalf", "pos")),
    "lower_bound": F(ref=_lower_bound, domain=("sorted", "begin", "end", "any")),
    # random and noise
    "rand_init": F(ref=lambda ts, seed, offset=None: pcg(seed.astype(np.int64) & 0xFFFFFFFF) if offset is None
                   else pcg((seed.astype(np.int64) + pcg(offset.astype(np.int64) & 0xFFFFFFFF)) & 0xFFFFFFFF)),
    "randi": F(ref=lambda ts, s, lo=None, hi=None: ((lambda st: (st.u32().view(np.int32), st.s))(Stream(s))
                                                    if lo is None else _randi3(ts, s, lo, hi)),
               mutates=(0,), domain=("state", "lo_int", "hi_int")),
    "randf": F(ref=lambda ts, s, lo=None, hi=None: (lambda st: (
        st.f() if lo is None else lo + (hi - lo) * st.f(), st.s))(Stream(s)), mutates=(0,),
        domain=("state", "lo", "hi")),
    "randn": F(ref=_sampler(_randn), mutates=(0,), domain=("state",), tol=10),
    "sample_cdf": F(ref=_sample_cdf, mutates=(0,), domain=("state", "cdf")),
    "sample_triangle": F(ref=_sampler(_triangle), mutates=(0,), domain=("state",)),
    "sample_unit_ring": F(ref=_sampler(_ring), mutates=(0,), domain=("state",)),
    "sample_unit_disk": F(ref=_sampler(_disk), mutates=(0,), domain=("state",)),
    "sample_unit_sphere_surface": F(ref=_sampler(_sphere_surface), mutates=(0,), domain=("state",)),
    "sample_unit_sphere": F(ref=_sampler(lambda st: _sphere_surface(st) * np.cbrt(st.f())[:, None]),
                            mutates=(0,), domain=("state",)),
    "sample_unit_hemisphere_surface": F(ref=_sampler(lambda st: _sphere_surface(st, True)),
                                        mutates=(0,), domain=("state",)),
    "sample_unit_hemisphere": F(ref=_sampler(lambda st: _sphere_surface(st, True) * np.cbrt(st.f())[:, None]),
                                mutates=(0,), domain=("state",)),
    "sample_unit_square": F(ref=_sampler(lambda st: np.stack([st.f() - 0.5, st.f() - 0.5], -1)),
                            mutates=(0,), domain=("state",)),
    "sample_unit_cube": F(ref=_sampler(lambda st: np.stack([st.f() - 0.5, st.f() - 0.5, st.f() - 0.5], -1)),
                          mutates=(0,), domain=("state",)),
    "poisson": F(check=check_poisson, mutates=(0,), domain=("state", "lam"), n=4096),
    "noise": F(ref=noise_ref, domain=("state", "wide")),
    "pnoise": F(ref=pnoise_ref, domain=("state", "wide", "period", "period", "period", "period")),
    "curlnoise": F(ref=curlnoise_ref, domain=("state", "wide", "octaves", "lac", "gain"), tol=50),
}

N_THREADS = 64

# the builtins of the later waves: their references live in their own files
from builtin_refs_extra import EXTRA_REFS  # noqa: E402

REFS.update(EXTRA_REFS)
