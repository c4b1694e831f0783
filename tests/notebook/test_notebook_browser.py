"""The notebook as users see it: JupyterLab in headless Chromium (Selenium) opens the tutorial
notebook 04, runs every cell, and the array picture, the tape graph and the timing chart must
render (element present, a picture with a size, no error output). A second test opens two
notebooks side by side, each with a tape picture (each picture's arrowheads must be its own),
points at a heat-map and reads the value shown, and moves a volume's slice slider. Screenshots
of the page and of each display are saved under the test's temporary folder (kept by pytest for
the last runs).

Needs ``chromium`` + ``chromium-driver`` (Debian packages) and ``jupyterlab`` + ``selenium``
(the test extra); ``scripts/test.sh`` installs them and sets WARP_INTERACTIVE_BROWSER_TEST=require,
so there a missing piece fails instead of skipping. Everything listens on 127.0.0.1 only, and
every wait has a deadline: a hung server or browser fails the test, it does not hang CI.
"""

import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest
from paths import REPO as REPO_PATH

ROOT = str(REPO_PATH)
NOTEBOOK = "04_inspecting_and_timing.ipynb"
REQUIRED = os.environ.get("WARP_INTERACTIVE_BROWSER_TEST") == "require"
SERVER_START_S, PAGE_S, RUN_ALL_S = 90, 90, 240


def _need(ok, why):
    if not ok:
        if REQUIRED:
            pytest.fail(why + " (scripts/test.sh installs it)")
        pytest.skip(why)


def _browser():
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(what, deadline_s, probe, interval=0.5):
    """Call ``probe`` until it returns a true value (returned), failing after ``deadline_s``."""
    end = time.monotonic() + deadline_s
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > end:
            pytest.fail(f"timed out after {deadline_s} s waiting for {what}")
        time.sleep(interval)


def _fresh_copy(dest):
    """The tutorial without outputs or counts: whatever shows up was made by this run."""
    with open(os.path.join(ROOT, "notebooks", NOTEBOOK), encoding="utf-8") as f:
        nb = json.load(f)
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    with open(dest / NOTEBOOK, "w", encoding="utf-8") as f:
        json.dump(nb, f)


def _notebook(cells):
    return {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                       "source": src} for src in cells],
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
            "nbformat": 4, "nbformat_minor": 5}


VIEWS_KERNELS = """import numpy as np
import warp_interactive as wp

@wp.kernel
def scale(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i]

@wp.kernel
def total(y: wp.array(dtype=float), loss: wp.array(dtype=float)):
    wp.atomic_add(loss, 0, y[wp.tid()])
"""
VIEWS_TAPE = """{x} = wp.array(np.arange(8, dtype=np.float32), requires_grad=True)
{y} = wp.zeros(8, requires_grad=True)
{loss} = wp.zeros(1, requires_grad=True)
tape = wp.Tape()
with tape:
    wp.launch(scale, 8, inputs=[{x}, {y}])
    wp.launch(total, 8, inputs=[{y}, {loss}])
tape.backward({loss})
wp.notebook.show_tape(tape, engine="python")
"""
# a field whose value tells its index (field[i, j] = i + j / 1000), a volume whose slices differ
VIEWS_A = [VIEWS_KERNELS, VIEWS_TAPE.format(x="x", y="y", loss="loss"),
           "field = wp.array(np.add.outer(np.arange(40.0), np.arange(60.0) / 1000.0).astype(np.float32))\nfield",
           "volume = wp.array(np.stack([k + np.add.outer(np.arange(30.0), np.arange(40.0)) / 100.0\n"
           "                            for k in range(6)]).astype(np.float32))\nvolume",
           "t = np.linspace(0.0, 6.0, 200)\npoints = wp.array(np.c_[t * np.cos(t), t * np.sin(t)], dtype=wp.vec2)\npoints",
           "yy, xx = np.mgrid[0:16, 0:20] - 8.0\nwind = wp.array(np.stack([-yy, xx], axis=-1), dtype=wp.vec2)\nwind",
           "tape.visualize()"]
