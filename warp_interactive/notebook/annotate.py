"""``%%wp.kernel --annotate``: the cell's Python beside the C++ each line became, like Cython's
``--annotate``. Each line that generated code is shaded by how much it generated and folds open
to its forward statements and its adjoint (the reverse-mode statements ``tape.backward`` runs).

The mapping is read from the generated source itself: codegen ends every forward statement with
``// py:LINE`` (the first one of a function with the file name too). Adjoint statements carry
no marker; each ``wp::adj_f(args..., adjoints...)`` belongs to the forward ``wp::f(args...)``
whose arguments it starts with, and so to that statement's line.
"""

import html
import re

_MARK = re.compile(r"\s*//\s*py:(?:(.*):)?(\d+)\s*$")
_FORWARD_CALL = re.compile(r"(?:\w+ = )?wp::(\w+)\((.*)\);$")
_ADJOINT_CALL = re.compile(r"wp::adj_(\w+)\((.*)\);$")


def line_map(source):
    """({python line: [forward C++ statements]}, {python line: [adjoint C++ statements]})
    from a module's generated source (each statement listed once, however many bodies hold it)."""
    forward, adjoint, calls, seen = {}, {}, {}, set()
    pending = []                                  # adjoint calls met before their forward call
    for raw in source.splitlines():
        m = _MARK.search(raw)
        code = raw[:m.start()].strip() if m else raw.strip()
        if m:
            line = int(m.group(2))
            if (line, code) not in seen:
                seen.add((line, code))
                forward.setdefault(line, []).append(code)
            call = _FORWARD_CALL.match(code)
            if call:
                calls.setdefault((call.group(1), call.group(2)), line)
            continue
        adj = _ADJOINT_CALL.match(code)
        if adj:
            pending.append((adj.group(1), adj.group(2), code))
    for name, args, code in pending:
        line = next((ln for (fname, fargs), ln in calls.items()
                     if fname == name and (args == fargs or args.startswith(fargs + ","))), None)
        if line is not None and (line, code) not in seen:
            seen.add((line, code))
            adjoint.setdefault(line, []).append(code)
    return forward, adjoint


def _shade(n, most):
    """Cython's yellow: the more C++ a line made, the stronger."""
    if n == 0:
        return "transparent"
    alpha = 0.15 + 0.6 * n / max(most, 1)
    return f"rgba(255, 220, 0, {alpha:.2f})"


def paths_html(paths):
    """The code path each kernel's CPU launches take (codegen/paths.py KernelPaths), and why a
    faster one was refused."""
    if not paths:
        return ""
    rows = "".join(f"<tr><td>{html.escape(p.kernel)}</td><td>{which}</td><td><b>{html.escape(path.kind)}</b></td>"
                   f"<td>{html.escape(path.detail)}</td></tr>"
                   for p in paths for which, path in (("forward", p.forward), ("backward", p.backward))
                   if path is not None)
    return (f"<table class='wpi-paths' style='font-size:85%;margin:2px 0 6px 0'><tr><th>kernel</th>"
            f"<th></th><th>CPU path</th><th>why</th></tr>{rows}</table>")


def annotate_html(cell_lines, source, title="", paths=()):
    """An HTML block: the kernels' code paths (``paths``), then every line of the cell
    (``cell_lines``: line 1 first), the lines that generated code folding open to it."""
    forward, adjoint = line_map(source)
    most = max([len(v) for v in forward.values()] + [1])
    rows = []
    for number, text in enumerate(cell_lines, start=1):
        fw, bw = forward.get(number, []), adjoint.get(number, [])
        folds = bool(fw or bw)
        # every line starts with a fold marker of the same width (a blank one where nothing
        # folds open), so line numbers and text line up whichever lines made code
        shown = (f"<span class='wpi-fold' style='{_FOLD_STYLE}'>{'▸' if folds else ' '}</span>"
                 f"<span class='wpi-ln'>{number:>3}</span> {html.escape(text) or ' '}")
        style = f"background:{_shade(len(fw), most)};white-space:pre;font-family:monospace;display:block"
        if not folds:
            rows.append(f"<div class='wpi-line' style='{style}'>{shown}</div>")
            continue
        body = _code_block("C++ (forward)", fw) + _code_block("adjoint (reverse mode)", bw)
        rows.append(f"<details class='wpi-line' data-line='{number}'><summary style='{style};"
                    f"list-style:none;cursor:pointer'>{shown}</summary>{body}</details>")
    head = f"<div style='font-weight:bold'>{html.escape(title)}</div>" if title else ""
    note = ("<div style='font-size:85%;color:#555'>click a shaded line for its C++; "
            "the stronger the shade, the more code it made</div>")
    return (f"<div class='wpi-annotate' style='text-align:left'>{_STYLE}{head}{paths_html(paths)}{note}"
            f"{''.join(rows)}</div>")


_FOLD_STYLE = "display:inline-block;width:1.2em;color:#777"
# the browsers' own disclosure triangle is hidden (Safari ignores list-style on summary): the
# marker above replaces it, turned down while the line is open
_STYLE = ("<style>.wpi-annotate summary::-webkit-details-marker{display:none}"
          ".wpi-annotate details[open]>summary .wpi-fold{transform:rotate(90deg)}</style>")


def _code_block(label, lines):
    if not lines:
        return ""
    text = html.escape("\n".join(lines))
    return (f"<div style='margin-left:3em;font-size:85%;color:#555'>{label}</div>"
            f"<pre class='wpi-cpp' style='margin:0 0 4px 3em;background:#f6f6f6;padding:3px'>{text}</pre>")


def annotate_text(cell_lines, source, paths=()):
    """The same as text (for terminals): the kernels' code paths, each line, then its forward
    statements indented."""
    forward, adjoint = line_map(source)
    out = [f"# {line}" for p in paths for line in p.lines()]
    for number, text in enumerate(cell_lines, start=1):
        out.append(f"{number:>3} {text}")
        out += [f"      | {c}" for c in forward.get(number, [])]
        out += [f"      ~ {c}" for c in adjoint.get(number, [])]
    return "\n".join(out)
