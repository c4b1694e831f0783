"""Graph colouring for parallel constraint solving: ``wp.utils.graph_coloring_assign``,
``graph_coloring_balance``, ``graph_coloring_get_groups`` and ``GraphColoringAlgorithm``, with
warp-lang 1.19's arguments, results, warnings and errors.

Nodes of one colour share no edge, so a solver can update each colour's nodes in parallel. The
graph is given by its edge list (an ``(edge_count, 2)`` int32 CPU array) and the node count by the
length of ``node_colors``. The algorithms run on the host (warp-lang's run in its native library,
on the CPU too); the choices they make where several are equally good (which node first, which
colour) follow warp-lang's, so that the same input gives the same colouring.
"""

import enum
import heapq
import operator

import numpy as np

from ..logger import log_warning
from ..types import scalars as sc
from ..types.array import array
from ..types.dtypes import type_repr

__all__ = ["GraphColoringAlgorithm", "graph_coloring_assign", "graph_coloring_balance",
           "graph_coloring_get_groups"]


class GraphColoringAlgorithm(enum.IntEnum):
    """Graph coloring algorithm selection."""

    MCS = 0
    """Maximum Cardinality Search: nodes in the order of most already-coloured neighbours."""

    GREEDY = 1
    """Nodes by decreasing degree, each given the smallest colour its neighbours leave free."""


# ---------------------------------------------------------------- checks


def _check_array(a, name, ndim):
    if not a.device.is_cpu:
        raise RuntimeError(f"{name} array must be on the CPU")
    if a.dtype != sc.int32:
        raise RuntimeError(f"{name} array must have dtype int32, got {type_repr(a.dtype)}")
    if a.ndim != ndim:
        raise RuntimeError(f"{name} array must be {ndim}-dimensional, got {a.ndim} dimensions")


def _check_edges(edges, node_colors):
    _check_array(edges, "edges", 2)
    if edges.shape[1] != 2:
        raise RuntimeError(f"edges array must have shape (edge_count, 2), got shape {edges.shape}")
    _check_array(node_colors, "node_colors", 1)


def _edge_list(edges, node_count, what):
    """The edges as an (m, 2) int64 NumPy array, every endpoint checked against the node count."""
    e = np.asarray(edges.numpy(), dtype=np.int64).reshape(-1, 2)
    bad = np.nonzero(((e < 0) | (e >= node_count)).any(axis=1))[0]
    if bad.size:
        i = int(bad[0])
        raise RuntimeError(f"{what} failed: Graph edge {i} has endpoints ({e[i, 0]}, {e[i, 1]}), "
                           f"but valid node indices are in the range [0, {node_count}).")
    return e


def _neighbours(e, node_count):
    """Each node's neighbours (sets: repeated edges and self-loops count once / not at all)."""
    adj = [set() for _ in range(node_count)]
    for a, b in e.tolist():
        if a != b:
            adj[a].add(b)
            adj[b].add(a)
    return adj


# ---------------------------------------------------------------- assignment


def _smallest_free(adj_node, colors):
    used = {colors[n] for n in adj_node if colors[n] >= 0}
    c = 0
    while c in used:
        c += 1
    return c


def _greedy(adj):
    """Nodes by decreasing degree (lower index first among equal degrees)."""
    colors = [-1] * len(adj)
    for n in sorted(range(len(adj)), key=lambda i: -len(adj[i])):
        colors[n] = _smallest_free(adj[n], colors)
    return colors


def _mcs(adj):
    """Maximum cardinality search: next the node with the most coloured neighbours (lower index
    first among equals), given the smallest colour they leave free."""
    colors = [-1] * len(adj)
    weight = [0] * len(adj)
    heap = [(0, i) for i in range(len(adj))]
    heapq.heapify(heap)
    while heap:
        w, n = heapq.heappop(heap)
        if colors[n] >= 0 or -w != weight[n]:
            continue           # already coloured, or a stale entry
        colors[n] = _smallest_free(adj[n], colors)
        for m in adj[n]:
            if colors[m] < 0:
                weight[m] += 1
                heapq.heappush(heap, (-weight[m], m))
    return colors


def graph_coloring_assign(edges, node_colors, algorithm=GraphColoringAlgorithm.MCS):
    """Colour the nodes so that no edge joins two nodes of one colour; returns the colour count.

    ``edges``: ``(edge_count, 2)`` int32 CPU array of undirected edges; ``node_colors``: int32 CPU
    array of shape ``(node_count,)``, filled in place.
    """
    _check_edges(edges, node_colors)
    node_count = node_colors.shape[0]
    if node_count == 0:
        raise RuntimeError("Cannot color an empty graph")
    try:
        algorithm = GraphColoringAlgorithm(int(algorithm))
    except ValueError:
        raise RuntimeError(f"Graph coloring failed: Unrecognized coloring algorithm number: "
                           f"{int(algorithm)}!") from None
    adj = _neighbours(_edge_list(edges, node_count, "Graph coloring"), node_count)
    colors = _mcs(adj) if algorithm == GraphColoringAlgorithm.MCS else _greedy(adj)
    node_colors.assign(np.asarray(colors, dtype=np.int32))
    return max(colors) + 1


# ---------------------------------------------------------------- balancing


def _ratio(sizes):
    """Largest over smallest group size, in float32 as warp-lang reports it."""
    small = min(sizes)
    if small == 0:
        return float("inf")
    return float(np.float32(max(sizes)) / np.float32(small))


