"""A tape as a graph, laid out and drawn in pure Python (SVG) when GraphViz is not installed.

The model: kernel launches are boxes, arrays ellipses, an edge per array read (array -> kernel)
and stored to (kernel -> array), from what the kernel's code does (runtime.tape_graph), and
ScopedTimer scopes are boxes around their launches. The layout
is layered left to right in launch order: a kernel goes one layer right of the arrays it reads,
an array one layer right of the first kernel that writes it.
"""

import html
from dataclasses import dataclass, field

from ..runtime.tape_graph import entry_label, launch_arrays

COL_W, ROW_H, NODE_W, NODE_H = 190, 64, 150, 40


@dataclass
class Node:
    id: str
    label: str
    kind: str          # "kernel", "array" or "step"
    layer: int = 0
    row: int = 0
    extra: str = ""    # a second line (dim, shape, gradient norm)


@dataclass
class Graph:
    nodes: dict = field(default_factory=dict)
    edges: list = field(default_factory=list)          # (from id, to id)
    scopes: list = field(default_factory=list)         # (name, [kernel node ids])


def array_label(a, names):
    return names.get(id(a)) or f"array{tuple(a.shape)}"


def grad_norm(a):
    import numpy as np
    g = getattr(a, "grad", None)
    if g is None:
        return None
    return float(np.sqrt(np.sum(np.square(g.numpy().astype(np.float64)))))


CONSUMED = "grad consumed"


def written_arrays(tape):
    """ids of the arrays a recorded step stores to."""
    out = set()
    for entry in tape.launches:
        if entry[0] == "launch":
            out.update(id(a) for a in launch_arrays(entry)[1])
    return out


def grad_text(a, tape, written):
    """``|grad|=N``, or CONSUMED for an array whose gradient ``tape.backward`` used and zeroed
    (an array a recorded step wrote: its adjoint passes on to what the step read, and is
    cleared so a second backward adds no more; docs/autodiff.md), or None without a gradient."""
    n = grad_norm(a)
    if n is None:
        return None
    if n == 0 and getattr(tape, "backward_passes", 0) and id(a) in written and \
            not getattr(a, "_retain_grad", False):
        return CONSUMED
    return f"|grad|={n:.3g}"


def tape_model(tape, names=None, with_grads=True):
    """The Graph of a tape (``names``: id(array) -> a readable name)."""
    names = names or {}
    g, arrays = Graph(), {}
    written = written_arrays(tape) if with_grads else set()

    def array_node(a):
        key = f"a{id(a)}"
        if key not in g.nodes:
            extra = f"{tuple(a.shape)}"
            note = grad_text(a, tape, written) if with_grads else None
            if note is not None:
                extra += f"  {note}"
            g.nodes[key] = Node(key, array_label(a, names), "array", extra=extra)
            arrays[key] = a
        return key

    open_scopes = []
    scope_at = {}
    for idx, name, *_ in tape.scopes:
        scope_at.setdefault(idx, []).append(name)
    for i, entry in enumerate(tape.launches):
        _apply_scopes(scope_at.get(i, []), open_scopes, g)
        key = f"k{i}"
        if entry[0] == "launch":
            g.nodes[key] = Node(key, entry[1].key, "kernel", extra=f"dim={entry[2]}")
            reads, writes = launch_arrays(entry, tape)
            ins, outs = [array_node(a) for a in reads], [array_node(a) for a in writes]
        else:
            g.nodes[key] = Node(key, entry_label(entry), "step")
            ins, outs = [], []
        g.edges += [(a, key) for a in ins] + [(key, a) for a in outs]
        for scope in open_scopes:
            scope[1].append(key)
    _apply_scopes(scope_at.get(len(tape.launches), []), open_scopes, g)
    while open_scopes:
        g.scopes.append(tuple(open_scopes.pop()))
    _layout(g)
    return g


def _apply_scopes(events, open_scopes, g):
    for name in events:
        if name is None:
            if open_scopes:
                g.scopes.append(tuple(open_scopes.pop()))
        else:
            open_scopes.append((name, []))


