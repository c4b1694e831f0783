"""Which array arguments a kernel reads and which it stores to, from its typed IR.

The translator knows every memory access: ``a[i] = v`` is an ``array_store`` call, ``a[i]`` a
``load``, ``wp.atomic_add(a, ...)`` an atomic; views (``a[i]`` of a 2-d array), copies,
``if``-joins and struct fields carry an array to a new variable, and a ``@wp.func`` call passes
arrays on (its own effects map back through its parameters). The tape graph draws
kernel -> array edges from this (an array written, whether or not it was passed in ``outputs=``).
"""

from .. import ir
from .walk import statements

# builtins whose first argument is an array they store to
_STORES = frozenset({"array_store", "atomic_add", "atomic_sub", "atomic_min", "atomic_max",
                     "atomic_exch", "atomic_and", "atomic_or", "atomic_xor", "atomic_cas"})
_STORE_PREFIXES = ("tile_store", "tile_atomic", "tile_scatter")
# builtins that hand on (a part of) their array argument: the result is the same memory
_ALIASES = frozenset({"view", "address"})
# builtins that read an array's descriptor, not its memory
_METADATA = frozenset({"array_shape", "len"})


def _stores(name):
    return name in _STORES or name.startswith(_STORE_PREFIXES)


def _holds_memory(t):
    """An array (or a struct, which may hold arrays), not a value such as ``a.shape``."""
    return (hasattr(t, "ndim") and hasattr(t, "dtype")) or hasattr(t, "fields")


def array_effects(fir, _memo=None):
    """(read, written): the sets of parameter names of ``fir`` (a FunctionIR) whose memory the
    code loads from and stores to."""
    memo = {} if _memo is None else _memo
    if id(fir) in memo:
        return memo[id(fir)]
    memo[id(fir)] = (set(), set())        # a recursive call contributes nothing new
    roots = {id(p): {p.name} for p in fir.params}
    read, written = set(), set()

    def of(v):
        return roots.get(id(v), set()) if v is not None else set()

    for s in statements(fir.body):
        if isinstance(s, ir.Copy):
            roots.setdefault(id(s.dst), set()).update(of(s.src))
        elif isinstance(s, ir.Select):
            roots.setdefault(id(s.out), set()).update(of(s.if_true) | of(s.if_false))
        elif isinstance(s, ir.GetField) and _holds_memory(s.out.type):
            roots.setdefault(id(s.out), set()).update(of(s.src))   # a struct's array field
        elif isinstance(s, ir.Call):
            _call(s, of, roots, read, written, memo)
    memo[id(fir)] = (read, written)
    return read, written


def _call(s, of, roots, read, written, memo):
    func = s.func
    callee = getattr(func, "ir", None) if not hasattr(func, "input_types") else None
    if callee is not None:                       # a @wp.func: its effects through its params
        c_read, c_written = array_effects(callee, memo)
        for p, a in zip(callee.params, s.args):
            if p.name in c_read:
                read.update(of(a))
            if p.name in c_written:
                written.update(of(a))
        return
    name = getattr(func, "name", "")
    first = of(s.args[0]) if s.args else set()
    declared = getattr(func, "array_access", None)
    if declared:      # the builtin says what it does to each array argument
        for i, a in enumerate(s.args):
            if i in declared:
                (written if declared[i] == "write" else read).update(of(a))
        return
    if _stores(name):
        written.update(first)      # an atomic's old value is rarely used: it accumulates, not reads
    elif name in _METADATA:
        return
    elif name in _ALIASES:
        if s.out is not None:
            roots.setdefault(id(s.out), set()).update(first)
        if name == "address":
            read.update(first)
    else:
        for a in s.args:                         # any other use reads (load, tile_load, ...)
            read.update(of(a))
