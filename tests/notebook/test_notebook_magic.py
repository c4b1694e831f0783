"""The %%wp.kernel magic and per-cell modules, driven through a real IPython shell."""

import numpy as np
import pytest

import warp_interactive as wp
from notebook_helpers import ipython  # noqa: F401  (fixture)
from warp_interactive.state import state as rt_module


def builds_after(mark):
    """{module name: compiled?} of the builds since ``mark`` (a len(build_log))."""
    return {b.module: b.compiled for b in rt_module.build_log[mark:]}


SAXPY = """%%wp.kernel
def nb_saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]{extra}
"""


def test_magic_define_launch_edit_rerun(ipython):
    out = ipython.ok(SAXPY.format(extra=""))
    assert "wp.kernel __cell__nb_saxpy: nb_saxpy" in out and "hash" in out
    ipython.ok("x = wp.array(np.arange(5, dtype=np.float32)); y = wp.ones(5)\n"
               "wp.launch(nb_saxpy, 5, inputs=[x, y, 2.0])")
    np.testing.assert_allclose(ipython.shell.user_ns["y"].numpy(), 2 * np.arange(5) + 1)
    # edit: the new body runs after re-running the cell
    out = ipython.ok(SAXPY.format(extra=" * 0.5"))
    assert "compiled (cache miss)" in out
    ipython.ok("y = wp.ones(5); wp.launch(nb_saxpy, 5, inputs=[x, y, 2.0])")
    np.testing.assert_allclose(ipython.shell.user_ns["y"].numpy(), 2 * np.arange(5) + 0.5)


def test_unchanged_cell_rerun_makes_no_compiler_call(ipython):
    ipython.ok(SAXPY.format(extra=" + 7.0"))
    mark = len(rt_module.build_log)
    out = ipython.ok(SAXPY.format(extra=" + 7.0"))
    assert "cache hit" in out
    assert builds_after(mark) == {"__cell__nb_saxpy": False}


def test_error_names_cell_line_and_keeps_previous_kernel(ipython):
    ipython.ok(SAXPY.format(extra=""))
    out, err = ipython.run(SAXPY.format(extra=" + undefined_name"))
    assert type(err).__name__ == "CellError"
    text = str(err)
    assert "line 4, in nb_saxpy" in text            # line 1 of the cell is the %%wp.kernel line
    assert "name 'undefined_name' is not defined" in text
    lines = text.splitlines()
    assert lines[1].strip() == "y[i] = a * x[i] + y[i] + undefined_name"
    assert lines[2].index("^") == lines[1].index("undefined_name")
    assert "cell [" in lines[0] and "#include" not in text
    # the last good kernel is still bound and still runs
    ipython.ok("y = wp.ones(5); wp.launch(nb_saxpy, 5, inputs=[x, y, 3.0])")
    np.testing.assert_allclose(ipython.shell.user_ns["y"].numpy(), 3 * np.arange(5) + 1)
    # a good edit replaces it
    ipython.ok(SAXPY.format(extra=" - 1.0"))
    ipython.ok("y = wp.ones(5); wp.launch(nb_saxpy, 5, inputs=[x, y, 3.0])")
    np.testing.assert_allclose(ipython.shell.user_ns["y"].numpy(), 3 * np.arange(5))


def test_type_error_message(ipython):
    out, err = ipython.run("%%wp.kernel\ndef nb_bad(y: wp.array(dtype=float)):\n"
                           "    y[wp.tid()] = wp.length(1.0)\n")
    assert type(err).__name__ == "CellError"
    assert "line 3, in nb_bad" in str(err) and "length" in str(err)
    assert "nb_bad" not in ipython.shell.user_ns


def test_syntax_error_in_cell(ipython):
    out, err = ipython.run("%%wp.kernel\ndef nb_syn(y: wp.array(dtype=float)):\n    y[0] = = 1.0\n")
    assert type(err).__name__ == "CellError"
    assert "syntax error" in str(err) and "line 3" in str(err)


