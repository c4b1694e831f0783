"""Annotations written as text: ``from __future__ import annotations`` (PEP 563) keeps every
annotation of a module as a string, which warp-lang evaluates where the code was defined."""

import builtins


def resolve_annotation(t, globalns, localns=None, where=""):
    """``t`` itself, or the value of the annotation text ``t`` in the namespace that defined it
    (a function's globals and closure, a struct's module and defining scope)."""
    if not isinstance(t, str):
        return t
    scope = dict(localns or {})
    try:
        return eval(t, {"__builtins__": builtins, **globalns}, scope)   # noqa: S307 (the user's own annotation)
    except Exception as e:
        raise TypeError(f"cannot evaluate the annotation {t!r}{where}: {type(e).__name__}: {e}") from None
