"""Where things are, for tests that read files of the checkout (docs, sources, other tests)."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
REPO = TESTS.parent


def path_of_test(name):
    """The test file called ``name`` (``test_x.py``), in whichever folder of tests/ holds it."""
    found = sorted(TESTS.rglob(name))
    assert len(found) == 1, f"{name}: expected one file under {TESTS}, found {found}"
    return found[0]
