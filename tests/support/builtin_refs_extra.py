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


def _check_axis_angle_tuple(ts, args, outs, tol):
    axis, angle = base.axis_angle_out(ts, args[0], None, None)
    base._close(outs[0], axis, tol)
    base._close(outs[1], angle, tol)


EXTRA_REFS["quat_to_axis_angle/tuple"] = F(check=_check_axis_angle_tuple)


# --- rotations and frames ----------------------------------------------------------------------------
from scipy.spatial.transform import Rotation  # noqa: E402

_XYZ = "xyz"
# every valid fixed-axis sequence (i != j, j != k), drawn per thread by the "axes" domain
AXIS_SEQUENCES = np.array([(i, j, k) for i in range(3) for j in range(3) for k in range(3)
                           if i != j and j != k], dtype=np.int32)


def _seq(i, j, k):
    return _XYZ[i] + _XYZ[j] + _XYZ[k]


def _from_euler(ts, e, i, j, k):
    out = np.zeros((len(e), 4))
    for n in range(len(e)):
        a, b, c = int(i[n]), int(j[n]), int(k[n])
        out[n] = Rotation.from_euler(_seq(a, b, c), [e[n, a], e[n, b], e[n, c]]).as_quat()
    return out


def _check_to_euler(ts, args, outs, tol):
    """SciPy's extrinsic angles, placed by axis (third angle of i == k in slot 3 - i - j), equal
    modulo 2 pi; the middle angle exactly in SciPy's range."""
    q, i, j, k = args
    e = outs[0]
    for n in range(len(q)):
        a, b, c = int(i[n]), int(j[n]), int(k[n])
        want = Rotation.from_quat(q[n]).as_euler(_seq(a, b, c))
        third = c if a != c else 3 - a - b
        got = np.array([e[n, a], e[n, b], e[n, third]])
        diff = np.mod(got - want + np.pi, 2 * np.pi) - np.pi
        assert np.all(np.abs(diff) <= tol * 10), (a, b, c, got, want)
        assert abs(got[1] - want[1]) <= tol * 10
        assert np.all(np.abs(got) <= 2 * np.pi + tol)


def _twist(axis, q):
    p = np.sum(q[:, :3] * axis, -1)
    return p, q[:, 3]


def _quat_twist(ts, axis, q):
    p, w = _twist(axis, q)
    t = np.concatenate([axis * p[:, None], w[:, None]], -1)
    return t / np.linalg.norm(t, axis=-1, keepdims=True)


def _unit(ts, axis, *rest):
    return axis / np.linalg.norm(axis, axis=-1, keepdims=True)


def _compose(p, q, s):
    m = np.zeros((len(p), 4, 4))
    m[:, :3, :3] = Rotation.from_quat(q).as_matrix() * s[:, None, :]
    m[:, :3, 3] = p
    m[:, 3, 3] = 1
    return m


def _check_decompose(ts, args, outs, tol):
    m = args[0]
    p, q, s = outs
    base._close(p, m[:, :3, 3], tol * 10)
    base._close(s, np.linalg.norm(m[:, :3, :3], axis=1), tol * 10)
    base._close(_compose(p, q, s), m, tol * 10)


def _check_from_matrix(ts, args, outs, tol):
    m, t = args[0], outs[0].astype(np.float64)
    base._close(t[:, :3], m[:, :3, 3], tol * 10)
    got, want = base.same_quat(t[:, 3:], Rotation.from_matrix(m[:, :3, :3]).as_quat())
    base._close(got, want, tol * 10)


def _twist_ref(ts, t, x):
    R = Rotation.from_quat(t[:, 3:]).as_matrix()
    w, v = np.einsum("nij,nj->ni", R, x[:, :3]), np.einsum("nij,nj->ni", R, x[:, 3:])
    return np.concatenate([w, v + np.cross(t[:, :3], w)], -1)


def _wrench_ref(ts, t, x):
    R = Rotation.from_quat(t[:, 3:]).as_matrix()
    tau, f = np.einsum("nij,nj->ni", R, x[:, :3]), np.einsum("nij,nj->ni", R, x[:, 3:])
    return np.concatenate([tau + np.cross(t[:, :3], f), f], -1)


