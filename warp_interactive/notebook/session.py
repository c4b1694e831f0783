"""The one IPython shell the extension is registered on, and its helpers (set by register())."""

_state = {}   # "shell", "cells", "capture": the one registered shell and its helpers


def current_shell():
    return _state.get("shell")