VIEWS_B = [VIEWS_KERNELS, VIEWS_TAPE.format(x="u", y="v", loss="cost")]


def _views_notebooks(dest):
    for name, cells in (("views_a.ipynb", VIEWS_A), ("views_b.ipynb", VIEWS_B)):
        with open(dest / name, "w", encoding="utf-8") as f:
            json.dump(_notebook(cells), f)


def _lab_env(tmp_path):
    settings = tmp_path / "lab-settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # every cell in the DOM (no virtual scrolling), so every output can be looked at
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    news = tmp_path / "lab-settings" / "@jupyterlab" / "apputils-extension"   # no "news?" pop-up
    news.mkdir(parents=True)                                                  # over the pictures
    (news / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))
    env = dict(os.environ)
    env.update(PYTHONPATH=ROOT + os.pathsep + env.get("PYTHONPATH", ""),   # this checkout's package
               WARP_INTERACTIVE_CACHE_DIR=str(tmp_path / "kernel-cache"),
               JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "lab-settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "lab-workspaces"),
               JUPYTER_CONFIG_DIR=str(tmp_path / "jupyter-config"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "jupyter-runtime"),
               IPYTHONDIR=str(tmp_path / "ipython"))
    return env


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server on 127.0.0.1 serving a fresh copy of the notebook (and the two made by
    ``_views_notebooks``): (url, token)."""
    _need(importlib.util.find_spec("jupyterlab") is not None, "jupyterlab is not installed")
    work = tmp_path / "notebooks"
    work.mkdir()
    _fresh_copy(work)
    _views_notebooks(work)
    port, token = _free_port(), secrets.token_hex(16)
    log = open(tmp_path / "jupyterlab.log", "w")
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           f"--ServerApp.root_dir={work}", f"--IdentityProvider.token={token}",
           "--LabApp.expose_app_in_browser=True", "--ServerApp.port_retries=0"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")      # CI containers run as root
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=_lab_env(tmp_path),
                            cwd=work, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait("the JupyterLab server", SERVER_START_S, lambda: proc.poll() is not None or _up(url, token))
        if proc.poll() is not None:
            pytest.fail(f"jupyter lab exited ({proc.returncode}):\n{(tmp_path / 'jupyterlab.log').read_text()[-3000:]}")
        yield url, token
    finally:
        _stop(proc)
        log.close()


def _up(url, token):
    try:
        with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5) as r:
            return r.status == 200
    except OSError:
        return False


def _stop(proc):
    """The server and the kernels it started (its own process group)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)


@pytest.fixture
def browser(tmp_path):
    _need(importlib.util.find_spec("selenium") is not None, "selenium is not installed")
    chromium, driver_path = _browser(), shutil.which("chromedriver")
    _need(chromium is not None and driver_path is not None,
          "chromium and chromedriver are not installed (Debian: apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1400,1800", f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(driver_path), options=opts)
    driver.set_page_load_timeout(PAGE_S)
    driver.set_script_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


