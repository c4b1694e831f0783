"""A tape as a GraphViz DOT graph: kernels as boxes, arrays as ellipses, scopes as clusters."""


def _array_label(a, names):
    if id(a) not in names:
        names[id(a)] = f"a{len(names)}"
    return names[id(a)]


def to_dot(tape, graph_name="tape", **_):
    names, lines = {}, [f"digraph {graph_name} {{", "  rankdir=LR;"]
    depth, scope_at = 0, {}
    for idx, name in tape.scopes:
        scope_at.setdefault(idx, []).append(name)
    for i, entry in enumerate(tape.launches):
        for name in scope_at.get(i, []):
            if name is None:
                lines.append("  }")
                depth -= 1
            else:
                lines.append(f'  subgraph cluster_{i}_{depth} {{ label="{name}";')
                depth += 1
        node = f"k{i}"
        if entry[0] == "launch":
            lines.append(f'  {node} [shape=box, label="{entry[1].key}\\ndim={entry[2]}"];')
            for a in entry[3]:
                if hasattr(a, "ptr"):
                    lines.append(f"  {_array_label(a, names)} -> {node};")
            for a in entry[4]:
                if hasattr(a, "ptr"):
                    lines.append(f"  {node} -> {_array_label(a, names)};")
        else:   # a copy, or a Python step (record_func; wp.matmul names itself "matmul")
            label = getattr(entry[1], "key", entry[0]) if entry[0] == "func" else entry[0]
            lines.append(f'  {node} [shape=box, style=dashed, label="{label}"];')
    for name in scope_at.get(len(tape.launches), []):
        if name is None and depth > 0:
            lines.append("  }")
            depth -= 1
    lines += ["  }"] * depth
    for label in names.values():
        lines.append(f'  {label} [shape=ellipse, label="{label}"];')
    lines.append("}")
    return "\n".join(lines)
