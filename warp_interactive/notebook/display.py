"""IPython display formatters for objects whose classes the notebook layer does not own
(the tape): registered on the shell, so the core never imports IPython."""


def _user_names():
    from .session import current_shell
    from .widgets.tape_view import names_from_namespace
    shell = current_shell()
    return names_from_namespace(shell.user_ns if shell is not None else {})


def tape_html(tape):
    from .widgets.tape_view import tape_html as html
    return html(tape, _user_names())


def dot_text_html(dot):
    """``tape.visualize()`` displayed: the tape's picture (its arrays named after the
    notebook's variables, or the ``array_labels`` it was given), not the escaped DOT text."""
    from ..runtime.tape_graph import label_lookup
    from .widgets.tape_view import tape_html as html
    names = _user_names()
    names.update(label_lookup(dot.array_labels))
    return html(dot.tape, names)


def tape_text(tape, printer=None, cycle=False):
    """IPython's text/plain for a tape: its data flow, one line per launch."""
    from .widgets.tape_view import tape_text as text
    out = text(tape, _user_names())
    if printer is None:
        return out
    printer.text(out)


def register_formatters(shell):
    from ..runtime.tape import Tape
    shell.display_formatter.formatters["text/html"].for_type(Tape, tape_html)
    shell.display_formatter.formatters["text/plain"].for_type(Tape, tape_text)


def unregister_formatters(shell):
    from ..runtime.tape import Tape
    for kind in ("text/html", "text/plain"):
        try:
            shell.display_formatter.formatters[kind].pop(Tape)
        except KeyError:
            pass
