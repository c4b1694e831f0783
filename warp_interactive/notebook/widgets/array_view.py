"""wp.array in a notebook: shape, dtype, device, statistics, a page of values, a heat-map.

The statistics read the array where it lives (a view on the CPU); only one page of values and a
sampled heat-map go to the browser, however large the array.
"""

import html

import numpy as np

PAGE_ROWS = 20
MAX_COLS = 12


def host_view(a):
    """The array's values as NumPy (a view for CPU arrays; a copy from a GPU)."""
    return a.numpy()


def stats(a):
    """dict: min, max, mean, nan, inf (over all scalar components); None for an empty array."""
    v = host_view(a)
    if v.size == 0:
        return None
    if v.dtype == np.bool_:
        v = v.astype(np.uint8)
    if np.issubdtype(v.dtype, np.floating):
        nan = int(np.isnan(v).sum())
        inf = int(np.isinf(v).sum())
        finite = v[np.isfinite(v)] if nan or inf else v
    else:
        nan = inf = 0
        finite = v
    if finite.size == 0:
        return {"min": float("nan"), "max": float("nan"), "mean": float("nan"), "nan": nan, "inf": inf}
    return {"min": finite.min().item(), "max": finite.max().item(),
            "mean": float(finite.mean(dtype=np.float64)), "nan": nan, "inf": inf}


def _dtype_name(a):
    from ...types.dtypes import type_repr
    try:
        return type_repr(a.dtype)
    except Exception:   # a dtype the repr table does not know: its class name is fine here
        return getattr(a.dtype, "__name__", str(a.dtype))


