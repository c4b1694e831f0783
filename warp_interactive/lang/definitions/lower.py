"""``lower(kernels) -> ModuleIR``: the one place a build translates. Every kernel's IR and the IR
of every function it reaches are produced here, before codegen runs."""

from ..ir import CalleeIR, KernelIR, ModuleIR


def lower(kernels):
    """The ModuleIR of ``kernels`` (Kernel objects, concrete)."""
    mir = ModuleIR()
    for k in kernels:
        mir.kernels[k.cpp] = KernelIR(k.cpp, k.key, k.ir, getattr(k, "block_width", 1),
                                      bool(k.backward_enabled()))
        _reach(k.ir, mir.functions)
    return mir


def _reach(fir, functions):
    """Add every function ``fir`` reaches (depth first) to ``functions``."""
    todo = list(fir.calls) + list(fir.grad_calls)
    while todo:
        ov = todo.pop()
        if not hasattr(ov, "function") and not hasattr(ov, "forward_only"):
            continue        # a registry builtin named by wp.grad: nothing to translate
        if ov.cpp in functions:
            continue
        rec = _callee(ov)
        functions[ov.cpp] = rec
        todo += list(rec.fir.calls) + list(rec.fir.grad_calls)
        for helper in (getattr(ov, "custom_grad", None), getattr(ov, "custom_replay", None)):
            if helper is not None:
                todo.append(helper)


def _callee(ov):
    grad = getattr(ov, "custom_grad", None)
    replay = getattr(ov, "custom_replay", None)
    return CalleeIR(
        cpp=ov.cpp, name=ov.name, fir=ov.ir,
        native=getattr(getattr(ov, "function", None), "native", None),
        forward_only=bool(getattr(ov, "forward_only", False)),
        grad=grad.cpp if grad is not None else None,
        replay=replay.cpp if replay is not None else None,
        diff_params=tuple(getattr(ov, "diff_params", ())),
        diff_types=tuple(getattr(ov, "diff_types", ())),
        param_names=tuple(getattr(ov, "arg_types", {}) or ()))
