"""What a notebook cell tells its user: the error caret at the failing operator with only the
relevant hint, the annotated cell's alignment, the summary line of decorator-defined kernels."""

import re

import pytest

import warp_interactive as wp
from notebook_helpers import ipython  # noqa: F401  (fixture)

# (the statement, the text the caret must point at, what the message must say and must not)
CARETS = [
    ("v[i] = u[i] + 0.24 * lap + i", "+ i", "mixed scalar types float32 and int32"),
    ("v[i] = u[i] * float(i) - i", "- i", "mixed scalar types float32 and int32"),
    ("v[i] = (u[i] + lap) * i", "* i", "mixed scalar types float32 and int32"),
    ("v[i] = u[i] + (lap * i)", "* i", "mixed scalar types float32 and int32"),
    ("v[i] = wp.float64(u[i]) + lap", "+ lap", "mixed scalar types float64 and float32"),
]


def _caret_target(text):
    """The source text from the caret's column on, from an error's 'line / caret' pair."""
    lines = text.splitlines()
    at = next(k for k, ln in enumerate(lines) if ln.strip() == "^")
    return lines[at - 1][lines[at].index("^"):]


@pytest.mark.parametrize("stmt, target, reason", CARETS, ids=[c[0] for c in CARETS])
def test_cell_error_caret_at_the_failing_operator_and_only_the_relevant_hint(ipython, stmt, target, reason):
    cell = ("%%wp.kernel\ndef nb_caret(u: wp.array(dtype=float), v: wp.array(dtype=float)):\n"
            "    i = wp.tid()\n    lap = u[i] - u[i]\n    " + stmt + "\n")
    _, err = ipython.run(cell)
    assert type(err).__name__ == "CellError"
    text = str(err)
    assert "line 5, in nb_caret" in text
    assert _caret_target(text).startswith(target), text
    assert reason in text and "cast explicitly" in text
    # the vector/matrix/quaternion/transform overloads have nothing to do with two scalars
    for beside in ("Vector", "Matrix", "Quaternion", "Transformation", "candidates"):
        assert beside not in text, text


def test_script_error_caret_at_the_operator_too():
    @wp.kernel(module="unique")
    def fb_mixed(u: wp.array(dtype=float), v: wp.array(dtype=float)):
        i = wp.tid()
        v[i] = u[i] + 0.5 * u[i] + i

    with pytest.raises(wp.CodegenError) as info:
        wp.launch(fb_mixed, 2, inputs=[wp.zeros(2), wp.zeros(2)])
    assert _caret_target(str(info.value)).startswith("+ i")
    assert "Vector" not in str(info.value)


def test_candidates_stay_listed_when_no_overload_takes_the_kinds():
    """A vector plus a matrix: no overload takes both kinds, so each one's reason is listed."""
    @wp.kernel(module="unique")
    def fb_kinds(v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat33)):
        i = wp.tid()
        v[i] = v[i] + m[i]

    with pytest.raises(wp.CodegenError) as info:
        wp.launch(fb_kinds, 1, inputs=[wp.zeros(1, dtype=wp.vec3), wp.zeros(1, dtype=wp.mat33)])
    text = str(info.value)
    assert "candidates" in text and "Vector" in text and "Matrix" in text


# --- --annotate ----------------------------------------------------------------------------------
def test_annotated_lines_all_start_with_a_fold_marker_of_one_width(ipython):
    """Lines without generated code carry a blank marker as wide as the others' fold marker,
    so every line number and line of text starts at the same column."""
    ipython.ok("%%wp.kernel --annotate\ndef nb_align(x: wp.array(dtype=float), y: wp.array(dtype=float)):\n"
               "    # a comment\n    i = wp.tid()\n\n    y[i] = 2.0 * x[i]\n")
    from warp_interactive.notebook import magic
    page = magic._last["annotation"].html
    rows = re.findall(r"<(div|summary) class='wpi-line'[^>]*>|<summary style='([^']*)'>(.{0,120})", page)
    starts = re.findall(r"(?:<div class='wpi-line' style='[^']*'>|<summary style='[^']*'>)"
                        r"<span class='wpi-fold' style='([^']*)'>(.)</span><span class='wpi-ln'>\s*(\d+)</span>", page)
    assert rows and [int(n) for _, _, n in starts] == list(range(1, 7))
    assert len({style for style, _, _ in starts}) == 1 and "width:1.2em" in starts[0][0]
    assert [mark for _, mark, _ in starts] == [" ", " ", " ", "▸", " ", "▸"]
    # the browser's own disclosure triangle is off (it would shift the folding lines again)
    assert page.count("list-style:none") == 2 and "::-webkit-details-marker{display:none}" in page


