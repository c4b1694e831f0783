"""An interrupt (or the compile timeout) that arrives when the compiler has just exited: the
compiler driver's process-group kill finds no process, and the interrupt itself must still reach
the user (it raised ProcessLookupError, seen in the interrupt tests under load)."""

import subprocess

import pytest

from warp_interactive.compiler import cpu


def test_interrupt_after_the_compiler_exited(monkeypatch):
    real = subprocess.Popen.communicate
    calls = []

    def communicate(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            self.wait()                 # the process has exited and been reaped: killpg finds nothing
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "communicate", communicate)
    with pytest.raises(KeyboardInterrupt):
        cpu.run_compiler(["true"], "a test")