def test_func_redefinition_rebuilds_only_callers(ipython):
    ipython.ok("%%wp.kernel\n@wp.func\ndef nb_f(v: float):\n    return v * 10.0\n")
    ipython.ok("%%wp.kernel\ndef nb_uses_f(y: wp.array(dtype=float)):\n    y[wp.tid()] = nb_f(1.0)\n")
    ipython.ok("%%wp.kernel\ndef nb_other(y: wp.array(dtype=float)):\n    y[wp.tid()] = 2.0\n")
    ipython.ok("z = wp.zeros(3); wp.launch(nb_uses_f, 3, inputs=[z]); wp.launch(nb_other, 3, inputs=[z])")
    mark = len(rt_module.build_log)
    # redefine the function with the decorator, in an ordinary cell
    ipython.ok("@wp.func\ndef nb_f(v: float):\n    return v * 100.0\n")
    ipython.ok("wp.launch(nb_uses_f, 3, inputs=[z]); w = wp.zeros(3); wp.launch(nb_other, 3, inputs=[w])")
    np.testing.assert_allclose(ipython.shell.user_ns["z"].numpy(), [100.0] * 3)
    np.testing.assert_allclose(ipython.shell.user_ns["w"].numpy(), [2.0] * 3)
    assert builds_after(mark) == {"__cell__nb_uses_f": True}


def test_transitive_func_redefinition(ipython):
    ipython.ok("@wp.func\ndef nb_inner(v: float):\n    return v + 1.0\n"
               "@wp.func\ndef nb_outer(v: float):\n    return nb_inner(v) * 2.0\n")
    ipython.ok("%%wp.kernel\ndef nb_chain(y: wp.array(dtype=float)):\n    y[wp.tid()] = nb_outer(1.0)\n")
    ipython.ok("c = wp.zeros(2); wp.launch(nb_chain, 2, inputs=[c])")
    np.testing.assert_allclose(ipython.shell.user_ns["c"].numpy(), [4.0, 4.0])
    mark = len(rt_module.build_log)
    ipython.ok("@wp.func\ndef nb_inner(v: float):\n    return v + 5.0\n")
    ipython.ok("wp.launch(nb_chain, 2, inputs=[c])")
    np.testing.assert_allclose(ipython.shell.user_ns["c"].numpy(), [12.0, 12.0])
    assert builds_after(mark) == {"__cell__nb_chain": True}


def test_broken_func_in_cell_is_rolled_back(ipython):
    ipython.ok("%%wp.kernel\n@wp.func\ndef nb_g(v: float):\n    return v + 1.0\n"
               "def nb_uses_g(y: wp.array(dtype=float)):\n    y[wp.tid()] = nb_g(1.0)\n")
    out, err = ipython.run("%%wp.kernel\n@wp.func\ndef nb_g(v: float):\n    return v + nothing\n"
                           "def nb_uses_g(y: wp.array(dtype=float)):\n    y[wp.tid()] = nb_g(1.0)\n")
    assert "line 4, in nb_g" in str(err)
    ipython.ok("g = wp.zeros(2); wp.launch(nb_uses_g, 2, inputs=[g])")
    np.testing.assert_allclose(ipython.shell.user_ns["g"].numpy(), [2.0, 2.0])


def test_decorator_kernels_in_cells_get_their_own_modules(ipython):
    ipython.ok("@wp.kernel\ndef nb_dec_a(y: wp.array(dtype=float)):\n    y[wp.tid()] = 1.0\n")
    ipython.ok("@wp.kernel\ndef nb_dec_b(y: wp.array(dtype=float)):\n    y[wp.tid()] = 2.0\n")
    ns = ipython.shell.user_ns
    assert ns["nb_dec_a"].module.name == "__cell__nb_dec_a"
    assert ns["nb_dec_b"].module.name == "__cell__nb_dec_b"
    ipython.ok("d = wp.zeros(2); wp.launch(nb_dec_a, 2, inputs=[d]); wp.launch(nb_dec_b, 2, inputs=[d])")
    mark = len(rt_module.build_log)
    ipython.ok("@wp.kernel\ndef nb_dec_a(y: wp.array(dtype=float)):\n    y[wp.tid()] = 5.0\n")
    ipython.ok("wp.launch(nb_dec_a, 2, inputs=[d]); e = wp.zeros(2); wp.launch(nb_dec_b, 2, inputs=[e])")
    np.testing.assert_allclose(ns["d"].numpy(), [5.0, 5.0])
    np.testing.assert_allclose(ns["e"].numpy(), [2.0, 2.0])
    assert builds_after(mark) == {"__cell__nb_dec_a": True}


