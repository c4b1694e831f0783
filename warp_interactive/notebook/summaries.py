"""A summary line for the kernels an ordinary cell defines with ``@wp.kernel``, as
``%%wp.kernel`` prints for its own: the cell's module, its kernels, and what building it cost
(compiled or a cache hit, the module hash) when a launch in the cell built it, or that it builds
at its first launch. A later cell whose launch builds such a module prints the build's line.
``wp.notebook.kernel_summaries(False)`` turns the lines off."""

_settings = {"show": True}


def kernel_summaries(show=True):
    """Print (True, the default) or not the summary line of ``@wp.kernel`` definitions in cells."""
    _settings["show"] = bool(show)


class CellSummaries:
    """IPython's pre/post_run_cell callbacks: what the decorator hook (``CellModules``) saw
    defined, and the builds of those modules, during one cell."""

    def __init__(self, cells):
        self.cells = cells
        self._mark = 0

    def pre_run_cell(self, info=None):
        from ..state import state
        self._mark = len(state.build_log)
        self.cells.defined.clear()

    def post_run_cell(self, result=None):
        ok = result is None or getattr(result, "success", True)
        if _settings["show"] and ok:         # after an error, the error is what counts
            for line in self.lines():
                print(line)
        self.cells.defined.clear()

    def lines(self):
        from ..state import state
        builds = {}
        for b in state.build_log[self._mark:]:
            if b.module in self.cells.own_modules:
                builds.setdefault(b.module, []).append(b)
        defined = {}
        for module, kernel in self.cells.defined:
            names = defined.setdefault(module, [])
            if kernel not in names:
                names.append(kernel)
        return [_line(name, defined.get(name), builds.get(name))
                for name in dict.fromkeys(list(defined) + list(builds))]


def _line(module, kernels, builds):
    names = ", ".join(kernels or (builds[-1].kernels if builds else []))
    if not builds:
        return f"wp.kernel {module}: {names} (builds at the first launch)"
    seconds = sum(b.seconds for b in builds)
    how = "compiled (cache miss)" if any(b.compiled for b in builds) else "cache hit"
    which = " with adjoints" if any(b.backward for b in builds) else ""
    return f"wp.kernel {module}: {names} | {seconds:.3f} s{which}, {how} | hash {builds[-1].hash[:8]}"
