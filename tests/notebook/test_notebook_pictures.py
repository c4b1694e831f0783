"""The notebook's pictures: ids unique per output, heat-maps in true colour with the picture
before the values, the hover copy and the slice slider of heat-maps, vec2/vec3 arrays as points
and arrows, tape pictures that say which gradients backward consumed, ``tape.visualize()`` shown
as a picture in a cell."""

import base64
import html as html_lib
import io
import re
import shutil
from html.parser import HTMLParser

import numpy as np
import pytest

import warp_interactive as wp
from notebook_helpers import ipython  # noqa: F401  (fixture)
from warp_interactive.notebook.widgets import array_view, heatmap_view, plots, tape_view, vector_plot


@pytest.fixture(autouse=True)
def _no_tape_left():
    """The tapes made here are gone after each test: a live tape keeps the runtime's tape
    checks on, which later tests (in the same process) look at."""
    yield
    import gc
    gc.collect()


@wp.kernel
def pic_square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def pic_store_sum(y: wp.array(dtype=float), loss: wp.array(dtype=float)):
    loss[0] = y[0] + y[1] + y[2] + y[3]


def _recorded(backward):
    x = wp.array(np.arange(1, 5, dtype=np.float32), requires_grad=True)
    y = wp.zeros(4, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(pic_square, 4, inputs=[x, y])
        wp.launch(pic_store_sum, 1, inputs=[y, loss])
    if backward:
        tape.backward(loss)
    return tape, {id(x): "x", id(y): "y", id(loss): "loss"}, (x, y, loss)


# --- ids ---------------------------------------------------------------------------------------
ENGINES = ["python", pytest.param("dot", marks=pytest.mark.skipif(
    shutil.which("dot") is None, reason="GraphViz 'dot' is not installed (scripts/test.sh installs it)"))]

_ID = re.compile(r"""\sid=["']([^"']+)["']""")
_REF = re.compile(r"""url\(#([^)]+)\)|href=["']#([^"']+)["']""")


@pytest.mark.parametrize("engine", ENGINES)
def test_two_tape_pictures_in_one_page_keep_their_own_ids(engine):
    """Each id once in its output, no id shared by two outputs, every reference (the arrowheads'
    ``url(#marker)``) to an id of its own output: in one page, another output's element of the
    same id would be the one the browser finds."""
    outputs = [tape_view.tape_html(_recorded(False)[0], {}, engine) for _ in range(2)]
    ids = [_ID.findall(out) for out in outputs]
    for own, out in zip(ids, outputs):
        assert own and len(own) == len(set(own)), own
        refs = [a or b for a, b in _REF.findall(out)]
        assert refs or engine == "dot"
        assert set(refs) <= set(own), set(refs) - set(own)
    assert not set(ids[0]) & set(ids[1])


def test_scope_ids_renames_definitions_and_references_together():
    from warp_interactive.notebook.widgets.ids import scope_ids
    svg = ("<svg><defs><marker id='arr'/></defs><path marker-end='url(#arr)'/>"
           "<use href=\"#arr\"/><use xlink:href='#other'/><g id=\"n1\"/></svg>")
    out = scope_ids(svg, "P")
    assert "id='P-arr'" in out and "url(#P-arr)" in out and 'href="#P-arr"' in out
    assert 'id="P-n1"' in out and "xlink:href='#other'" in out      # not defined here: left


# --- heat-maps ---------------------------------------------------------------------------------
def _image_area_colours(png, box):
    from matplotlib import image
    rgb = image.imread(io.BytesIO(png), format="png")[..., :3]
    h, w = rgb.shape[:2]
    x0, y0, x1, y1 = box
    inner = rgb[int(y0 * h) + 2:int(y1 * h) - 2, int(x0 * w) + 2:int(x1 * w) - 2]
    return len(np.unique((inner * 255).round().astype(np.uint8).reshape(-1, 3), axis=0))


@pytest.mark.parametrize("shape", [(200, 300), (256, 256), (64, 512)])
def test_smooth_field_keeps_every_colour_of_the_colour_map(shape):
    """A smooth ramp over the whole range uses the colour map's 256 colours: no palette
    quantisation (which left 87 and drew contour rings)."""
    rows, cols = shape
    field = np.add.outer(np.linspace(0, 1, rows), np.linspace(0, 2, cols))
    png = plots.heatmap_png(field)
    _, box = plots.heatmap_picture(field)
    assert _image_area_colours(png, box) >= 230    # (512 columns on 400 pixels skip a few)


@pytest.mark.parametrize("shape", [(20, 12), (40, 40), (3, 20, 12)])
def test_picture_comes_before_the_values(shape):
    a = wp.array(np.random.default_rng(0).random(shape).astype(np.float32))
    page = array_view.array_html(a)
    assert page.index("wpi-heatmap") < page.index("<table")
    assert "<details class='wpi-values'>" in page          # the values fold under the picture


def _heat_attrs(page):
    m = re.search(r"<div class='wpi-heat'([^>]*)>", page)
    return {k: html_lib.unescape(v) for k, v in re.findall(r"data-(\w+)='([^']*)'", m.group(1))}


def _hover_copy(attrs):
    kind = {"f4": "<f4", "f8": "<f8", "i4": "<i4"}[attrs["dt"]]
    return np.frombuffer(base64.b64decode(attrs["v"]), dtype=kind)


@pytest.mark.parametrize("shape, dtype", [((30, 40), np.float32), ((30, 40), np.float64),
                                          ((7, 9), np.int32), ((300, 200), np.float32),
                                          ((5, 30, 40), np.float32), ((2, 3, 16, 8), np.float64)])
def test_hover_copy_holds_the_values_at_their_indices(shape, dtype):
    """What the page reads under the pointer: the array's values (every element up to 128 per
    side; past that every k-th), slices in order, the limits of the whole array."""
    v = (np.random.default_rng(1).standard_normal(shape) * 50).astype(dtype)
    attrs = _heat_attrs(array_view.array_html(wp.array(v)))
    sk, sy, sx = map(int, attrs["step"].split(","))
    flat = v.reshape(-1, *shape[-2:])
    expect = flat[::sk, ::sy, ::sx]
    np.testing.assert_array_equal(_hover_copy(attrs), expect.reshape(-1).astype(_hover_copy(attrs).dtype))
    assert attrs["shape"] == f"{shape[-2]},{shape[-1]}"
    assert tuple(int(n) for n in attrs["lead"].split(",") if n) == shape[:-2]
    assert (sy, sx) == ((1, 1) if max(shape[-2:]) <= heatmap_view.HOVER_SIDE else (sy, sx))
    lo, hi = map(float, attrs["lim"].split(","))
    assert (lo, hi) == (float(v.min()), float(v.max()))


@pytest.mark.parametrize("shape, positions", [((5, 8, 8), 5), ((3, 4, 8, 8), 12), ((200, 128, 128), 8)])
def test_slider_over_the_leading_axes(shape, positions):
    page = array_view.array_html(wp.zeros(shape))
    m = re.search(r"<input type='range' class='wpi-slider' min='0' max='(\d+)'", page)
    assert m and int(m.group(1)) == positions - 1
    assert "[" + ", ".join("0" for _ in shape[:-2]) + ", :, :]" in page
    assert "data-lut='" in page
    assert len(base64.b64decode(_heat_attrs(page)["lut"])) == 256 * 3


def test_two_d_arrays_have_no_slider():
    page = array_view.array_html(wp.zeros((8, 8)))
    assert "wpi-slider" not in page and "wpi-readout" in page


def test_colour_table_is_the_colour_maps():
    import matplotlib
    lut = np.frombuffer(plots.colour_table("magma"), dtype=np.uint8).reshape(256, 3)
    np.testing.assert_allclose(lut / 255.0, matplotlib.colormaps["magma"](np.arange(256))[:, :3], atol=0.5 / 255)


# --- vectors -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype, shape, kind", [(wp.vec2, (50,), "points"), (wp.vec3, (50,), "points"),
                                                (wp.vec2, (12, 16), "arrows"), (wp.vec3d, (12, 16), "arrows")])
