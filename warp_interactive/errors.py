"""Every exception class of the package, in the bottom layer so that any layer can raise them
(the compiler and runtime raise them without importing ``lang``)."""


class CodegenError(RuntimeError):
    """A kernel could not be translated: names the file, line, source line and a caret, then
    the message (last, as Python's own tracebacks and the reference's errors end with it).
    A RuntimeError, as warp-lang's WarpCodegenError is (code catching that keeps working)."""

    def __init__(self, msg, filename=None, lineno=None, col=None, source_line=None, func_name=None):
        self.msg, self.filename, self.lineno, self.col = msg, filename, lineno, col
        self.source_line, self.func_name = source_line, func_name
        super().__init__(self._format())

    def _format(self):
        if self.filename is None:
            return self.msg
        where = f'File "{self.filename}", line {self.lineno}'
        if self.func_name:
            where += f", in {self.func_name}"
        out = [f"  {where}"]
        if self.source_line is not None:
            line = self.source_line.rstrip("\n")
            stripped = line.lstrip()
            out.append("    " + stripped)
            if self.col is not None:
                caret_at = max(0, self.col - (len(line) - len(stripped)))
                out.append("    " + " " * caret_at + "^")
        return "\n".join(out + [self.msg])


class UndefinedNameError(CodegenError, KeyError):
    """A kernel names something that is not defined: a CodegenError, and a KeyError as the
    reference raises for an undefined symbol."""

    __str__ = BaseException.__str__     # not KeyError's quoted repr


class CodegenTypeError(CodegenError, TypeError):
    """A build error where warp-lang raises TypeError (e.g. tile operands it cannot combine):
    still a CodegenError with the user's file and line."""


class CodegenValueError(CodegenError, ValueError):
    """A build error where warp-lang raises ValueError (e.g. a tile axis out of range)."""


class TypeMismatch(TypeError):
    """Raised by a builtin's type rule; the translator turns it into a CodegenError."""


class CompileError(RuntimeError):
    """The C++ compiler failed on generated code (a bug in codegen or a header)."""


class LaunchError(RuntimeError):
    """A kernel failed at run time (e.g. an out-of-bounds index in debug mode)."""


class ArgError(TypeError):
    """A launch argument does not match its kernel parameter's type."""


class CudaError(RuntimeError):
    """A CUDA driver call failed."""


class OperandTypeError(TypeError, RuntimeError):
    """A Python-scope operator on warp values of different scalar types (``mat22f * mat22d``):
    refused as in kernels. A TypeError, and a RuntimeError as warp-lang raises it."""


class WarpDeterminismError(NotImplementedError):
    """A launch asked for a determinism guarantee (``wp.config.deterministic`` or the module
    option) that its device cannot give: CUDA launches here (atomics there are not ordered).
    A RuntimeError, as warp-lang's."""
