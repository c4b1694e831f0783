"""Brute-force NumPy references for the geometry tests (no acceleration structures)."""

import numpy as np


def closest_distance(points, tris):
    """Distance from each of Q points to the nearest of T triangles (T, 3, 3): (Q,)."""
    a, b, c = tris[:, 0], tris[:, 1], tris[:, 2]
    best = np.full(len(points), np.inf)
    for s0, s1 in ((a, b), (b, c), (c, a)):
        best = np.minimum(best, _segment_distance(points, s0, s1).min(axis=1))
    n = np.cross(b - a, c - a)
    nn = np.linalg.norm(n, axis=1)
    ok = nn > 1e-12
    n, a2, b2, c2 = n[ok] / nn[ok, None], a[ok], b[ok], c[ok]
    if len(n):
        d = np.einsum("qk,tk->qt", points, n) - np.einsum("tk,tk->t", a2, n)[None]
        proj = points[:, None, :] - d[..., None] * n[None]
        inside = np.ones(d.shape, bool)
        for u, v in ((a2, b2), (b2, c2), (c2, a2)):
            inside &= np.einsum("qtk,tk->qt", np.cross(v - u, proj - u[None]), n) >= 0
        plane = np.where(inside, np.abs(d), np.inf).min(axis=1)
        best = np.minimum(best, plane)
    return best


def closest_point(points, tris):
    """The nearest point on any of T triangles (T, 3, 3) to each of Q points: (Q, 3), float64."""
    a, b, c = tris[:, 0], tris[:, 1], tris[:, 2]
    cands = []
    for s0, s1 in ((a, b), (b, c), (c, a)):
        d = s1 - s0
        dd = np.maximum(np.einsum("tk,tk->t", d, d), 1e-30)
        t = np.clip(np.einsum("qtk,tk->qt", points[:, None, :] - s0[None], d) / dd, 0.0, 1.0)
        cands.append(s0[None] + t[..., None] * d[None])
    n = np.cross(b - a, c - a)
    nn = np.maximum(np.linalg.norm(n, axis=1), 1e-30)
    n = n / nn[:, None]
    dist = np.einsum("qk,tk->qt", points, n) - np.einsum("tk,tk->t", a, n)[None]
    proj = points[:, None, :] - dist[..., None] * n[None]
    inside = np.ones(dist.shape, bool)
    for u, v in ((a, b), (b, c), (c, a)):
        inside &= np.einsum("qtk,tk->qt", np.cross(v - u, proj - u[None]), n) >= 0
    cands.append(np.where(inside[..., None], proj, np.inf))
    allc = np.concatenate(cands, axis=1)                     # (Q, 4T, 3)
    d2 = np.nan_to_num(((allc - points[:, None, :]) ** 2).sum(axis=2), nan=np.inf)
    return allc[np.arange(len(points)), d2.argmin(axis=1)]


def winding_numbers(points, tris):
    """The exact generalized winding number of T triangles at each of Q points (float64)."""
    a, b, c = (tris[None, :, k] - points[:, None] for k in range(3))
    la, lb, lc = (np.linalg.norm(x, axis=2) for x in (a, b, c))
    num = np.einsum("qtk,qtk->qt", a, np.cross(b, c))
    den = (la * lb * lc + np.einsum("qtk,qtk->qt", a, b) * lc + np.einsum("qtk,qtk->qt", b, c) * la
           + np.einsum("qtk,qtk->qt", c, a) * lb)
    return (2.0 * np.arctan2(num, den)).sum(axis=1) / (4.0 * np.pi)


def _segment_distance(p, s0, s1):
    d = s1 - s0
    dd = np.maximum(np.einsum("tk,tk->t", d, d), 1e-30)
    t = np.clip(np.einsum("qtk,tk->qt", p[:, None, :] - s0[None], d) / dd, 0.0, 1.0)
    q = s0[None] + t[..., None] * d[None]
    return np.linalg.norm(p[:, None, :] - q, axis=2)


def ray_hits(origins, dirs, tris, eps=1e-9):
    """Nearest hit t of each ray over all triangles (inf for a miss): (R,)."""
    a, b, c = tris[:, 0], tris[:, 1], tris[:, 2]
    e1, e2 = b - a, c - a
    pv = np.cross(dirs[:, None, :], e2[None])
    det = np.einsum("rtk,tk->rt", pv, e1)
    ok = np.abs(det) > eps
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    tv = origins[:, None, :] - a[None]
    u = np.einsum("rtk,rtk->rt", tv, pv) * inv
    qv = np.cross(tv, e1[None])
    v = np.einsum("rk,rtk->rt", dirs, qv) * inv
    t = np.einsum("tk,rtk->rt", e2, qv) * inv
    hit = ok & (u >= 0) & (v >= 0) & (u + v <= 1) & (t >= 0)
    return np.where(hit, t, np.inf).min(axis=1)


def box_overlaps(qlo, qhi, lo, hi):
    """(Q, N) bool: query box q overlaps item box n."""
    return np.all((qlo[:, None, :] <= hi[None]) & (qhi[:, None, :] >= lo[None]), axis=2)


def ray_box_hits(origins, dirs, lo, hi):
    """(R, N) bool: the ray (t >= 0) meets item box n."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / dirs
        t0 = (lo[None] - origins[:, None, :]) * inv[:, None, :]
        t1 = (hi[None] - origins[:, None, :]) * inv[:, None, :]
    tn = np.nanmax(np.maximum(np.minimum(t0, t1), 0.0), axis=2)
    tf = np.nanmin(np.maximum(t0, t1), axis=2)
    return tn <= tf


def icosphere(subdiv=2, radius=1.0):
    """A closed, consistently outward-wound sphere mesh."""
    t = (1.0 + 5 ** 0.5) / 2
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t),
         (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
         (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9),
         (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    verts = [np.array(p, float) / np.linalg.norm(p) for p in v]
    for _ in range(subdiv):
        cache, nf = {}, []

        def mid(i, j):
            key = (min(i, j), max(i, j))
            if key not in cache:
                m = verts[i] + verts[j]
                verts.append(m / np.linalg.norm(m))
                cache[key] = len(verts) - 1
            return cache[key]
        for a, b, c in f:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            nf += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        f = nf
    return (np.array(verts) * radius).astype(np.float32), np.array(f, np.int32)


def ray_triangle_t(o, d, tris):
    """t of each of Q rays (o + t d) against each of T triangles (T, 3, 3), both faces, float64:
    (Q, T), NaN where it misses (barycentric weights outside [0, 1] or a ray in the plane)."""
    a, b, c = (tris[:, k].astype(np.float64) for k in range(3))
    e1, e2 = b - a, c - a
    o, d = o.astype(np.float64)[:, None], d.astype(np.float64)[:, None]
    n = np.cross(e1, e2)[None]                           # (1, T, 3)
    denom = np.sum(d * n, axis=2)                        # (Q, T)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.sum((a[None] - o) * n, axis=2) / denom
        x = o + t[..., None] * d - a[None]               # hit point relative to a
        # weights of b and c from the 2x2 normal equations of x = u e1 + v e2
        g11, g12, g22 = np.sum(e1 * e1, 1), np.sum(e1 * e2, 1), np.sum(e2 * e2, 1)
        x1, x2 = np.sum(x * e1[None], 2), np.sum(x * e2[None], 2)
        det = g11 * g22 - g12 * g12
        u = (g22 * x1 - g12 * x2) / det
        v = (g11 * x2 - g12 * x1) / det
    ok = (denom != 0) & (det > 1e-20) & (u >= 0) & (v >= 0) & (u + v <= 1)
    return np.where(ok, t, np.nan)
