"""Grouped BVHs (``wp.Bvh(groups=...)``, ``wp.Mesh(groups=...)``): one subtree per group.

Each group's items get their own native SAH tree; a small top tree over the groups' bounds joins
them under node 0, so whole-tree queries see every item and a query started at a group's root
(``bvh_get_group_root``) sees only that group. Layout: the top tree's internal nodes first
(pre-order, so children follow their parent, as the native refit and the queries expect), then
each group's nodes with child indices and leaf slots shifted. Node records are 8 int32:
lower xyz (float bits), left, upper xyz (float bits), right; a leaf has left = ~first slot.
"""

import numpy as np

from .descriptors import address, native


def build_tree(place, lo, hi, groups, owner):
    """(nodes, items, count) of the BVH over the boxes, and the group table put on ``place``:
    (num_groups, ids address, roots address). ``groups``: None or a wp.array of int32, one per box."""
    if groups is None:
        nodes, items, count = native().bvh_build(address(lo), address(hi), len(lo))
        return nodes, items, count, (0, 0, 0)
    from ..types import scalars as sc
    from ..types.array import array
    if not isinstance(groups, array) or groups.dtype is not sc.int32:
        got = getattr(getattr(groups, "dtype", None), "__name__", type(groups).__name__)
        raise TypeError(f"{owner}: groups must be a wp.array of int32, got {got}")
    g = np.asarray(groups.numpy()).reshape(-1)
    if len(g) != len(lo):
        raise ValueError(f"{owner}: {len(g)} groups for {len(lo)} items (one per item)")
    if not len(g):
        nodes, items, count = native().bvh_build(address(lo), address(hi), 0)
        return nodes, items, count, (0, 0, 0)
    nodes, items, count, ids, roots = build_grouped(lo, hi, g)
    return nodes, items, count, (len(ids), place.put("group_ids", ids), place.put("group_roots", roots))


_CONSTRUCTORS = (None, "sah", "median", "lbvh")


def is_cubql_available():
    """Whether the cuBQL GPU BVH builder (the reference's ``bvh_constructor="cubql"``) can be
    used: never here (it is not part of this package), so callers fall back to the others."""
    return False


def check_constructor(value, owner):
    """The reference's BVH construction choices are accepted; the tree here is always built by
    the native binned-SAH builder (a quality choice, not a difference in query results)."""
    name = getattr(value, "value", value)
    name = name.lower() if isinstance(name, str) else name
    if name not in _CONSTRUCTORS:
        raise ValueError(f"{owner}: unknown BVH constructor {value!r}; expected 'sah', "
                         f"'median' or 'lbvh'")


def build_grouped(lo, hi, groups):
    """(node bytes, items, node count, group ids, group roots) of the grouped tree over the
    boxes ``lo``/``hi`` ((n, 3) float32) with one int32 group per item."""
    ids = np.unique(groups)
    parts = []
    for g in ids:
        members = np.flatnonzero(groups == g).astype(np.int32)
        glo, ghi = np.ascontiguousarray(lo[members]), np.ascontiguousarray(hi[members])
        nodes, items, count = native().bvh_build(address(glo), address(ghi), len(members))
        parts.append((nodes.view(np.int32).reshape(-1, 8)[:count].copy(), members[items[:len(members)]]))
    top = _top_tree(parts)
    out, all_items, roots, node_off, slot_off = [top], [], [], len(top), 0
    for nodes, items in parts:
        shifted = nodes.copy()
        leaf = shifted[:, 3] < 0
        shifted[leaf, 3] = ~(~shifted[leaf, 3] + slot_off)
        shifted[~leaf, 3] += node_off
        shifted[~leaf, 7] += node_off
        roots.append(node_off)
        out.append(shifted)
        all_items.append(items)
        node_off += len(nodes)
        slot_off += len(items)
    _link_top(top, roots, [nodes[0] for nodes, _ in parts])
    nodes = np.ascontiguousarray(np.concatenate(out)).view(np.uint8).reshape(-1)
    return (nodes, np.concatenate(all_items).astype(np.int32), node_off,
            ids.astype(np.int32), np.asarray(roots, np.int32))


def _top_tree(parts):
    """The G - 1 internal nodes joining G group roots (filled in by _link_top)."""
    return np.zeros((max(len(parts) - 1, 0), 8), np.int32)


def _link_top(top, roots, root_records):
    """Fill the top tree in pre-order: node k splits its range of groups in halves; a child is
    another top node or a group's root. Bounds are the union of the children's."""
    if not len(top):
        return
    records = dict(zip(roots, root_records))
    next_free = [0]

    def box(i):
        f = (top[i] if i < len(top) else records[i]).view(np.float32)
        return f[0:3], f[4:7]

    def build(first, last):   # groups [first, last) -> node index
        if last - first == 1:
            return roots[first]
        k = next_free[0]
        next_free[0] += 1
        mid = (first + last) // 2
        left, right = build(first, mid), build(mid, last)
        (llo, lhi), (rlo, rhi) = box(left), box(right)
        f = top[k].view(np.float32)
        f[0:3], f[4:7] = np.minimum(llo, rlo), np.maximum(lhi, rhi)
        top[k, 3], top[k, 7] = left, right
        return k

    build(0, len(roots))
