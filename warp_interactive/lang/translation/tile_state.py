"""What the tile handlers (lang/tiles/) keep while one function translates: the translator owns
one ``TileState`` (``Translator.tile_state``) and the handlers, which receive the translator,
read and write its fields instead of setting attributes of their own on the translator. It lives
here, not in lang/tiles/, because translation names no module of the tile package (it reaches
the handlers through ``tile_ops``)."""

from dataclasses import dataclass, field


@dataclass(slots=True)
class TileState:
    # the storage= of the tile call being translated: the tile it makes remembers it (print())
    pending_storage: str | None = None
    # a @wp.func's tile parameters, passed by reference (lang/tiles/refs.py): name -> ir.Var
    refs: dict = field(default_factory=dict)
    # the parameters written in place; the ones a plain assignment rebound (no longer the
    # caller's tile); each return statement with the parameters' values at that point
    written: set = field(default_factory=set)
    dead: set = field(default_factory=set)
    returns: list = field(default_factory=list)
    # the wp.ref[T] parameters among refs: a plain assignment writes them (not a rebinding)
    values: set = field(default_factory=set)
