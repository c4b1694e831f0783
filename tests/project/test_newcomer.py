"""What a newcomer meets in a fresh clone: the README's commands and references, the demo
script, and help texts that make sense outside this project's history."""

import os
import re
import stat
import subprocess
import sys

import pytest
from paths import REPO as REPO_PATH

ROOT = str(REPO_PATH)
DOCS = ["README.md"] + [os.path.join("docs", f) for f in sorted(os.listdir(os.path.join(ROOT, "docs")))
                        if f.endswith(".md")]


def _read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def test_readme_says_which_python_to_use_after_the_two_commands():
    text = _read("README.md")
    after = text[text.index("## The two commands"):]
    assert ".venv/bin/python" in after.split("## How it works")[0]
    # every command run with a python names the environment's, not the system's
    for line in re.findall(r"^\s*(python3? -m .*|python3? \S+\.py.*)$", text, re.M):
        pytest.fail(f"README runs a bare python: {line.strip()}")


def test_readme_documents_the_repl_limitation():
    text = _read("README.md")
    assert "cannot read the source of" in text and "a file" in text


@pytest.mark.parametrize("doc", DOCS)
def test_docs_reference_nothing_outside_the_repository(doc):
    """Relative links and paths (``../shared/...``) must exist inside the repository."""
    text = _read(doc)
    assert "../shared" not in text and "/work/" not in text
    base = os.path.dirname(os.path.join(ROOT, doc))
    for target in re.findall(r"\]\(([^)#\s]+)", text):
        if re.match(r"[a-z]+:", target):
            continue     # a URL
        path = os.path.normpath(os.path.join(base, target))
        assert path.startswith(ROOT + os.sep) and os.path.exists(path), f"{doc}: broken link {target}"


def test_benchmark_help_speaks_for_itself():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "run.py"), "--help"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    assert "warp_interactive side by side" in out
    assert not re.search(r"\bissue\b", out, re.I)


def test_demo_saves_its_picture_outside_the_repository(tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path), MPLBACKEND="Agg")
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "demo.py"), "--size", "48"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=True).stdout
    saved = re.search(r"saved (.+)$", out, re.M).group(1)
    assert os.path.dirname(saved) == str(tmp_path) and os.path.getsize(saved) > 0
    assert not os.path.exists(os.path.join(ROOT, "demo.png"))


def _fake_venv(tmp_path):
    """A venv whose python logs each call and succeeds (pip does nothing, the demo prints)."""
    log = tmp_path / "calls.log"
    py = tmp_path / "venv" / "bin" / "python"
    py.parent.mkdir(parents=True)
    py.write_text(f"#!/bin/sh\necho \"$*\" >> {log}\n"
                  "case \"$*\" in *sys.version*) echo 3.11-test;; esac\nexit 0\n")
    py.chmod(py.stat().st_mode | stat.S_IEXEC)
    return tmp_path / "venv", log


def test_demo_script_installs_once(tmp_path):
    venv, log = _fake_venv(tmp_path)
    env = dict(os.environ, WARP_INTERACTIVE_VENV=str(venv))
    demo = os.path.join(ROOT, "scripts", "demo.sh")
    runs = []
    for _ in range(2):
        if log.exists():
            log.unlink()
        subprocess.run(["bash", demo], env=env, check=True, timeout=60, capture_output=True)
        runs.append(log.read_text().splitlines())
    installs = [[c for c in calls if "pip install" in c] for calls in runs]
    assert any("-e .[notebook]" in c for c in installs[0])
    assert installs[1] == [], "the second run reinstalled the package"
    assert any("examples/demo.py" in c for c in runs[1])