def test_notebook_module_options_reach_cell_modules(ipython):
    ipython.ok("wp.set_module_options({'mode': 'debug'})")
    try:
        ipython.ok("%%wp.kernel\ndef nb_oob(y: wp.array(dtype=float)):\n    y[wp.tid() + 10] = 1.0\n")
        out, err = ipython.run("wp.launch(nb_oob, 2, inputs=[wp.zeros(2)])")
        assert isinstance(err, wp.LaunchError) and "out of bounds" in str(err)
    finally:
        ipython.ok("wp.set_module_options({'mode': 'release'})")


@pytest.mark.parametrize("edits", [1, 2])
def test_rerun_cell_module_options_keep_their_fallbacks(ipython, edits):
    """A re-run cell's new module copies the old one's options; reading an option the copy does
    not hold still falls back to the notebook's value, then wp.config's (it raised KeyError)."""
    ipython.ok("wp.set_module_options({'mode': 'debug'})")
    try:
        for n in range(edits + 1):
            ipython.ok(SAXPY.format(extra=f" + {n}.0"))
            if n == 0:
                ipython.ok("nb_saxpy.module.options['fast_math'] = True")
        ns = ipython.shell.user_ns
        options = ns["nb_saxpy"].module.options
        assert options["fast_math"] is True                   # copied from the replaced module
        assert options["mode"] == "debug"                     # the notebook's
        assert options["enable_backward"] is wp.config.enable_backward   # wp.config's
        assert ns["nb_saxpy"].module.option("max_unroll") == wp.config.max_unroll
        with pytest.raises(KeyError, match="no_such_option"):
            options["no_such_option"]
    finally:
        ipython.ok("wp.set_module_options({'mode': 'release'})")


@pytest.mark.parametrize("turn_on,turn_off", [
    ("wp.set_module_options({'bounds_check': True})",
     "from warp_interactive.runtime.module import get_module\n"
     "get_module(__name__).options.pop('bounds_check'); get_module(__name__).invalidate()"),
    ("wp.config.bounds_check = True", "wp.config.bounds_check = False")])
def test_release_bounds_checks_in_cells(ipython, turn_on, turn_off):
    """Checks stay off by default in cells (docs/reliability.md: they cost 7x to 29x); turned on
    for the notebook, a cell kernel's bad index is a clear error and the session goes on."""
    ipython.ok(turn_on)
    try:
        ipython.ok("%%wp.kernel\ndef nb_rel_oob(y: wp.array(dtype=float), k: int):\n"
                   "    y[wp.tid() + k] = 1.0\n")
        out, err = ipython.run("wp.launch(nb_rel_oob, 2, inputs=[wp.zeros(3), 2])")
        assert isinstance(err, wp.LaunchError)
        assert ("index out of bounds in kernel 'nb_rel_oob' (line 3): array 'y' indexed with [3], "
                "shape (3,)") in str(err)
        ipython.ok("z = wp.zeros(3); wp.launch(nb_rel_oob, 2, inputs=[z, 1])")
        np.testing.assert_allclose(ipython.shell.user_ns["z"].numpy(), [0.0, 1.0, 1.0])
    finally:
        ipython.ok(turn_off)
    assert not ipython.shell.user_ns["nb_rel_oob"].module.checks_bounds()


def test_magic_options(ipython):
    out = ipython.ok("%%wp.kernel --lazy --module nb_named\ndef nb_lazy(y: wp.array(dtype=float)):\n"
                     "    y[wp.tid()] = 4.0\n")
    assert "lazy" in out and "nb_named" in out
    assert ipython.shell.user_ns["nb_lazy"].module.name == "nb_named"
    mark = len(rt_module.build_log)
    ipython.ok("q = wp.zeros(2); wp.launch(nb_lazy, 2, inputs=[q])")
    assert list(builds_after(mark)) == ["nb_named"]
    out = ipython.ok("%%wp.kernel --quiet\ndef nb_quiet(y: wp.array(dtype=float)):\n    y[0] = 1.0\n")
    assert out == ""
    out = ipython.ok("%%kernel --show-source cpp\ndef nb_src(y: wp.array(dtype=float)):\n    y[0] = 1.0\n")
    assert "nb_src" in out and "_cpu_forward" in out
    ipython.ok("%%wp_kernel\ndef nb_undotted(y: wp.array(dtype=float)):\n    y[0] = 1.0\n")
    out, err = ipython.run("%%wp.kernel --bogus\ndef nb_x(y: wp.array(dtype=float)):\n    y[0] = 1.0\n")
    assert "unrecognized arguments: --bogus" in str(err)


