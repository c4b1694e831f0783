"""A tape as a picture: GraphViz ``dot`` renders the tape's DOT text when it is installed,
otherwise the pure-Python layout of ``notebook.graph_layout`` draws it; either way SVG."""

import html
import shutil
import subprocess

from ...runtime.tape_graph import dot_quote, entry_label, launch_arrays
from ..graph_layout import CONSUMED, array_label, grad_norm, grad_text, tape_model, to_svg, written_arrays


# the colours of the pure-Python drawing (graph_layout.py), so both engines look alike
_DOT_STYLE = {
    "array": 'shape=ellipse, style=filled, fillcolor="#fff7e6", color="#cc9900"',
    "kernel": 'shape=box, style="rounded,filled", fillcolor="#e8f0fb", color="#4c78a8"',
    "step": 'shape=box, style="rounded,dashed", color="#4c78a8"',
}


def names_from_namespace(ns):
    """id(array) -> variable name, for the arrays bound to names in ``ns`` (a notebook's)."""
    out = {}
    for k, v in (ns or {}).items():
        if not k.startswith("_") and hasattr(v, "ptr") and hasattr(v, "grad"):
            out.setdefault(id(v), k)
    return out


def dot_with_names(tape, names):
    """The tape's DOT with readable array labels and gradient norms."""
    g = tape_model(tape, names)
    lines = ["digraph tape {", "  rankdir=LR;", '  node [fontname="sans-serif", fontsize=10];']
    for name, members in g.scopes:
        cluster = dot_quote(f"cluster_{name}_{members[0] if members else 0}")
        lines.append(f'  subgraph {cluster} {{ label={dot_quote(name)}; {" ".join(members)} }}')
    for n in g.nodes.values():
        lines.append(f'  {n.id} [{_DOT_STYLE[n.kind]}, label={dot_quote(n.label + chr(10) + n.extra)}];')
    lines += [f"  {a} -> {b};" for a, b in g.edges]
    lines.append("}")
    return "\n".join(lines)


def tape_svg(tape, names=None, engine="auto"):
    """SVG text of the tape's graph. ``engine``: "auto" (dot if found), "dot" or "python".
    Its ids (GraphViz's node/edge ids, the arrowhead marker) are unique to this picture."""
    from .ids import scope_ids
    return scope_ids(_svg(tape, names, engine))


def _svg(tape, names, engine):
    dot = shutil.which("dot") if engine in ("auto", "dot") else None
    if engine == "dot" and dot is None:
        raise RuntimeError("GraphViz 'dot' was not found on PATH (engine='python' needs none)")
    if dot is not None:
        try:
            res = subprocess.run([dot, "-Tsvg"], input=dot_with_names(tape, names or {}),
                                 capture_output=True, text=True, timeout=30)
            if res.returncode == 0:     # the <svg> element alone (no XML prolog) to embed in HTML
                return res.stdout[res.stdout.find("<svg"):]
        except (OSError, subprocess.SubprocessError):
            pass
    return to_svg(tape_model(tape, names or {}))


def kept_line(tape):
    """What the tape holds for overwritten arrays (wp.config.tape_copy_on_write), or ''."""
    kept = getattr(tape, "kept_arrays", ())
    if not kept:
        return ""
    return (f"{len(kept)} overwritten array{'s' if len(kept) > 1 else ''} kept for the backward "
            f"pass: {tape.kept_bytes:,} bytes")


def tape_html(tape, names=None, engine="auto"):
    """The graph as SVG, and the gradient norms after ``tape.backward``."""
    # drawn at its own size, scrolled sideways in a narrow output (a notebook beside another),
    # not shrunk to the output's width until its labels are unreadable
    svg = tape_svg(tape, names, engine).replace("<svg", "<svg style='max-width:none'", 1)
    out = f"<div class='wpi-tape' style='overflow-x:auto;text-align:left'>{svg}</div>"
    if kept_line(tape):
        out += f"<div class='wpi-tape-kept'>{html.escape(kept_line(tape))}</div>"
    if any(getattr(a, "grad", None) is not None for a in tape.arrays()):
        out += gradient_norms_html(tape, names)
    return out


def tape_text(tape, names=None):
    """The data flow as text: one line per launch, ``kernel(dim): reads -> writes``."""
    names = names or {}
    lines = [f"wp.Tape: {len(tape.launches)} recorded steps"]
    if kept_line(tape):
        lines[0] += f" ({kept_line(tape)})"
    for entry in tape.launches:
        if entry[0] == "launch":
            reads, writes = launch_arrays(entry, tape)
            ins = ", ".join(array_label(a, names) for a in reads) or "-"
            outs = ", ".join(array_label(a, names) for a in writes) or "-"
            lines.append(f"  {entry[1].key} dim={entry[2]}: {ins} -> {outs}")
        else:
            lines.append(f"  ({entry_label(entry)})")
    return "\n".join(lines)


def gradient_norms(tape, names=None):
    """[(name, shape, L2 norm of grad)] for every array the tape touched that has a gradient."""
    names = names or {}
    out = []
    for a in tape.arrays():
        n = grad_norm(a)
        if n is not None:
            out.append((names.get(id(a)) or f"array{tuple(a.shape)}", tuple(a.shape), n))
    return out


CONSUMED_NOTE = ("grad consumed: tape.backward used this array's gradient (a recorded step "
                 "wrote the array) and zeroed it, so a second backward adds nothing twice; "
                 "retain_grad=True keeps it to look at (docs/autodiff.md)")


def gradient_norms_html(tape, names=None):
    names = names or {}
    written = written_arrays(tape)
    rows, consumed = [], False
    for a in tape.arrays():
        note = grad_text(a, tape, written)
        if note is None:
            continue
        shown = f"0 ({CONSUMED})" if note == CONSUMED else f"{grad_norm(a):.6g}"
        consumed |= note == CONSUMED
        name = names.get(id(a)) or f"array{tuple(a.shape)}"
        rows.append(f"<tr><td>{html.escape(name)}</td><td>{tuple(a.shape)}</td><td>{shown}</td></tr>")
    foot = f"<div class='wpi-grad-note' style='font-size:85%;color:#555'>{CONSUMED_NOTE}</div>" \
        if consumed else ""
    return f"<table><tr><th>array</th><th>shape</th><th>|grad|</th></tr>{''.join(rows)}</table>{foot}"
