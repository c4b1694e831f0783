"""docs/functions.md is generated from the builtin registry and must match it; the registry holds a
record of every builtin kernels can call, the ones the translator handles itself (constructors,
tiles) included."""

import os
import re

import pytest

import warp_interactive as wp
from warp_interactive.lang.builtins import docgen
from warp_interactive.lang.builtins.function import INTRINSICS, TILE_NAMES, BuiltinFunction
from warp_interactive.lang.builtins.registry import intrinsics, registry
from warp_interactive.lang.translation import translator  # noqa: F401  (fills INTRINSICS)
from paths import REPO as REPO_PATH

DOC = os.path.join(str(REPO_PATH), "docs", "functions.md")


def test_function_reference_is_current():
    with open(DOC, encoding="utf-8") as f:
        current = f.read()
    assert current == docgen.render(), (
        "docs/functions.md is stale: run `python -m warp_interactive.lang.builtins.docgen > docs/functions.md`")


def test_function_reference_lists_every_exported_builtin():
    text = docgen.render()
    for name, b in registry.items():
        if any(ov.export and not ov.hidden for ov in b.overloads):
            assert f"`{name}(" in text, name


def _listed(text):
    return set(re.findall(r"^- `(\w+)\(", text, re.M))


CALLABLE = sorted(n for n in dir(wp) if isinstance(getattr(wp, n), BuiltinFunction))


def test_every_callable_builtin_is_listed():
    """Every ``wp.<name>`` a kernel can call (tiles, constructors, volumes...) has an entry."""
    assert len(CALLABLE) > 300
    missing = sorted(set(CALLABLE) - _listed(docgen.render()))
    assert not missing, f"wp.{missing} callable but not in docs/functions.md"


def test_the_listing_check_sees_a_missing_name():
    text = docgen.render()
    assert "tile_matmul" in _listed(text)
    assert "tile_matmul" not in _listed(text.replace("- `tile_matmul(", "- tile_matmul("))


def test_every_handler_has_a_record_and_every_record_a_handler():
    """The translator's table of handlers (filled by the translation and tile modules) and the
    registry's records name the same builtins."""
    unrecorded = sorted(n for n in INTRINSICS if n not in intrinsics and n not in registry)
    assert not unrecorded, f"handlers without a record: {unrecorded}"
    unhandled = sorted(n for n in intrinsics if n not in INTRINSICS)
    assert not unhandled, f"records without a handler: {unhandled}"


@pytest.mark.parametrize("name", ["tile_zeros", "tile_matmul", "untile", "vector", "volume_sample", "cast"])
def test_an_intrinsic_carries_its_record(name):
    rec = intrinsics[name]
    assert getattr(wp, name).__doc__ == rec.doc and rec.doc
    assert rec.signature.startswith(f"{name}(")
    assert f"- `{rec.signature}`" in docgen.render()


def test_tiles_are_listed_under_tiles():
    text = docgen.render()
    section = text[text.index("## Tiles"):]
    section = section[:section.index("\n## ", 1)] if "\n## " in section[1:] else section
    assert _listed(section) == set(TILE_NAMES)
    assert len(TILE_NAMES) == 69           # warp-lang 1.19's 64 tile builtins and 5 older spellings


def _coverage_script():
    import importlib.util
    path = os.path.join(os.path.dirname(DOC), "..", "scripts", "builtin_coverage.py")
    spec = importlib.util.spec_from_file_location("builtin_coverage", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_coverage_script_falls_back_to_the_saved_list(tmp_path, capsys):
    # a default peer that cannot import warp (a half-made venv) must not crash the script
    import sys
    cov = _coverage_script()
    broken = tmp_path / "python"
    broken.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'import no_such_module_here'\n")
    broken.chmod(0o755)
    assert cov.default_peer_names(str(broken)) is None
    assert "cannot list warp-lang's builtins" in capsys.readouterr().err
    saved = cov.saved_names()
    assert len(saved) > 200 and "mesh_query_aabb" in saved
