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
