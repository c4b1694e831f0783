"""Timings as an HTML table and an SVG bar chart: launch timings (wp.timing), ScopedTimer
history, and module build times (every build is in runtime.module.build_log)."""

import html

BAR_W, ROW_H = 360, 18


def _rows_from_results(results):
    from ...runtime.timing import Recorder
    rec = Recorder()
    rec.results = list(results)
    return [(f"{name} ({kind})", n, total) for name, kind, n, total, _ in rec.summary()]


def bar_chart_svg(rows, unit="ms"):
    """rows: (label, count, total) -> horizontal bars of ``total``, largest first."""
    rows = sorted(rows, key=lambda r: -r[2])[:30]
    if not rows:
        return ""
    top = max(r[2] for r in rows) or 1.0
    label_w = min(320, 7 * max(len(r[0]) for r in rows) + 10)
    h = ROW_H * len(rows) + 4
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{label_w + BAR_W + 90}' height='{h}' "
             "font-family='sans-serif' font-size='11'>"]
    for i, (label, _, total) in enumerate(rows):
        y = 2 + i * ROW_H
        w = max(1.0, BAR_W * total / top)
        parts.append(f"<text x='{label_w - 4}' y='{y + 12}' text-anchor='end'>{html.escape(label)}</text>"
                     f"<rect x='{label_w}' y='{y + 2}' width='{w:.1f}' height='{ROW_H - 5}' fill='#4c78a8'/>"
                     f"<text x='{label_w + w + 4:.1f}' y='{y + 12}'>{total:.3f} {unit}</text>")
    parts.append("</svg>")
    return "".join(parts)


def table_html(rows, headers=("name", "count", "total ms", "mean ms")):
    head = "".join(f"<th>{h}</th>" for h in headers)
    body = "".join(f"<tr><td>{html.escape(label)}</td><td>{n}</td><td>{total:.3f}</td>"
                   f"<td>{total / max(n, 1):.3f}</td></tr>" for label, n, total in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def timing_html(results=None, timers=None, builds=None):
    """Launch timings, ScopedTimer entries ((name, ms) pairs) and builds, each a table + chart."""
    sections = []
    if results:
        rows = _rows_from_results(results)
        sections.append(("kernel launches", rows))
    if timers:
        agg = {}
        for name, ms in timers:
            n, t = agg.get(name, (0, 0.0))
            agg[name] = (n + 1, t + ms)
        sections.append(("timers", [(k, n, t) for k, (n, t) in agg.items()]))
    if builds:
        rows = [(f"{b.module} ({'compiled' if b.compiled else 'cache hit'})", 1, b.seconds * 1000.0)
                for b in builds]
        sections.append(("module builds", rows))
    if not sections:
        return "<i>no timings recorded</i>"
    return "".join(f"<h4>{title}</h4>{table_html(rows)}{bar_chart_svg(rows)}" for title, rows in sections)


def scoped_timer_html(timer):
    rows = [(timer.name, 1, timer.elapsed)]
    out = f"<b>{html.escape(timer.name)}</b>: {timer.elapsed:.3f} ms"
    if timer.timing_results:
        out += timing_html(timer.timing_results)
    return out if not rows else out


def timing_widget(results=None, timers=None, builds=None):
    """An ipywidgets Tab: one tab per kind of timing (HTML table + bar chart in each)."""
    import ipywidgets as w
    parts = {"launches": timing_html(results=results) if results else None,
             "timers": timing_html(timers=timers) if timers else None,
             "builds": timing_html(builds=builds) if builds else None}
    parts = {k: v for k, v in parts.items() if v}
    tab = w.Tab(children=[w.HTML(v) for v in parts.values()])
    for i, k in enumerate(parts):
        tab.set_title(i, k)
    return tab
