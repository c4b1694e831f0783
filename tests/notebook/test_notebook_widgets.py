"""Displays: array summaries/pages/heat-maps (matplotlib), launch timings, tape graphs, static
fallbacks of the widgets."""

import io
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.notebook import graph_layout
from warp_interactive.notebook.widgets import array_view, plots, tape_view, timing_view


@wp.kernel
def wd_square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def wd_sum(y: wp.array(dtype=float), loss: wp.array(dtype=float)):
    wp.atomic_add(loss, 0, y[wp.tid()])


# --- arrays ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_stats_match_numpy(dtype):
    rng = np.random.default_rng(1)
    v = (rng.standard_normal((7, 5)) * 100).astype(dtype)
    s = array_view.stats(wp.array(v))
    assert s["min"] == pytest.approx(v.min()) and s["max"] == pytest.approx(v.max())
    assert s["mean"] == pytest.approx(v.astype(np.float64).mean())
    assert s["nan"] == 0 and s["inf"] == 0


def test_stats_count_nan_inf_and_skip_them():
    v = np.array([1.0, np.nan, 3.0, np.inf, -np.inf, np.nan], dtype=np.float32)
    s = array_view.stats(wp.array(v))
    assert (s["nan"], s["inf"], s["min"], s["max"], s["mean"]) == (2, 2, 1.0, 3.0, 2.0)
    html = wp.array(v)._repr_html_()
    assert "NaN=2 Inf=2" in html and "color:#b00" in html


def test_paged_table_shows_one_page():
    a = wp.array(np.arange(100, dtype=np.float32))
    rows, idx, pages = array_view.page(a, 2, rows=20)
    assert pages == 5 and idx == 2 and [r[0] for r in rows] == list(range(40, 60))
    assert rows[0][1] == ["40"]
    html = array_view.array_html(a, page_index=4, rows=20)
    assert "<th>99</th>" in html and "<th>39</th>" not in html and "page 5 of 5" in html


def test_2d_scalar_rows_are_plain_numbers():
    a = wp.array(np.arange(30, dtype=np.float32).reshape(2, 15))
    rows, _, _ = array_view.page(a)
    assert rows[1][1] == [str(v) for v in range(15, 27)] + ["…"]


def test_vector_arrays_format_components():
    a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=wp.vec3)
    rows, _, _ = array_view.page(a)
    assert rows[1][1] == ["(3, 4, 5)"]
    assert "dtype=vec3" in array_view.summary_html(a) or "vec" in array_view.summary_html(a)


def test_large_array_html_stays_small():
    """One page of values, a sampled picture and a sampled copy for the hover read-out: the
    HTML of a 4-million-element array is about that of a 128x128 one."""
    a = wp.zeros((2000, 2000))
    html = a._repr_html_()
    assert len(html) < 1.3 * len(wp.zeros((128, 128))._repr_html_()) < 200_000
    bundle = a._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}


def _image_box(fig):
    """(width, height) in pixels of the heat-map's image area, as drawn."""
    fig.canvas.draw()
    box = fig.axes[0].get_window_extent()
    return box.width, box.height


@pytest.mark.parametrize("shape", [(200, 300), (300, 200), (10, 1000), (1000, 10), (3, 4), (64, 64),
                                   (2000, 600)])
def test_heatmap_keeps_the_array_aspect(shape):
    fig = plots.heatmap_figure(np.random.default_rng(0).random(shape))
    w, h = _image_box(fig)
    rows, cols = shape
    assert w / h == pytest.approx(cols / rows, rel=0.03)
    assert max(w, h) == pytest.approx(plots.HEATMAP_INCHES * plots.DPI, rel=0.01)
    assert len(fig.axes) == 2                               # the image and its colour bar
    png_w, png_h = _png_size(plots.png_bytes(fig))
    assert (png_w > png_h) == (cols > rows) or rows == cols or min(shape) < 20


def _png_size(png):
    import struct
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", png[16:24])


