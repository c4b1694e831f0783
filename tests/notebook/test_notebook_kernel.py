"""The notebook experience in a real Jupyter kernel (ipykernel, over ZMQ): the extension loads on
import, cells define/edit/re-run kernels, errors recover, kernel printf reaches the cell."""

import re

import pytest

from notebook_helpers import KernelDriver


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    k = KernelDriver()
    cache = tmp_path_factory.mktemp("nb-kernel-cache")
    # importing the package inside IPython registers the magics: no %load_ext here
    k.ok(f"import warp_interactive as wp, numpy as np\nwp.config.kernel_cache_dir = {str(cache)!r}\n"
         "from warp_interactive.state import state\nbuild_log = state.build_log")
    yield k
    k.close()


CELL = """%%wp.kernel
def jk_scale(x: wp.array(dtype=float), s: float):
    i = wp.tid()
    x[i] = x[i] * s{extra}
"""


def test_define_launch_edit_rerun(kernel):
    out = kernel.ok(CELL.format(extra=""))
    assert out.startswith("wp.kernel __cell__jk_scale: jk_scale |")
    assert "compiled (cache miss)" in out
    out = kernel.ok("a = wp.array(np.arange(4, dtype=np.float32)); wp.launch(jk_scale, 4, inputs=[a, 3.0]); print(a.numpy().tolist())")
    assert out.strip() == "[0.0, 3.0, 6.0, 9.0]"
    kernel.ok(CELL.format(extra=" + 1.0"))
    out = kernel.ok("a = wp.array(np.arange(4, dtype=np.float32)); wp.launch(jk_scale, 4, inputs=[a, 3.0]); print(a.numpy().tolist())")
    assert out.strip() == "[1.0, 4.0, 7.0, 10.0]"


def test_unchanged_rerun_no_compiler_call(kernel):
    kernel.ok(CELL.format(extra=" + 2.0"))
    kernel.ok("mark = len(build_log)")
    out = kernel.ok(CELL.format(extra=" + 2.0"))
    assert "cache hit" in out
    out = kernel.ok("print([(b.module, b.compiled) for b in build_log[mark:]])")
    assert out.strip() == "[('__cell__jk_scale', False)]"


def test_error_then_recovery(kernel):
    kernel.ok(CELL.format(extra=""))
    out, err, _ = kernel.run(CELL.format(extra=" + wp.vec3(1.0)"))
    assert err is not None and err["ename"] == "CellError"
    tb = "\n".join(err["traceback"])
    assert "line 4, in jk_scale" in tb and "x[i] = x[i] * s + wp.vec3(1.0)" in tb and "^" in tb
    assert "Traceback" not in tb and "#include" not in tb
    out = kernel.ok("a = wp.ones(3); wp.launch(jk_scale, 3, inputs=[a, 5.0]); print(a.numpy().tolist())")
    assert out.strip() == "[5.0, 5.0, 5.0]"
    kernel.ok(CELL.format(extra=" - 1.0"))
    out = kernel.ok("a = wp.ones(3); wp.launch(jk_scale, 3, inputs=[a, 5.0]); print(a.numpy().tolist())")
    assert out.strip() == "[4.0, 4.0, 4.0]"


def test_func_redefinition_rebuilds_only_callers(kernel):
    kernel.ok("@wp.func\ndef jk_f(v: float):\n    return v + 1.0\n")
    kernel.ok("@wp.kernel\ndef jk_calls_f(y: wp.array(dtype=float)):\n    y[wp.tid()] = jk_f(1.0)\n")
    kernel.ok("%%wp.kernel\ndef jk_plain(y: wp.array(dtype=float)):\n    y[wp.tid()] = 9.0\n")
    kernel.ok("y = wp.zeros(2); wp.launch(jk_calls_f, 2, inputs=[y]); wp.launch(jk_plain, 2, inputs=[y])")
    kernel.ok("mark = len(build_log)")
    kernel.ok("@wp.func\ndef jk_f(v: float):\n    return v + 41.0\n")
    out = kernel.ok("wp.launch(jk_calls_f, 2, inputs=[y]); print(y.numpy().tolist()); "
                    "wp.launch(jk_plain, 2, inputs=[y]); print(sorted({b.module for b in build_log[mark:]}))")
    lines = out.splitlines()
    assert lines[:2] == ["[42.0, 42.0]", "['__cell__jk_calls_f']"]
    # the rebuild's summary line (the decorator-defined kernel's module, not the magic's)
    assert len(lines) == 3 and lines[2].startswith("wp.kernel __cell__jk_calls_f: jk_calls_f | ")