def test_compile_error_is_short_unless_asked(ipython):
    cell = "%%wp.kernel\ndef nb_cc(y: wp.array(dtype=float)):\n    y[0] = 123.0\n"
    ipython.ok("_cxx = wp.config.cpu_compiler; wp.config.cpu_compiler = 'false'")
    try:
        out, err = ipython.run(cell)
        assert "C++ compilation of module '__cell__nb_cc' failed" in str(err)
        assert "command:" not in str(err)
        assert "command:" in wp.notebook.last_error()
        out, err = ipython.run(cell.replace("%%wp.kernel", "%%wp.kernel --full-errors"))
        assert "command:" in str(err)
    finally:
        ipython.ok("wp.config.cpu_compiler = _cxx")


def test_decorator_codegen_error_is_short(ipython):
    ipython.ok("@wp.kernel\ndef nb_dec_bad(y: wp.array(dtype=float)):\n    y[0] = nope\n")
    out, err = ipython.run("wp.launch(nb_dec_bad, 1, inputs=[wp.zeros(1)])")
    assert isinstance(err, wp.CodegenError)
    assert "name 'nope' is not defined" in str(err)


def test_magic_builds_are_timed(ipython):
    ipython.ok("rec = wp.timing.record().start()")
    ipython.ok("%%wp.kernel --quiet\ndef nb_timed(y: wp.array(dtype=float)):\n    y[0] = 2.0\n")
    ipython.ok("rec.stop()")
    builds = [r for r in ipython.shell.user_ns["rec"].results if r.kind == "build"]
    assert [b.name for b in builds] == ["__cell__nb_timed"] and builds[0].elapsed > 0


def test_struct_and_func_in_a_magic_cell(ipython):
    out = ipython.ok("%%wp.kernel --device cpu\n@wp.struct\nclass NbParams:\n    scale: float\n    shift: float\n\n"
                     "@wp.func\ndef nb_affine(p: NbParams, v: float):\n    return p.scale * v + p.shift\n\n"
                     "def nb_apply(p: NbParams, y: wp.array(dtype=float)):\n    i = wp.tid()\n"
                     "    y[i] = nb_affine(p, float(i))\n")
    assert "__cell__nb_apply: nb_apply |" in out
    ipython.ok("p = NbParams(); p.scale = 3.0; p.shift = 1.0; s = wp.zeros(4); wp.launch(nb_apply, 4, inputs=[p, s])")
    np.testing.assert_allclose(ipython.shell.user_ns["s"].numpy(), 3.0 * np.arange(4) + 1.0)


def test_annotation_array_repr_is_plain(ipython):
    html = wp.array(dtype=float)._repr_html_()
    assert "wp.array" in html or "array" in html


def test_errors_and_kernel_sources_name_the_prompt_number(ipython):
    """A cell shown as In [N] is "cell [N]" in errors and in its kernels' file names (IPython
    already counts N+1 while the cell runs)."""
    out, err = ipython.run(SAXPY.format(extra=" + no_such_name"))
    n = ipython.last_count
    assert f"kernel error in cell [{n}], line 4" in str(err)
    ipython.ok(SAXPY.format(extra=" * 2.0"))
    n = ipython.last_count
    filename = ipython.shell.user_ns["nb_saxpy"].func.__code__.co_filename
    assert filename.startswith(f"<wp.kernel cell [{n}] ")


LAUNCH_ERRORS = [
    ("wp.launch(nb_tb, 3, inputs=[wp.zeros(3, dtype=int), 1.0])",
     "TypeError: kernel 'nb_tb' argument 'a' (type array(dtype=float32, ndim=1)): expected an array of float32"),
    ("wp.launch(nb_tb, 3, inputs=[wp.zeros(3)])", "TypeError: kernel 'nb_tb' takes 2 arguments (a, s), got 1"),
    ("wp.launch(nb_tb, 3, inputs=[wp.zeros(3), 'x'])", "expected a number (float32), got str"),
]


