"""An integrand defined again (a notebook cell run again with an edited body) gives the new
result at once, and rebuilds only the kernels that use it."""

import linecache
import random
import sys
import types

import pytest

import warp_interactive as wp
import warp_interactive.fem as fem
from warp_interactive.state import state

CELL = '''
import warp_interactive as wp
import warp_interactive.fem as fem

@fem.integrand
def form(s: fem.Sample, v: fem.Field, k: float):
    return k * BODY * v(s)

@fem.integrand
def other(s: fem.Sample, v: fem.Field):
    return v(s)
'''


def run_cell(module, body, path):
    """The cell's text, edited, run again in the same namespace (a file: the source is read back)."""
    text = CELL.replace("BODY", body)
    path.write_text(text)
    linecache.checkcache(str(path))
    exec(compile(text, str(path), "exec"), module.__dict__)


def test_edited_integrand_gives_the_new_result_and_rebuilds_only_its_kernel(tmp_path):
    module = types.ModuleType("fem_redefine_cell")
    cell = tmp_path / "cell.py"
    sys.modules[module.__name__] = module
    geo = fem.Grid2D(res=wp.vec2i(2))
    space = fem.make_polynomial_space(geo, degree=1)
    test = fem.make_test(space)
    fresh = random.randrange(1 << 30)        # a body no earlier run has built
    try:
        run_cell(module, f"(1.0 + 0.0 * {fresh}.0)", cell)
        first = fem.integrate(module.form, fields={"v": test}, values={"k": 2.0}).numpy().sum()
        fem.integrate(module.other, fields={"v": test})
        run_cell(module, f"(3.0 + 0.0 * {fresh}.0)", cell)
        mark = len(state.build_log)
        second = fem.integrate(module.form, fields={"v": test}, values={"k": 2.0}).numpy().sum()
        assert first == pytest.approx(2.0) and second == pytest.approx(6.0)
        form_loads = state.build_log[mark:]
        assert any(r.compiled for r in form_loads)            # the edited integrand's kernel
        mark = len(state.build_log)
        fem.integrate(module.other, fields={"v": test})       # the same text as before the edit
        assert not any(r.compiled for r in state.build_log[mark:])
    finally:
        sys.modules.pop(module.__name__, None)
