"""Where the package's messages go: ``wp.LOG_*`` levels, the ``wp.Logger`` protocol,
``wp.set_logger``/``wp.get_logger``, ``wp.ScopedLogger``/``wp.ScopedLogLevel`` and
``wp.config.log_level``, as in warp-lang 1.19.

A logger is any object with ``debug(message)``, ``info(message)``,
``warning(message, category=None, stacklevel=1)`` and ``error(message)``. The default one writes
debug/info to stdout, errors to stderr, and hands warnings to ``warnings.warn`` (so the user's
warning filters apply), formatted ``Warp <Category>: message``. Messages below
``wp.config.log_level`` are dropped (errors never are)."""

import linecache
import sys
import warnings
from typing import Protocol, runtime_checkable

from .config import config as _cfg

LOG_DEBUG = 10
LOG_INFO = 20
LOG_WARNING = 30
LOG_ERROR = 40


@runtime_checkable
class Logger(Protocol):
    """What ``wp.set_logger`` accepts: any object with these four methods."""

    def debug(self, message: str) -> None: ...

    def info(self, message: str) -> None: ...

    def warning(self, message: str, category=None, stacklevel: int = 1) -> None:
        """``stacklevel`` is ready for ``warnings.warn(message, category, stacklevel=stacklevel)``
        called directly in this method: it points at the user's line."""

    def error(self, message: str) -> None: ...


def _config():
    return _cfg


def validate_logger(logger):
    """A TypeError unless ``logger`` has the four methods, callable (a Protocol isinstance check
    only sees that the attributes exist)."""
    methods = ("debug", "info", "warning", "error")
    if not isinstance(logger, Logger) or not all(callable(getattr(logger, m, None)) for m in methods):
        raise TypeError("logger must implement the Logger protocol (debug(message), info(message), "
                        f"warning(message, category, stacklevel), error(message)), got {type(logger)!r}")


def format_warning(message, category, filename, lineno, line=None):
    """``Warp <Category>: message``, with the source location when ``wp.config.verbose_warnings``."""
    text = f"Warp {category.__name__}: {message}"
    if getattr(_config(), "verbose_warnings", False):
        text += f" ({filename}:{lineno})"
        line = line if line is not None else linecache.getline(filename, lineno)
        if line:
            text += f"\n  {line.strip()}"
    return text + "\n"


def _show_on_stderr(message, category, filename, lineno, file=None, line=None):
    sys.stderr.write(format_warning(message, category, filename, lineno, line))


class LoggerBasic:
    """The default logger: debug/info to stdout, errors to stderr, warnings through
    ``warnings.warn`` (the user's filters decide) shown on stderr in Warp's format."""

    def debug(self, message: str) -> None:
        sys.stdout.write(message + "\n")

    def info(self, message: str) -> None:
        sys.stdout.write(message + "\n")

    def warning(self, message: str, category=None, stacklevel: int = 1) -> None:
        with warnings.catch_warnings():
            warnings.showwarning = _show_on_stderr
            warnings.warn(message, category, stacklevel=stacklevel)

    def error(self, message: str) -> None:
        sys.stderr.write("Warp Error: " + message + "\n")


class _State:
    """The active logger and the (category, message) pairs already warned once."""

    def __init__(self):
        self.logger = LoggerBasic()
        self.seen = set()


_state = _State()
_warnings_seen = _state.seen     # warp-lang's spelling of the same set (its tests clear it)


def set_logger(logger) -> None:
    """Make ``logger`` the active logger; ``None`` restores the default one."""
    if logger is None:
        _state.logger = LoggerBasic()
        return
    validate_logger(logger)
    _state.logger = logger


def get_logger():
    """The active logger."""
    return _state.logger


def log_debug(message: str) -> None:
    if _config().log_level <= LOG_DEBUG:
        _state.logger.debug(message)


def log_info(message: str) -> None:
    if _config().log_level <= LOG_INFO:
        _state.logger.info(message)


def log_warning(message: str, category=None, stacklevel: int = 1, once: bool = False) -> None:
    """A warning, unless ``wp.config.log_level`` is above LOG_WARNING. DeprecationWarnings (and
    any warning with ``once=True``) are given once per (category, message)."""
    if _config().log_level > LOG_WARNING:
        return
    dedup = once or category is DeprecationWarning
    if dedup and (category, message) in _state.seen:
        return
    # +2: this function and the logger's own method, so the location is the caller's caller
    _state.logger.warning(message, category=category, stacklevel=stacklevel + 2)
    if dedup:
        _state.seen.add((category, message))


def log_error(message: str) -> None:
    """An error message: always given, whatever the level."""
    _state.logger.error(message)


class ScopedLogger:
    """``with wp.ScopedLogger(logger):`` makes ``logger`` (``None``: the default one) active inside
    the block and restores the previous one after it, also on an exception."""

    def __init__(self, logger):
        if logger is not None:
            validate_logger(logger)
        self.logger = logger
        self.saved = None

    def __enter__(self):
        self.saved = _state.logger
        _state.logger = self.logger if self.logger is not None else LoggerBasic()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        # restored without validation: a TypeError here would hide the exception in flight
        _state.logger = self.saved


class ScopedLogLevel:
    """``with wp.ScopedLogLevel(wp.LOG_ERROR):`` sets ``wp.config.log_level`` inside the block."""

    def __init__(self, log_level: int):
        self.log_level = log_level
        self.saved = None

    def __enter__(self):
        self.saved = _config().log_level
        _config().log_level = self.log_level
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _config().log_level = self.saved