def test_vector_arrays_show_as_points_or_arrows(dtype, shape, kind):
    n = dtype._length_
    v = np.random.default_rng(2).standard_normal(shape + (n,))
    a = wp.array(v, dtype=dtype)
    page = array_view.array_html(a)
    assert f"alt='{kind} of a {'x'.join(map(str, shape))} vec{n} array'" in page
    assert page.index("wpi-vectors") < page.index("<table")


def test_point_plot_draws_the_vectors():
    v = np.random.default_rng(3).standard_normal((40, 2))
    fig = vector_plot._points(v, None)
    np.testing.assert_allclose(fig.axes[0].collections[0].get_offsets(), v)


def test_arrow_plot_draws_each_vector_at_its_index():
    v = np.random.default_rng(4).standard_normal((6, 5, 2))
    q = vector_plot._arrows(v, None).axes[0].collections[0]
    np.testing.assert_allclose(q.U.reshape(6, 5), v[..., 0])
    np.testing.assert_allclose(q.V.reshape(6, 5), v[..., 1])
    np.testing.assert_allclose(q.X.reshape(6, 5), np.tile(np.arange(5), (6, 1)))
    np.testing.assert_allclose(q.Y.reshape(6, 5), np.tile(np.arange(6)[:, None], (1, 5)))


