"""Random numbers, sampling and noise.

The generator is a PCG hash of a 32-bit state (uint32): ``rand_init(seed, offset)`` mixes a seed
and an offset (usually the thread index) into a state, and every draw advances the state it is
given in place (``randf(state)`` changes ``state``). Only integer hashing and float32 arithmetic:
the same seed and thread give the same numbers on every target.
"""

from ...types import composite as comp
from ...types import scalars as sc
from ...types.array import array
from .registry import add_builtin

G_RAND, G_NOISE = "Random", "Noise"
u32, i32, f32 = sc.uint32, sc.int32, sc.float32
vec2, vec3, vec4 = (comp.vector(n, f32) for n in (2, 3, 4))


def _rand(name, inputs, ret, doc, group=G_RAND, differentiable=False):
    add_builtin(name, inputs, value_type=ret, group=group, doc=doc, differentiable=differentiable,
                same_scalar=False)


_rand("rand_init", {"seed": i32}, u32, "A random state from `seed`.")
_rand("rand_init", {"seed": i32, "offset": i32}, u32,
      "A random state from `seed` and `offset` (usually the thread index): different offsets give "
      "independent streams.")
_rand("randi", {"state": u32}, i32, "A random int32 (all 32 bits random); advances `state`.")
_rand("randi", {"state": u32, "min": i32, "max": i32}, i32,
      "A random integer in [min, max); advances `state`.")
_rand("randu", {"state": u32}, u32, "A random uint32 in [0, 2^32); advances `state`.")
_rand("randu", {"state": u32, "low": u32, "high": u32}, u32,
      "A random uint32 in [low, high) (modulo reduction; `high <= low` gives `low`); advances `state`.")
_rand("randf", {"state": u32}, f32, "A random float in [0, 1); advances `state`.")
_rand("randf", {"state": u32, "min": f32, "max": f32}, f32,
      "A random float in [min, max); advances `state`.")
_rand("randn", {"state": u32}, f32, "A standard normal random float; advances `state`.")
_rand("sample_cdf", {"state": u32, "cdf": array(dtype=f32)}, i32,
      "A random index drawn from the (non-decreasing, ending at 1) cumulative distribution `cdf`.")
_rand("sample_triangle", {"state": u32}, vec2,
      "Uniform barycentric coordinates `(u, v)` of a point in a triangle (`w = 1 - u - v`).")
_rand("sample_unit_ring", {"state": u32}, vec2, "A uniform point on the unit circle.")
_rand("sample_unit_disk", {"state": u32}, vec2, "A uniform point in the unit disk.")
_rand("sample_unit_sphere_surface", {"state": u32}, vec3, "A uniform point on the unit sphere.")
_rand("sample_unit_sphere", {"state": u32}, vec3, "A uniform point in the unit ball.")
_rand("sample_unit_hemisphere_surface", {"state": u32}, vec3,
      "A uniform point on the unit hemisphere `z >= 0`.")
_rand("sample_unit_hemisphere", {"state": u32}, vec3, "A uniform point in the unit half ball `z >= 0`.")
_rand("sample_unit_square", {"state": u32}, vec2, "A uniform point in the square [-0.5, 0.5]^2.")
_rand("sample_unit_cube", {"state": u32}, vec3, "A uniform point in the cube [-0.5, 0.5]^3.")
_rand("poisson", {"state": u32, "lam": f32}, u32,
      "A Poisson-distributed count with mean `lam` (Knuth's method for small `lam`, Hörmann's "
      "transformed rejection for large).")

# --- noise -----------------------------------------------------------------------------------------
_POINTS = (("x", f32), ("xy", vec2), ("xyz", vec3), ("xyzt", vec4))
for _n, (_pname, _ptype) in enumerate(_POINTS, start=1):
    _rand("noise", {"state": u32, _pname: _ptype}, f32,
          f"Perlin (gradient) noise at a {_n}D point, seeded by `state` (not advanced); about "
          "[-1, 1], zero at integer points. Gives warp-lang's values for the same state.", group=G_NOISE, differentiable=True)
    periods = {f"p{c}": i32 for c in _pname}
    _rand("pnoise", {"state": u32, _pname: _ptype, **periods}, f32,
          f"Periodic Perlin noise at a {_n}D point, with integer periods per axis (cells wrap "
          "with C's remainder, as warp-lang: the field repeats along positive coordinates).",
          group=G_NOISE, differentiable=True)
for _pname, _ptype, _ret in (("xy", vec2, vec2), ("xyz", vec3, vec3), ("xyzt", vec4, vec3)):
    _args = {"state": u32, _pname: _ptype}
    for _extra in (("octaves", u32), ("lacunarity", f32), ("gain", f32), None):
        _rand("curlnoise", dict(_args), _ret,
              "A divergence-free field from Perlin noise potentials, summed over `octaves` "
              "(default 1), each `lacunarity` (2.0) times the frequency and `gain` (0.5) times the "
              "amplitude of the last (warp-lang's field: 2D `(-dpsi/dy, dpsi/dx)` of one potential, "
              "3D/4D the curl of three; each octave adds `amplitude * grad psi(frequency * p)`). "
              "Differentiable in the point, `lacunarity` and `gain`.", group=G_NOISE, differentiable=True)
        if _extra:
            _args[_extra[0]] = _extra[1]