def test_kernel_print_reaches_the_cell(kernel):
    kernel.ok("%%wp.kernel\ndef jk_print(n: int):\n    i = wp.tid()\n    wp.printf(\"jk line %d of %d\\n\", i, n)\n")
    out = kernel.ok("wp.launch(jk_print, 3, inputs=[3])")
    assert sorted(ln for ln in out.splitlines() if ln.startswith("jk line")) == \
        ["jk line 0 of 3", "jk line 1 of 3", "jk line 2 of 3"]
    out = kernel.ok("%%wp.kernel --quiet\ndef jk_print2(v: float):\n    print(v)\n")
    out = kernel.ok("print('before'); wp.launch(jk_print2, 1, inputs=[2.5])")
    assert "before" in out and "2.5" in out


def test_array_and_tape_display(kernel):
    _, _, rich = kernel.run("wp.array(np.arange(12, dtype=np.float32).reshape(3, 4))")
    html = rich[-1]["text/html"]
    assert "shape=(3, 4)" in html and "max=11" in html and "data:image/png;base64," in html
    kernel.ok("@wp.kernel\ndef jk_sq(x: wp.array(dtype=float), y: wp.array(dtype=float)):\n"
              "    i = wp.tid()\n    y[i] = x[i] * x[i]\n")
    kernel.ok("xs = wp.array(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)\n"
              "ys = wp.zeros(2, requires_grad=True)\ntape = wp.Tape()\nwith tape:\n"
              "    wp.launch(jk_sq, 2, inputs=[xs], outputs=[ys])\n"
              "tape.backward(grads={ys: np.ones(2, dtype=np.float32)})")
    _, err, rich = kernel.run("tape")
    assert err is None
    html = rich[-1]["text/html"]
    assert "<svg" in html and "jk_sq" in html and ">xs<" in html
    # |grad xs| = |2 * xs| = sqrt(4 + 16)
    assert "4.47214" in html


def test_decorator_kernel_error_names_the_cell(kernel):
    kernel.ok("@wp.kernel\ndef jk_dec_bad(y: wp.array(dtype=float)):\n    i = wp.tid()\n    y[i] = missing_name\n")
    _, err, _ = kernel.run("wp.launch(jk_dec_bad, 1, inputs=[wp.zeros(1)])")
    assert err["ename"] == "UndefinedNameError"     # a CodegenError (and a KeyError, as warp-lang)
    tb = "\n".join(err["traceback"])
    assert "kernel error in cell [" in tb and "line 4, in jk_dec_bad" in tb
    assert "y[i] = missing_name" in tb and "Traceback" not in tb


def test_errors_name_the_prompt_number(kernel):
    """The In [N] the front-end shows (execute_input's count) is the N of "cell [N]"."""
    _, err, _ = kernel.run(CELL.format(extra=" + no_such_name"))
    assert f"kernel error in cell [{kernel.last_count}], line 4" in "\n".join(err["traceback"])
    kernel.ok("@wp.kernel\ndef jk_dec_bad2(y: wp.array(dtype=float)):\n    y[0] = missing_name\n")
    defined_in = kernel.last_count
    _, err, _ = kernel.run("wp.launch(jk_dec_bad2, 1, inputs=[wp.zeros(1)])")
    assert f"kernel error in cell [{defined_in}], line 3" in "\n".join(err["traceback"])


def test_launch_error_without_package_frames(kernel):
    kernel.ok("@wp.kernel\ndef jk_two(a: wp.array(dtype=float), s: float):\n    a[wp.tid()] = s\n")
    _, err, _ = kernel.run("wp.launch(jk_two, 2, inputs=[wp.zeros(2)])")
    assert err["ename"] == "TypeError" and err["evalue"] == "kernel 'jk_two' takes 2 arguments (a, s), got 1"
    tb = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(err["traceback"]))
    assert "wp.launch(jk_two, 2" in tb and "warp_interactive" not in tb


def test_live_view_updates_one_output_in_place(kernel):
    """50 launches, an update() after each: one picture, redrawn in place a bounded number of
    times (rate-limited), the last frame showing the final values."""
    kernel.ok("%%wp.kernel --quiet\ndef jk_fill(a: wp.array2d(dtype=float), v: float):\n"
              "    i, j = wp.tid()\n    a[i, j] = v\n")
    out, err, rich = kernel.run(
        "field = wp.zeros((20, 30))\nview = wp.notebook.live(field, title='fill', every=3600)\n"
        "for k in range(50):\n    wp.launch(jk_fill, field.shape, inputs=[field, float(k)])\n"
        "    view.update(f'step {k}')\nview.update('done', force=True)\nprint(view.frames, view.skipped)")
    assert err is None
    assert len(rich) == 1 and "wpi-heatmap" in rich[0]["text/html"]      # one output area
    assert len(kernel.last_updates) == 1                                  # 49 skipped, 1 forced
    final = kernel.last_updates[0]
    assert final["transient"]["display_id"] and "max=49" in final["data"]["text/html"]
    assert "done" in final["data"]["text/html"]
    assert out.split() == ["2", "50"]