# JavaScript run in the page (JupyterLab's app object is exposed as window.jupyterapp). The
# notebook is found among the main area's widgets: a headless window has no focus, so there is
# no "current" widget until the notebook is activated.
FIND = """
function nb() {
  const a = window.jupyterapp;
  if (!a) return null;
  for (const w of a.shell.widgets('main')) { if (w.content && w.sessionContext) return w; }
  return null;
}
"""
KERNEL_IDLE = FIND + """
const w = nb();
if (!w) return false;
window.jupyterapp.shell.activateById(w.id);
const k = w.sessionContext.session && w.sessionContext.session.kernel;
return !!(k && k.status === 'idle' && w.content.widgets.length > 0);
"""
RUN_ALL = FIND + """
window.jupyterapp.shell.activateById(nb().id);
window.jupyterapp.commands.execute('notebook:run-all-cells');
"""
ALL_RUN = FIND + """
const w = nb();
const code = w.content.widgets.filter(c => c.model.type === 'code');
const done = code.every(c => c.model.executionCount !== null && c.promptNode.textContent.indexOf('*') < 0);
return done && w.sessionContext.session.kernel.status === 'idle' ? code.length : 0;
"""
ERRORS = """
return Array.from(document.querySelectorAll(
    '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"], .jp-OutputArea-output .jupyter-widgets-error-widget'))
    .map(e => e.textContent.slice(0, 2000));
"""
PICTURE = """
const imgs = Array.from(document.querySelectorAll(arguments[0]));
return imgs.map(i => [i.complete, i.naturalWidth, i.naturalHeight, i.getBoundingClientRect().width]);
"""
TAPE = """
const svg = document.querySelector('.wpi-tape svg');
if (!svg) return null;
const box = svg.getBoundingClientRect();
return [box.width, box.height, Array.from(svg.querySelectorAll('text')).map(t => t.textContent)];
"""


INDENTS = """
return Array.from(arguments).map(sel => {
  const el = document.querySelector(sel);
  return el.getBoundingClientRect().left - el.closest('.jp-OutputArea-output').getBoundingClientRect().left;
});
"""


def _shoot(driver, selector, path, index=0):
    from selenium.webdriver.common.by import By
    el = driver.find_elements(By.CSS_SELECTOR, selector)[index]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", el)
    time.sleep(0.3)
    el.screenshot(str(path))
    return path


def test_tutorial_runs_in_jupyterlab_and_its_pictures_render(lab, browser, tmp_path):
    url, token = lab
    browser.get(f"{url}/lab/tree/{NOTEBOOK}?token={token}")
    _wait("the notebook to open with an idle kernel", PAGE_S, lambda: browser.execute_script(KERNEL_IDLE))
    browser.execute_script(RUN_ALL)
    time.sleep(1.0)
    n_cells = _wait("every cell to run", RUN_ALL_S, lambda: browser.execute_script(ALL_RUN), interval=1.0)
    shots = tmp_path / "screenshots"
    shots.mkdir()
    browser.save_screenshot(str(shots / "notebook-end.png"))
    errors = browser.execute_script(ERRORS)
    assert errors == [], f"error output in the notebook:\n" + "\n---\n".join(errors)
    assert n_cells >= 10
    # the array picture: a heat-map with a size, the array's aspect (256x256: square image area)
    heatmaps = browser.execute_script(PICTURE, "img.wpi-heatmap")
    assert heatmaps and all(ok and w > 100 and h > 100 and shown > 100 for ok, w, h, shown in heatmaps), heatmaps
    # the timing chart
    charts = browser.execute_script(PICTURE, "img.wpi-timing-chart")
    assert charts and all(ok and w > 100 and h > 20 and shown > 100 for ok, w, h, shown in charts), charts
    # the tape graph: an SVG with the kernels and the arrays named after the notebook's variables
    width, height, texts = browser.execute_script(TAPE)
    assert width > 100 and height > 50
    assert {"smooth", "mean_square", "small_in", "small_out", "loss"} <= set(texts), texts
    # the live view ended on its last frame; the annotated cell folds open to its C++
    live = browser.execute_script("return Array.from(document.querySelectorAll('.wpi-live')).map(e => e.textContent)")
    assert len(live) == 1 and "done" in live[0]
    lines = browser.execute_script(
        "return Array.from(document.querySelectorAll('.wpi-annotate details')).map(d => d.dataset.line)")
    assert lines == ["3", "4"]
    # every line's number starts at one column, whether the line folds open or not
    lefts = browser.execute_script(
        "return Array.from(document.querySelectorAll('.wpi-annotate .wpi-ln')).map(e => e.getBoundingClientRect().left)")
    assert len(lefts) >= 4 and max(lefts) - min(lefts) < 1.0, lefts
    # the live view's picture sits where the array view's does (left-aligned in its output)
    offsets = browser.execute_script(INDENTS, ".wpi-array img.wpi-heatmap", ".wpi-live img.wpi-heatmap")
    assert abs(offsets[0] - offsets[1]) < 1.0, offsets
    # fold open the saxpy line of the annotated cell: its C++ shows
    browser.execute_script("document.querySelector(\".wpi-annotate details[data-line='4'] summary\").click()")
    time.sleep(0.3)
    cpp = browser.execute_script("return document.querySelector(\".wpi-annotate details[data-line='4']\").innerText")
    assert "wp::mul(var_a" in cpp and "wp::adj_mul(" in cpp
    for name, selector in PICTURES:
        path = _shoot(browser, selector, shots / f"{name}.png")
        assert path.stat().st_size > 1000
    _publish(shots)


