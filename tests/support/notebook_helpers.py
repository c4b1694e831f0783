"""Shared by the notebook tests: an in-process IPython shell and a real Jupyter kernel, both
driven cell by cell."""

import queue

import pytest


class ShellDriver:
    """A real IPython InteractiveShell with warp_interactive loaded as an extension."""

    def __init__(self):
        from IPython.core.interactiveshell import InteractiveShell
        self.shell = InteractiveShell.instance()
        self.last_count = None   # the prompt number (In [N]) of the last cell run

    def run(self, code):
        """(stdout text, exception or None) of one cell."""
        import contextlib
        import io
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            r = self.shell.run_cell(code, store_history=True)
        self.last_count = r.execution_count
        err = r.error_in_exec or r.error_before_exec
        return out.getvalue(), err

    def ok(self, code):
        out, err = self.run(code)
        if err is not None:
            raise AssertionError(f"cell failed: {err!r}\n{out}")
        return out

    def close(self):
        from IPython.core.interactiveshell import InteractiveShell
        import warp_interactive as wp
        wp.unload_ipython_extension(self.shell)
        InteractiveShell.clear_instance()


class KernelDriver:
    """A real Jupyter kernel (ipykernel over ZMQ) run through jupyter_client."""

    def __init__(self):
        from jupyter_client.manager import start_new_kernel
        self.km, self.kc = start_new_kernel(kernel_name="python3", startup_timeout=60)
        self.last_count = None   # the prompt number (In [N]) the front-end showed for the last cell
        self.last_updates = []   # update_display_data contents of the last cell (display ids)

    def run(self, code, timeout=120):
        """(stdout text, error dict or None, rich outputs) of one cell, from its IOPub messages."""
        msg_id = self.kc.execute(code)
        stdout, error, rich = [], None, []
        self.last_updates = []
        while True:
            try:
                msg = self.kc.get_iopub_msg(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no reply from the kernel within {timeout} s for:\n{code}")
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            t, c = msg["msg_type"], msg["content"]
            if t == "execute_input":
                self.last_count = c["execution_count"]
            elif t == "stream":
                stdout.append(c["text"])
            elif t == "error":
                error = c
            elif t in ("display_data", "execute_result"):
                rich.append(c["data"])
            elif t == "update_display_data":
                self.last_updates.append(c)
            elif t == "status" and c["execution_state"] == "idle":
                break
        return "".join(stdout), error, rich

    def ok(self, code):
        out, err, _ = self.run(code)
        if err is not None:
            raise AssertionError(f"cell failed: {err['ename']}: {err['evalue']}\n" +
                                 "\n".join(err["traceback"]))
        return out

    def close(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


@pytest.fixture(scope="module")
def ipython(tmp_path_factory):
    """A shell with a kernel cache of its own, so "compiled" vs "cache hit" is deterministic."""
    import warp_interactive as wp
    saved = wp.config.kernel_cache_dir
    wp.config.kernel_cache_dir = str(tmp_path_factory.mktemp("nb-cache"))
    d = ShellDriver()
    d.ok("%load_ext warp_interactive")
    d.ok("import warp_interactive as wp\nimport numpy as np")
    yield d
    d.close()
    wp.config.kernel_cache_dir = saved
