"""``@wp.func_native(snippet, adj_snippet=None, replay_snippet=None)``: a function whose body is native C++/CUDA code
(warp-lang 1.19's escape hatch). The decorated Python function is a typed stub: its annotated
parameters are the names the snippet reads (plain names, as in warp-lang), its ``-> T`` the
return type; its body (``...``) is never translated. ``adj_snippet`` is the adjoint's body: it
reads the parameters, adds into ``adj_<name>`` (an array parameter's ``adj_<name>`` is the array
of its gradient, as in warp-lang) and reads ``adj_ret``. Without one the function passes no
gradient. ``replay_snippet`` replaces the snippet where a backward pass replays the forward
(`replay_<cpp name>`: a counter's atomic increment must not run twice). The C++ is emitted by codegen/native_func.py inside ``using namespace wp``.
"""

from dataclasses import dataclass
from typing import Optional

from .. import ir
from ...types.tile import is_tile
from ..annotations import canonical_type, is_concrete


@dataclass(frozen=True)
class NativeSnippets:
    snippet: str
    adj_snippet: Optional[str] = None
    replay_snippet: Optional[str] = None    # the body run in the backward pass's forward replay


def check_snippets(snippet, adj_snippet, replay_snippet):
    if not isinstance(snippet, str):
        raise TypeError(f"wp.func_native(snippet): the snippet must be a str of C++ code, got {snippet!r}")
    if adj_snippet is not None and not isinstance(adj_snippet, str):
        raise TypeError(f"wp.func_native(): adj_snippet must be a str of C++ code, got {adj_snippet!r}")
    if replay_snippet is not None and not isinstance(replay_snippet, str):
        raise TypeError(f"wp.func_native(): replay_snippet must be a str of C++ code, got {replay_snippet!r}")
    return NativeSnippets(snippet, adj_snippet, replay_snippet)


def native_ir(ov):
    """The IR of a native overload: its parameters and return type, no body (the snippet is
    the body, written by codegen)."""
    for name, t in ov.arg_types.items():
        if t is None or not (is_concrete(t) or is_tile(t)):
            raise TypeError(f"wp.func_native function '{ov.name}': parameter '{name}' needs a concrete "
                            f"type annotation")
    params = [ir.Var(id=-1, type=t, name=n, is_param=True) for n, t in ov.arg_types.items()]
    ann = getattr(ov.py_func, "__annotations__", {}).get("return")
    rets = [] if ann is None else [canonical_type(ann)]
    if rets and getattr(rets[0], "_wp_struct_", None) is not None:
        raise TypeError(f"wp.func_native function '{ov.name}': struct return values are not supported "
                        f"(as in warp-lang)")
    return ir.FunctionIR(name=ov.cpp, params=params, body=ir.Block(), vars=[], return_types=rets,
                         is_kernel=False, filename=ov.src.filename)
