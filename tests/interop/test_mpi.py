"""Warp arrays between MPI ranks on the CPU: ``mpirun -n 2`` runs tests/interop/mpi_halo_worker.py, whose
ranks exchange halo rows of Warp arrays through mpi4py (MPI reads and writes the arrays' own
memory, checked by address) with the work ordered by CPU streams and events, and check the
received rows with a kernel against the global array computed in NumPy.

scripts/test.sh installs Open MPI (Debian's openmpi-bin) and sets WARP_INTERACTIVE_MPI_TEST=require,
so there a missing mpirun fails; elsewhere the test skips without it.
"""

import os
import re
import shutil
import subprocess
import sys

import pytest
from paths import REPO as REPO_PATH

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = str(REPO_PATH)
MPIRUN = shutil.which("mpirun")
REQUIRED = os.environ.get("WARP_INTERACTIVE_MPI_TEST") == "require"


def _mpirun(ranks):
    cmd = [MPIRUN, "-n", str(ranks)]
    version = subprocess.run([MPIRUN, "--version"], capture_output=True, text=True).stdout
    if "Open MPI" in version or "OpenRTE" in version:
        if os.geteuid() == 0:
            cmd.append("--allow-run-as-root")   # Open MPI refuses root without it
        cmd.append("--oversubscribe")           # more ranks than cores on small machines
    return cmd


@pytest.mark.skipif(MPIRUN is None and not REQUIRED, reason="needs mpirun (Open MPI or MPICH)")
def test_halo_rows_exchanged_between_two_ranks():
    assert MPIRUN, "mpirun is missing although scripts/test.sh should have installed Open MPI"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([REPO, os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run(_mpirun(2) + [sys.executable, os.path.join(HERE, "mpi_halo_worker.py")],
                          env=env, capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    # found anywhere in the output: the ranks' lines may interleave
    oks = set(re.findall(r"\bOK (\d) (\w+)", proc.stdout))
    want = {(str(rank), t) for rank in (0, 1) for t in ("float32", "float64", "int64", "vec3f")}
    assert oks == want, out[-4000:]