class _Balancer:
    """Colour groups as lists (a node leaves by swap-with-last, joins at the end: the order in
    which later moves find their candidates) and each node's count of neighbours per colour."""

    def __init__(self, adj, colors, color_count):
        self.adj, self.colors = adj, colors
        self.groups = [[] for _ in range(color_count)]
        self.where = [0] * len(colors)
        for n, c in enumerate(colors):
            self.where[n] = len(self.groups[c])
            self.groups[c].append(n)
        self.near = [{} for _ in colors]        # node -> {colour: neighbours of that colour}
        for n, nbrs in enumerate(adj):
            counts = self.near[n]
            for m in nbrs:
                counts[colors[m]] = counts.get(colors[m], 0) + 1

    def sizes(self):
        return [len(g) for g in self.groups]

    def find_move(self):
        """A node that can join the smallest group: from the largest group first, then the next
        largest..., only from groups larger than the target, first candidate in group order."""
        sizes = self.sizes()
        target = sizes.index(min(sizes))
        for source in sorted(range(len(sizes)), key=lambda c: -sizes[c]):
            if sizes[source] <= sizes[target]:
                break
            for n in self.groups[source]:
                if not self.near[n].get(target):
                    return n, source, target
        return None

    def move(self, n, source, target):
        group = self.groups[source]
        i, last = self.where[n], group[-1]
        group[i], self.where[last] = last, i
        group.pop()
        self.where[n] = len(self.groups[target])
        self.groups[target].append(n)
        self.colors[n] = target
        for m in self.adj[n]:
            counts = self.near[m]
            counts[source] -= 1
            counts[target] = counts.get(target, 0) + 1


def _max_iterations(max_iterations, node_count):
    if max_iterations is None:
        return node_count
    if isinstance(max_iterations, (bool, np.bool_)):
        raise TypeError(f"max_iterations must be an integer or None, got {type(max_iterations).__name__}")
    try:
        max_iterations = operator.index(max_iterations)
    except TypeError:
        raise TypeError(f"max_iterations must be an integer or None, got "
                        f"{type(max_iterations).__name__}") from None
    if max_iterations < 0:
        raise ValueError(f"max_iterations must be non-negative, got {max_iterations}")
    if max_iterations > np.iinfo(np.int32).max:
        raise ValueError(f"max_iterations must not exceed {np.iinfo(np.int32).max}, got {max_iterations}")
    return max_iterations


def graph_coloring_balance(edges, node_colors, color_count, target_max_min_ratio, *, max_iterations=None):
    """Move nodes between colours (keeping the colouring valid) until the largest colour group is
    at most ``target_max_min_ratio`` times the smallest, no group is more than two nodes larger
    than another, no move is left, or ``max_iterations`` recolourings (default: the node count)
    are done (a warning then). ``node_colors`` is left holding the best colouring seen; returns
    its max/min group-size ratio."""
    _check_edges(edges, node_colors)
    node_count = node_colors.shape[0]
    max_iterations = _max_iterations(max_iterations, node_count)
    e = _edge_list(edges, node_count, "Graph coloring balance")
    colors = node_colors.numpy().astype(np.int64).tolist()
    for n, c in enumerate(colors):
        if not 0 <= c < color_count:
            raise RuntimeError(f"Graph coloring balance failed: Node {n} has color {c}, but valid colors "
                               f"are in the range [0, {color_count}).")
    if color_count == 0 or node_count == 0:
        return 1.0 if node_count == 0 else float("inf")
    state = _Balancer(_neighbours(e, node_count), colors, color_count)
    best, best_ratio = list(colors), _ratio(state.sizes())
    done = 0
    while True:
        sizes = state.sizes()
        ratio = _ratio(sizes)
        if ratio <= best_ratio:      # an equal ratio: the later colouring (as warp-lang)
            best, best_ratio = list(colors), ratio
        if ratio <= target_max_min_ratio or max(sizes) - min(sizes) <= 2:
            break
        found = state.find_move()
        if found is None:
            break
        if done == max_iterations:
            log_warning(f"Graph coloring stopped because it reached the {max_iterations}-iteration limit "
                        f"(achieved ratio {best_ratio:g}, target {target_max_min_ratio:g}).", stacklevel=2)
            break
        state.move(*found)
        done += 1
    node_colors.assign(np.asarray(best, dtype=np.int32))
    return best_ratio


# ---------------------------------------------------------------- groups


def graph_coloring_get_groups(node_colors, color_count, return_wp_array=True, device="cpu"):
    """The node indices of each colour, in increasing order: a tuple of ``color_count`` int32
    arrays (``wp.array`` on ``device``, or NumPy arrays with ``return_wp_array=False``)."""
    if color_count < 0:
        raise RuntimeError("color_count must be non-negative")
    if color_count == 0:
        return ()
    _check_array(node_colors, "node_colors", 1)
    colors = node_colors.numpy()
    order = np.argsort(colors, kind="stable").astype(np.int32)
    bounds = np.searchsorted(colors[order], np.arange(color_count + 1))
    groups = tuple(order[bounds[c]:bounds[c + 1]] for c in range(color_count))
    if return_wp_array:
        return tuple(array(g, dtype=sc.int32, device=device) for g in groups)
    return groups
