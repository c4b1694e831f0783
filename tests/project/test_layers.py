"""The package's layers point one way (docs/internals.md, "Layers"), and no two files import
each other, directly or through others. import-linter's ``layers`` contract (pyproject.toml)
checks the first; grimp, which import-linter is built on, gives the file graph for the second.
Both see imports made inside functions too."""

import os
import shutil
import subprocess
import sys

import grimp
import pytest
from paths import REPO as REPO_PATH

ROOT = str(REPO_PATH)
LINT = os.path.join(os.path.dirname(sys.executable), "lint-imports")


def _lint(cwd):
    return subprocess.run([LINT, "--no-cache", "--config", os.path.join(cwd, "pyproject.toml")],
                          cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=cwd))


def _cycles(graph):
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.find_modules_directly_imported_by(w)))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_layers_contract_is_kept():
    out = _lint(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 kept, 0 broken" in out.stdout      # the package's layers, and lang's inside it


def test_no_import_cycle_between_files():
    graph = grimp.build_graph("warp_interactive", cache_dir=None)
    assert len(graph.modules) > 100          # every sub-package seen (none a namespace package)
    cycles = _cycles(graph)
    detail = []
    for comp in cycles:
        for m in comp:
            for w in sorted(graph.find_modules_directly_imported_by(m)):
                if w in comp:
                    lines = [d["line_number"] for d in graph.get_import_details(importer=m, imported=w)]
                    detail.append(f"{m} -> {w} (lines {lines})")
    assert not cycles, "import cycles between files:\n" + "\n".join(detail)


def test_cycle_finder_finds_a_cycle():
    g = grimp.ImportGraph()
    for a, b in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")]:
        g.add_import(importer=a, imported=b)
    assert _cycles(g) == [["p.a", "p.b", "p.c"]]


@pytest.mark.parametrize("importer, line, imported", [
    # inside a function, as the upward imports this contract replaced were
    ("types/array.py", "def _up():\n    from ..runtime import launch\n", "warp_interactive.runtime.launch"),
    ("lang/builtins/registry.py", "from ...notebook import magic\n", "warp_interactive.notebook.magic"),
    ("compiler/cache.py", "def _up():\n    from ..runtime.module import get_module\n",
     "warp_interactive.runtime.module"),
    # inside lang: the registry never reaches the translator, the IR analyses never the builtins
    ("lang/builtins/registry.py", "def _up():\n    from ..translation import translator\n",
     "warp_interactive.lang.translation.translator"),
    ("lang/analysis/effects.py", "from ..builtins import registry\n", "warp_interactive.lang.builtins.registry"),
])
def test_an_upward_import_breaks_the_contract(tmp_path, importer, line, imported):
    shutil.copytree(os.path.join(ROOT, "warp_interactive"), tmp_path / "warp_interactive",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.cpp"))
    shutil.copy(os.path.join(ROOT, "pyproject.toml"), tmp_path)
    with open(tmp_path / "warp_interactive" / importer, "a") as f:
        f.write("\n\n" + line)
    out = _lint(str(tmp_path))
    module = "warp_interactive." + importer[:-3].replace("/", ".")
    assert out.returncode != 0
    assert ", 0 broken" not in out.stdout      # (the lang contract too, when the chain runs through lang)
    assert f"{module} -> {imported}" in " ".join(out.stdout.split())   # the report wraps long lines


def _old_lang_names_imported(path, module):
    """(line, old name) of each import in a file that names a lang module by its former path."""
    import ast
    from warp_interactive.lang.moved import MOVED
    old = {"warp_interactive.lang." + k for k in MOVED}
    pkg = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(open(path).read())):
        if isinstance(node, ast.ImportFrom):
            base = ".".join(pkg.split(".")[:len(pkg.split(".")) - node.level + 1]) if node.level else ""
            target = ".".join(p for p in (base, node.module or "") if p)
            names = [target] + [f"{target}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found += [(node.lineno, n) for n in names if n in old]
    return found


def test_the_package_imports_lang_modules_by_their_current_names():
    """Former flat names (lang/moved.py) stay importable for code written against them, but the
    package itself names each module where it lives, so the lang contract sees every import."""
    bad = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "warp_interactive")):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                module = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".").removesuffix(".__init__")
                bad += [f"{path}:{line}: {name}" for line, name in _old_lang_names_imported(path, module)]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("old, new", [("registry", "builtins.registry"), ("builtins_tile", "tiles.core"),
                                      ("kernel", "definitions.kernel"), ("effects", "analysis.effects")])
def test_a_former_lang_name_is_the_moved_module_itself(old, new):
    import importlib
    assert importlib.import_module("warp_interactive.lang." + old) is \
        importlib.import_module("warp_interactive.lang." + new)


def test_the_old_name_check_sees_a_former_name(tmp_path):
    p = tmp_path / "x.py"
    p.write_text("from . import registry, ir\nfrom .builtins_tile import tile_type\n")
    assert _old_lang_names_imported(str(p), "warp_interactive.lang.x") == [
        (1, "warp_interactive.lang.registry"), (2, "warp_interactive.lang.builtins_tile")]


def test_the_former_names_cost_the_import_nothing():
    """The finder of former names is duck-typed: importlib.abc (which pulls in
    importlib.resources, a few ms) is not imported by ``import warp_interactive``."""
    code = ("import sys, warp_interactive, warp_interactive.lang.registry; "
            "print(sorted(m for m in ('importlib.abc', 'importlib.resources') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=ROOT))
    assert out.stdout.strip() == "[]"


def test_translation_reaches_tiles_only_through_the_table():
    """Translation imports the tile package (which fills the handler tables) and names none of
    its modules: tile operators, subscripts, writes and references go through ``tile_ops``."""
    graph = grimp.build_graph("warp_interactive", cache_dir=None)
    named = sorted(f"{m} -> {t}" for m in graph.modules if m.startswith("warp_interactive.lang.translation")
                   for t in graph.find_modules_directly_imported_by(m)
                   if t.startswith("warp_interactive.lang.tiles."))
    assert not named, named
    from warp_interactive.lang.builtins.function import TileOps, tile_ops
    from warp_interactive.lang.translation import translator  # noqa: F401
    assert all(callable(getattr(tile_ops, slot)) for slot in TileOps.SLOTS)
    with pytest.raises(KeyError, match="no slot 'nope'"):
        tile_ops.fill(nope=len)
