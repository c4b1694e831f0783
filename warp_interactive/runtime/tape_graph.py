"""A tape as a data-flow graph: kernels as boxes, arrays as ellipses, an edge from each array a
kernel reads and to each array it stores to (``Kernel.array_access``: what the translated code
really loads and stores, whatever list, ``inputs=`` or ``outputs=``, the array was passed in),
``ScopedTimer`` scopes as clusters. ``to_dot`` writes GraphViz DOT (``tape.visualize()``); the
notebook draws the same edges."""

from ..errors import CodegenError


def _is_array(v):
    return (hasattr(v, "ptr") or getattr(v, "_is_indexed", False)) and hasattr(v, "grad")


def launch_arrays(entry, tape=None):
    """(read, written): the arrays a recorded launch ``("launch", kernel, dim, inputs, outputs,
    device)`` loads from and stores to. An array the code only asks the shape of counts as read
    (it is an input of the launch all the same). With ``tape``, a copy the tape kept of an
    overwritten array is drawn as that array (the buffer the user's code named)."""
    _, kernel, _, inputs, outputs = entry[:5]
    args = list(inputs) + list(outputs)
    names = list(kernel.arg_types)
    try:
        read, written = kernel.array_access
    except (CodegenError, OSError):      # no longer translatable (its source went away)
        read, written = names[:len(inputs)], names[len(inputs):]
    original = tape.keeper.original if tape is not None and getattr(tape, "keeper", None) else (lambda a: a)
    reads = [original(a) for n, a in zip(names, args) if _is_array(a) and (n in read or n not in written)]
    writes = [original(a) for n, a in zip(names, args) if _is_array(a) and n in written]
    return _unique(reads), _unique(writes)


def _unique(arrays):
    seen, out = set(), []
    for a in arrays:
        if id(a) not in seen:
            seen.add(id(a))
            out.append(a)
    return out


def entry_label(entry):
    """A copy, or a Python step (record_func; wp.matmul names itself "matmul")."""
    return getattr(entry[1], "key", entry[0]) if entry[0] == "func" else entry[0]


def label_lookup(array_labels=None):
    """id(array) -> label from ``array_labels`` ({array: label}, or {id(array): label})."""
    out = {}
    for k, v in (array_labels or {}).items():
        out[k if isinstance(k, int) else id(k)] = str(v)
    return out


def dot_quote(text):
    """A DOT string (a newline becomes DOT's line break)."""
    text = str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + text + '"'


def _launch_key(entry):
    """What makes two recorded launches the same step: kernel, dim and arguments."""
    if entry[0] != "launch":
        return None
    args = tuple(id(v) if _is_array(v) else repr(v) for v in list(entry[3]) + list(entry[4]))
    return (id(entry[1]), repr(entry[2]), args)


def _runs(launches, simplify):
    """(first index, count) of each step; with ``simplify``, a run of the same launch repeated
    back to back is one step."""
    out = []
    for i, entry in enumerate(launches):
        key = _launch_key(entry) if simplify else None
        if out and key is not None and key == _launch_key(launches[out[-1][0]]):
            out[-1][1] += 1
        else:
            out.append([i, 1])
    return out


def _kernel_tooltip(kernel):
    """Each parameter and its type, as the reference's tooltips (``x: array: dtype=float32``)."""
    from ..lang.builtins.registry import type_name
    parts = []
    for name, t in kernel.arg_types.items():
        dtype = getattr(t, "dtype", None)
        parts.append(f"{name}: array: dtype={type_name(dtype)}" if dtype is not None and
                     hasattr(t, "ndim") else f"{name}: dtype={type_name(t)}")
    return "\n".join(parts)


class DotText(str):
    """``tape.visualize()``'s DOT text: a ``str`` (written, compared, printed as any string) that a
    notebook displays as the tape's picture, arrays named after the notebook's variables (or
    ``array_labels``), rather than as the escaped text."""

    def __new__(cls, text, tape=None, array_labels=None):
        self = super().__new__(cls, text)
        self.tape, self.array_labels = tape, array_labels
        return self

    def __reduce__(self):            # pickled, copied: the text alone
        return (str, (str(self),))

    def _repr_html_(self):
        from .. import hooks
        if self.tape is None or "tape_dot" not in hooks.html_views:
            return None              # IPython shows the text
        return hooks.html_view("tape_dot", self)

    def _repr_pretty_(self, printer, cycle):
        printer.text(str(self))      # the DOT text itself, not its escaped repr


def to_dot(tape, graph_name="tape", array_labels=None, simplify_graph=True, **_):
    """GraphViz DOT text of the tape (``array_labels``: {array: label}; others are a0, a1...);
    ``simplify_graph``: a launch repeated back to back is drawn once, in a "repeated Nx" cluster."""
    labels = label_lookup(array_labels)
    nodes, lines = {}, [f"digraph {graph_name} {{", "  rankdir=LR;"]

    def array_node(a):
        if id(a) not in nodes:
            nodes[id(a)] = (f"a{len(nodes)}", labels.get(id(a)) or f"a{len(nodes)}")
        return nodes[id(a)][0]

    depth, scope_at = 0, {}
    for idx, name, *_ in tape.scopes:
        scope_at.setdefault(idx, []).append(name)
    for i, count in _runs(tape.launches, simplify_graph):
        entry = tape.launches[i]
        for k in range(i, i + count):   # scope marks inside a collapsed run open/close around it
            for name in scope_at.get(k, []):
                if name is None:
                    lines.append("  }")
                    depth -= 1
                else:
                    lines.append(f"  subgraph cluster_{k}_{depth} {{ label={dot_quote(name)};")
                    depth += 1
        node = f"k{i}"
        if count > 1:
            lines.append(f"  subgraph cluster_rep_{i} {{ label={dot_quote(f'repeated {count}x')};")
        if entry[0] == "launch":
            label = dot_quote(f"{entry[1].key}\ndim={entry[2]}")
            tip = dot_quote(_kernel_tooltip(entry[1]))
            lines.append(f"  {node} [shape=box, label={label}];")
            lines.append(f"  {node} [tooltip={tip}];")
            reads, writes = launch_arrays(entry, tape)
            lines += [f"  {array_node(a)} -> {node};" for a in reads]
            lines += [f"  {node} -> {array_node(a)};" for a in writes]
        else:
            lines.append(f"  {node} [shape=box, style=dashed, label={dot_quote(entry_label(entry))}];")
        if count > 1:
            lines.append("  }")
    for name in scope_at.get(len(tape.launches), []):
        if name is None and depth > 0:
            lines.append("  }")
            depth -= 1
    lines += ["  }"] * depth
    lines += [f"  {node} [shape=ellipse, label={dot_quote(label)}];" for node, label in nodes.values()]
    lines.append("}")
    return "\n".join(lines)
