"""Displays: array summaries/pages/heat-maps, the PNG encoder, launch timings, tape graphs."""

import io
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.notebook import graph_layout
from warp_interactive.notebook.widgets import array_view, png, tape_view, timing_view


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
    a = wp.zeros((2000, 2000))
    html = a._repr_html_()
    assert len(html) < 100_000
    bundle = a._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}


def test_heatmap_png_decodes_to_the_colour_map():
    from matplotlib import image
    v = np.array([[0.0, 1.0], [2.0, np.nan]], dtype=np.float32)
    img = image.imread(io.BytesIO(png.heatmap_png(v, scale_to=2)), format="png")
    rgb = (img[..., :3] * 255).round().astype(int)
    assert rgb.shape == (2, 2, 3)
    assert rgb[0, 0].tolist() == [68, 1, 84]          # min -> first viridis anchor
    assert rgb[1, 0].tolist() == [253, 231, 37]       # max -> last anchor
    assert rgb[1, 1].tolist() == [128, 128, 128]      # NaN -> grey
    mid = png.colormap(np.array([0.5]))[0].tolist()
    assert rgb[0, 1].tolist() == mid


def test_heatmap_samples_large_arrays():
    v = np.arange(1000 * 600, dtype=np.float32).reshape(1000, 600)
    d = png.downsample(v, 256)
    assert d.shape[0] <= 256 and d.shape[1] <= 256 and np.shares_memory(d, v)


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
    assert "block" in html and "<svg" in html


def test_timing_html_table_and_bars():
    rows = [("a", 2, 4.0), ("b", 1, 1.0)]
    svg = timing_view.bar_chart_svg(rows)
    root = ET.fromstring(svg)
    widths = [float(r.get("width")) for r in root.iter("{http://www.w3.org/2000/svg}rect")]
    assert widths == [timing_view.BAR_W, timing_view.BAR_W / 4]
    html = timing_view.timing_html(timers=[("t", 1.5), ("t", 2.5)])
    assert "<td>t</td><td>2</td><td>4.000</td><td>2.000</td>" in html


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
    assert [tab.get_title(i) for i in range(len(tab.children))] == ["launches", "timers"]
    assert "wd_square (forward)" in tab.children[0].value


def test_fd_capture_copies_c_level_writes():
    import ctypes
    from warp_interactive.notebook.capture import FdCapture
    sink = io.StringIO()
    libc = ctypes.CDLL(None)
    with FdCapture(sink):
        libc.printf(b"from C %d\n", 42)
        libc.write(1, b"raw write\n", 10)
    assert "from C 42\n" in sink.getvalue() and "raw write\n" in sink.getvalue()
