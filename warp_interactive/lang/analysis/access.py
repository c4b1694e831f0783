"""Which array parameters a function's code indexes, and which it may write.

The launch asks this only when an argument needs it (``None`` for an array, a read-only or
stride-0 buffer), so ordinary launches never translate for it. The answer is conservative:
an array passed to a builtin this table does not know counts as written, and a value that
merely flows through ``Copy``/``Select``/array views keeps its parameter's name.
"""

from .. import ir
from .walk import child_blocks, statements

READS = frozenset({"load", "lower_bound", "volume_lookup", "volume_sample", "volume_sample_grad"})
NO_INDEX = frozenset({"array_shape", "len", "array_nonnull"})   # shape or null test only
VIEWS = frozenset({"view"})


def _follow_alias(st, alias):
    """Carry a parameter's name through a copy or a select of it (``alias``: value id -> name);
    whether ``st`` was one of those."""
    if isinstance(st, ir.Copy):
        if id(st.src) in alias:
            alias[id(st.dst)] = alias[id(st.src)]
        return True
    if isinstance(st, ir.Select):
        for v in (st.if_true, st.if_false):
            if id(v) in alias:
                alias[id(st.out)] = alias[id(v)]
        return True
    return False


def _builtin_access(func):
    name = getattr(func, "cpp", "") or ""
    base = getattr(func, "name", name)
    if base in NO_INDEX or name in NO_INDEX:
        return None
    if base in READS or name in READS or base.startswith("volume_sample") or base.startswith("volume_lookup"):
        return "read"
    return "write"


def param_access(fir, _memo=None):
    """{parameter name: {"read"} or {"read", "write"}} for the array parameters ``fir`` indexes
    (directly, through views or through the @wp.funcs it calls)."""
    memo = {} if _memo is None else _memo
    if id(fir) in memo:
        return memo[id(fir)]
    memo[id(fir)] = {}          # a recursive call sees "nothing more" while this one is walked
    alias = {id(p): p.name for p in fir.params}
    out = {}

    def mark(var, kind):
        name = alias.get(id(var))
        if name is not None:
            out.setdefault(name, set()).update({"read", kind} if kind else {"read"})

    for st in statements(fir.body):
        if _follow_alias(st, alias):
            continue
        if isinstance(st, ir.Call):
            _call_access(st, alias, mark, memo)
    memo[id(fir)] = out
    return out


def _call_access(st, alias, mark, memo):
    args = [a for a in st.args if hasattr(a, "id")]
    if hasattr(st.func, "function"):       # a user @wp.func: what it does with its parameters
        callee = st.func.ir
        inner = param_access(callee, memo)
        for p, a in zip(callee.params, args):
            for kind in inner.get(p.name, ()):
                mark(a, "write" if kind == "write" else None)
        return
    name = getattr(st.func, "name", "")
    if name in VIEWS and args and id(args[0]) in alias and st.out is not None:
        alias[id(st.out)] = alias[id(args[0])]
        mark(args[0], None)
        return
    declared = getattr(st.func, "array_access", None)
    if declared:      # the builtin says what it does to each array argument
        for i, a in enumerate(st.args):
            if i in declared and id(a) in alias:
                mark(a, "write" if declared[i] == "write" else None)
        return
    kind = _builtin_access(st.func)
    if kind is None:
        return
    for a in args:
        if id(a) in alias:
            mark(a, "write" if kind == "write" else None)


