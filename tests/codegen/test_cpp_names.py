"""Python names that C++ reserves (keywords, C library macros) work as kernel parameters and
@wp.struct fields: codegen spells those members with a trailing underscore."""

import numpy as np

import warp_interactive as wp


@wp.struct
class Reserved:
    new: float
    this: wp.vec3
    errno: int


@wp.kernel
def uses_reserved(do: wp.array(dtype=float), new: float, switch: int, s: Reserved,
                  default: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    do[i] = new * float(switch) + s.new + float(s.errno)
    v = s.this
    v.y = s.new          # a SetField on a vector component next to struct members
    default[i] = v


def test_reserved_names_as_parameters_and_fields(device):
    out = wp.zeros(5, dtype=float, device=device)
    vecs = wp.zeros(5, dtype=wp.vec3, device=device)
    s = Reserved()
    s.new, s.this, s.errno = 0.5, wp.vec3(1.0, 2.0, 3.0), 7
    wp.launch(uses_reserved, dim=5, inputs=[out, 2.0, 3, s, vecs], device=device)
    np.testing.assert_array_equal(out.numpy(), np.full(5, 2.0 * 3 + 0.5 + 7, np.float32))
    np.testing.assert_array_equal(vecs.numpy(), np.tile([1.0, 0.5, 3.0], (5, 1)).astype(np.float32))
