"""Calls resolved by their arguments' types when a kernel is translated.

Libraries written on the public API (warp.fem) need operators whose implementation depends on
what they are applied to: ``fem.grad(u, s)`` is one ``@wp.func`` for a test field of a
quadratic space on a grid and another for a discrete field on a triangle mesh. Such an
operator is an object with a ``_wp_resolve_call_(arg_types)`` method; the translator calls it
with the types of the call's arguments and emits what it answers:

- a ``@wp.func`` (``Function``): a call of it with the same arguments;
- a ``Call(func, sources)``: a call of ``func`` whose arguments are taken from the call's
  arguments and their struct fields (``sources``: one ``(index, field, field, ...)`` tuple per
  parameter), so one call site can spread a struct of values over a function's parameters;
- anything else: a compile-time value (a type, a number), as a Python object met in the code.

A value whose type has a ``_wp_call_`` resolver can itself be called (``u(s)``): the value is
then the first argument. Everything is translated by the ordinary machinery (overloads,
generic instantiation, the per-kernel cache): the resolver only chooses which function."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Call:
    """``func`` called with arguments picked from the call site's (see the module doc)."""

    func: object
    sources: tuple


def resolve(resolver, arg_types):
    """What ``resolver`` answers for ``arg_types`` (a TypeError becomes the caller's error)."""
    return resolver._wp_resolve_call_(list(arg_types))
