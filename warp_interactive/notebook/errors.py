"""Kernel errors in a cell as one short message: the cell, the line in it, the line's text and
a caret. The generated C++ and the compiler log only when asked for."""

from ..errors import CodegenError, CompileError

RED, RESET = "\x1b[31m", "\x1b[0m"


class CellError(Exception):
    """A ``%%wp.kernel`` cell did not build. IPython shows ``_render_traceback_``'s lines
    instead of a Python traceback (the user's code is the cell, not our call stack)."""

    def __init__(self, text, detail=None):
        super().__init__(text)
        self.text, self.detail = text, detail

    def _render_traceback_(self):
        lines = self.text.splitlines()
        return [RED + lines[0] + RESET] + lines[1:]


def format_error(err, shell=None, full=False):
    """The message for a CodegenError, CompileError or SyntaxError raised by a cell's code."""
    if isinstance(err, CodegenError):
        return _codegen(err, shell)
    if isinstance(err, SyntaxError):
        return _located("syntax error: " + (err.msg or ""), err.filename, err.lineno,
                        (err.offset or 1) - 1, err.text, None, shell)
    if isinstance(err, CompileError):
        text = str(err)
        if full:
            return "wp.kernel: C++ build failed\n" + text
        first = text.splitlines()[0] if text else "C++ build failed"
        errs = [ln.strip() for ln in text.splitlines() if "error:" in ln][:3]
        return "\n".join(["wp.kernel: " + first, *errs,
                          "(the full compiler output: wp.notebook.last_error(), or run the cell "
                          "with --full-errors)"])
    return f"{type(err).__name__}: {err}"


def _codegen(err, shell):
    if err.filename is None:
        return f"kernel error: {err.msg}"
    return _located(err.msg, err.filename, err.lineno, err.col, err.source_line, err.func_name,
                    shell)


def _located(msg, filename, lineno, col, source_line, func_name, shell):
    from .cells import label_of
    where = f"{label_of(filename, shell)}, line {lineno}"
    if func_name:
        where += f", in {func_name}"
    out = [f"kernel error in {where}: {msg}"]
    if source_line:
        line = source_line.rstrip("\n")
        stripped = line.lstrip()
        out.append("    " + stripped)
        if col is not None:
            out.append("    " + " " * max(0, col - (len(line) - len(stripped))) + "^")
    return "\n".join(out)