# the displays photographed (docs/notebook.md shows them: scripts/notebook_pictures.sh)
PICTURES = (("array", ".wpi-array"), ("heatmap", "img.wpi-heatmap"),
            ("timing", ".jp-OutputArea-output:has(img.wpi-timing-chart)"), ("tape", ".wpi-tape"),
            ("live", ".wpi-live"), ("annotate", ".wpi-annotate"))


def _publish(shots, names=None):
    """WARP_INTERACTIVE_PICTURES_TO=DIR: copy the display screenshots there (the docs' pictures)."""
    dest = os.environ.get("WARP_INTERACTIVE_PICTURES_TO")
    if dest:
        os.makedirs(dest, exist_ok=True)
        for name in names or [n for n, _ in PICTURES if n != "heatmap"]:    # (the heat-map: part
            shutil.copyfile(shots / f"{name}.png", os.path.join(dest, f"notebook-{name}.png"))  # of the array's)


# --- two notebooks side by side: tape arrowheads, a heat-map's hover, a volume's slider --------
PANEL = """
function panel(path) {
  const a = window.jupyterapp;
  if (!a) return null;
  for (const w of a.shell.widgets('main')) {
    if (w.content && w.sessionContext && w.context && w.context.path === path) return w;
  }
  return null;
}
"""
IDLE_AT = PANEL + """
const w = panel(arguments[0]);
if (!w) return false;
const k = w.sessionContext.session && w.sessionContext.session.kernel;
return !!(k && k.status === 'idle' && w.content.widgets.length > 0);
"""
OPEN_SPLIT = """
window.jupyterapp.commands.execute('docmanager:open', {path: arguments[0], options: {mode: 'split-right'}});
return true;
"""
RUN_ALL_AT = PANEL + """
window.jupyterapp.shell.activateById(panel(arguments[0]).id);
window.jupyterapp.commands.execute('notebook:run-all-cells');
return true;
"""
ALL_RUN_AT = PANEL + """
const w = panel(arguments[0]);
const code = w.content.widgets.filter(c => c.model.type === 'code');
const done = code.every(c => c.model.executionCount !== null && c.promptNode.textContent.indexOf('*') < 0);
return done && w.sessionContext.session.kernel.status === 'idle' ? code.length : 0;
"""
# every tape picture in the page: its edges, and whether the marker each one's marker-end names
# is found (document.getElementById, as the browser resolves url(#id)) inside the same picture
ARROWHEADS = PANEL + """
return Array.from(document.querySelectorAll('.wpi-tape svg')).map(svg => {
  const edges = Array.from(svg.querySelectorAll('[marker-end]'));
  const own = edges.map(e => {
    const m = /url\\(#([^)]+)\\)/.exec(e.getAttribute('marker-end'));
    const el = m && document.getElementById(m[1]);
    return !!(el && el.tagName === 'marker' && svg.contains(el));
  });
  const box = svg.getBoundingClientRect();
  const nb = svg.closest('.jp-NotebookPanel');
  return [nb ? nb.id : null, edges.length, own.every(x => x), box.width, box.height];
});
"""
PANEL_BOXES = PANEL + """
return arguments.length ? Array.from(arguments).map(p => {
  const r = panel(p).node.getBoundingClientRect(); return [r.left, r.right, r.width, r.height]; }) : [];
"""
PAGE_IDS = """
const ids = Array.from(document.querySelectorAll('.jp-OutputArea-output [id]')).map(e => e.id);
return ids.filter((id, k) => ids.indexOf(id) !== k);
"""
HEAT = """
const el = Array.from(document.querySelectorAll('.wpi-heat')).find(e => e.dataset.lead === arguments[0]);
el.scrollIntoView({block: 'center'});
const img = el.querySelector('img'), r = img.getBoundingClientRect();
return [r.left, r.top, r.width, r.height, el.dataset.box.split(',').map(Number), el.dataset.shape.split(',').map(Number)];
"""
READOUT = """
return Array.from(document.querySelectorAll('.wpi-heat')).find(e => e.dataset.lead === arguments[0])
    .querySelector('.wpi-readout').textContent;
"""
# the colour at the middle of the image area: of the PNG (drawn onto a canvas), and of the slice
# canvas the slider draws (null while it is hidden)
MIDDLE_COLOURS = """
const el = Array.from(document.querySelectorAll('.wpi-heat')).find(e => e.dataset.lead === arguments[0]);
const img = el.querySelector('img'), q = el.dataset.box.split(',').map(Number);
const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
const g = c.getContext('2d'); g.drawImage(img, 0, 0);
const png = Array.from(g.getImageData(Math.floor((q[0] + q[2]) / 2 * c.width), Math.floor((q[1] + q[3]) / 2 * c.height), 1, 1).data.slice(0, 3));
const cv = el.querySelector('canvas.wpi-slice');
const slice = cv.style.display === 'block' ?
    Array.from(cv.getContext('2d').getImageData(Math.floor(cv.width / 2), Math.floor(cv.height / 2), 1, 1).data.slice(0, 3)) : null;
return [png, slice, el.querySelector('.wpi-slice-label').textContent, el.querySelector('input.wpi-slider').value];
"""


