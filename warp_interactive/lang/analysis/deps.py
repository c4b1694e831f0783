"""Which @wp.funcs a translated kernel or function reaches (its dependency record)."""

from .walk import reach


def function_deps(irs, translate=True):
    """Every @wp.func the IRs call, transitively: {Function: version when it was used}.
    With ``translate=False`` callees not translated yet are not looked into."""
    def callees(ov):
        callee_ir = ov.ir if translate else ov._ir
        return callee_ir.calls if callee_ir is not None else ()

    roots = [ov for fir in irs for ov in fir.calls]
    return {ov.function: getattr(ov.function, "version", 0) for ov in reach(roots, callees)}