def unguarded_params(fir, _memo=None):
    """The array parameters ``fir`` indexes somewhere not under a test of that array (the body
    of ``if a:``, the ``else`` of ``if not a:``, in a @wp.func it calls too): a None passed for
    one of them would be indexed. A None for the others is what the kernel tests for."""
    memo = {} if _memo is None else _memo
    if id(fir) in memo:
        return memo[id(fir)]
    memo[id(fir)] = set()
    alias = {id(p): p.name for p in fir.params}
    tests = {}      # id of a bool value -> (parameter, negated): array_nonnull(a), not of it
    out = set()

    def walk(block, guarded):
        for st in block.stmts if block is not None else ():
            if isinstance(st, ir.Copy):     # `a and ...`, `not a or ...` carry the test in a copy
                t = tests.get(id(st.src))
                if t is not None:
                    tests[id(st.dst)] = t
                else:
                    tests.pop(id(st.dst), None)
            if _follow_alias(st, alias):
                continue
            if isinstance(st, ir.If):
                t = tests.get(id(st.cond))
                walk(st.body, guarded | {t[0]} if t and not t[1] else guarded)
                walk(st.orelse, guarded | {t[0]} if t and t[1] else guarded)
            elif isinstance(st, ir.Call):
                _guarded_call(st, alias, tests, guarded, out, memo)
            else:
                for b in child_blocks(st):
                    walk(b, guarded)

    walk(fir.body, frozenset())
    memo[id(fir)] = out
    return out


def _guarded_call(st, alias, tests, guarded, out, memo):
    args = [a for a in st.args if hasattr(a, "id")]
    name = getattr(st.func, "name", "")
    if name == "array_nonnull" and args and id(args[0]) in alias and st.out is not None:
        tests[id(st.out)] = (alias[id(args[0])], False)
        return
    if name == "bool_not" and args and id(args[0]) in tests and st.out is not None:
        p, negated = tests[id(args[0])]
        tests[id(st.out)] = (p, not negated)
        return
    if hasattr(st.func, "function"):      # a @wp.func: what it indexes without testing
        inner = unguarded_params(st.func.ir, memo)
        for p, a in zip(st.func.ir.params, args):
            n = alias.get(id(a))
            if p.name in inner and n is not None and n not in guarded:
                out.add(n)
        return

    def mark(var, kind):
        n = alias.get(id(var))
        if n is not None and n not in guarded:
            out.add(n)
    _call_access(st, alias, mark, {})


def kernel_unguarded(kernel):
    """``unguarded_params`` of a kernel's IR, cached with that IR."""
    fir = kernel.ir
    cached = getattr(kernel, "_unguarded", None)
    if cached is None or cached[0] is not fir:
        cached = kernel._unguarded = (fir, unguarded_params(fir))
    return cached[1]


def kernel_access(kernel):
    """``param_access`` of a kernel's IR, cached with that IR (it is remade when the IR is)."""
    fir = kernel.ir
    cached = getattr(kernel, "_access", None)
    if cached is None or cached[0] is not fir:
        cached = kernel._access = (fir, param_access(fir))
    return cached[1]


def kernel_read_write(kernel, fields=False):
    """(``param_read_write(ir, fields=fields)`` of a kernel's IR, fresh): cached with that IR;
    ``fresh`` is True for the first call after the IR was (re)made (the overwrite warnings are
    given once per translation)."""
    fir = kernel.ir
    attr = "_read_write_fields" if fields else "_read_write"
    cached = getattr(kernel, attr, None)
    if cached is None or cached[0] is not fir:
        cached = (fir, param_read_write(fir, fields=fields))
        setattr(kernel, attr, cached)
        return cached[1], True
    return cached[1], False


# --- reads and writes, exactly (wp.config.verify_autograd_array_access) ----------------------------
READ_PREFIXES = ("tile_load", "volume_sample", "volume_lookup")
WRITE_PREFIXES = ("array_store", "atomic_", "tile_store", "tile_atomic_add", "tile_scatter")


def _rw_kinds(func):
    """What a builtin does to the arrays it takes: reads, writes (an atomic ``a[i] += v``
    writes without reading, as warp-lang counts it), or, unknown, both."""
    name = getattr(func, "cpp", "") or ""
    base = getattr(func, "name", name)
    if base in NO_INDEX or name in NO_INDEX:
        return ()
    if base in READS or name in READS or base.startswith(READ_PREFIXES):
        return ("read",)
    if base.startswith(WRITE_PREFIXES) or name.startswith(WRITE_PREFIXES):
        return ("write",)
    return ("read", "write")


