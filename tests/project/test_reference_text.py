"""The docs and the code's comments are reference text (what is, and why), not a work log, and
the Python floor that pyproject.toml states is the one the code and the README keep."""

import ast
import os
import re
import warnings

import pytest
from paths import REPO

ROOT = str(REPO)

# A project's history in prose: numbered work sessions and tracker issues; in the docs also the
# work session a passage was written in (in code, "this session" may be a notebook's). Spelled in
# pieces so this file does not match itself.
NUMBERED = r"\b(?:sess" r"ion|iss" r"ue) #?\d+\b"
WORK_LOG = re.compile(NUMBERED + r"|\b(?:this|last|previous) sess" r"ion\b", re.IGNORECASE)
CODE_LOG = re.compile(NUMBERED, re.IGNORECASE)


def _files(folder, suffixes):
    for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, folder)):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
        for name in sorted(filenames):
            if name.endswith(suffixes):
                yield os.path.join(dirpath, name)


def _rel(path):
    return os.path.relpath(path, ROOT)


DOCS = ["README.md", "tests/README.md"] + [_rel(p) for p in _files("docs", (".md",))]
SOURCES = [_rel(p) for folder in ("warp_interactive", "scripts", "benchmarks", "tests", "examples")
           for p in _files(folder, (".py", ".sh", ".h", ".cpp"))]
SOURCES += [_rel(p) for p in _files("native", (".h", ".cpp", ".cu"))] + ["setup.py"]


def _work_log_lines(rel, pattern=WORK_LOG):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return [f"{rel}:{n}: {line.strip()}" for n, line in enumerate(f, 1) if pattern.search(line)]


@pytest.mark.parametrize("rel", DOCS)
def test_docs_are_not_a_work_log(rel):
    assert _work_log_lines(rel) == []


def test_sources_carry_no_project_history():
    found = [hit for rel in SOURCES for hit in _work_log_lines(rel, CODE_LOG)]
    assert found == []


@pytest.mark.parametrize("text, hit", [
    ("measured in sess" "ion 8 on the branch", True),
    ("(Iss" "ue 15's count)", True),
    ("added this sess" "ion", True),
    ("a notebook session keeps its kernels", False),
    ("see the issue tracker", False),
])
def test_the_work_log_pattern(text, hit):
    assert bool(WORK_LOG.search(text)) is hit


def test_code_may_speak_of_a_notebook_session():
    assert not CODE_LOG.search("the kernels of this sess" "ion") and CODE_LOG.search("sess" "ion 9")


def _pyproject():
    # read as text: tomllib is 3.11+, above the floor this file checks
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        return f.read()


def _floor():
    m = re.search(r'^requires-python = ">=3\.(\d+)"', _pyproject(), re.M)
    assert m, "requires-python is not a plain floor '>=3.N'"
    return 3, int(m.group(1))


def test_readme_and_classifiers_state_the_floor():
    major, minor = _floor()
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        assert f"Python {major}.{minor} or newer" in f.read()
    versions = sorted(int(v) for v in re.findall(r'"Programming Language :: Python :: 3\.(\d+)"', _pyproject()))
    assert versions and versions[0] == minor


def test_the_package_parses_at_the_floor():
    """Syntax newer than the floor (``except*``, ``type X = ...``, ``def f[T]``) fails here."""
    floor = _floor()
    bad = []
    for rel in [r for r in SOURCES if r.endswith(".py") and not r.startswith("tests/")]:
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            text = f.read()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            try:
                ast.parse(text, filename=rel, feature_version=floor)
            except SyntaxError as e:
                bad.append(f"{rel}:{e.lineno}: {e.msg}")
    assert bad == []


@pytest.mark.parametrize("source, ok_at_3_10", [
    ("try:\n    pass\nexcept* ValueError:\n    pass\n", False),
    ("match x:\n    case 1:\n        pass\n", True),
])
def test_the_floor_check_sees_newer_syntax(source, ok_at_3_10):
    try:
        ast.parse(source, feature_version=(3, 10))
        parsed = True
    except SyntaxError:
        parsed = False
    assert parsed is ok_at_3_10