def page(a, page_index=0, rows=PAGE_ROWS):
    """(row labels, rows of cell strings, page count) for one page of the array's first axis."""
    v = host_view(a)
    n = v.shape[0] if v.ndim else 1
    pages = max(1, -(-n // rows))
    page_index = min(max(page_index, 0), pages - 1)
    lo, hi = page_index * rows, min(n, page_index * rows + rows)
    out = []
    for i in range(lo, hi):
        row = v[i]
        if a.ndim == 1:
            cells = [_fmt(row)]          # one element (a scalar, or a vector's components)
        else:
            cells = [_fmt(row[j]) for j in range(min(len(row), MAX_COLS))]
            if len(row) > MAX_COLS:
                cells.append("…")
        out.append((i, cells))
    return out, page_index, pages


def _fmt(x):
    x = np.asarray(x)
    if x.ndim == 0:
        return f"{x.item():.6g}" if np.issubdtype(x.dtype, np.floating) else str(x.item())
    return "(" + ", ".join(_fmt(e) for e in x.reshape(-1)[:16]) + ")"


def is_scalar_2d(a):
    from ...types.scalars import is_scalar
    return a.ndim == 2 and is_scalar(a.dtype) and a.size > 0


def has_heatmap(a):
    """2-d scalar arrays, and arrays of 3 or more dimensions (a slider over the leading axes)."""
    from ...types.scalars import is_scalar
    return a.ndim >= 2 and is_scalar(a.dtype) and a.size > 0


def summary_html(a):
    s = stats(a)
    head = (f"<b>wp.array</b> shape={tuple(a.shape)} dtype={html.escape(_dtype_name(a))} "
            f"device={html.escape(str(a.device))}")
    if a.requires_grad:
        head += " requires_grad"
    if s is None:
        return head + " (empty)"
    body = (f"min={s['min']:.6g} max={s['max']:.6g} mean={s['mean']:.6g} "
            f"NaN={s['nan']} Inf={s['inf']}")
    warn = " style='color:#b00'" if s["nan"] or s["inf"] else ""
    return f"{head}<br><span{warn}>{body}</span>"


def column_headers(a):
    """The header row's labels: column indices for 2-d and higher arrays (a shown cell of an
    n-d array is ``a[i, j]``, itself an array past 2-d), "value" for 1-d."""
    if a.ndim == 1:
        return ["value"]
    n = a.shape[1]
    heads = [str(j) for j in range(min(n, MAX_COLS))]
    return heads + (["…"] if n > MAX_COLS else [])


def table_html(a, page_index=0, rows=PAGE_ROWS):
    if a.size == 0:
        return ""
    data, page_index, pages = page(a, page_index, rows)
    head = "<tr><th></th>" + "".join(f"<th>{html.escape(h)}</th>" for h in column_headers(a)) + "</tr>"
    trs = "".join(f"<tr><th>{i}</th>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>"
                  for i, cells in data)
    foot = f"<div>page {page_index + 1} of {pages} (rows of axis 0)</div>" if pages > 1 else ""
    return (f"<table style='font-family:monospace;font-size:90%'>{head}{trs}</table>{foot}")


def heatmap_png(a):
    """The heat-map of a 2-d scalar array as PNG bytes (matplotlib, imported here)."""
    from .plots import heatmap_png as draw
    shape = "x".join(str(n) for n in a.shape)
    return draw(host_view(a), title=f"{shape} {_dtype_name(a)}")


def heatmap_html(a, cmap="viridis", vmin=None, vmax=None):
    """The heat-map with its hover read-out (and slice slider past 2-d), or "" if none."""
    if not has_heatmap(a):
        return ""
    from .heatmap_view import heatmap_block
    shape = "x".join(str(n) for n in a.shape)
    return heatmap_block(host_view(a), f"{shape} {_dtype_name(a)}", cmap, vmin, vmax)


def vector_html(a):
    """Points (1-d) or arrows (2-d) of a vec2/vec3 array, or "" for other arrays."""
    from .vector_plot import vector_length, vector_png
    n = vector_length(a)
    if n is None:
        return ""
    from .plots import data_uri
    shape = "x".join(str(k) for k in a.shape)
    kind = "points" if a.ndim == 1 else "arrows"
    png = vector_png(host_view(a), f"{shape} {_dtype_name(a)}")
    return (f"<img class='wpi-vectors' src='{data_uri(png)}' alt='{kind} of a {shape} "
            f"vec{n} array' style='max-width:100%;display:block'/>")


def picture_html(a):
    return heatmap_html(a) or vector_html(a)


def array_html(a, page_index=0, rows=PAGE_ROWS):
    """One self-contained HTML block (works without a widget front-end): the summary, the
    picture (a heat-map, points or arrows) and then the values, folded under the picture."""
    if getattr(a, "is_annotation", False):
        return html.escape(repr(a))
    picture = picture_html(a)
    table = table_html(a, page_index, rows)
    if picture and table:
        table = f"<details class='wpi-values'><summary>values</summary>{table}</details>"
    parts = [summary_html(a), picture, table]
    return "<div class='wpi-array' style='text-align:left'>" + "".join(p for p in parts if p) + "</div>"


def array_text(a, page_index=0, rows=PAGE_ROWS):
    """The same as text: the summary line, the statistics and the page of values."""
    if getattr(a, "is_annotation", False):
        return repr(a)
    head = f"wp.array shape={tuple(a.shape)} dtype={_dtype_name(a)} device={a.device}"
    s = stats(a)
    if s is None:
        return head + " (empty)"
    lines = [head, f"min={s['min']:.6g} max={s['max']:.6g} mean={s['mean']:.6g} "
                   f"NaN={s['nan']} Inf={s['inf']}"]
    data, page_index, pages = page(a, page_index, rows)
    heads = column_headers(a)
    width = max([len(c) for _, cells in data for c in cells] + [len(h) for h in heads] + [1])
    label_w = len(str(data[-1][0])) if data else 1
    lines.append(" " * label_w + " | " + " ".join(h.rjust(width) for h in heads))
    lines += [str(i).rjust(label_w) + " | " + " ".join(c.rjust(width) for c in cells) for i, cells in data]
    if pages > 1:
        lines.append(f"page {page_index + 1} of {pages} (rows of axis 0)")
    return "\n".join(lines)


def array_widget(a, rows=PAGE_ROWS):
    """An ipywidgets box with the summary, a heat-map and previous/next page buttons."""
    import ipywidgets as w
    state = {"page": 0}
    table = w.HTML(table_html(a, 0, rows))
    pages = page(a, 0, rows)[2] if a.size else 1
    label = w.Label(f"page 1 / {pages}")
    prev_b, next_b = w.Button(description="◀"), w.Button(description="▶")

    def go(delta):
        state["page"] = min(max(state["page"] + delta, 0), pages - 1)
        table.value = table_html(a, state["page"], rows)
        label.value = f"page {state['page'] + 1} / {pages}"

    prev_b.on_click(lambda _: go(-1))
    next_b.on_click(lambda _: go(1))
    children = [w.HTML(summary_html(a))]
    picture = picture_html(a)
    if picture:
        children.append(w.HTML(picture))
    children += [w.HBox([prev_b, label, next_b]), table]
    box = w.VBox(children)
    box.go = go          # for programs (and tests) that page without clicking
    box.table = table
    from .static import with_static_fallback
    return with_static_fallback(box, lambda: array_html(a, state["page"], rows), lambda: repr(a))
