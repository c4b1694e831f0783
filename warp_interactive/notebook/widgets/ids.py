"""Ids that stay unique when many outputs share one page.

A notebook page holds every output of every open notebook in one document: an SVG that defines
``<marker id="arr">`` and refers to it with ``url(#arr)`` resolves the reference to the first
element of that id in the page, which may sit in another output (hidden in a background tab, its
arrowheads vanish from this one). Every id an output defines is therefore given a prefix of its
own, and the output's references to it are rewritten to match.
"""

import itertools
import os
import re

_ID = re.compile(r"""(\sid=)(["'])([^"']+)\2""")
_counter = itertools.count()
_session = os.urandom(4).hex()        # outputs of two kernels (two notebooks) differ too


def new_prefix(kind="wpi"):
    """A prefix no other output of any kernel uses (a per-process random part and a counter)."""
    return f"{kind}-{_session}-{next(_counter)}"


def scope_ids(markup, prefix=None):
    """``markup`` with each id ``X`` it defines renamed ``PREFIX-X``, and its references
    (``url(#X)``, ``href="#X"``, ``xlink:href="#X"``) renamed with it."""
    ids = {m.group(3) for m in _ID.finditer(markup)}
    if not ids:
        return markup
    prefix = prefix or new_prefix()

    def rename(name):
        return f"{prefix}-{name}" if name in ids else name

    markup = _ID.sub(lambda m: f"{m.group(1)}{m.group(2)}{rename(m.group(3))}{m.group(2)}", markup)
    markup = re.sub(r"url\(#([^)\s]+)\)", lambda m: f"url(#{rename(m.group(1))})", markup)
    return re.sub(r"""((?:xlink:)?href=)(["'])#([^"']+)\2""",
                  lambda m: f"{m.group(1)}{m.group(2)}#{rename(m.group(3))}{m.group(2)}", markup)