EXTRA_REFS.update({
    "quat_from_euler": F(ref=_from_euler, axes=(1, 2, 3), quat_sign=True),
    "quat_to_euler": F(check=_check_to_euler, axes=(1, 2, 3)),
    "quat_to_rpy": F(check=lambda ts, args, outs, tol: _check_to_euler(
        ts, [args[0]] + [np.full(len(args[0]), a) for a in (0, 1, 2)], outs, tol)),
    # axes are drawn as they come and normalized by the reference's inputs (domain "unitvec")
    "quat_twist": F(ref=lambda ts, axis, q: _quat_twist(ts, axis, q), domain=("unitvec",), quat_sign=True),
    "quat_twist_angle": F(ref=lambda ts, axis, q: 2 * np.arctan2(np.abs(_twist(axis, q)[0]), q[:, 3]),
                          domain=("unitvec",)),
    "quat_twist_angle_signed": F(ref=lambda ts, axis, q: 2 * np.arctan2(*_twist(axis, q)),
                                 domain=("unitvec",), period=4 * np.pi),   # +-2 pi are one twist
    "transform_compose": F(ref=lambda ts, p, q, s: _compose(p, q, s)),
    "transform_decompose/tuple": F(check=_check_decompose, domain=("trs",)),
    "transform_decompose": F(check=_check_decompose, out=(1, 2, 3), domain=("trs",)),
    "transform_to_matrix": F(ref=lambda ts, t: _compose(t[:, :3], t[:, 3:], np.ones((len(t), 3)))),
    "transform_from_matrix": F(check=_check_from_matrix, domain=("rt",)),
    "transform_set_rotation_copy": F(ref=lambda ts, t, q: np.concatenate([t[:, :3], q], -1)),
    "transform_set_translation_copy": F(ref=lambda ts, t, p: np.concatenate([p, t[:, 3:]], -1)),
    "transform_set_rotation": F(ref=lambda ts, t, q: np.concatenate([t[:, :3], q], -1), mutates=(0,)),
    "transform_set_translation": F(ref=lambda ts, t, p: np.concatenate([p, t[:, 3:]], -1), mutates=(0,)),
    "transform_twist": F(ref=_twist_ref),
    "transform_wrench": F(ref=_wrench_ref),
    "velocity_at_point": F(ref=lambda ts, qd, r: qd[:, 3:] + np.cross(qd[:, :3], r)),
})


def _randu(ts, s, lo=None, hi=None):
    st = base.Stream(s)
    u = st.u32().astype(np.int64)
    if lo is None:
        return u.astype(np.uint32), st.s
    lo, hi = lo.astype(np.int64), hi.astype(np.int64)
    span = np.where(hi > lo, hi - lo, 1)
    return np.where(hi > lo, lo + u % span, lo).astype(np.uint32), st.s


EXTRA_REFS["randu"] = F(ref=_randu, mutates=(0,), domain=("state", "lo_int", "hi_int"))
EXTRA_REFS["block_dim"] = F(ref=lambda ts: np.ones(base.N_THREADS, dtype=np.int32))   # CPU


# --- geometry predicates ---------------------------------------------------------------------------
def _tri_tri_lp(v, u):
    """Independent of the kernel's edge tests: the triangles meet iff barycentric weights
    lam, mu >= 0 (each summing to 1) exist with V lam = U mu, a linear feasibility problem."""
    from scipy.optimize import linprog
    a_eq = np.zeros((5, 6))
    a_eq[:3, :3], a_eq[:3, 3:] = v.T, -u.T
    a_eq[3, :3], a_eq[4, 3:] = 1, 1
    res = linprog(np.zeros(6), A_eq=a_eq, b_eq=[0, 0, 0, 1, 1], bounds=[(0, None)] * 6, method="highs")
    return int(res.status == 0)


def _tri_tri(ts, v0, v1, v2, u0, u1, u2):
    return np.array([_tri_tri_lp(np.stack([v0[n], v1[n], v2[n]]), np.stack([u0[n], u1[n], u2[n]]))
                     for n in range(len(v0))], dtype=np.int32)


def _edge_edge(ts, p1, q1, p2, q2, eps):
    """Exhaustive: the interior stationary point and the best point of each of the four sides
    of the (s, t) square, keeping the nearest pair."""
    out = np.zeros((len(p1), 3))
    for n in range(len(p1)):
        d1, d2, r = q1[n] - p1[n], q2[n] - p2[n], p1[n] - p2[n]
        cands = []
        m = np.array([[d1 @ d1, -d1 @ d2], [-d1 @ d2, d2 @ d2]])
        if abs(np.linalg.det(m)) > 1e-12:
            s, t = np.linalg.solve(m, [-d1 @ r, d2 @ r])
            if 0 <= s <= 1 and 0 <= t <= 1:
                cands.append((s, t))
        for s in (0.0, 1.0):
            cands.append((s, np.clip(d2 @ (r + s * d1) / (d2 @ d2), 0, 1)))
        for t in (0.0, 1.0):
            cands.append((np.clip(-d1 @ (r - t * d2) / (d1 @ d1), 0, 1), t))
        dist = [np.linalg.norm(r + s * d1 - t * d2) for s, t in cands]
        k = int(np.argmin(dist))
        out[n] = cands[k][0], cands[k][1], dist[k]
    return out


EXTRA_REFS.update({
    "intersect_tri_tri": F(ref=_tri_tri),
    "closest_point_edge_edge": F(ref=_edge_edge, domain=("any", "any", "any", "any", "tiny"), tol=10),
})


def _check_between(ts, args, outs, tol):
    """q takes normalize(a) to normalize(b), by the angle between them (the shortest arc)."""
    a, b = args
    q = outs[0].astype(np.float64)
    na = a / np.linalg.norm(a, axis=1, keepdims=True)
    nb = b / np.linalg.norm(b, axis=1, keepdims=True)
    base._close(np.linalg.norm(q, axis=1), np.ones(len(q)), tol * 10)
    base._close(base.qrot(q, na), nb, tol * 20)
    angle = 2 * np.arctan2(np.linalg.norm(q[:, :3], axis=1), np.abs(q[:, 3]))
    base._close(angle, np.arccos(np.clip(np.sum(na * nb, 1), -1, 1)), tol * 50)


EXTRA_REFS["quat_between_vectors"] = F(check=_check_between)
