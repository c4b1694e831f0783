"""Array accesses at the thread's own index: no other thread of the launch touches that element.

An index tuple is the thread's own when it contains the flat ``wp.tid()`` or every component of
an ``i, j[, k...] = wp.tid()`` (the launch checks that their number is the launch's dimension),
held in variables never reassigned. The adjoint of such an access needs no atomics: a store takes
the element's gradient with a plain read and clear (``adj_array_store_own``).

A read's adjoint adds to the element's gradient, which other threads' reads of the same array at
other indices (``a[i + 1]``) may add to as well: it is plain (``adj_load(..., _own)``) only for an array
parameter that the kernel touches at the thread's own index alone (``own_arrays``), and only in
launches where no other array parameter's gradient overlaps it (the entry checks that at run
time with ``wp::grad_disjoint``; otherwise the body takes the atomic adjoint)."""

from ..lang import ir
from ..types.array import array as _array_type
from ..types.indexedarray import is_indexed
from ..lang.analysis.walk import statements
from .ir_uses import reads, writes


class OwnIndex:
    """Which index variables of a kernel name the thread's own element."""

    def __init__(self, fir):
        self.flat = set()       # ids of variables holding wp.tid()
        self.parts = {}         # id -> (k, count) for the components of i, j = wp.tid()
        if not fir.is_kernel:
            return
        stmts = list(statements(fir.body))
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

    def own_adds(self, fir):
        """Ids of the array parameters that ``atomic_add``/``atomic_sub`` (``a[i] += v``) may
        update with a plain read-modify-write: every use of the array is an element access at the
        thread's own index (so no other thread of the launch names that element through it), and
        no other array parameter is written (one that aliases it could write the element from
        another thread; reads racing with the update are as undefined with atomics). Plain adds
        perform the atomic's own operation, so results are the same bits, and a lane-blocked
        forward body then vectorises (`acc[i] += f(j)` in a loop over j: 50x)."""
        owned = self._own_only(fir)
        if not owned:
            return set()
        added, written = set(), set()
        for st in statements(fir.body):
            name = getattr(st.func, "cpp", None) if isinstance(st, ir.Call) else None
            if name is None or hasattr(st.func, "function") or not st.args:
                continue
            if name in _WRITES:
                written.add(id(st.args[0]))
                if name in ("atomic_add", "atomic_sub"):
                    added.add(id(st.args[0]))
        return {a for a in added & owned if not (written - {a})}

    def own_arrays(self, fir):
        """Ids of the array parameters read, every use of which is an element access at the
        thread's own index (or a shape query): their read adjoints may be plain. None qualify when a
        non-parameter array exists (a view, a struct's field, an array from a pointer): it may
        alias a parameter, which the entry's run-time check does not see."""
        return self._own_only(fir, loaded=True)

    def _own_only(self, fir, loaded=False):
        """The array parameters every use of which is an own-index access (or a shape query);
        ``loaded``: only those also read."""
        if not fir.is_kernel or any(isinstance(v.type, _array_type) for v in fir.vars):
            return set()
        if any(not isinstance(p.type, _array_type) and _holds_arrays(p.type) for p in fir.params):
            return set()
        # an indexed array's index arrays may name one element for several threads: never own
        arrays = {id(p) for p in fir.params if isinstance(p.type, _array_type) and not is_indexed(p.type)}
        loads = set()
        for st in statements(fir.body):
            arrays -= {id(v) for v in writes(st)}    # a parameter reassigned may hold another array
            used = [v for v in reads(st, every_kind=True) if id(v) in arrays]
            if not used:
                continue
            name = getattr(st.func, "cpp", None) if isinstance(st, ir.Call) else None
            ok = (name in _NO_INDEX and not hasattr(st.func, "function")) or (
                name in _OWN_ACCESS and not hasattr(st.func, "function") and st.args[0] is used[0]
                and len(used) == 1 and self.is_own(_indices(st, name)))
            if not ok:
                arrays -= {id(v) for v in used}
            elif name == "load":
                loads.add(id(used[0]))
        return arrays & loads if loaded else arrays    # only reads have adjoints to make plain

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


# element accesses whose adjoint touches only the accessed element's gradient
_OWN_ACCESS = {"load", "array_store", "atomic_add", "atomic_sub", "atomic_min", "atomic_max",
               "atomic_exch", "atomic_and", "atomic_or", "atomic_xor", "atomic_cas"}
_NO_INDEX = {"array_shape", "len", "array_nonnull"}
# element accesses that write the array
_WRITES = _OWN_ACCESS - {"load"} | {"view", "address"}


def _indices(st, name):
    """The index arguments of an element access (after the array, before any values)."""
    values = {"load": 0, "atomic_cas": 2}.get(name, 1)
    return st.args[1:len(st.args) - values]


def _holds_arrays(t):
    """Whether a parameter of type ``t`` (a struct) carries arrays, at any depth."""
    fields = getattr(getattr(t, "_wp_struct_", None) or t, "fields", None)
    if not isinstance(fields, dict):
        return False
    return any(isinstance(ft, _array_type) or _holds_arrays(ft) for ft in fields.values())
