"""What notebook users call: ``wp.notebook.show_array(a)``, ``show_tape(tape)``,
``show_timings()``... Each returns an object that displays itself (HTML/SVG), or a widget."""

from .display_value import Display
from .magic import last_error  # noqa: F401


def show_array(a, page=0, rows=20):
    """A page of ``a`` with its statistics and (2-d scalar arrays) a heat-map, as HTML."""
    from .widgets.array_view import array_html, array_text
    return Display(array_html(a, page, rows), array_text(a, page, rows))


def array_widget(a, rows=20):
    """Interactive: the same with previous/next page buttons (needs ipywidgets)."""
    from .widgets.array_view import array_widget as make
    return make(a, rows)


def _names(array_labels):
    """id(array) -> label: the notebook's variable names, then ``array_labels`` ({array: label}
    or {id(array): label}) over them."""
    from ..runtime.tape_graph import label_lookup
    from .display import _user_names
    names = _user_names()
    names.update(label_lookup(array_labels))
    return names


def tape_svg(tape, array_labels=None, engine="auto"):
    """The tape's graph as SVG text (GraphViz if installed, else a pure-Python layout); arrays
    are named by ``array_labels`` or the notebook's variables that hold them."""
    from .widgets.tape_view import tape_svg as make
    return make(tape, _names(array_labels), engine)


def show_tape(tape, array_labels=None, engine="auto"):
    """Display the tape's data-flow graph (and gradient norms after backward)."""
    from .widgets.tape_view import tape_html, tape_text
    names = _names(array_labels)
    return Display(tape_html(tape, names, engine), tape_text(tape, names))


def gradient_norms(tape, array_labels=None):
    """[(array name, shape, |grad|)] after ``tape.backward``."""
    from .widgets.tape_view import gradient_norms as norms
    return norms(tape, _names(array_labels))


def _timing_sources(results, timers, builds):
    """No arguments: what the last recording saw (``wp.timing_begin()`` .. ``wp.timing_end()``,
    or a ``wp.timing.record()`` block): its launches, the builds among them and the
    ScopedTimers that ended meanwhile; nothing from before it."""
    if results is None and timers is None and builds is None:
        from ..runtime.timing import last_recorder
        rec = last_recorder()
        return (rec.results, rec.timers, None) if rec is not None else (None, None, None)
    return results, timers, builds


def show_timings(results=None, timers=None, builds=None):
    """Tables and bar charts of launch timings (``wp.timing_end()``'s results, with the module
    builds among them), ``timers`` ((name, ms) pairs, e.g. ``wp.ScopedTimer.history``) and
    ``builds`` (``state.build_log`` entries). No arguments: the last recording."""
    from .widgets.timing_view import timing_html, timing_text
    sources = _timing_sources(results, timers, builds)
    return Display(timing_html(*sources), timing_text(*sources))


def timing_widget(results=None, timers=None, builds=None):
    from .widgets.timing_view import timing_widget as make
    return make(*_timing_sources(results, timers, builds))
