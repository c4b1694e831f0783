"""``wp.capture_debug_dot_print(graph, path, verbose=True)``: a captured graph as a Graphviz DOT
file, to look at what a capture recorded.

A CUDA graph is written by the driver (``cuGraphDebugDotPrint``, as warp-lang does). A CPU graph
(warp-lang cannot capture on the CPU outside its ``apic`` recording, and its dot print fails
there) is written here: one node per recorded operation in replay order (kernel launches with
their dimensions, array fills/zeroings/copies, stream events), each edge the order the replay
keeps; ``verbose`` adds each launch's module, adjoint flag and argument count.
"""

from .graph import Graph


def capture_debug_dot_print(graph, path, verbose=True):
    """Export ``graph`` (from ``wp.capture_end()``) to the DOT file ``path``."""
    if not isinstance(graph, Graph):
        raise TypeError(f"wp.capture_debug_dot_print expects the Graph returned by wp.capture_end(), "
                        f"got {type(graph).__name__}")
    path = str(path)
    if graph.device.is_cpu:
        with open(path, "w") as f:
            f.write(cpu_graph_dot(graph, verbose))
        return
    if graph.handle is None:
        raise RuntimeError("Graph debug dot print error: this graph was captured externally "
                           "(external=True) and has no graph here")
    from .cuda.driver import call, drv
    d = drv()
    flags = int(d.CUgraphDebugDot_flags.CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE) if verbose else 0
    with graph.device.activated():
        call(d.cuGraphDebugDotPrint, graph.handle, path.encode(), flags)


def _quote(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _op_label(op, verbose):
    kernel = getattr(op, "kernel", None)
    if kernel is not None:     # a recorded launch (runtime/launch.py's Launch)
        bounds = op.bounds
        dims = tuple(int(bounds.shape[i]) for i in range(int(bounds.ndim)))
        label = f"kernel {kernel.key}\ndim={dims}"
        if verbose:
            label += (f"\nmodule {kernel.module.name}\n{'backward' if op.adjoint else 'forward'}, "
                      f"{len(getattr(kernel, 'arg_types', {}))} args")
        return label, "box"
    name = getattr(op, "__qualname__", type(op).__name__).replace(".<locals>", "").replace(".<lambda>", "")
    kind = name.rsplit(".", 1)[-1].strip("_") or name
    return (f"{kind}\n{name}" if verbose and kind != name else kind), "ellipse"


def cpu_graph_dot(graph, verbose=True):
    """The DOT text of a CPU graph: its operations in replay order."""
    lines = ["digraph warp_graph {", f"  label={_quote(f'{graph.device} graph, {len(graph.ops)} operations')};",
             "  rankdir=TB;"]
    for i, op in enumerate(graph.ops):
        label, shape = _op_label(op, verbose)
        lines.append(f"  n{i} [label={_quote(label)}, shape={shape}];")
    for i in range(1, len(graph.ops)):
        lines.append(f"  n{i - 1} -> n{i};")
    lines.append("}")
    return "\n".join(lines) + "\n"
