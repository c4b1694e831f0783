"""Array accesses at the thread's own index: no other thread of the launch touches that element.

An index tuple is the thread's own when it contains the flat ``wp.tid()`` or every component of
an ``i, j[, k...] = wp.tid()`` (the launch checks that their number is the launch's dimension),
held in variables never reassigned. The adjoint of such an access needs no atomics: a store takes
the element's gradient with a plain read and clear (``adj_array_store_own``)."""

from ..lang import ir


def _walk(block):
    for st in block.stmts:
        yield st
        for sub in ("body", "orelse", "cond_block"):
            b = getattr(st, sub, None)
            if isinstance(b, ir.Block):
                yield from _walk(b)


class OwnIndex:
    """Which index variables of a kernel name the thread's own element."""

    def __init__(self, fir):
        self.flat = set()       # ids of variables holding wp.tid()
        self.parts = {}         # id -> (k, count) for the components of i, j = wp.tid()
        if not fir.is_kernel:
            return
        stmts = list(_walk(fir.body))
        reassigned = {id(s.dst) for s in stmts if isinstance(s, ir.Copy)}
        for s in stmts:
            if not isinstance(s, ir.Call) or not isinstance(s.out, ir.Var) or id(s.out) in reassigned:
                continue
            name = getattr(s.func, "cpp", None)
            if name == "tid" and not hasattr(s.func, "function"):
                self.flat.add(id(s.out))
            elif name == "tid_nd" and not hasattr(s.func, "function"):
                k, count = (a.constant for a in s.args)
                if isinstance(k, int) and isinstance(count, int):
                    self.parts[id(s.out)] = (k, count)

    def is_own(self, indices):
        """Whether the index variables ``indices`` name an element no other thread names."""
        ids = {id(v) for v in indices}
        if ids & self.flat:
            return True
        found = {}
        for key in ids:
            if key in self.parts:
                k, count = self.parts[key]
                found.setdefault(count, set()).add(k)
        return any(len(ks) == count for count, ks in found.items())