# --- the decorator's summary line ----------------------------------------------------------------
def test_decorator_kernels_get_a_summary_line(ipython):
    out = ipython.ok("@wp.kernel\ndef nb_sum_a(y: wp.array(dtype=float)):\n    y[wp.tid()] = 3.0\n\n"
                     "@wp.kernel\ndef nb_sum_b(y: wp.array(dtype=float)):\n    y[wp.tid()] = 4.0\n")
    assert out.strip() == "wp.kernel __cell__nb_sum_a+nb_sum_b: nb_sum_a, nb_sum_b (builds at the first launch)"
    # the cell whose launch builds the module says so, as the magic does
    out = ipython.ok("d = wp.zeros(3); wp.launch(nb_sum_a, 3, inputs=[d])")
    assert re.fullmatch(r"wp\.kernel __cell__nb_sum_a\+nb_sum_b: nb_sum_a, nb_sum_b \| \d+\.\d{3} s, "
                        r"(compiled \(cache miss\)|cache hit) \| hash [0-9a-f]{8}\n", out), out
    # defined and launched in one cell: one line, with the build
    out = ipython.ok("@wp.kernel\ndef nb_sum_c(y: wp.array(dtype=float)):\n    y[wp.tid()] = 5.0\n"
                     "wp.launch(nb_sum_c, 3, inputs=[d])")
    assert out.count("\n") == 1 and out.startswith("wp.kernel __cell__nb_sum_c: nb_sum_c | ")
    assert ipython.ok("wp.launch(nb_sum_c, 3, inputs=[d])") == ""        # built: nothing to say
    # magic cells print their own line only
    out = ipython.ok("%%wp.kernel\ndef nb_sum_m(y: wp.array(dtype=float)):\n    y[wp.tid()] = 6.0\n")
    assert out.count("wp.kernel ") == 1
    wp.notebook.kernel_summaries(False)
    try:
        assert ipython.ok("@wp.kernel\ndef nb_sum_q(y: wp.array(dtype=float)):\n    y[wp.tid()] = 7.0\n") == ""
    finally:
        wp.notebook.kernel_summaries(True)


# --- the live view's colours ---------------------------------------------------------------------
def _live_limits(page):
    return tuple(map(float, re.search(r"data-lim='([^']*)'", page).group(1).split(",")))


def test_live_view_keeps_its_colour_limits_while_the_field_decays():
    import numpy as np
    from warp_interactive.notebook.live import LiveView
    field = wp.array(np.linspace(0.0, 2.0, 48).reshape(6, 8).astype(np.float32))
    view = LiveView(field)
    assert _live_limits(view._html("")) == (0.0, 2.0)
    field.assign(field.numpy() * 0.25)           # decays: the same limits, so it fades
    assert _live_limits(view._html("")) == (0.0, 2.0)
    field.assign(field.numpy() * 20.0)           # grows past them: they widen
    assert _live_limits(view._html("")) == (0.0, 10.0)
    fixed = LiveView(field, vmin=-1.0, vmax=1.0)
    assert _live_limits(fixed._html("")) == (-1.0, 1.0)


@pytest.mark.parametrize("cmap", ["magma", "gray"])
def test_live_view_draws_with_its_colour_map_and_limits(cmap):
    import base64
    import io
    import matplotlib
    import numpy as np
    from matplotlib import image
    from warp_interactive.notebook.live import LiveView
    view = LiveView(wp.full((40, 40), 0.25), vmin=0.0, vmax=1.0, cmap=cmap)
    page = view._html("")
    png = base64.b64decode(re.search(r"src='data:image/png;base64,([^']*)'", page).group(1))
    box = tuple(map(float, re.search(r"data-box='([^']*)'", page).group(1).split(",")))
    rgb = image.imread(io.BytesIO(png), format="png")[..., :3]
    h, w = rgb.shape[:2]
    centre = rgb[int((box[1] + box[3]) / 2 * h), int((box[0] + box[2]) / 2 * w)]
    np.testing.assert_allclose(centre, matplotlib.colormaps[cmap](0.25)[:3], atol=1.5 / 255)
