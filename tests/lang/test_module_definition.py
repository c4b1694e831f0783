"""lang/definitions/module.py: a module's options and its build record, apart from building."""

import pytest

import warp_interactive as wp
from warp_interactive.lang.definitions.module import Module


@pytest.mark.parametrize("assigned,name,expected", [
    ({"fast_math": True}, "fast_math", True),
    ({"fast_math": True}, "enable_backward", wp.config.enable_backward),
    ({}, "mode", wp.config.mode),
    ({"max_unroll": 3}, "max_unroll", 3),
])
def test_assigned_options_keep_the_fallbacks(assigned, name, expected):
    m = Module("test_module_definition.assigned")
    m.options = dict(assigned)
    assert m.options[name] == expected
    assert m.option(name) == expected
    assert dict(m.options) == assigned          # only the overrides are the module's own


def test_options_fall_back_to_the_parent_module():
    parent = wp.get_module("test_module_definition.parent")
    parent.options["mode"] = "debug"
    child = Module("test_module_definition.child")
    child.parent = parent.name
    assert child.options["mode"] == "debug" and child.checks_bounds()
    child.options = {"mode": "release"}
    assert child.options["mode"] == "release" and not child.checks_bounds()
    with pytest.raises(KeyError, match="not_an_option"):
        child.options["not_an_option"]


def test_build_record_is_separate_and_unload_drops_binaries():
    m = wp.get_module(__name__)
    assert m.build.module is m and m.loaded is m.build.loaded
    m.loaded[("cpu", False)] = object()
    m.unload()
    assert m.loaded == {}