def _plain(text):
    import re
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


@pytest.mark.parametrize("cell, message", LAUNCH_ERRORS)
def test_launch_error_shows_the_cell_line_and_message_only(ipython, cell, message):
    ipython.ok("@wp.kernel\ndef nb_tb(a: wp.array(dtype=float), s: float):\n    a[wp.tid()] = s\n")
    out, err = ipython.run(cell)
    text = _plain(out)
    assert isinstance(err, TypeError) and message in text
    assert cell in text                           # the cell's own line, with its arrow
    assert "warp_interactive" not in text and "File " not in text, text
    assert len(text.strip().splitlines()) <= 6, text


def test_package_frames_can_be_shown_and_user_frames_stay(ipython):
    ipython.ok("@wp.kernel\ndef nb_tb2(a: wp.array(dtype=float)):\n    a[wp.tid()] = 1.0\n")
    ipython.ok("def user_helper(x):\n    return wp.launch(nb_tb2, 3, inputs=[x])\n")
    out, err = ipython.run("user_helper(wp.zeros(3, dtype=int))")
    text = _plain(out)
    assert "user_helper" in text and "return wp.launch(nb_tb2" in text   # the user's frame stays
    assert "runtime/args.py" not in text
    ipython.ok("wp.notebook.show_package_frames(True)")
    try:
        out, err = ipython.run("user_helper(wp.zeros(3, dtype=int))")
        assert "runtime/args.py" in _plain(out)
    finally:
        ipython.ok("wp.notebook.show_package_frames(False)")
    # an error of the user's own code is shown as IPython shows it
    out, err = ipython.run("def boom():\n    raise ValueError('mine')\nboom()")
    assert isinstance(err, ValueError) and "raise ValueError('mine')" in _plain(out)
    out, err = ipython.run("x = = 1")
    assert isinstance(err, SyntaxError) and "SyntaxError" in _plain(out)


def test_annotate_shows_each_line_beside_its_cpp(ipython):
    import re
    ipython.ok("%%wp.kernel --annotate\ndef nb_ann(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):\n"
               "    i = wp.tid()\n\n    y[i] = a * x[i] + y[i]\n")
    from warp_interactive.notebook import magic
    view = magic._last["annotation"]
    page = view.html
    # the lines that made code fold open: 3 (tid) and 5 (the saxpy line), not 2 (def) or 4 (blank)
    assert re.findall(r"data-line='(\d+)'", page) == ["3", "5"]
    line5 = page[page.index("data-line='5'"):]
    assert "wp::mul(var_a" in line5 and "wp::array_store(var_y" in line5       # forward
    assert "wp::adj_mul(var_a" in line5 and "wp::adj_load(var_x" in line5      # its adjoint
    assert "y[i] = a * x[i] + y[i]" in line5
    assert "wp::adj_" not in page[page.index("data-line='3'"):page.index("data-line='5'")]
    text = repr(view)
    assert "  5     y[i] = a * x[i] + y[i]" in text and "~ wp::adj_mul" in text


def test_annotation_line_map_matches_markers():
    from warp_interactive.notebook.annotate import line_map
    src = ("    var_1 = wp::load(var_x, var_0);  // py:/f.py:7\n    var_2 = wp::mul(var_a, var_1);  // py:8\n"
           "    wp::adj_mul(var_a, var_1, adj_a, adj_1, adj_2);\n    wp::adj_load(var_x, var_0, adj_x, adj_0, adj_1);\n"
           "    var_1 = wp::load(var_x, var_0);  // py:7\n")
    forward, adjoint = line_map(src)
    assert forward == {7: ["var_1 = wp::load(var_x, var_0);"], 8: ["var_2 = wp::mul(var_a, var_1);"]}
    assert adjoint == {8: ["wp::adj_mul(var_a, var_1, adj_a, adj_1, adj_2);"],
                       7: ["wp::adj_load(var_x, var_0, adj_x, adj_0, adj_1);"]}
