"""wp.Texture1D/2D/3D sampled in kernels (wp.texture_sample), against a NumPy reference of the
documented rules (tests/support/texture_ref.py): every dtype, 1/2/4 channels, both filters, the four
address modes, normalized and texel coordinates, mip chains and levels of detail; the adjoint
against central finite differences; the construction and copy errors with their messages."""

import numpy as np
import pytest

import warp_interactive as wp
from texture_ref import decode, mip_chain, sample

TEXTURES = {1: wp.Texture1D, 2: wp.Texture2D, 3: wp.Texture3D}
NP_DTYPES = [np.uint8, np.uint16, np.uint32, np.int8, np.int16, np.int32, np.float16, np.float32]
WP_DTYPES = [wp.uint8, wp.uint16, wp.uint32, wp.int8, wp.int16, wp.int32, wp.float16, wp.float32]


@wp.kernel
def sample1(t: wp.Texture1D, c: wp.array(dtype=wp.vec3), lod: float, out: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    out[i] = wp.texture_sample(t, c[i][0], dtype=wp.vec4f, lod=lod)


@wp.kernel
def sample2(t: wp.Texture2D, c: wp.array(dtype=wp.vec3), lod: float, out: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    out[i] = wp.texture_sample(t, wp.vec2(c[i][0], c[i][1]), dtype=wp.vec4f, lod=lod)


@wp.kernel
def sample3(t: wp.Texture3D, c: wp.array(dtype=wp.vec3), lod: float, out: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    out[i] = wp.texture_sample(t, c[i][0], c[i][1], c[i][2], dtype=wp.vec4f, lod=lod)


@wp.kernel
def sample2_narrow(t: wp.Texture2D, c: wp.array(dtype=wp.vec3), out1: wp.array(dtype=float),
                   out2: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    out1[i] = wp.texture_sample(t, c[i][0], c[i][1], dtype=float)
    out2[i] = wp.texture_sample(t, wp.vec2f(c[i][0], c[i][1]), dtype=wp.vec2f)


@wp.kernel
def loss2(t: wp.Texture2D, c: wp.array(dtype=wp.vec2), lod: wp.array(dtype=float),
          w: wp.vec4, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.dot(wp.texture_sample(t, c[i], dtype=wp.vec4f, lod=lod[i]), w)


KERNELS = {1: sample1, 2: sample2, 3: sample3}


def _data(rng, ndim, channels, np_dtype, size=5):
    shape = (size,) * ndim + ((channels,) if channels > 1 else ())
    if np.issubdtype(np_dtype, np.integer):
        info = np.iinfo(np_dtype)
        lo, hi = max(info.min, -1000), min(info.max, 1000)
        return rng.integers(lo, hi, size=shape, endpoint=True).astype(np_dtype)
    return rng.uniform(-2.0, 2.0, size=shape).astype(np_dtype)


def _coords(rng, n, normalized, size):
    span = (-0.6, 1.6) if normalized else (-0.6 * size, 1.6 * size)
    return rng.uniform(*span, size=(n, 3)).astype(np.float32)


def _with_channels(levels, ndim):
    return [l.reshape(l.shape[:ndim] + (-1,)) for l in (decode(x) for x in levels)]


def _run(tex, ndim, coords, lod=-1.0, device="cpu"):
    out = wp.zeros(len(coords), dtype=wp.vec4, device=device)
    wp.launch(KERNELS[ndim], dim=len(coords), inputs=[tex, wp.array(coords, dtype=wp.vec3, device=device),
                                                      lod, out], device=device)
    return out.numpy()


def _expected(levels, ndim, coords, modes, linear, normalized, lod=-1.0, mip_linear=True):
    rows = []
    for c in coords:
        v = sample(levels, [float(x) for x in c[:ndim]], modes, linear, normalized, lod, mip_linear)
        rows.append(np.pad(v, (0, 4 - len(v))))
    return np.array(rows)


@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("channels", [1, 2, 4])
def test_sampling_matches_reference_for_every_dtype(ndim, np_dtype, channels):
    rng = np.random.default_rng(ndim * 100 + channels)
    data = _data(rng, ndim, channels, np_dtype)
    int32ish = np_dtype in (np.int32, np.uint32)
    filt = wp.TextureFilterMode.CLOSEST if int32ish else wp.TextureFilterMode.LINEAR
    tex = TEXTURES[ndim](data, filter_mode=filt, address_mode=wp.TextureAddressMode.WRAP)
    assert (tex.width, tex.num_channels, tex.dtype) == (5, channels, WP_DTYPES[NP_DTYPES.index(np_dtype)])
    coords = _coords(rng, 40, True, 5)
    got = _run(tex, ndim, coords)
    want = _expected(_with_channels([data], ndim), ndim, coords, [0, 0, 0], not int32ish, True)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


MODES = list(wp.TextureAddressMode)


@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("filt", list(wp.TextureFilterMode), ids=lambda f: f.name)
@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_address_modes_and_filters_match_reference(ndim, filt, normalized, mode):
    rng = np.random.default_rng(7)
    data = _data(rng, ndim, 2, np.float32, size=4)
    modes = [mode, MODES[(MODES.index(mode) + 1) % 4], MODES[(MODES.index(mode) + 2) % 4]][:ndim]
    kw = {"address_mode_u": modes[0]}
    if ndim > 1:
        kw["address_mode_v"] = modes[1]
    if ndim > 2:
        kw["address_mode_w"] = modes[2]
    tex = TEXTURES[ndim](data, filter_mode=filt, normalized_coords=normalized, **kw)
    assert [tex.address_mode_u, tex.address_mode_v, tex.address_mode_w][:ndim] == modes
    coords = _coords(rng, 60, normalized, 4)
    want = _expected(_with_channels([data], ndim), ndim, coords, [int(m) for m in modes],
                     filt == wp.TextureFilterMode.LINEAR, normalized)
    np.testing.assert_allclose(_run(tex, ndim, coords), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("mip_filter", list(wp.TextureFilterMode), ids=lambda f: f.name)
@pytest.mark.parametrize("lod", [-1.0, 0.0, 0.4, 1.0, 1.75, 2.5, 9.0])
def test_mip_levels_match_reference(ndim, mip_filter, lod):
    rng = np.random.default_rng(3)
    data = _data(rng, ndim, 1, np.uint8, size=8)
    tex = TEXTURES[ndim](data, num_mip_levels=0, mip_filter_mode=mip_filter)
    assert tex.num_mip_levels == 4 and tex.is_mipmapped
    chain = mip_chain(data, ndim)
    for level, (ours, ref) in enumerate(zip(tex._generate_mipmap_chain(data), chain)):
        np.testing.assert_array_equal(ours, ref, err_msg=f"level {level}")
    coords = _coords(rng, 30, True, 8)
    want = _expected(_with_channels(chain, ndim), ndim, coords, [1, 1, 1], True, True, lod,
                     mip_filter == wp.TextureFilterMode.LINEAR)
    np.testing.assert_allclose(_run(tex, ndim, coords, lod), want, rtol=1e-5, atol=1e-5)


def test_result_types_and_coordinate_spellings_agree():
    rng = np.random.default_rng(5)
    data = _data(rng, 2, 2, np.float32)
    tex = wp.Texture2D(data)
    coords = _coords(rng, 16, True, 5)
    c = wp.array(coords, dtype=wp.vec3)
    out1, out2 = wp.zeros(16, dtype=float), wp.zeros(16, dtype=wp.vec2)
    wp.launch(sample2_narrow, dim=16, inputs=[tex, c, out1, out2])
    full = _run(tex, 2, coords)
    np.testing.assert_array_equal(out1.numpy(), full[:, 0])
    np.testing.assert_array_equal(out2.numpy(), full[:, :2])


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("mip", [False, True])
def test_adjoint_matches_finite_differences(mode, mip):
    rng = np.random.default_rng(11)
    data = rng.uniform(-1, 1, size=(8, 8, 4)).astype(np.float32)
    tex = wp.Texture2D(data, address_mode=mode, num_mip_levels=0 if mip else 1)
    # points away from texel centres (the sample is piecewise bilinear: kinks at centres)
    coords = ((np.array([[1.3, 2.2], [4.4, 6.3], [7.2, 0.4], [-0.7, 3.3], [8.6, 5.2]]) + 0.0) / 8.0)
    lods = np.array([0.3, 1.4, 2.2, 0.6, 1.7] if mip else [-1.0] * 5, dtype=np.float32)
    w = wp.vec4(0.5, -1.0, 2.0, 0.25)
    c = wp.array(coords.astype(np.float32), dtype=wp.vec2, requires_grad=True)
    lod = wp.array(lods, dtype=float, requires_grad=True)
    out = wp.zeros(len(coords), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(loss2, dim=len(coords), inputs=[tex, c, lod, w, out])
    tape.backward(grads={out: wp.ones(len(coords), dtype=float)})

    def f(cs, ls):
        o = wp.zeros(len(cs), dtype=float)
        wp.launch(loss2, dim=len(cs), inputs=[tex, wp.array(cs.astype(np.float32), dtype=wp.vec2),
                                              wp.array(ls.astype(np.float32), dtype=float), w, o])
        return o.numpy().astype(np.float64)

    h = 1e-3
    for a in range(2):
        dc = np.zeros_like(coords)
        dc[:, a] = h
        fd = (f(coords + dc, lods) - f(coords - dc, lods)) / (2 * h)
        np.testing.assert_allclose(c.grad.numpy()[:, a], fd, rtol=2e-2, atol=2e-2)
    fd_lod = (f(coords, lods + h) - f(coords, lods - h)) / (2 * h)
    np.testing.assert_allclose(lod.grad.numpy(), fd_lod if mip else 0.0, rtol=2e-2, atol=2e-2)


def test_copies_round_trip_and_refuse_mismatches():
    rng = np.random.default_rng(2)
    tex = wp.Texture2D(np.zeros((3, 4, 4), dtype=np.float32))
    data = rng.uniform(size=(3, 4, 4)).astype(np.float32)
    tex.copy_from(wp.array(data, dtype=wp.vec4))
    back = np.zeros_like(data)
    tex.copy_to(back)
    np.testing.assert_array_equal(back, data)
    other = wp.Texture2D(np.zeros((3, 4, 4), dtype=np.float32))
    other.copy_from(tex)
    dst = wp.zeros((3, 4), dtype=wp.vec4)
    other.copy_to(dst)
    np.testing.assert_array_equal(dst.numpy(), data)
    with pytest.raises(ValueError, match=r"texture shape=\(3, 4, 4\), source shape=\(3, 5, 4\)"):
        tex.copy_from(np.zeros((3, 5, 4), dtype=np.float32))
    with pytest.raises(ValueError, match="texture dtype=float32, destination dtype=int32"):
        tex.copy_to(np.zeros((3, 4, 4), dtype=np.int32))
    mipped = wp.Texture1D(np.arange(8, dtype=np.float32), num_mip_levels=2)
    with pytest.raises(RuntimeError, match="immutable"):
        mipped.copy_from(np.arange(8, dtype=np.float32))


@pytest.mark.parametrize("make, error, message", [
    (lambda: wp.Texture(2), TypeError, "base class"),
    (lambda: wp.Texture2D(np.zeros((2, 2), np.float64)), ValueError, "Unsupported texture dtype: float64"),
    (lambda: wp.Texture2D(np.zeros((2, 2, 3), np.float32)), ValueError, "num_channels must be 1, 2, or 4"),
    (lambda: wp.Texture2D(np.zeros(4, np.float32)), ValueError, "2D texture data must be 2D or 3D array"),
    (lambda: wp.Texture2D(width=4, num_channels=1), ValueError, "height must be a positive integer"),
    (lambda: wp.Texture1D(np.zeros(4, np.int32), filter_mode=wp.TextureFilterMode.LINEAR), ValueError,
     "require filter_mode=TextureFilterMode.CLOSEST"),
    (lambda: wp.Texture1D(np.zeros(4, np.float32), address_mode=7), ValueError, "Invalid texture address mode"),
    (lambda: wp.Texture1D(np.zeros(4, np.float32), filter_mode=2), ValueError, "Invalid texture filter mode"),
    (lambda: wp.Texture1D(np.zeros(4, np.float32), num_mip_levels=4), ValueError, "exceeds the maximum"),
    (lambda: wp.Texture1D(width=4, num_channels=1, num_mip_levels=2), ValueError, "require data"),
    (lambda: wp.Texture1D(np.zeros(4, np.float32), width=5), ValueError, "width does not match"),
])
def test_construction_errors(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_empty_texture_and_properties():
    tex = wp.Texture3D(width=3, height=2, depth=4, num_channels=2, dtype=wp.uint16,
                       filter_mode=wp.TextureFilterMode.CLOSEST, normalized_coords=0)
    assert (tex.width, tex.height, tex.depth, tex.num_channels) == (3, 2, 4, 2)
    assert tex.dtype is wp.uint16 and tex.normalized_coords is False and tex.id != 0
    assert isinstance(tex, wp.Texture) and not tex.is_mipmapped
    out = _run(tex, 3, np.array([[1.5, 0.5, 2.5]], dtype=np.float32))
    np.testing.assert_array_equal(out, [[0, 0, 0, 0]])
    with pytest.raises(RuntimeError, match="only supported for CUDA textures"):
        tex.cuda_array


@pytest.mark.parametrize("body, message", [
    ("wp.texture_sample(t, 0.5)", "needs dtype="),
    ("wp.texture_sample(t, 0.5, dtype=wp.vec3f)", "Supported types: float, vec2f, vec4f"),
    ("wp.texture_sample(t, wp.vec3(0.5), dtype=float)", "takes a vec2f or 2 floats"),
    ("wp.texture_sample(t, 0.5, 0.5, 0.5, dtype=float)", "takes 2 coordinate"),
    ("wp.texture_sample(1.0, 0.5, dtype=float)", "takes a texture"),
])
def test_sample_call_errors(body, message):
    import linecache
    src = f"def bad(t: wp.Texture2D):\n    x = {body}\n"
    name = f"<wpi-test-texture-{abs(hash(body))}>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    ns = {"wp": wp}
    exec(compile(src, name, "exec"), ns)
    kernel = wp.Kernel(ns["bad"], module="unique")
    tex = wp.Texture2D(np.zeros((2, 2), np.float32))
    with pytest.raises(wp.errors.CodegenError, match=message):
        wp.launch(kernel, dim=1, inputs=[tex])


@wp.struct
class Holder:
    tex: wp.Texture2D
    scale: float


@wp.kernel
def sample_from_struct(h: Holder, out: wp.array(dtype=float)):
    out[0] = h.scale * wp.texture_sample(h.tex, wp.vec2(0.5, 0.5), dtype=float)


def test_texture_as_struct_field():
    h = Holder()
    h.tex = wp.Texture2D(np.full((2, 2), 0.75, np.float32))
    h.scale = 2.0
    out = wp.zeros(1, dtype=float)
    wp.launch(sample_from_struct, dim=1, inputs=[h, out])
    assert out.numpy()[0] == pytest.approx(1.5)


@pytest.mark.skipif(not wp.is_cuda_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_cuda_gives_the_cpu_values(ndim):
    rng = np.random.default_rng(ndim)
    data = _data(rng, ndim, 4, np.float16, size=6)
    coords = _coords(rng, 50, True, 6)
    cpu = _run(wp.Texture1D(data) if ndim == 1 else TEXTURES[ndim](data, num_mip_levels=0), ndim, coords, 0.7)
    gpu_tex = TEXTURES[ndim](data, device="cuda:0", num_mip_levels=1 if ndim == 1 else 0)
    np.testing.assert_allclose(_run(gpu_tex, ndim, coords, 0.7, device="cuda:0"), cpu, rtol=1e-6, atol=1e-6)
