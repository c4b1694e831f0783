"""A renderer's animation as users see it: JupyterLab in headless Chromium runs a notebook that
records frames of a headless OpenGLRenderer and displays it; the animation's picture must
render with the frame's size, and its play button must advance the frames.

Same requirements and set-up as tests/notebook/test_notebook_browser.py (whose server/browser helpers
this uses); scripts/test.sh installs them, and there a missing piece fails instead of skipping.
"""

import json
import secrets
import subprocess
import sys
import time

import pytest

from render_helpers import need
from tests.notebook.test_notebook_browser import (ALL_RUN, ERRORS, KERNEL_IDLE, PAGE_S, PICTURE, RUN_ALL, SERVER_START_S,  # noqa: F401
                                   _free_port, _lab_env, _need, _stop, _up, _wait, browser)

NOTEBOOK = "render_animation.ipynb"
CELLS = [
    "import warp_interactive as wp\nimport warp_interactive.render",
    "r = wp.render.OpenGLRenderer(screen_width=200, screen_height=150, headless=True)\n"
    "r.start_recording()\n"
    "for k in range(6):\n"
    "    r.begin_frame(k / 30)\n"
    "    r.render_ground()\n"
    "    r.render_sphere('ball', (-1.5 + 0.6 * k, 1.0, 0.0), (0, 0, 0, 1), 0.6, color=(0.9, 0.3, 0.2))\n"
    "    r.end_frame()",
    "r",
]


@pytest.fixture
def lab_notebook(tmp_path):
    import importlib.util
    _need(importlib.util.find_spec("jupyterlab") is not None, "jupyterlab is not installed")
    need("pyglet")
    work = tmp_path / "notebooks"
    work.mkdir()
    cells = [{"cell_type": "code", "metadata": {}, "source": src, "outputs": [], "execution_count": None}
             for src in CELLS]
    nb = {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                      "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (work / NOTEBOOK).write_text(json.dumps(nb))
    port, token = _free_port(), secrets.token_hex(16)
    log = open(tmp_path / "jupyterlab.log", "w")
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           f"--ServerApp.root_dir={work}", f"--IdentityProvider.token={token}",
           "--LabApp.expose_app_in_browser=True", "--ServerApp.port_retries=0", "--allow-root"]
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=_lab_env(tmp_path), cwd=work,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait("the JupyterLab server", SERVER_START_S, lambda: proc.poll() is not None or _up(url, token))
        if proc.poll() is not None:
            pytest.fail(f"jupyter lab exited ({proc.returncode}):\n{(tmp_path / 'jupyterlab.log').read_text()[-3000:]}")
        yield url, token
    finally:
        _stop(proc)
        log.close()


FRAME_ALT = "return Array.from(document.querySelectorAll('.wpi-animation img.wpi-frame')).map(i => i.alt)"


def test_animation_plays_in_jupyterlab(lab_notebook, browser, tmp_path):
    url, token = lab_notebook
    browser.get(f"{url}/lab/tree/{NOTEBOOK}?token={token}")
    _wait("the notebook to open with an idle kernel", PAGE_S, lambda: browser.execute_script(KERNEL_IDLE))
    browser.execute_script(RUN_ALL)
    time.sleep(1.0)
    _wait("every cell to run", 240, lambda: browser.execute_script(ALL_RUN), interval=1.0)
    errors = browser.execute_script(ERRORS)
    assert errors == [], "error output in the notebook:\n" + "\n---\n".join(errors)
    pictures = _wait("the animation's picture", 30,
                     lambda: browser.execute_script(PICTURE, ".wpi-animation img.wpi-frame"))
    assert pictures == [[True, 200, 150, 200]], pictures
    assert browser.execute_script(FRAME_ALT) == ["frame 1"]
    browser.save_screenshot(str(tmp_path / "animation.png"))
    # play: the picture moves on to later frames (30 fps: well within a few seconds)
    browser.execute_script("document.querySelector('.wpi-animation .wpi-play').click()")
    _wait("the animation to advance", 10, lambda: browser.execute_script(FRAME_ALT) != ["frame 1"], interval=0.1)
    label = browser.execute_script("return document.querySelector('.wpi-animation .wpi-label').textContent")
    assert label.endswith("/6")
