"""docs/functions.md is generated from the builtin registry and must match it."""

import os

from warp_interactive.lang.builtins import docgen
from warp_interactive.lang.builtins.registry import registry

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "functions.md")


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