def _layout(g):
    layer = {}
    writers = {}
    for src, dst in g.edges:
        if g.nodes[dst].kind == "array":
            writers.setdefault(dst, src)
    for key, node in g.nodes.items():          # insertion order = launch order
        if node.kind != "array":
            ins = [s for s, d in g.edges if d == key]
            layer[key] = 1 + max([layer.get(s, 0) for s in ins] + [0])
            for s, d in g.edges:
                if s == key and writers.get(d) == key:
                    layer[d] = max(layer.get(d, 0), layer[key] + 1)
    for key, node in g.nodes.items():
        node.layer = layer.get(key, 0)
    rows = {}
    for node in g.nodes.values():              # first come, first row, per layer
        node.row = rows.get(node.layer, 0)
        rows[node.layer] = node.row + 1


def _pos(node):
    return 20 + node.layer * COL_W, 30 + node.row * ROW_H


def to_svg(g):
    """The laid-out Graph as SVG text."""
    if not g.nodes:
        return "<svg xmlns='http://www.w3.org/2000/svg' width='200' height='30'><text x='5' y='20'>empty tape</text></svg>"
    width = 40 + (max(n.layer for n in g.nodes.values()) + 1) * COL_W
    height = 60 + (max(n.row for n in g.nodes.values()) + 1) * ROW_H
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
           f"viewBox='0 0 {width} {height}' font-family='sans-serif' font-size='11'>",
           "<defs><marker id='arr' markerWidth='8' markerHeight='8' refX='7' refY='4' orient='auto'>"
           "<path d='M0,0 L8,4 L0,8 z' fill='#555'/></marker></defs>"]
    for name, members in g.scopes:
        out.append(_scope_box(g, name, members))
    for src, dst in g.edges:
        out.append(_edge(g.nodes[src], g.nodes[dst]))
    for node in g.nodes.values():
        out.append(_node(node))
    out.append("</svg>")
    return "".join(out)


def _scope_box(g, name, members):
    pts = [_pos(g.nodes[m]) for m in members if m in g.nodes]
    if not pts:
        return ""
    x0, y0 = min(p[0] for p in pts) - 8, min(p[1] for p in pts) - 20
    x1, y1 = max(p[0] for p in pts) + NODE_W + 8, max(p[1] for p in pts) + NODE_H + 8
    return (f"<rect x='{x0}' y='{y0}' width='{x1 - x0}' height='{y1 - y0}' rx='6' fill='#f4f4fb' "
            f"stroke='#99c' stroke-dasharray='4 2'/><text x='{x0 + 4}' y='{y0 + 12}' fill='#557'>"
            f"{html.escape(name)}</text>")


def _edge(a, b):
    (xa, ya), (xb, yb) = _pos(a), _pos(b)
    x1, y1 = xa + NODE_W, ya + NODE_H / 2
    x2, y2 = xb, yb + NODE_H / 2
    if x2 <= x1:   # an edge back to an earlier layer (an array read after it was written)
        x1, x2 = xa + NODE_W / 2, xb + NODE_W / 2
        y1, y2 = ya + NODE_H, yb + NODE_H
        mid = max(y1, y2) + 24
        return (f"<path d='M{x1},{y1} C{x1},{mid} {x2},{mid} {x2},{y2}' fill='none' stroke='#555' "
                "marker-end='url(#arr)'/>")
    c = (x2 - x1) / 2
    return (f"<path d='M{x1},{y1} C{x1 + c},{y1} {x2 - c},{y2} {x2},{y2}' fill='none' stroke='#555' "
            "marker-end='url(#arr)'/>")


def _node(n):
    x, y = _pos(n)
    label, extra = html.escape(n.label), html.escape(n.extra)
    if n.kind == "array":
        shape = (f"<ellipse cx='{x + NODE_W / 2}' cy='{y + NODE_H / 2}' rx='{NODE_W / 2}' "
                 f"ry='{NODE_H / 2}' fill='#fff7e6' stroke='#c90'/>")
    else:
        dash = " stroke-dasharray='4 2'" if n.kind == "step" else ""
        shape = (f"<rect x='{x}' y='{y}' width='{NODE_W}' height='{NODE_H}' rx='4' fill='#e8f0fb' "
                 f"stroke='#4c78a8'{dash}/>")
    return (f"{shape}<text x='{x + NODE_W / 2}' y='{y + 17}' text-anchor='middle' font-weight='bold'>"
            f"{label}</text><text x='{x + NODE_W / 2}' y='{y + 31}' text-anchor='middle' "
            f"fill='#444'>{extra}</text>")