def test_heatmap_colours_axes_and_colour_bar():
    from matplotlib import colormaps
    v = np.array([[0.0, 1.0], [2.0, np.nan]], dtype=np.float32)
    fig = plots.heatmap_figure(v)
    image = fig.axes[0].images[0]
    rgba = image.to_rgba(image.get_array())
    viridis = colormaps["viridis"]
    assert rgba[0, 0].tolist() == pytest.approx(viridis(0.0))          # min
    assert rgba[1, 0].tolist() == pytest.approx(viridis(1.0))          # max
    assert rgba[1, 1][:3].tolist() == pytest.approx([0x88 / 255] * 3)  # NaN: grey
    colour_bar = fig.axes[1]
    assert colour_bar.get_ylim() == pytest.approx((0.0, 2.0))
    # the axes are array indices, row 0 at the top as in the printed table
    assert fig.axes[0].get_ylim() == pytest.approx((1.5, -0.5))
    assert fig.axes[0].get_xlim() == pytest.approx((-0.5, 1.5))


def test_heatmap_samples_large_arrays_by_stride():
    assert plots.strides_for((1000, 600), 256) == (4, 3)
    assert plots.strides_for((10, 10), 256) == (1, 1)
    fig = plots.heatmap_figure(np.zeros((4000, 300)))
    assert fig.axes[0].images[0].get_array().shape == (500, 300)


