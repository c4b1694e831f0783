"""docs/functions.md is generated from the builtin registry and must match it."""

import os

from warp_interactive.lang import docgen
from warp_interactive.lang.registry import registry

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "functions.md")


def test_function_reference_is_current():
    with open(DOC, encoding="utf-8") as f:
        current = f.read()
    assert current == docgen.render(), (
        "docs/functions.md is stale: run `python -m warp_interactive.lang.docgen > docs/functions.md`")


def test_function_reference_lists_every_exported_builtin():
    text = docgen.render()
    for name, b in registry.items():
        if any(ov.export and not ov.hidden for ov in b.overloads):
            assert f"`{name}(" in text, name
