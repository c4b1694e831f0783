"""Timings as HTML tables and bar charts (matplotlib PNG): the kernel launches a recorder saw
(``wp.timing_begin()`` .. ``wp.timing_end()``), the module builds among them (the forward and
the backward binary of a module are separate rows that say which is which), and the
``ScopedTimer`` blocks that ended while it recorded."""

import html


def _launch_rows(results):
    from ...runtime.timing import summary_rows
    return [(f"{name} ({kind})", n, total) for name, kind, n, total, _ in
            summary_rows(r for r in results if r.kind != "build")]


def _build_rows(results, builds):
    rows = [(f"{r.name} ({r.detail})" if r.detail else r.name, 1, r.elapsed)
            for r in results if r.kind == "build"]
    rows += [(f"{b.module} ({b.detail})", 1, b.seconds * 1000.0) for b in builds or ()]
    return rows


def _timer_rows(timers):
    agg = {}
    for name, ms in timers or ():
        n, t = agg.get(name, (0, 0.0))
        agg[name] = (n + 1, t + ms)
    return [(k, n, t) for k, (n, t) in agg.items()]


def sections(results=None, timers=None, builds=None):
    """[(title, rows)] with rows (label, count, total ms); empty sections left out."""
    results = list(results or ())
    out = [("kernel launches", _launch_rows(results)),
           ("module builds", _build_rows(results, builds)),
           ("timers", _timer_rows(timers))]
    return [(title, rows) for title, rows in out if rows]


def path_rows(results):
    """[(kernel (kind), code path)] of the launches, one per kernel and kind (its last launch's
    path): lanes, vectorised, blocks or scalar, and why the lanes were refused."""
    rows = {}
    for r in results or ():
        if r.kind != "build" and getattr(r, "path", ""):
            rows[f"{r.name} ({r.kind})"] = r.path
    return list(rows.items())


def paths_html(rows):
    body = "".join(f"<tr><td>{html.escape(label)}</td><td>{html.escape(path)}</td></tr>" for label, path in rows)
    return f"<h4>code paths</h4><table class='wpi-paths'><tr><th>kernel</th><th>path</th></tr>{body}</table>"


def paths_text(rows):
    return "code paths\n" + "\n".join(f"{label:<48} {path}" for label, path in rows)


def table_html(rows, headers=("name", "count", "total ms", "mean ms")):
    head = "".join(f"<th>{h}</th>" for h in headers)
    body = "".join(f"<tr><td>{html.escape(label)}</td><td>{n}</td><td>{total:.3f}</td>"
                   f"<td>{total / max(n, 1):.3f}</td></tr>" for label, n, total in rows)
    return f"<table class='wpi-timings'><tr>{head}</tr>{body}</table>"


def chart_html(rows, title):
    from .plots import bar_chart_png, data_uri
    return (f"<img class='wpi-timing-chart' src='{data_uri(bar_chart_png(rows))}' "
            f"alt='bar chart: {html.escape(title)}' style='max-width:100%'/>")


def table_text(rows):
    lines = [f"{'name':<48} {'count':>6} {'total ms':>10} {'mean ms':>10}"]
    lines += [f"{label:<48} {n:>6} {total:>10.3f} {total / max(n, 1):>10.3f}" for label, n, total in rows]
    return "\n".join(lines)


def timing_text(results=None, timers=None, builds=None):
    parts = [f"{title}\n{table_text(rows)}" for title, rows in sections(results, timers, builds)]
    paths = path_rows(results)
    if paths:
        parts.append(paths_text(paths))
    return "\n\n".join(parts) or "no timings recorded"


def timing_html(results=None, timers=None, builds=None, charts=True):
    """Each section as a table and (``charts``) a bar chart."""
    secs = sections(results, timers, builds)
    if not secs:
        return "<i>no timings recorded (wp.timing_begin() ... wp.timing_end())</i>"
    paths = path_rows(results)
    return "".join(f"<h4>{title}</h4>{table_html(rows)}{chart_html(rows, title) if charts else ''}"
                   for title, rows in secs) + (paths_html(paths) if paths else "")


def scoped_timer_html(timer):
    out = f"<b>{html.escape(timer.name)}</b>: {timer.elapsed:.3f} ms"
    if timer.timing_results:
        out += timing_html(timer.timing_results)
    return out


def timing_widget(results=None, timers=None, builds=None):
    """An ipywidgets Tab: one tab per section (table + chart); the HTML of all of them is the
    static fallback (``_repr_html_``) where no widget front-end runs (nbconvert, GitHub)."""
    import ipywidgets as w
    secs = sections(results, timers, builds)
    tab = w.Tab(children=[w.HTML(f"{table_html(rows)}{chart_html(rows, t)}") for t, rows in secs])
    for i, (title, _) in enumerate(secs):
        tab.set_title(i, title)
    from .static import with_static_fallback
    return with_static_fallback(tab, timing_html(results, timers, builds),
                                timing_text(results, timers, builds))
