"""IPython display formatters for objects whose classes the notebook layer does not own
(the tape): registered on the shell, so the core never imports IPython."""


def _user_names():
    from .session import current_shell
    from .widgets.tape_view import names_from_namespace
    shell = current_shell()
    return names_from_namespace(shell.user_ns if shell is not None else {})


def tape_html(tape):
    from .widgets.tape_view import gradient_norms_html, tape_svg
    names = _user_names()
    out = tape_svg(tape, names)
    if any(getattr(a, "grad", None) is not None for a in tape.arrays()):
        out += gradient_norms_html(tape, names)
    return out


def register_formatters(shell):
    from ..runtime.tape import Tape
    shell.display_formatter.formatters["text/html"].for_type(Tape, tape_html)


def unregister_formatters(shell):
    from ..runtime.tape import Tape
    try:
        shell.display_formatter.formatters["text/html"].pop(Tape)
    except KeyError:
        pass
