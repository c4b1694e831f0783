"""Without pyglet or usd-core, ``import warp_interactive.render`` works and the first renderer
says exactly what to install."""

import subprocess
import sys

import pytest

BLOCK = "import sys; sys.modules['pyglet'] = None; sys.modules['pxr'] = None\n"


def _run(code):
    return subprocess.run([sys.executable, "-c", BLOCK + code], capture_output=True, text=True, timeout=120)


def test_import_needs_neither():
    out = _run("import warp_interactive.render as wr; print(wr.OpenGLRenderer.__name__, wr.UsdRenderer.__name__)")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["OpenGLRenderer", "UsdRenderer"]


@pytest.mark.parametrize("call, words", [
    ("wr.OpenGLRenderer(headless=True)",
     ["OpenGLRenderer needs pyglet", "pip install 'warp_interactive[render]'", "pip install pyglet",
      "apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri"]),
    ("wr.UsdRenderer('x.usda')",
     ["UsdRenderer needs USD's Python modules (pxr)", "pip install 'warp_interactive[render]'",
      "pip install usd-core"]),
])
def test_first_call_says_what_to_install(call, words):
    code = ("import warp_interactive.render as wr\n"
            f"try:\n    {call}\nexcept ImportError as e:\n"
            "    print(type(e).__name__); print(e)\nelse:\n    print('no error')\n")
    out = _run(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("MissingDependency")
    for w in words:
        assert w in out.stdout