def _open_and_run(browser, path, split=False):
    if split:
        browser.execute_script(OPEN_SPLIT, path)
    _wait(f"{path} to open with an idle kernel", PAGE_S, lambda: browser.execute_script(IDLE_AT, path))
    browser.execute_script(RUN_ALL_AT, path)
    time.sleep(1.0)
    return _wait(f"every cell of {path} to run", RUN_ALL_S, lambda: browser.execute_script(ALL_RUN_AT, path),
                 interval=1.0)


def _point_at(browser, lead, i, j):
    """Move the pointer over element [i, j] of the heat-map whose leading shape is ``lead``."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    left, top, width, height, box, (rows, cols) = browser.execute_script(HEAT, lead)
    x = (box[0] + (j + 0.5) / cols * (box[2] - box[0])) * width
    y = (box[1] + (i + 0.5) / rows * (box[3] - box[1])) * height
    img = [e for e in browser.find_elements(By.CSS_SELECTOR, ".wpi-heat")
           if e.get_attribute("data-lead") == lead][0].find_element(By.TAG_NAME, "img")
    ActionChains(browser).move_to_element_with_offset(img, round(x - width / 2), round(y - height / 2)).perform()
    time.sleep(0.2)
    return browser.execute_script(READOUT, lead)


def _drag_slider(browser, slider, to, last):
    """Drag a range input's thumb from position 0 to position ``to`` of 0..``last``, as a hand
    would (the notebook's keyboard shortcuts take the arrow keys in command mode)."""
    from selenium.webdriver.common.action_chains import ActionChains
    width = slider.rect["width"]
    thumb = 16                                  # Chromium's range thumb, about
    start = -width / 2 + thumb / 2
    ActionChains(browser).move_to_element_with_offset(slider, round(start), 0).click_and_hold() \
        .move_by_offset(round(to / last * (width - thumb)), 0).release().perform()
    time.sleep(0.3)


def test_two_notebooks_side_by_side_hover_and_slices(lab, browser, tmp_path):
    from selenium.webdriver.common.by import By
    url, token = lab
    shots = tmp_path / "screenshots"
    shots.mkdir()
    browser.get(f"{url}/lab/tree/views_a.ipynb?token={token}")
    assert _open_and_run(browser, "views_a.ipynb") == len(VIEWS_A)
    assert _open_and_run(browser, "views_b.ipynb", split=True) == len(VIEWS_B)
    browser.execute_script("window.jupyterapp.shell.collapseLeft()")    # room for the two
    time.sleep(0.5)
    browser.save_screenshot(str(shots / "side-by-side.png"))
    errors = browser.execute_script(ERRORS)
    assert errors == [], "error output in a notebook:\n" + "\n---\n".join(errors)
    (a_left, a_right, a_w, a_h), (b_left, b_right, b_w, b_h) = browser.execute_script(
        PANEL_BOXES, "views_a.ipynb", "views_b.ipynb")
    assert a_w > 200 and b_w > 200 and b_left >= a_right - 10, "the notebooks are not side by side"
    # both tape pictures (engine="python" draws arrowheads as SVG markers) find their own marker
    tapes = browser.execute_script(ARROWHEADS)
    by_panel = {}
    for panel_id, edges, own, width, height in tapes:
        by_panel.setdefault(panel_id, []).append((edges, own, width, height))
    assert len(by_panel) == 2, tapes
    for panel_id, pictures in by_panel.items():         # (the GraphViz pictures draw their
        assert max(edges for edges, *_ in pictures) >= 4, pictures    # arrowheads as polygons)
        for edges, own, width, height in pictures:
            assert own and width > 100 and height > 50, (panel_id, pictures)
    assert browser.execute_script(PAGE_IDS) == []          # no id twice in the page
    # tape.visualize() in a cell: the picture with the notebook's names, not DOT text
    texts = browser.execute_script(
        "return Array.from(document.querySelectorAll('.wpi-tape')).map(t => t.textContent)")
    assert sum("scale" in t and "loss" in t and "grad consumed" in t for t in texts) >= 2, texts
    # the heat-map answers the pointer with the index and the value (field[i, j] = i + j / 1000)
    for i, j in ((12, 34), (0, 0), (39, 59)):
        assert _point_at(browser, "", i, j) == f"[{i}, {j}] = {np.float32(i + j / 1000):.6g}"
    _shoot(browser, ".wpi-heat[data-lead='']", shots / "hover.png")
    # the volume's slider: slice 2 drawn in place of slice 0, its label and values follow
    png_colour, slice_colour, label, value = browser.execute_script(MIDDLE_COLOURS, "6")
    assert slice_colour is None and label == "[0, :, :]" and value == "0"
    before = _shoot(browser, ".wpi-heat[data-lead='6']", shots / "slice-0.png").read_bytes()
    slider = [e for e in browser.find_elements(By.CSS_SELECTOR, ".wpi-heat")
              if e.get_attribute("data-lead") == "6"][0].find_element(By.CSS_SELECTOR, "input.wpi-slider")
    _drag_slider(browser, slider, 2, 5)
    png_colour2, slice_colour, label, value = browser.execute_script(MIDDLE_COLOURS, "6")
    assert value == "2" and label == "[2, :, :]" and png_colour2 == png_colour
    assert slice_colour is not None and max(abs(a - b) for a, b in zip(slice_colour, png_colour)) > 30
    after = _shoot(browser, ".wpi-heat[data-lead='6']", shots / "slice-2.png").read_bytes()
    assert after != before
    assert _point_at(browser, "6", 10, 20) == f"[2, 10, 20] = {np.float32(2 + 30 / 100):.6g}"
    for name, selector, index in (("points", "img.wpi-vectors", 0), ("arrows", "img.wpi-vectors", 1),
                                  ("tape-a", ".wpi-tape", 0), ("visualize", ".wpi-tape", 1)):
        assert _shoot(browser, selector, shots / f"{name}.png", index).stat().st_size > 1000
    _publish(shots, ("hover", "slice-2", "points", "arrows"))
