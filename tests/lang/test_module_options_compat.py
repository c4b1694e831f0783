"""warp-lang's checks of ``@wp.kernel(module_options=...)`` (a typo is an error, not an option
silently ignored) and ``Module.mark_modified()`` (the next launch translates again and sees the
current value of a name the kernel reads)."""

import numpy as np
import pytest

import warp_interactive as wp


def _body(a: wp.array(dtype=float)):
    a[0] = 1.0


@pytest.mark.parametrize("options, error, words", [
    ({"fast_mth": True}, ValueError, ["'fast_mth'", "Valid options", "fast_math"]),
    ("fast_math", TypeError, ["must be a dict", "str"]),
    ({"deterministic_max_records": True}, TypeError, ["non-negative int", "bool"]),
    ({"deterministic_max_records": 1.5}, TypeError, ["non-negative int", "float"]),
    ({"deterministic_max_records": -1}, ValueError, ["non-negative", "-1"]),
])
def test_bad_module_options_are_refused(options, error, words):
    with pytest.raises(error) as info:
        wp.kernel(_body, module="unique", module_options=options)
    for w in words:
        assert w in str(info.value)


@pytest.mark.parametrize("options", [{"deterministic_max_records": 2}, {"block_dim": 128},
                                     {"optimization_level": 2, "fast_math": False}])
def test_warp_lang_option_names_are_accepted(options):
    k = wp.kernel(_body, module="unique", module_options=options)
    for name, value in options.items():
        assert k.module.options[name] == value
    a = wp.zeros(1, dtype=float, device="cpu")
    wp.launch(k, dim=1, inputs=[a], device="cpu")
    assert a.numpy()[0] == 1.0


def test_mark_modified_translates_again():
    def make():
        @wp.kernel(module="unique")
        def read(out: wp.array(dtype=int)):
            out[0] = C
        C = 17          # a cell empty at the declaration: read when the kernel translates

        def set_c(value):
            nonlocal C
            C = value
        return read, set_c

    k, set_c = make()
    out = wp.zeros(1, dtype=int, device="cpu")
    wp.launch(k, dim=1, inputs=[out], device="cpu")
    assert out.numpy()[0] == 17
    set_c(42)
    wp.launch(k, dim=1, inputs=[out], device="cpu")
    assert out.numpy()[0] == 17         # built once: the module does not watch the cell
    k.module.mark_modified()
    wp.launch(k, dim=1, inputs=[out], device="cpu")
    assert out.numpy()[0] == 42
