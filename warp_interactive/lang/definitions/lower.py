"""``lower(kernels) -> ModuleIR``: the one place a build translates. Every kernel's IR and the IR
of every function it reaches are produced here, before codegen runs."""

from ..analysis.walk import reach
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
    """Add every function ``fir`` reaches (depth first) to ``functions`` (those already there
    were reached from an earlier kernel, with what they reach)."""
    for ov in reach([*fir.calls, *fir.grad_calls], _callees, key=_cpp, seen=set(functions)):
        if _translatable(ov):
            functions[ov.cpp] = _callee(ov)


def _translatable(ov):
    """Not a registry builtin named by wp.grad (nothing to translate there)."""
    return hasattr(ov, "function") or hasattr(ov, "forward_only")


def _cpp(ov):
    return ov.cpp if _translatable(ov) else id(ov)


def _callees(ov):
    """What a function leads to: its calls, wp.grad's targets, its custom grad and replay."""
    if not _translatable(ov):
        return ()
    helpers = (getattr(ov, "custom_grad", None), getattr(ov, "custom_replay", None))
    return [*ov.ir.calls, *ov.ir.grad_calls, *(h for h in helpers if h is not None)]


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