def test_other_arrays_have_no_vector_picture():
    assert array_view.vector_html(wp.zeros(4, dtype=wp.vec4)) == ""
    assert array_view.vector_html(wp.zeros((2, 2, 2), dtype=wp.vec2)) == ""
    assert array_view.vector_html(wp.zeros(4)) == ""


# --- tapes after backward ----------------------------------------------------------------------
def test_consumed_gradients_are_labelled_not_zero():
    tape, names, (x, y, loss) = _recorded(backward=True)
    page = tape_view.tape_html(tape, names, "python")
    # y and loss were written by recorded steps: backward used their gradients and zeroed them
    for name in ("y", "loss"):
        node = page[page.index(f">{name}</text>"):]
        assert node[:node.index("</text><", 10) + 80].count("grad consumed") == 1
    assert "|grad|=0" not in page
    x_norm = float(np.linalg.norm(2 * np.arange(1, 5)))
    assert f"|grad|={x_norm:.3g}" in page
    assert "0 (grad consumed)" in page and "tape.backward used this array's gradient" in page


def test_before_backward_nothing_is_consumed():
    tape, names, _ = _recorded(backward=False)
    page = tape_view.tape_html(tape, names, "python")
    assert "consumed" not in page


def test_retained_gradients_are_numbers():
    x = wp.array(np.arange(1, 5, dtype=np.float32), requires_grad=True)
    y = wp.zeros(4, requires_grad=True, retain_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(pic_square, 4, inputs=[x, y])
        wp.launch(pic_store_sum, 1, inputs=[y, loss])
    tape.backward(loss)
    page = tape_view.tape_html(tape, {id(y): "y"}, "python")
    assert "|grad|=2" in page                # |(1, 1, 1, 1)| kept


def test_visualize_displays_a_picture_with_the_notebooks_names(ipython):
    ipython.ok("vx = wp.array(np.arange(1, 5, dtype=np.float32), requires_grad=True)\n"
               "vy = wp.zeros(4, requires_grad=True)\nvt = wp.Tape()\n"
               "from tests.notebook.test_notebook_pictures import pic_square\n"
               "with vt:\n    wp.launch(pic_square, 4, inputs=[vx, vy])\n"
               "dot = vt.visualize()")
    dot = ipython.shell.user_ns["dot"]
    data, _ = ipython.shell.display_formatter.format(dot)
    page = data["text/html"]
    assert "<svg" in page and ">vx</text>" in page and ">vy</text>" in page
    # still the DOT text for programs (and warp-lang code that writes it to a file)
    assert isinstance(dot, str) and dot.startswith("digraph tape") and "pic_square" in dot
    assert data["text/plain"].startswith("digraph tape")      # not a quoted, escaped string
    labelled = ipython.shell.user_ns["vt"].visualize(array_labels={ipython.shell.user_ns["vx"]: "input"})
    assert ">input</text>" in ipython.shell.display_formatter.format(labelled)[0]["text/html"]
    del dot, labelled
    ipython.ok("del vt, dot")           # a live tape keeps the tape checks on for later tests


# --- static HTML (nbconvert) -------------------------------------------------------------------
def test_every_picture_survives_nbconvert_with_page_unique_ids(ipython):
    """A notebook saved with these outputs and turned into HTML by nbconvert shows each picture
    (an <img> with its PNG, or the SVG), and the page's ids are each defined once."""
    nbformat = pytest.importorskip("nbformat")
    nbconvert = pytest.importorskip("nbconvert")
    ipython.ok("from tests.notebook.test_notebook_pictures import _recorded\n"
               "st_tape, _, (sx, sy, sloss) = _recorded(True)\n"
               "st_2d = wp.array(np.random.default_rng(0).random((20, 30)).astype(np.float32))\n"
               "st_3d = wp.zeros((4, 8, 8))\n"
               "st_pts = wp.array(np.random.default_rng(1).random((30, 3)), dtype=wp.vec3)\n"
               "st_field = wp.array(np.random.default_rng(2).random((6, 7, 2)), dtype=wp.vec2)\n"
               "from warp_interactive.notebook.live import LiveView\n"
               "st_live = LiveView(st_2d, title='live')")
    ns = ipython.shell.user_ns
    fmt = ipython.shell.display_formatter.format
    shown = [fmt(ns[k])[0] for k in ("st_2d", "st_3d", "st_pts", "st_field", "st_tape")]
    shown.append(fmt(ns["st_tape"].visualize())[0])
    shown.append(ns["st_live"]._bundle("frame 1"))
    shown += [fmt(ns["st_tape"])[0], fmt(ns["st_tape"].visualize())[0]]     # shown twice
    cells = [nbformat.v4.new_code_cell("x", outputs=[nbformat.v4.new_output("display_data", data=d)])
             for d in shown]
    body, _ = nbconvert.HTMLExporter().from_notebook_node(nbformat.v4.new_notebook(cells=cells))
    tags = _Tags()
    tags.feed(body)
    pngs = [a["class"] for t, a in tags.seen if t == "img" and a.get("src", "").startswith("data:image/png;base64,")]
    assert pngs.count("wpi-heatmap") == 3 and pngs.count("wpi-vectors") == 2, pngs
    assert [a.get("class") for t, a in tags.seen].count("wpi-tape") == 4
    assert [a.get("class") for t, a in tags.seen if t == "input"] == ["wpi-slider"]
    assert sum(t == "svg" for t, _ in tags.seen) == 4
    ids = [a["id"] for _, a in tags.seen if "id" in a]
    assert ids and len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    ipython.ok("del st_tape, st_live")  # a live tape keeps the tape checks on for later tests


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.seen = []

    def handle_starttag(self, tag, attrs):
        self.seen.append((tag, dict(attrs)))


def test_visualize_text_pickles_and_copies_as_text():
    import copy
    import pickle
    tape, _, _ = _recorded(False)
    dot = tape.visualize()
    for again in (pickle.loads(pickle.dumps(dot)), copy.copy(dot), copy.deepcopy(dot)):
        assert again == dot and isinstance(again, str)


@pytest.mark.parametrize("dtype", [np.uint32, np.int64, np.uint8, np.float16, np.bool_])
def test_hover_copy_is_exact_for_every_scalar_type(dtype):
    info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else None
    v = np.arange(12).reshape(3, 4).astype(dtype)
    if info is not None and info.max > 2 ** 24:    # past float32's exact integers (up to the
        v[0, 0] = min(info.max, 2 ** 53 - 1)       # page's own: a JavaScript number's 53 bits)
    attrs = _heat_attrs(array_view.array_html(wp.array(v, dtype=wp.dtype_from_numpy(np.dtype(dtype)))))
    got = _hover_copy(attrs)
    np.testing.assert_array_equal(got, v.reshape(-1).astype(got.dtype))
    assert int(got[0]) == int(v[0, 0])
