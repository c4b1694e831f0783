"""The warm-load index (build/warm_index.py): a fresh process finds its binary without
translating, and any edit that changes the generated code (the kernel, a @wp.func it calls,
directly or through another module, a constant) still gives the new result."""

import json
import math
import os
import subprocess
import sys
import textwrap

import pytest

DRIVER = textwrap.dedent('''
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    import warp_interactive as wp
    import kmod
    out = wp.zeros(4, dtype=float)
    wp.launch(kmod.k, dim=4, inputs=[out])
    m = kmod.k.module
    print(json.dumps({"value": float(out.numpy()[3]), "built": m.last_build[1],
                      "translated": "warp_interactive.lang.translation.translator" in sys.modules}))
''')

# a package forwarding our names under another name (how code written for warp-lang runs through
# a `warp` alias), with one attribute served by its module __getattr__
ALIAS = '''
import warp_interactive as _wi
globals().update({{k: v for k, v in vars(_wi).items() if not k.startswith("__")}})

def __getattr__(name):
    if name == "SCALE":
        return {s}
    return getattr(_wi, name)
'''

HELPER = '''
import warp_interactive as wp
K = {k}

@wp.func
def h(x: float):
    return x * {h}
'''

KMOD = '''
import warp_interactive as wp
import helper
import alias as wa
from helper import h
C = wp.constant({c})

@wp.func
def f(x: float):
    return h(x) + {f}

@wp.kernel
def k(out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = f(float(i)) * C{extra}
'''


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("warm")
    cache = tmp_path_factory.mktemp("warm-cache")
    driver = folder / "driver.py"
    driver.write_text(DRIVER)
    env = dict(os.environ, WARP_INTERACTIVE_CACHE_DIR=str(cache))

    def run(c=2.0, f=1.0, h=3.0, k=0.0, extra="", s=0.0):
        (folder / "kmod.py").write_text(KMOD.format(c=c, f=f, extra=extra))
        (folder / "alias.py").write_text(ALIAS.format(s=s))
        (folder / "helper.py").write_text(HELPER.format(h=h, k=k))
        out = subprocess.run([sys.executable, str(driver), str(folder)], capture_output=True,
                             text=True, env=env)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])
    return run


def expected(c=2.0, f=1.0, h=3.0, k=0.0, extra=""):
    return (3.0 * h + f) * c + (k if extra else 0.0)


def test_second_process_loads_without_translating(run):
    first = run()
    assert first["value"] == expected() and first["translated"]
    again = run()
    assert again == {"value": expected(), "built": False, "translated": False}


@pytest.mark.parametrize("change", [{"c": 5.0}, {"f": 7.0}, {"h": 11.0}])
def test_edits_of_constants_and_called_funcs_rebuild(run, change):
    got = run(**change)
    assert got["value"] == expected(**change) and got["translated"]
    assert run(**change) == {"value": expected(**change), "built": False, "translated": False}


def test_other_module_attributes_disable_the_shortcut_but_stay_correct(run):
    extra = " + helper.K"
    assert run(k=1.0, extra=extra)["value"] == expected(k=1.0, extra=extra)
    got = run(k=4.0, extra=extra)
    assert got["value"] == expected(k=4.0, extra=extra) and got["translated"]


def test_unchanged_module_attributes_load_without_translating(run):
    extra = " + helper.K"
    run(k=2.0, extra=extra)
    assert run(k=2.0, extra=extra) == {"value": expected(k=2.0, extra=extra), "built": False,
                                       "translated": False}


# through the alias: its builtins, a @wp.func of another module, a __getattr__ constant
ALIASED = [(" + wa.abs(wa.float32(-1.0)) * wa.SCALE", lambda s, h: s),
           (" + wa.sin(0.5) * wa.SCALE", lambda s, h: math.sin(0.5) * s),
           (" + helper.h(1.0) * wa.SCALE", lambda s, h: h * s)]


@pytest.mark.parametrize("extra,term", ALIASED)
@pytest.mark.parametrize("change", [{"s": 5.0}, {"h": 7.0}])
def test_forwarding_module_loads_warm_and_its_edits_rebuild(run, extra, term, change):
    base = dict(s=3.0, h=3.0)
    first = run(extra=extra, **base)
    assert first["value"] == pytest.approx(expected(h=base["h"]) + term(**base), rel=1e-6)
    again = run(extra=extra, **base)
    assert again["value"] == first["value"] and not again["translated"] and not again["built"]
    edited = dict(base, **change)
    got = run(extra=extra, **edited)
    assert got["value"] == pytest.approx(expected(h=edited["h"]) + term(**edited), rel=1e-6)
    assert got["translated"]
