"""Loading the extension: the shipped IPython configuration, the on/off command, import-time
registration and %load_ext / %unload_ext."""

import json
import os
import subprocess
import sys

from warp_interactive.notebook import config as nbconfig
from paths import REPO as REPO_PATH

REPO = str(REPO_PATH)
PROBE = ("import sys; print('warp_interactive' in sys.modules, "
         "'wp.kernel' in get_ipython().magics_manager.magics['cell'])")


def _ipython(tmp_path, config_file=None, env=None):
    (tmp_path / "ipdir").mkdir(exist_ok=True)
    cmd = [sys.executable, "-m", "IPython", f"--ipython-dir={tmp_path / 'ipdir'}", "--no-banner"]
    if config_file:
        cmd.append(f"--config={config_file}")
    cmd += ["-c", PROBE]
    res = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **(env or {})},
                         timeout=120)
    assert res.returncode == 0, res.stderr
    return res.stdout.split()[-2:]


def test_shipped_config_loads_the_extension(tmp_path):
    shipped = os.path.join(REPO, "jupyter-config", "ipython", "ipython_config.json")
    assert json.load(open(shipped))["InteractiveShellApp"]["extra_extensions"] == [nbconfig.EXTENSION]
    assert _ipython(tmp_path, shipped) == ["True", "True"]
    assert _ipython(tmp_path) == ["False", "False"]       # nothing loads it without the config
    # the opt-out variable keeps the configured extension from loading
    assert _ipython(tmp_path, shipped, {"WARP_INTERACTIVE_NO_EXTENSION": "1"})[1] == "False"


def test_enable_disable_keep_other_settings(tmp_path):
    path = nbconfig.config_path(str(tmp_path))
    os.makedirs(os.path.dirname(path))
    json.dump({"InteractiveShellApp": {"extra_extensions": ["other"]}, "X": {"y": 1}}, open(path, "w"))
    nbconfig.main(["enable", "--prefix", str(tmp_path)])
    nbconfig.main(["enable", "--prefix", str(tmp_path)])
    cfg = json.load(open(path))
    assert cfg["InteractiveShellApp"]["extra_extensions"] == ["other", nbconfig.EXTENSION]
    assert nbconfig.is_enabled(str(tmp_path))
    nbconfig.main(["disable", "--prefix", str(tmp_path)])
    assert json.load(open(path)) == {"InteractiveShellApp": {"extra_extensions": ["other"]}, "X": {"y": 1}}
    assert not nbconfig.is_enabled(str(tmp_path))


def test_enable_then_disable_on_empty_prefix_removes_file(tmp_path):
    path = nbconfig.enable(str(tmp_path))
    assert _ipython(tmp_path, path) == ["True", "True"]
    nbconfig.disable(str(tmp_path))
    assert not os.path.exists(path)


def test_import_registers_and_unload_ext_removes():
    from IPython.core.interactiveshell import InteractiveShell
    import warp_interactive as wp
    shell = InteractiveShell.instance()
    try:
        cells = shell.magics_manager.magics["cell"]
        wp.unload_ipython_extension(shell)
        assert "wp.kernel" not in cells
        wp._register_in_ipython()          # what `import warp_interactive` does inside IPython
        assert {"wp.kernel", "kernel", "wp_kernel"} <= set(cells)
        shell.run_line_magic("unload_ext", "warp_interactive")
        shell.run_line_magic("load_ext", "warp_interactive")
        assert "wp.kernel" in cells
        from warp_interactive.lang.definitions import decorators
        assert decorators.module_hook is not None
        wp.unload_ipython_extension(shell)
        assert "wp.kernel" not in cells and decorators.module_hook is None
    finally:
        wp.unload_ipython_extension(shell)
        InteractiveShell.clear_instance()
