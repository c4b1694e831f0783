"""Calls upward have one mechanism: hooks.py. A lower layer (or a file that would otherwise close an
import cycle) calls ``hooks.<name>``; the layer that implements it assigns ``hooks.<name>`` when
it is imported. These tests keep it the only one: every assignment names a hook hooks.py
declares, no core module keeps a registration function or table of its own, and after
``import warp_interactive`` no declared hook is left at its raising default."""

import ast
import importlib.util
import pathlib
import re

import pytest

import warp_interactive as wp
from warp_interactive import hooks

PKG = pathlib.Path(wp.__file__).parent
# the libraries and the notebook extension are written like user code on the public API; the
# notebook's register(shell) is IPython's extension protocol, not a call upward
CORE = [p for p in PKG.rglob("*.py")
        if p.relative_to(PKG).parts[0] not in ("fem", "render", "sparse", "optim", "notebook", "examples")]


def _declared():
    tree = ast.parse((PKG / "hooks.py").read_text())
    names = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        names.update(t.id for t in targets if isinstance(t, ast.Name) and not t.id.startswith("_"))
    return names


def _hook_assignments(path):
    """(line, name) of every ``hooks.<name> = ...`` (and ``hooks.<name>.update/append(...)``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        targets = []
        if isinstance(node, ast.Assign):
            targets = [t for t in node.targets for t in (t.elts if isinstance(t, ast.Tuple) else [t])]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            targets = [node.func.value]
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "hooks":
                found.append((node.lineno, t.attr))
        # the top package's lazy hooks: _hook_on_first_call("matmul", module, name[, table])
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "_hook_on_first_call" \
                and len(node.args) == 3 and isinstance(node.args[0], ast.Constant):
            found.append((node.lineno, node.args[0].value))
    return found


def test_every_registration_names_a_declared_hook():
    declared = _declared()
    assignments = [(p, line, name) for p in PKG.rglob("*.py") for line, name in _hook_assignments(p)]
    assert len(assignments) > 20      # the walk sees them (a vacuous pass would hide a rename)
    undeclared = [f"{p.relative_to(PKG)}:{line}: hooks.{name}" for p, line, name in assignments
                  if name not in declared and name != "html_views"]
    assert not undeclared, f"assigned but not declared (with a raising default) in hooks.py: {undeclared}"


def test_no_core_module_keeps_a_registration_function_of_its_own():
    own = [f"{p.relative_to(PKG)}:{node.lineno}: def {node.name}"
           for p in CORE for node in ast.parse(p.read_text()).body
           if isinstance(node, ast.FunctionDef) and re.match(r"register_|set_\w+_call$", node.name)]
    assert not own, f"calls upward go through hooks.py, not a registration function: {own}"


def test_every_hook_is_registered_after_import():
    fresh = importlib.util.module_from_spec(importlib.util.spec_from_file_location("fresh_hooks", PKG / "hooks.py"))
    fresh.__spec__.loader.exec_module(fresh)
    defaults = {n for n in _declared() if callable(getattr(fresh, n))}
    assert {"get_device", "new_module", "python_call", "cuda_probe", "index_with_arrays"} <= defaults
    for name in sorted(defaults):
        with pytest.raises(RuntimeError, match="needs the runtime"):
            getattr(fresh, name)()
    left = [n for n in defaults if getattr(hooks, n).__qualname__ == getattr(fresh, n).__qualname__]
    assert not left, f"hooks still at their raising default after import warp_interactive: {left}"
    assert hooks.on_invalidate and set(hooks.cpu_kinds) == {"stream", "event", "elapsed_ms"}
