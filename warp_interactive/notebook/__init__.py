"""IPython / Jupyter integration: the ``%%wp.kernel`` cell magic (a cell is a module, hot
reload), one module per notebook cell for decorator-defined kernels, kernel output captured into
the cell, short readable kernel errors, and rich displays (arrays, timings, tapes).

Loaded with ``%load_ext warp_interactive`` or automatically when the package is imported inside
IPython. Nothing here is imported by the core package outside IPython.
"""

from .cells import CellModules
from .errors import CellError, format_error
from .session import _state, current_shell  # noqa: F401  (wp.notebook.current_shell)


def load_ipython_extension(ipython):
    register(ipython)


def unload_ipython_extension(ipython):
    unregister(ipython)


def register(shell):
    """Register the magics, the per-cell module hook, output capture and displays on ``shell``
    (idempotent)."""
    if _state.get("shell") is shell:
        return
    if _state.get("shell") is not None:
        unregister(_state["shell"])
    from ..lang.definitions import decorators
    from . import capture, display, magic
    from .summaries import CellSummaries
    from .tracebacks import show_cell_error
    cells = CellModules(shell)
    decorators.module_hook = cells
    magic.register_magics(shell, cells)
    cap = capture.CellCapture()
    summaries = CellSummaries(cells)
    shell.events.register("pre_run_cell", cap.pre_run_cell)
    shell.events.register("pre_run_cell", summaries.pre_run_cell)
    shell.events.register("post_run_cell", cap.post_run_cell)       # before the summary: kernel
    shell.events.register("post_run_cell", summaries.post_run_cell)  # output first, then it
    ours = not shell.custom_exceptions      # a handler someone else set stays
    if ours:
        shell.set_custom_exc((Exception,), show_cell_error)
    display.register_formatters(shell)
    from .frames import register_render_formatters
    register_render_formatters(shell)
    _state.update(shell=shell, cells=cells, capture=cap, summaries=summaries, custom_exc=ours)


def unregister(shell):
    """Undo ``register`` (``%unload_ext warp_interactive``)."""
    if _state.get("shell") is not shell:
        return
    from ..lang.definitions import decorators
    from . import display, magic
    decorators.module_hook = None
    magic.unregister_magics(shell)
    cap, summaries = _state["capture"], _state["summaries"]
    cap.stop()
    for name, cb in (("pre_run_cell", cap.pre_run_cell), ("post_run_cell", cap.post_run_cell),
                     ("pre_run_cell", summaries.pre_run_cell),
                     ("post_run_cell", summaries.post_run_cell)):
        try:
            shell.events.unregister(name, cb)
        except ValueError:
            pass
    if _state.get("custom_exc"):
        shell.set_custom_exc((), None)
    display.unregister_formatters(shell)
    from .frames import unregister_render_formatters
    unregister_render_formatters(shell)
    _state.clear()


from .api import (array_widget, gradient_norms, last_error, show_array, show_tape,  # noqa: E402
                  show_timings, tape_svg, timing_widget)
from .live import live  # noqa: E402
from .frames import animation, show_frame  # noqa: E402
from .magic import annotation  # noqa: E402
from .summaries import kernel_summaries  # noqa: E402
from .tracebacks import show_package_frames  # noqa: E402
