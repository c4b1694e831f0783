"""The two walks the analyses share: over the statements of an IR body (nested blocks in
program order) and over a call graph (each node once, depth first). Every IR analysis and
call-graph question in lang/ and codegen/ walks through these two.

An analysis that carries context into nested blocks (a guard, a uniform-control flag) recurses
itself, taking a statement's blocks from ``child_blocks``.
"""

from .. import ir


def child_blocks(st):
    """The blocks nested in statement ``st``, in program order (a while loop's condition block
    before its body; an if's body before its else)."""
    kind = type(st)
    if kind is ir.If:
        blocks = (st.body, st.orelse)
    elif kind is ir.ForRange:
        blocks = (st.body,)
    elif kind is ir.While:
        blocks = (st.cond_block, st.body)
    else:
        return ()
    return tuple(b for b in blocks if b is not None)


def statements(block):
    """Every statement of ``block`` (an ir.Block, a list of statements or None), nested blocks
    included, each right before the statements of its own blocks."""
    stmts = block.stmts if isinstance(block, ir.Block) else (block or ())
    for st in stmts:
        yield st
        for b in child_blocks(st):
            yield from statements(b)


def reach(roots, successors, key=id, seen=None):
    """Every node reachable from ``roots`` (roots included), once each by ``key(node)``, depth
    first (the last root first); ``successors(node)`` gives the nodes a node leads to. Nodes
    whose key is in ``seen`` (a set, added to) are neither given nor followed."""
    seen, stack = (set() if seen is None else seen), list(roots)
    while stack:
        node = stack.pop()
        k = key(node)
        if k in seen:
            continue
        seen.add(k)
        yield node
        stack.extend(successors(node))


def callee_irs(fir):
    """The IRs of the @wp.funcs ``fir`` calls (translated on first use): the successors of a
    walk over functions' IRs."""
    return [ov.ir for ov in fir.calls if hasattr(ov, "ir")]


def reached_irs(fir):
    """``fir`` and the IR of every @wp.func it reaches (each once)."""
    return reach([fir], callee_irs)
