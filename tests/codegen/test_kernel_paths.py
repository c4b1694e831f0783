"""Which code path a kernel's launches take and why (codegen/paths.py): a table of kernels, each
with the path its forward and backward get on the CPU and the reason given for a refused lanes
body (naming the line); the same report in ``%%wp.kernel --annotate`` and in the timing view."""

import inspect
import types

import numpy as np
import pytest

import warp_interactive as wp
from notebook_helpers import ipython  # noqa: F401  (fixture)
from warp_interactive.codegen.paths import describe
from warp_interactive.codegen.target import CPU, CUDA


def _line(fn, text):
    """The file line of the first source line of kernel ``fn`` that contains ``text``."""
    src, first = inspect.getsourcelines(fn.func if hasattr(fn, "func") else fn)
    return first + next(k for k, s in enumerate(src) if text in s)


@wp.kernel
def pk_own_inside(pos: wp.array(dtype=wp.vec3), acc: wp.array(dtype=wp.vec3), n: int):
    i = wp.tid()
    a = wp.vec3()
    for j in range(n):
        a += pos[j] - pos[i]
    acc[i] = a


@wp.kernel
def pk_accumulate(x: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    for j in range(n):
        out[i] += x[j] * x[i]


@wp.kernel
def pk_varying(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for j in range(i):
        s += x[j]
    out[i] = s


@wp.kernel
def pk_break(x: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for j in range(n):
        if x[j] > x[i]:
            break
        s += x[j]
    out[i] = s


@wp.kernel
def pk_returns(x: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    if x[i] < 0.0:
        return
    s = float(0.0)
    for j in range(n):
        s += x[j]
    out[i] = s


@wp.kernel
def pk_prints(x: wp.array(dtype=float), n: int):
    i = wp.tid()
    for j in range(n):
        if x[j] > 10.0:
            print(x[j])


@wp.kernel
def pk_saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.func
def pk_sq(v: float):
    return v * v


@wp.kernel
def pk_calls(x: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for j in range(n):
        s += pk_sq(x[j] - x[i])
    out[i] = s


# kernel -> ((forward kind, detail pieces), (backward kind, detail pieces)); "@text" names the
# kernel's own line holding text
TABLE = {
    pk_own_inside: (("lanes", ["8 threads per vectorised pass", "1 loop-invariant value computed before its loop",
                               "@pos[j] - pos[i]"]),
                    ("lanes", ["adjoints per pass"])),
    pk_accumulate: (("lanes", ["out[own index] kept in a local across the loop", "@x[j] * x[i]"]),
                    ("lanes", [])),
    pk_varying: (("scalar", ["no lanes body: the bounds of the loop at line", "@range(i)", "differ per thread"]),
                 ("scalar", ["no lanes forward body"])),
    pk_break: (("scalar", ["no lanes body: the loop at line", "@range(n)", "breaks or continues per thread"]),
               ("scalar", [])),
    pk_returns: (("scalar", ["no lanes body: it returns early (line", "@        return"]),
                 ("scalar", ["it returns early"])),
    pk_prints: (("scalar", ["no lanes body: it prints (line", "@print("]), ("scalar", ["it prints"])),
    pk_saxpy: (("vectorised", ["straight-line body"]),
               ("vectorised", ["plain adjoints of own-index reads of x, y"])),
    pk_calls: (("lanes", ["1 loop-invariant value"]), ("scalar", ["it calls @wp.func pk_sq"])),
}


def _expect(kernel, path, kind, pieces):
    assert path.kind == kind, f"{kernel.key}: {path}"
    for piece in pieces:
        if piece.startswith("@"):
            piece = str(_line(kernel, piece[1:]))
        assert piece in path.detail, f"{kernel.key}: {piece!r} not in {path.detail!r}"


@pytest.mark.parametrize("kernel", list(TABLE), ids=lambda k: k.key)
def test_paths_table(kernel):
    fwd, bwd = TABLE[kernel]
    paths = describe(kernel, CPU)
    _expect(kernel, paths.forward, *fwd)
    _expect(kernel, paths.backward, *bwd)
    # the forward path agrees with the generated source
    from warp_interactive.codegen.module_source import generate_source
    from warp_interactive.lang import lower
    src = generate_source(lower([kernel]), CPU, backward=True)
    assert (f"{kernel.ir.name}_forward_lanes(" in src) == (paths.forward.kind == "lanes")
    assert (f"{kernel.ir.name}_backward_lanes(" in src) == (paths.backward.kind == "lanes")


@pytest.mark.parametrize("options, kind, piece", [
    ({"debug": True}, "scalar", "debug build"),
    ({"lanes": False}, "scalar", "lanes turned off"),
    ({"target": CUDA}, "cuda", "one GPU thread"),
])
def test_paths_under_options(options, kind, piece):
    paths = describe(pk_own_inside, options.get("target", CPU), options.get("debug", False),
                     options.get("lanes", True))
    assert paths.forward.kind == kind and piece in paths.forward.detail


def test_timing_results_carry_the_path():
    x = wp.array(np.arange(16, dtype=np.float32))
    out = wp.zeros(16, dtype=float)
    with wp.timing.record() as rec:
        wp.launch(pk_varying, dim=16, inputs=[x, out], device="cpu")
        wp.launch(pk_accumulate, dim=16, inputs=[x, out, 16], device="cpu")
    np.testing.assert_allclose(out.numpy(), np.cumsum(np.arange(16)) - np.arange(16)
                               + np.arange(16) * np.arange(16).sum(), rtol=1e-6)
    paths = {r.name: r.path for r in rec.results if r.kind == "forward"}
    assert paths["pk_varying"].startswith("scalar: no lanes body: the bounds of the loop at line")
    assert paths["pk_accumulate"].startswith("lanes: 8 threads per vectorised pass")
    from warp_interactive.notebook.widgets import timing_view
    text = timing_view.timing_text(rec.results)
    assert "code paths" in text and "pk_varying (forward)" in text and "differ per thread" in text
    page = timing_view.timing_html(rec.results, charts=False)
    assert "<h4>code paths</h4>" in page and "out[own index] kept in a local" in page


def test_quick_tier_is_named():
    """A launch whose module still runs the quick build's -O0 code says so before its path."""
    from warp_interactive.runtime.timing import launch_path
    pending = types.SimpleNamespace(done=False)
    launch = types.SimpleNamespace(device=wp.get_device("cpu"), kernel=pk_saxpy, adjoint=False,
                                   entry=types.SimpleNamespace(_lm=types.SimpleNamespace(quick=(pending,))))
    assert launch_path(launch).startswith("quick tier (-O0 code until the optimised build is in), then "
                                          "vectorised: straight-line body")
    pending.done = True
    assert launch_path(launch).startswith("vectorised: straight-line body")


def test_annotate_shows_the_paths(ipython):
    ipython.ok("%%wp.kernel --annotate\n"
               "def nb_paths(x: wp.array(dtype=float), out: wp.array(dtype=float)):\n"
               "    i = wp.tid()\n"
               "    s = float(0.0)\n"
               "    for j in range(i):\n"
               "        s += x[j]\n"
               "    out[i] = s\n")
    from warp_interactive.notebook import magic
    view = magic._last["annotation"]
    page = view.html
    assert "class='wpi-paths'" in page
    table = page[page.index("class='wpi-paths'"):page.index("</table>")]
    assert "<td>nb_paths</td><td>forward</td><td><b>scalar</b></td>" in table
    # line 5 of the cell (line 1 is the %%wp.kernel line) holds the loop
    assert "no lanes body: the bounds of the loop at line 5 differ per thread" in table
    assert "# nb_paths forward: scalar: no lanes body: the bounds of the loop at line 5 differ per thread" \
        in repr(view)


@wp.kernel
def pk_control_lines(x: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = x[i]
    if s > 0.0:  # @if-outer
        s = s * 2.0
        for j in range(n):  # @for-inner
            s += x[j]
            if s > 10.0:  # @if-inner
                s = s - 1.0
                s = s * 0.5
    elif s < -1.0:  # @elif
        k = int(0)
        while k < n:  # @while
            s += 1.0
            k += 1
    else:
        s = 0.0
    out[i] = s


def _stmt_lines(kernel):
    from warp_interactive.lang.analysis.walk import statements as walk_stmts
    from warp_interactive.lang import ir
    fir = kernel.ir
    return [(type(s).__name__, s.lineno) for s in walk_stmts(fir.body.stmts)
            if isinstance(s, (ir.If, ir.ForRange, ir.While, ir.Select))]


def test_control_statements_sit_on_their_own_line():
    """An if, elif, for or while statement (and the Selects joining an if's paths) carries the
    line of its own header, not the line of its body's last statement."""
    want = {_line(pk_control_lines, f"# @{tag}") for tag in ("if-outer", "for-inner", "if-inner", "elif", "while")}
    found = _stmt_lines(pk_control_lines)
    kinds = {k for k, _ in found}
    assert {"If", "ForRange", "While", "Select"} <= kinds, found
    assert {line for _, line in found} == want, found
    # the generated C++ marks the if statements with their own lines
    from warp_interactive.codegen.module_source import generate_source
    from warp_interactive.lang import lower
    src = generate_source(lower([pk_control_lines]), CPU, backward=False)
    for tag in ("if-outer", "if-inner"):
        marked = [ln for ln in src.splitlines() if ln.rstrip().endswith(f":{_line(pk_control_lines, '# @' + tag)}")]
        assert any(ln.lstrip().startswith("if") for ln in marked), (tag, marked)