def param_read_write(fir, _memo=None, fields=False):
    """{parameter name: subset of {"read", "write"}} for the array parameters ``fir`` loads from
    or stores/accumulates into (directly, through views or through the @wp.funcs it calls).
    ``fields``: also the array fields of struct parameters, named by their path (``s.a.b``)."""
    memo = {} if _memo is None else _memo
    if id(fir) in memo:
        return memo[id(fir)]
    memo[id(fir)] = {}
    alias = {id(p): p.name for p in fir.params}
    out = {}
    for st in statements(fir.body):
        if _follow_alias(st, alias):
            continue
        if fields and isinstance(st, ir.GetField):
            if id(st.src) in alias:     # a struct's field: the path names the array
                alias[id(st.out)] = f"{alias[id(st.src)]}.{st.field}"
            continue
        if isinstance(st, ir.Call):
            for name, kinds in _call_rw(st, alias, memo, fields):
                out.setdefault(name, set()).update(kinds)
    memo[id(fir)] = out
    return out


def _call_rw(st, alias, memo, fields=False):
    """[(parameter name or field path, kinds)] of one call."""
    values = [a for a in st.args if hasattr(a, "id")]
    args = [a for a in values if id(a) in alias]
    if hasattr(st.func, "function"):
        inner = param_read_write(st.func.ir, memo, fields)
        out = []
        for p, a in zip(st.func.ir.params, values):
            if id(a) not in alias:
                continue
            for key, kinds in inner.items():    # the parameter itself, or a field path under it
                if key == p.name or key.startswith(p.name + "."):
                    out.append((alias[id(a)] + key[len(p.name):], kinds))
        return out
    if getattr(st.func, "name", "") in VIEWS and args and args[0] is values[0] and st.out is not None:
        alias[id(st.out)] = alias[id(args[0])]     # a view: what is done through it counts
        return []
    declared = getattr(st.func, "array_access", None)
    if declared:      # the builtin says what it does to each array argument
        return [(alias[id(a)], (declared[i],)) for i, a in enumerate(st.args) if i in declared and id(a) in alias]
    kinds = _rw_kinds(st.func)
    return [(alias[id(a)], kinds) for a in args] if kinds else []


def writes_after_reads(fir, _memo=None):
    """[(parameter name, line)]: where ``fir`` writes an array parameter after it read it, in
    statement order (a @wp.func call reads what it reads, then may write after its own reads):
    warp-lang's in-kernel overwrite warning. A write then a read is fine."""
    memo = {} if _memo is None else _memo
    read, out = set(), []
    alias = {id(p): p.name for p in fir.params}

    def flag(name, line):
        if all(n != name for n, _ in out):
            out.append((name, line))

    for st in statements(fir.body):
        if _follow_alias(st, alias):
            continue
        if isinstance(st, ir.Call):
            if hasattr(st.func, "function"):    # the callee's own write-after-read, at this call
                values = [a for a in st.args if hasattr(a, "id")]
                war = {n for n, _ in writes_after_reads(st.func.ir, memo)}
                for p, a in zip(st.func.ir.params, values):
                    if p.name in war and id(a) in alias:
                        flag(alias[id(a)], st.lineno)
            rw = _call_rw(st, alias, memo)
            for name, kinds in rw:
                if "write" in kinds and name in read:
                    flag(name, st.lineno)
            read.update(name for name, kinds in rw if "read" in kinds)
    return out


def runtime_zero_step_possible(fir):
    """Whether ``fir``'s own body (not the functions it calls: ask each of them) slices an array
    with a step known only at run time, which a zero value makes a run-time error (core.h
    records it; the module's source then tells the runtime to read its error record after
    launches, codegen/module_source.py)."""
    return any(isinstance(st, ir.Call) and getattr(st.func, "cpp", "") == "make_slice"
               and st.args[2].constant is None for st in statements(fir.body))
