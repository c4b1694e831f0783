"""What notebook users call: ``wp.notebook.show_array(a)``, ``show_tape(tape)``,
``show_timings()``... Each returns an object that displays itself (HTML/SVG), or a widget."""

from .magic import last_error  # noqa: F401


class _Html:
    def __init__(self, html_text):
        self.html = html_text

    def _repr_html_(self):
        return self.html


class _Svg:
    def __init__(self, svg):
        self.svg = svg

    def _repr_svg_(self):
        return self.svg


def show_array(a, page=0, rows=20):
    """A page of ``a`` with its statistics and (2-d scalar arrays) a heat-map, as HTML."""
    from .widgets.array_view import array_html
    return _Html(array_html(a, page, rows))


def array_widget(a, rows=20):
    """Interactive: the same with previous/next page buttons (needs ipywidgets)."""
    from .widgets.array_view import array_widget as make
    return make(a, rows)


def _names(names):
    if names is not None:
        return names
    from .display import _user_names
    return _user_names()


def tape_svg(tape, names=None, engine="auto"):
    """The tape's graph as SVG text (GraphViz if installed, else a pure-Python layout)."""
    from .widgets.tape_view import tape_svg as make
    return make(tape, _names(names), engine)


def show_tape(tape, names=None, engine="auto"):
    """Display the tape's graph (and gradient norms after backward)."""
    from .widgets.tape_view import gradient_norms_html
    out = tape_svg(tape, names, engine)
    if any(getattr(a, "grad", None) is not None for a in tape.arrays()):
        out += gradient_norms_html(tape, _names(names))
    return _Html(out)


def gradient_norms(tape, names=None):
    """[(array name, shape, |grad|)] after ``tape.backward``."""
    from .widgets.tape_view import gradient_norms as norms
    return norms(tape, _names(names))


def _timing_sources(results, timers, builds):
    from ..runtime.utils import ScopedTimer
    from ..state import state
    return (results, ScopedTimer.history if timers is None else timers,
            state.build_log if builds is None else builds)


def show_timings(results=None, timers=None, builds=None):
    """Tables and bar charts of launch timings (``wp.timing_end()``'s results), ScopedTimer
    history and module build times (all builds of the session unless given)."""
    from .widgets.timing_view import timing_html
    return _Html(timing_html(*_timing_sources(results, timers, builds)))


def timing_widget(results=None, timers=None, builds=None):
    from .widgets.timing_view import timing_widget as make
    return make(*_timing_sources(results, timers, builds))
