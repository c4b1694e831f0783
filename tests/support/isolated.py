"""Running a snippet in a fresh Python process, for cases that could kill the process: a
regression then fails one test instead of taking the whole suite (or its xdist worker) down."""

import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from paths import REPO as ROOT  # noqa: E402

# The child reports how the snippet ended on its last line: "OK <value>" or "RAISED <type>: <msg>".
_WRAPPER = '''
import sys, traceback
import numpy as np
import warp_interactive as wp
def _main():
{body}
try:
    _value = _main()
except BaseException as e:
    print("RAISED " + type(e).__name__ + ": " + str(e).replace("\\n", " | "), flush=True)
else:
    print("OK " + repr(_value).replace("\\n", " "), flush=True)
'''


def run_snippet(body, timeout=180, env=None, raw=False):
    """Run ``body`` (the body of a function whose return value is reported) in a child process
    importing this checkout's package; returns the CompletedProcess. ``raw``: ``body`` is a whole
    script, run as it is."""
    src = textwrap.dedent(body) if raw else _WRAPPER.format(body=textwrap.indent(textwrap.dedent(body), "    "))
    child_env = dict(os.environ)
    child_env["PYTHONPATH"] = str(ROOT) + os.pathsep + child_env.get("PYTHONPATH", "")
    child_env.update(env or {})
    # a file, not -c: kernels need their source file
    with tempfile.TemporaryDirectory(prefix="wpi-isolated-") as tmp:
        path = Path(tmp) / "case.py"
        path.write_text(src)
        return subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                              timeout=timeout, cwd=str(ROOT), env=child_env)


def outcome(proc):
    """The child's last report line, or a description of how it died."""
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(("OK ", "RAISED "))]
    if proc.returncode != 0 or not lines:
        return f"DIED rc={proc.returncode} stderr={proc.stderr[-2000:]!r}"
    return lines[-1]