def test_matplotlib_is_imported_only_for_pictures():
    import subprocess
    import sys
    code = ("import sys, numpy as np, warp_interactive as wp\n"
            "from warp_interactive.notebook.widgets import array_view\n"
            "array_view.array_html(wp.array(np.arange(4, dtype=np.float32)))\n"
            "print('matplotlib' in sys.modules)\n"
            "array_view.array_html(wp.array(np.ones((3, 4), dtype=np.float32)))\n"
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


def test_table_has_column_headers():
    html = array_view.table_html(wp.array(np.arange(40, dtype=np.float32).reshape(2, 20)))
    assert "<tr><th></th>" + "".join(f"<th>{j}</th>" for j in range(12)) + "<th>…</th></tr>" in html
    assert "<tr><th></th><th>value</th></tr>" in array_view.table_html(wp.zeros(3))
    text = repr(wp.notebook.show_array(wp.array(np.arange(6, dtype=np.float32).reshape(2, 3))))
    assert text.splitlines()[2:] == ["  | 0 1 2", "0 | 0 1 2", "1 | 3 4 5"]


def test_array_widget_pages():
    pytest.importorskip("ipywidgets")
    box = array_view.array_widget(wp.array(np.arange(50, dtype=np.float32)), rows=10)
    assert "<th>0</th>" in box.table.value
    box.go(1)
    assert "<th>10</th>" in box.table.value and "<th>0</th>" not in box.table.value
    box.go(100)
    assert "<th>49</th>" in box.table.value


# --- timings ---------------------------------------------------------------------------------------
def test_timing_recorder_records_each_launch_and_builds_apart():
    x = wp.ones(64)
    y = wp.zeros(64)
    wp.load_module(device="cpu")
    wp.timing_begin()
    for _ in range(3):
        wp.launch(wd_square, 64, inputs=[x, y])
    results = wp.timing_end()
    launches = [r for r in results if r.kind == "forward"]
    assert [r.name for r in launches] == ["wd_square"] * 3
    assert all(r.elapsed >= 0 and r.dim == (64,) for r in launches)
    from warp_interactive.runtime.launch import Launch
    assert Launch.launch.__name__ == "launch"        # the recorder is uninstalled


def test_timing_print_and_summary(capsys):
    with wp.timing.record() as rec:
        wp.launch(wd_square, 8, inputs=[wp.ones(8), wp.zeros(8)])
        wp.launch(wd_square, 8, inputs=[wp.ones(8), wp.zeros(8)])
    wp.timing_print(rec.results)
    out = capsys.readouterr().out
    assert "wd_square" in out and " 2 " in out
    (name, kind, n, total, mean), = [r for r in rec.summary() if r[1] == "forward"]
    assert (name, n) == ("wd_square", 2) and mean == pytest.approx(total / 2)


def test_scoped_timer_with_launch_timings():
    with wp.ScopedTimer("block", print=False, cuda_filter=1) as t:
        wp.launch(wd_square, 8, inputs=[wp.ones(8), wp.zeros(8)])
    assert [r.name for r in t.timing_results if r.kind == "forward"] == ["wd_square"]
    html = t._repr_html_()
    assert "block" in html and "<img class='wpi-timing-chart'" in html


def test_timing_html_table_and_bars():
    rows = [("a", 2, 4.0), ("b", 1, 1.0)]
    fig = plots.bar_chart_figure(rows)
    widths = [p.get_width() for p in fig.axes[0].patches]
    assert widths == [4.0, 1.0]                        # largest first, lengths = totals
    html = timing_view.timing_html(timers=[("t", 1.5), ("t", 2.5)])
    assert "<td>t</td><td>2</td><td>4.000</td><td>2.000</td>" in html


@wp.kernel
def wd_scale(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * 3.0


def test_show_timings_lists_only_what_happened_after_timing_begin():
    from warp_interactive.runtime.module import get_module
    with wp.ScopedTimer("before", print=False):
        wp.launch(wd_square, 4, inputs=[wp.ones(4), wp.zeros(4)])
    get_module(wd_scale.module.name).invalidate()     # a build inside the recording
    wp.timing_begin()
    with wp.ScopedTimer("during", print=False):
        wp.launch(wd_scale, 4, inputs=[wp.ones(4), wp.zeros(4)])
    wp.timing_end()
    shown = wp.notebook.show_timings()
    titles = [t for t, _ in timing_view.sections(*wp.notebook.api._timing_sources(None, None, None))]
    assert titles == ["kernel launches", "module builds", "timers"]
    text = repr(shown)
    assert "wd_scale (forward)" in text and "during" in text
    assert "wd_square" not in text and "before" not in text
    assert f"{wd_scale.module.name} (forward, " in text


def test_backward_build_is_its_own_row():
    from warp_interactive.runtime.module import get_module
    get_module(wd_scale.module.name).invalidate()     # both binaries load inside the recording
    x = wp.array(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    y = wp.zeros(2, requires_grad=True)
    with wp.timing.record() as rec:
        tape = wp.Tape()
        with tape:
            wp.launch(wd_scale, 2, inputs=[x], outputs=[y])
        tape.backward(grads={y: np.ones(2, dtype=np.float32)})
    labels = [label for label, _, _ in timing_view.sections(rec.results)[1][1]]
    name = wd_scale.module.name
    assert [lb.split(",")[0] for lb in labels] == [f"{name} (forward", f"{name} (backward"], labels
    assert [r.kind for r in rec.results if r.name == "wd_scale"] == ["forward", "backward"]


def test_displayed_objects_have_text_reprs():
    a = wp.array(np.arange(4, dtype=np.float32))
    assert repr(wp.notebook.show_array(a)).startswith("wp.array shape=(4,) dtype=float32")
    with wp.timing.record() as rec:
        wp.launch(wd_square, 4, inputs=[a, wp.zeros(4)])
    assert "wd_square" in repr(rec) and "forward" in repr(rec)
    with wp.ScopedTimer("block", print=False, cuda_filter=1) as timer:
        wp.launch(wd_square, 4, inputs=[a, wp.zeros(4)])
    assert repr(timer) == f"<wp.ScopedTimer 'block': {timer.elapsed:.3f} ms, 1 launches timed>"
    tape, x, y, loss = _tape()
    assert repr(tape) == "<wp.Tape: 2 kernel launches, 0 other steps, 3 arrays>"
    assert "wd_square dim=3:" in repr(wp.notebook.show_tape(tape, {x: "x", y: "y", loss: "loss"}))


# --- tapes -----------------------------------------------------------------------------------------
def _tape():
    x = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
    y = wp.zeros(3, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    with tape:
        with wp.ScopedTimer("forward", print=False):
            wp.launch(wd_square, 3, inputs=[x], outputs=[y])
        wp.launch(wd_sum, 3, inputs=[y], outputs=[loss])
    return tape, x, y, loss


def test_tape_model_layers_and_edges():
    tape, x, y, loss = _tape()
    names = {id(x): "x", id(y): "y", id(loss): "loss"}
    g = graph_layout.tape_model(tape, names)
    by_label = {n.label: n for n in g.nodes.values()}
    assert [by_label[k].layer for k in ("x", "wd_square", "y", "wd_sum", "loss")] == [0, 1, 2, 3, 4]
    edges = {(g.nodes[a].label, g.nodes[b].label) for a, b in g.edges}
    assert edges == {("x", "wd_square"), ("wd_square", "y"), ("y", "wd_sum"), ("wd_sum", "loss")}
    assert [(name, [g.nodes[m].label for m in members]) for name, members in g.scopes] == \
        [("forward", ["wd_square"])]


def test_gradient_norms_after_backward():
    tape, x, y, loss = _tape()
    tape.backward(loss)
    norms = {n: v for n, _, v in tape_view.gradient_norms(tape, {id(x): "x", id(y): "y", id(loss): "loss"})}
    assert norms["x"] == pytest.approx(np.linalg.norm(2 * np.array([1.0, 2.0, 3.0])), rel=1e-6)
    # y was written by a recorded kernel: its adjoint is consumed by the store (as in warp-lang)
    assert norms["y"] == 0.0 and norms["loss"] == pytest.approx(1.0)


def test_tape_svg_pure_python_is_valid_svg():
    tape, x, y, loss = _tape()
    tape.backward(loss)
    svg = tape_view.tape_svg(tape, {id(x): "x"}, engine="python")
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "wd_square" in texts and "x" in texts and "forward" in texts
    assert any(t and "|grad|=7.48" in t for t in texts)
    assert len(list(root.iter("{http://www.w3.org/2000/svg}path"))) == 4 + 1   # 4 edges + marker


def test_tape_dot_text_names_arrays():
    tape, x, y, loss = _tape()
    dot = tape_view.dot_with_names(tape, {id(x): "x"})
    assert dot.startswith("digraph tape {") and 'label="x\\n(3,)' in dot and "cluster_forward" in dot
    assert tape.visualize().startswith("digraph")


@wp.kernel
def wd_in_place(a: wp.array(dtype=float), b: wp.array(dtype=float), n: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + b[i] * float(n.shape[0])


@wp.func
def wd_put(dst: wp.array(dtype=float), i: int, v: float):
    dst[i] = v


@wp.kernel
def wd_via_func(src: wp.array2d(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid()
    row = src[i]
    wd_put(dst, i, row[0])


def _edges_of_dot(dot):
    import re
    labels = dict(re.findall(r'(a\d+) \[shape=ellipse, label="([^"]*)"\]', dot))
    kernels = {k: lbl.split("\\n")[0] for k, lbl in re.findall(r'(k\d+) \[shape=box, label="([^"]*)"\]', dot)}
    names = {**labels, **kernels}
    return {(names[a], names[b]) for a, b in re.findall(r"^  (\w+) -> (\w+);$", dot, re.M)}


# (launch arguments as inputs/outputs, expected edges): the kernel's own stores decide, not the lists
DATA_FLOW = [
    ("square, all in inputs", lambda x, y, z, w: (wd_square, [x, y], []),
     {("x", "wd_square"), ("wd_square", "y")}),
    ("square, output in outputs", lambda x, y, z, w: (wd_square, [x], [y]),
     {("x", "wd_square"), ("wd_square", "y")}),
    ("in place, shape-only argument", lambda x, y, z, w: (wd_in_place, [x, y, w], []),
     {("x", "wd_in_place"), ("wd_in_place", "x"), ("y", "wd_in_place"), ("w", "wd_in_place")}),
    ("store through a @wp.func and a view", lambda x, y, z, w: (wd_via_func, [z], [y]),
     {("z", "wd_via_func"), ("wd_via_func", "y")}),
]


@pytest.mark.parametrize("case, make, expected", DATA_FLOW, ids=[c[0] for c in DATA_FLOW])
def test_tape_edges_follow_the_kernels_stores(case, make, expected):
    x, y = wp.ones(3), wp.zeros(3)
    z, w = wp.ones((3, 2)), wp.zeros(5)
    kernel, inputs, outputs = make(x, y, z, w)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, 3, inputs=inputs, outputs=outputs)
    labels = {x: "x", y: "y", z: "z", w: "w"}
    assert _edges_of_dot(tape.visualize(array_labels=labels)) == expected
    g = graph_layout.tape_model(tape, {id(a): n for a, n in labels.items()})
    assert {(g.nodes[a].label, g.nodes[b].label) for a, b in g.edges} == expected


def test_kernel_array_access():
    assert wd_square.array_access == (("x",), ("y",))
    assert wd_sum.array_access == (("y",), ("loss",))
    assert wd_in_place.array_access == (("a", "b"), ("a",))     # n: only its shape is used
    assert wd_via_func.array_access == (("src",), ("dst",))


def test_visualize_uses_array_labels_else_numbers():
    tape, x, y, loss = _tape()
    dot = tape.visualize(array_labels={x: "positions", loss: "the loss"})
    assert 'label="positions"' in dot and 'label="the loss"' in dot and 'label="a1"' in dot
    assert ("wd_sum", "the loss") in _edges_of_dot(dot)


def test_tape_svg_engine_dot_when_missing(monkeypatch):
    monkeypatch.setattr(tape_view.shutil, "which", lambda name: None)
    tape, *_ = _tape()
    with pytest.raises(RuntimeError, match="GraphViz 'dot' was not found"):
        tape_view.tape_svg(tape, engine="dot")
    assert tape_view.tape_svg(tape).startswith("<svg")    # auto falls back to the Python layout


def test_timing_widget_tabs():
    pytest.importorskip("ipywidgets")
    with wp.timing.record() as rec:
        wp.launch(wd_square, 4, inputs=[wp.ones(4), wp.zeros(4)])
    tab = wp.notebook.timing_widget(results=rec.results, timers=[("t", 1.0)], builds=[])
    assert [tab.get_title(i) for i in range(len(tab.children))] == ["kernel launches", "timers"]
    assert "wd_square (forward)" in tab.children[0].value
    bundle = tab._repr_mimebundle_()            # the static fallback, for nbconvert and GitHub
    assert "wd_square (forward)" in bundle["text/html"] and "<img" in bundle["text/html"]
    assert "wd_square (forward)" in bundle["text/plain"]


def test_fd_capture_copies_c_level_writes():
    import ctypes
    from warp_interactive.notebook.capture import FdCapture
    sink = io.StringIO()
    libc = ctypes.CDLL(None)
    with FdCapture(sink):
        libc.printf(b"from C %d\n", 42)
        libc.write(1, b"raw write\n", 10)
    assert "from C 42\n" in sink.getvalue() and "raw write\n" in sink.getvalue()


def test_array_widget_has_a_static_html_fallback():
    pytest.importorskip("ipywidgets")
    a = wp.array(np.arange(60, dtype=np.float32).reshape(30, 2))
    box = wp.notebook.array_widget(a, rows=10)
    bundle = box._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle       # the live widget
    html = bundle["text/html"]                                         # and what static HTML shows
    assert "shape=(30, 2)" in html and "<th>9</th>" in html and "<img class='wpi-heatmap'" in html
    box.go(1)
    assert "<th>10</th>" in box._repr_mimebundle_()["text/html"]       # the page shown now
    assert bundle["text/plain"] == repr(a)


def test_nbconvert_html_of_a_saved_widget_is_not_blank():
    """A notebook saved without widget state, converted to HTML, shows the fallback."""
    nbformat = pytest.importorskip("nbformat")
    nbconvert = pytest.importorskip("nbconvert")
    pytest.importorskip("ipywidgets")
    box = wp.notebook.array_widget(wp.array(np.arange(6, dtype=np.float32).reshape(2, 3)))
    cell = nbformat.v4.new_code_cell("wp.notebook.array_widget(a)", outputs=[
        nbformat.v4.new_output("display_data", data=box._repr_mimebundle_())])
    nb = nbformat.v4.new_notebook(cells=[cell])
    body, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    assert "shape=(2, 3)" in body and "wpi-heatmap" in body


def test_dot_labels_are_quoted():
    tape, x, y, loss = _tape()
    dot = tape.visualize(array_labels={x: 'say "x"\\path'})
    assert 'label="say \\"x\\"\\\\path"' in dot
    dot = tape_view.dot_with_names(tape, {id(x): 'a "quoted" name'})
    assert 'label="a \\"quoted\\" name\\n(3,)' in dot


@pytest.mark.skipif(tape_view.shutil.which("dot") is None,
                    reason="GraphViz is not installed (scripts/test.sh installs it)")
def test_tape_svg_with_graphviz_draws_the_data_flow():
    tape, x, y, loss = _tape()
    tape.backward(loss)
    svg = tape_view.tape_svg(tape, {id(x): "x", id(y): "y", id(loss): "loss"}, engine="dot")
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    edges = [g for g in root.iter(ns + "g") if g.get("class") == "edge"]
    assert len(edges) == 4
    texts = [t.text for t in root.iter(ns + "text")]
    assert {"wd_square", "wd_sum", "x", "y", "loss"} <= set(texts)


def test_heatmap_png_reads_back_with_the_arrays_aspect():
    from matplotlib import image
    png = plots.heatmap_png(np.random.default_rng(0).random((300, 200)))
    w, h = _png_size(png)
    assert image.imread(io.BytesIO(png), format="png").shape[:2] == (h, w) and h > w
