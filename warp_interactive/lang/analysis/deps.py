"""Which @wp.funcs a translated kernel or function reaches (its dependency record)."""


def function_deps(irs, translate=True):
    """Every @wp.func the IRs call, transitively: {Function: version when it was used}.
    With ``translate=False`` callees not translated yet are not looked into."""
    deps, seen = {}, set()
    stack = [ov for fir in irs for ov in fir.calls]
    while stack:
        ov = stack.pop()
        if id(ov) in seen:
            continue
        seen.add(id(ov))
        deps[ov.function] = getattr(ov.function, "version", 0)
        callee_ir = ov.ir if translate else ov._ir
        if callee_ir is not None:
            stack.extend(callee_ir.calls)
    return deps
