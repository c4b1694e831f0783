"""The notebook as users see it: JupyterLab in headless Chromium (Selenium) opens the tutorial
notebook 04, runs every cell, and the array picture, the tape graph and the timing chart must
render (element present, a picture with a size, no error output). Screenshots of the page and of
each display are saved under the test's temporary folder (kept by pytest for the last runs).

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

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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


def _lab_env(tmp_path):
    settings = tmp_path / "lab-settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # every cell in the DOM (no virtual scrolling), so every output can be looked at
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
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
    """A JupyterLab server on 127.0.0.1 serving a fresh copy of the notebook: (url, token)."""
    _need(importlib.util.find_spec("jupyterlab") is not None, "jupyterlab is not installed")
    work = tmp_path / "notebooks"
    work.mkdir()
    _fresh_copy(work)
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


def _shoot(driver, selector, path):
    from selenium.webdriver.common.by import By
    el = driver.find_elements(By.CSS_SELECTOR, selector)[0]
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


def _publish(shots):
    """WARP_INTERACTIVE_PICTURES_TO=DIR: copy the display screenshots there (the docs' pictures)."""
    dest = os.environ.get("WARP_INTERACTIVE_PICTURES_TO")
    if dest:
        os.makedirs(dest, exist_ok=True)
        for name, _ in PICTURES:
            if name == "heatmap":
                continue          # part of the array's picture
            shutil.copyfile(shots / f"{name}.png", os.path.join(dest, f"notebook-{name}.png"))
