"""The C++ of a ``@wp.func_native`` overload (lang/func_native.py): the user's snippet as the
function body, parameters under their Python names, and the adjoint from ``adj_snippet``
(``adj_<name>`` per parameter, ``adj_ret``), both inside ``using namespace wp`` as warp-lang's
generated code sees its builtins."""

from .cpp_types import cpp_type


def native_function_source(ov, target, backward):
    fir, snippets = ov.ir, ov.function.native
    q = target.func_qualifier
    params = [f"{cpp_type(p.type)} {p.name}" for p in fir.params]
    ret = cpp_type(fir.return_types[0]) if fir.return_types else "void"
    lines = [f"{q} {ret} {fir.name}({', '.join(params)}) {{", "    using namespace wp;", snippets.snippet, "}"]
    if backward:
        adj = params + [f"{cpp_type(p.type)}& adj_{p.name}" for p in fir.params]
        if fir.return_types:
            adj.append(f"{ret} adj_ret")
        lines += [f"{q} void adj_{fir.name}({', '.join(adj)}) {{", "    using namespace wp;",
                  snippets.adj_snippet or "", "}"]
    return "\n".join(lines) + "\n"
