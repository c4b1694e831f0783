"""The C++ of a ``@wp.func_native`` overload (lang/definitions/func_native.py): the user's snippet as the
function body, parameters under their Python names, and the adjoint from ``adj_snippet``
(``adj_<name>`` per parameter, ``adj_ret``) and the replay from ``replay_snippet``, all inside ``using namespace wp`` as warp-lang's
generated code sees its builtins."""

from ..types.array import array
from .cpp_types import cpp_type


def native_function_source(f, target, backward):
    """``f``: the CalleeIR of a @wp.func_native overload."""
    fir, snippets = f.fir, f.native
    q = target.func_qualifier
    params = [f"{cpp_type(p.type)} {p.name}" for p in fir.params]
    ret = cpp_type(fir.return_types[0]) if fir.return_types else "void"
    lines = [f"{q} {ret} {fir.name}({', '.join(params)}) {{", "    using namespace wp;", snippets.snippet, "}"]
    if backward and snippets.replay_snippet is not None:
        lines += [f"{q} {ret} {replay_name(fir.name)}({', '.join(params)}) {{", "    using namespace wp;",
                  snippets.replay_snippet, "}"]
    if backward:
        # an array's adjoint is the array of its gradient (the caller's adjoint of an array
        # parameter is an empty descriptor: the gradient travels in the array's own)
        adj = params + [f"{cpp_type(p.type)}& {'_' if isinstance(p.type, array) else ''}adj_{p.name}"
                        for p in fir.params]
        if fir.return_types:
            adj.append(f"{ret} adj_ret")
        grads = [f"    {cpp_type(p.type)} adj_{p.name} = wp::array_grad({p.name});"
                 for p in fir.params if isinstance(p.type, array)]
        lines += [f"{q} void adj_{fir.name}({', '.join(adj)}) {{"] + grads + ["    using namespace wp;",
                  snippets.adj_snippet or "", "}"]
    return "\n".join(lines) + "\n"


def replay_name(cpp):
    """The C++ name of a native function's replay (its ``replay_snippet``)."""
    return f"replay_{cpp}"
