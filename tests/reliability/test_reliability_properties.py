"""The Hypothesis property suite (tests/reliability/properties_isolated.py) in a child process: generated
kernels and launch arguments either raise a clear exception or give the right result, and a
case that killed the process fails this test instead of the whole run.

CI runs the "ci" profile (a dozen derandomized examples per property); for a longer local run:
``WARP_INTERACTIVE_HYPOTHESIS_PROFILE=local python -m pytest tests/reliability/test_reliability_properties.py``."""

import os
import subprocess
import sys

from isolated import ROOT


def test_properties_hold_in_a_child_process():
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.setdefault("WARP_INTERACTIVE_HYPOTHESIS_PROFILE", "ci")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "-p", "no:randomly", str(ROOT / "tests" / "reliability" / "properties_isolated.py")],
                          capture_output=True, text=True, cwd=str(ROOT), env=env, timeout=1800)
    assert proc.returncode == 0, (f"rc={proc.returncode} (negative: killed by a signal)\n"
                                  f"{proc.stdout[-6000:]}\n{proc.stderr[-3000:]}")
    assert " passed" in proc.stdout
