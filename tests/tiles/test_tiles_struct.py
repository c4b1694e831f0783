"""Tiles of ``@wp.struct``s (warp-lang 1.19): construction, load/store, field-wise sums, adds,
subtracts and atomic adds, maps over struct functions, sort payloads, and their gradients; in the
one-lane default and with cooperative CPU blocks. The reference is NumPy on the structured
arrays, with warp-lang's rule for fields that do not accumulate (bool, int8: they ride along with
the left/first operand, an atomic add leaves the destination's), and central finite differences."""

import linecache

import numpy as np
import pytest

import warp_interactive as wp

M = 8


@wp.struct
class Item:
    x: wp.float32
    y: wp.vec3
    n: wp.int32
    k: wp.int8
    flag: wp.bool


@wp.struct
class Nested:
    item: Item
    w: wp.float64


ACC = ("x", "y", "n")          # fields that accumulate
RIDE = ("k", "flag")           # fields that ride along


@pytest.fixture(params=[False, True], ids=["one_lane", "blocks"])
def cpu_blocks(request):
    old = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = request.param
    yield request.param
    wp.config.enable_cpu_blocks = old


def make_items(seed, count=M):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        s = Item()
        s.x = float(rng.integers(-20, 20)) / 4.0          # exact in float32: sums compare exactly
        s.y = wp.vec3(*(rng.integers(-20, 20, size=3) / 4.0))
        s.n = int(rng.integers(-100, 100))
        s.k = int(rng.integers(-100, 100))
        s.flag = bool(rng.integers(0, 2))
        out.append(s)
    return out


@wp.func
def scale_item(s: Item) -> Item:
    out = s
    out.x = s.x * 2.0
    out.y = s.y + wp.vec3(1.0, 2.0, 3.0)
    return out


@wp.kernel
def struct_ops(a: wp.array(dtype=Item), b: wp.array(dtype=Item), keys: wp.array(dtype=int),
               stored: wp.array(dtype=Item), zeros: wp.array(dtype=Item), full: wp.array(dtype=Item),
               total: wp.array(dtype=Item), added: wp.array(dtype=Item), subbed: wp.array(dtype=Item),
               negated: wp.array(dtype=Item), atomic: wp.array(dtype=Item), mapped: wp.array(dtype=Item),
               sorted_: wp.array(dtype=Item), picked: wp.array(dtype=Item), flipped: wp.array2d(dtype=Item)):
    ta = wp.tile_load(a, shape=M)
    tb = wp.tile_load(b, shape=M, storage="shared")
    wp.tile_store(stored, ta)
    wp.tile_store(zeros, wp.tile_zeros(M, dtype=Item))
    wp.tile_store(full, wp.tile_full(M, value=b[0], dtype=Item))
    wp.tile_store(total, wp.tile_sum(ta))
    wp.tile_store(added, ta + tb)
    acc = ta + tb
    acc -= tb
    wp.tile_store(subbed, acc - tb)
    wp.tile_store(negated, -ta)
    wp.tile_atomic_add(atomic, ta)
    wp.tile_store(mapped, wp.tile_map(scale_item, ta))
    k = wp.tile_load(keys, shape=M)
    vals = wp.tile_load(a, shape=M)
    wp.tile_sort(k, vals)
    wp.tile_store(sorted_, vals)
    picked[0] = wp.tile_extract(ta, 3)
    wp.tile_store(flipped, wp.tile_transpose(wp.tile_reshape(ta, shape=(2, 4))))


def field_op(a, b, op):
    """warp-lang's field-wise rule on structured records ``a`` and ``b``: ``op`` on the
    accumulating fields, ``a``'s value on the others."""
    out = a.copy()
    for f in ACC:
        out[f] = op(a[f], b[f])
    return out


def test_struct_tile_ops_match_numpy(cpu_blocks):
    a_items, b_items = make_items(1), make_items(2)
    a, b = wp.array(a_items, dtype=Item), wp.array(b_items, dtype=Item)
    keys_np = np.array([5, 3, 7, 1, 0, 6, 2, 4], dtype=np.int32)
    keys = wp.array(keys_np, dtype=int)
    start = make_items(3)
    def z(n=M):
        return wp.zeros(n, dtype=Item)
    stored, zeros, full, total, added, subbed, negated = z(), z(), z(), z(1), z(), z(), z()
    atomic, mapped, sorted_, picked = wp.array(start, dtype=Item), z(), z(), z(1)
    flipped = wp.zeros((4, 2), dtype=Item)
    wp.launch_tiled(struct_ops, dim=1, inputs=[a, b, keys, stored, zeros, full, total, added, subbed, negated,
                                              atomic, mapped, sorted_, picked, flipped], block_dim=8)
    an, bn, sn = a.numpy(), b.numpy(), wp.array(start, dtype=Item).numpy()
    np.testing.assert_array_equal(stored.numpy(), an)
    np.testing.assert_array_equal(zeros.numpy(), np.zeros_like(an))
    np.testing.assert_array_equal(full.numpy(), np.repeat(bn[:1], M))
    want_total = an[:1].copy()
    for f in ACC:
        want_total[f] = an[f].sum(axis=0)
    np.testing.assert_array_equal(total.numpy(), want_total)
    np.testing.assert_array_equal(added.numpy(), field_op(an, bn, np.add))
    np.testing.assert_array_equal(subbed.numpy(), field_op(an, bn, np.subtract))
    np.testing.assert_array_equal(negated.numpy(), field_op(an, an, lambda x, _: -x))
    np.testing.assert_array_equal(atomic.numpy(), field_op(sn, an, np.add))   # ride-alongs keep sn's
    want_map = an.copy()
    want_map["x"] = an["x"] * 2
    want_map["y"] = an["y"] + np.array([1, 2, 3], dtype=np.float32)
    np.testing.assert_array_equal(mapped.numpy(), want_map)
    np.testing.assert_array_equal(sorted_.numpy(), an[np.argsort(keys_np, kind="stable")])
    np.testing.assert_array_equal(picked.numpy()[0], an[3])
    np.testing.assert_array_equal(flipped.numpy(), an.reshape(2, 4).T)


@wp.kernel
def nested_sum(a: wp.array(dtype=Nested), total: wp.array(dtype=Nested), added: wp.array(dtype=Nested)):
    t = wp.tile_load(a, shape=M)
    wp.tile_store(total, wp.tile_sum(t))
    wp.tile_store(added, t + t)


def test_nested_struct_tiles_follow_the_inner_rule(cpu_blocks):
    items = make_items(4)
    nested = []
    for i, s in enumerate(items):
        n = Nested()
        n.item, n.w = s, 0.5 * i
        nested.append(n)
    a = wp.array(nested, dtype=Nested)
    total, added = wp.zeros(1, dtype=Nested), wp.zeros(M, dtype=Nested)
    wp.launch_tiled(nested_sum, dim=1, inputs=[a, total, added], block_dim=4)
    an = a.numpy()
    got = total.numpy()[0]
    assert got["w"] == an["w"].sum()
    for f in ACC:
        np.testing.assert_array_equal(got["item"][f], an["item"][f].sum(axis=0))
    for f in RIDE:
        assert got["item"][f] == an["item"][f][0]
    np.testing.assert_array_equal(added.numpy()["w"], 2 * an["w"])
    np.testing.assert_array_equal(added.numpy()["item"]["k"], an["item"]["k"])
    np.testing.assert_array_equal(added.numpy()["item"]["y"], 2 * an["item"]["y"])


@wp.func
def item_energy(s: Item) -> float:
    return s.x * s.x + s.y[0] * 3.0 + s.y[1] * s.y[2]


@wp.kernel
def struct_loss(a: wp.array(dtype=Item), b: wp.array(dtype=Item), loss: wp.array(dtype=float)):
    ta = wp.tile_load(a, shape=M)
    tb = wp.tile_load(b, shape=M)
    mixed = wp.tile_map(scale_item, ta) - tb + ta
    total = wp.tile_sum(mixed)
    e = wp.tile_map(item_energy, mixed)
    wp.tile_store(loss, wp.tile_sum(e) + wp.tile_map(item_energy, total))


def _loss(a_items, b_items):
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    a = wp.array(a_items, dtype=Item, requires_grad=True)
    b = wp.array(b_items, dtype=Item, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(struct_loss, dim=1, inputs=[a, b, loss], block_dim=8)
    return tape, loss, a, b


def test_struct_tile_gradients_match_finite_differences(cpu_blocks):
    a_items, b_items = make_items(5), make_items(6)
    tape, loss, a, b = _loss(a_items, b_items)
    tape.backward(loss)
    ga, gb = a.grad.numpy(), b.grad.numpy()
    h = 1e-2
    for which, items, grad in (("a", a_items, ga), ("b", b_items, gb)):
        for i in (0, 5):
            for field, comp in (("x", None), ("y", 0), ("y", 2)):
                def shifted(d):
                    s = items[i]
                    old = getattr(s, field)
                    if comp is None:
                        setattr(s, field, old + d)
                    else:
                        v = list(old)
                        v[comp] += d
                        setattr(s, field, wp.vec3(*v))
                    args = (items, b_items) if which == "a" else (a_items, items)
                    out = float(_loss(*args)[1].numpy()[0])
                    setattr(s, field, old)
                    return out
                fd = (shifted(h) - shifted(-h)) / (2 * h)
                g = grad[field][i] if comp is None else grad[field][i][comp]
                assert g == pytest.approx(fd, rel=2e-2, abs=2e-2), (which, i, field, comp)


@pytest.mark.parametrize("line, message", [
    ("t = wp.tile_ones(M, dtype=Item)", r"tile_ones.*Warp struct Item"),
    ("t = wp.tile_arange(M, dtype=Item)", r"tile_arange\(\) requires a numeric scalar dtype"),
    ("t = wp.tile_min(wp.tile_load(a, shape=M))", r"tile_min.*Item is a Warp struct"),
    ("t = wp.tile_argmax(wp.tile_load(a, shape=M))", r"tile_argmax.*Item is a Warp struct"),
    ("t = wp.tile_reduce(wp.min, wp.tile_load(a, shape=M))", r"tile_reduce.*overload.*Warp struct Item"),
    ("t = wp.tile_scan_inclusive(wp.tile_load(a, shape=M))", r"tile_scan_inclusive.*Item is a Warp struct"),
    ("t = wp.tile_load(a, shape=M) * 2.0", r"operator 'mul' is not defined for tiles of the Warp struct"),
    ("t = wp.tile_load(a, shape=M)\n    t &= t", r"bitwise inplace.*Warp struct Item"),
    ("t = wp.tile_zeros(M, dtype=Item)\n    t[0] |= a[0]", r"bitwise inplace.*tile elements of the Warp struct Item"),
    ("t = wp.tile_zeros(M, dtype=Item)\n    t[0] += 1.0", r"adds a Item, got float32"),
])
def test_struct_tile_errors_name_the_struct(line, message):
    src = (f"import warp_interactive as wp\nfrom tests.tiles.test_tiles_struct import Item, M\n"
           f"def k(a: wp.array(dtype=Item)):\n    {line}\n")
    filename = f"<wpi-test-struct-errors-{abs(hash(line))}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    scope = {}
    exec(compile(src, filename, "exec"), scope)
    kernel = wp.Kernel(scope["k"], module=f"struct_errors_{abs(hash(line))}")
    with pytest.raises((RuntimeError, TypeError), match=message):
        wp.launch_tiled(kernel, dim=1, inputs=[wp.zeros(M, dtype=Item)], block_dim=8)


@wp.kernel
def element_updates(a: wp.array(dtype=Item), plus: wp.array(dtype=Item), minus: wp.array(dtype=Item)):
    _block, lane = wp.tid()
    v = Item()
    if lane == 0:
        v = a[0]
    t = wp.tile_zeros(shape=2, dtype=Item, storage="shared")
    t[1] += v
    u = wp.tile_full(2, value=a[1], dtype=Item)
    u[0] -= v
    if lane == 0:
        wp.tile_store(plus, t)
        wp.tile_store(minus, u)


def test_struct_tile_elements_update_field_by_field(cpu_blocks):
    a = wp.array(make_items(7), dtype=Item)
    plus, minus = wp.zeros(2, dtype=Item), wp.zeros(2, dtype=Item)
    wp.launch_tiled(element_updates, dim=1, inputs=[a, plus, minus], block_dim=4)
    an = a.numpy()
    zero = np.zeros_like(an[:1])
    np.testing.assert_array_equal(plus.numpy(), np.concatenate([zero, field_op(zero, an[:1], np.add)]))
    np.testing.assert_array_equal(minus.numpy(), np.concatenate([field_op(an[1:2], an[:1], np.subtract),
                                                                 an[1:2]]))


@wp.kernel
def struct_lane_ops(a: wp.array(dtype=Item), idx: wp.array(dtype=int), from_thread: wp.array(dtype=Item),
                    scattered: wp.array(dtype=Item), popped: wp.array(dtype=Item), count: wp.array(dtype=int),
                    gathered: wp.array(dtype=Item), assigned: wp.array(dtype=Item)):
    _block, lane = wp.tid()
    mine = a[lane]
    wp.tile_store(from_thread, wp.tile_from_thread(shape=M, value=mine, thread_idx=0))
    s = wp.tile_zeros(shape=1, dtype=Item, storage="shared")
    wp.tile_scatter_add(s, 0, mine, True)
    wp.tile_store(scattered, s)
    stack = wp.tile_stack(capacity=4, dtype=Item)
    wp.tile_stack_push(stack, mine, lane == 0)
    count[0] = wp.tile_stack_count(stack)
    value, slot = wp.tile_stack_pop(stack)
    if slot != -1:
        popped[0] = value
    ix = wp.tile_load(idx, shape=M)
    wp.tile_store(gathered, wp.tile_load_indexed(a, indices=ix, shape=(M,), axis=0))
    dst = wp.tile_zeros(M, dtype=Item)
    wp.tile_assign(dst, wp.tile_load(a, shape=4), offset=(2,))
    wp.tile_store(assigned, dst)


def test_struct_tiles_through_lane_operations(cpu_blocks):
    """tile_from_thread, tile_scatter_add (every lane adds its value: field by field), stacks,
    indexed loads and tile_assign with struct elements."""
    width = 4
    items = make_items(8)
    a = wp.array(items, dtype=Item)
    perm = np.array([3, 0, 7, 1, 6, 2, 5, 4], dtype=np.int32)
    outs = [wp.zeros(M, dtype=Item), wp.zeros(1, dtype=Item), wp.zeros(1, dtype=Item), wp.zeros(1, dtype=int),
            wp.zeros(M, dtype=Item), wp.zeros(M, dtype=Item)]
    wp.launch_tiled(struct_lane_ops, dim=1, inputs=[a, wp.array(perm, dtype=int)] + outs, block_dim=width)
    from_thread, scattered, popped, count, gathered, assigned = (o.numpy() for o in outs)
    an = a.numpy()
    lanes = width if cpu_blocks else 1
    np.testing.assert_array_equal(from_thread, np.repeat(an[:1], M))
    want = np.zeros_like(an[:1])
    for lane in range(lanes):        # scatter_add adds every lane's value, field by field
        want = field_op(want, an[lane:lane + 1], np.add)
    np.testing.assert_array_equal(scattered, want)
    np.testing.assert_array_equal(popped, an[:1])
    assert count[0] == 1
    np.testing.assert_array_equal(gathered, an[perm])
    want_assign = np.zeros_like(an)
    want_assign[2:6] = an[:4]
    np.testing.assert_array_equal(assigned, want_assign)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "bool"])
@pytest.mark.parametrize("form", ["wp.tile_atomic_add(out, t)",
                                  "wp.tile_atomic_add_indexed(out, wp.tile_arange(4, dtype=int), t)"])
def test_tile_atomic_add_refuses_types_without_atomic_add(dtype, form):
    """The same rule as the struct fields': a tile of bool or 8/16-bit integers has no atomic add
    (warp-lang's RuntimeError; on CUDA the add would be lost)."""
    src = (f"import warp_interactive as wp\n"
           f"def k(a: wp.array(dtype=wp.{dtype}), out: wp.array(dtype=wp.{dtype})):\n"
           f"    t = wp.tile_load(a, shape=4)\n    {form}\n")
    filename = f"<wpi-test-atomic-dtype-{dtype}-{abs(hash(form))}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    scope = {}
    exec(compile(src, filename, "exec"), scope)
    kernel = wp.Kernel(scope["k"], module=f"atomic_dtype_{dtype}_{abs(hash(form))}")
    arrays = [wp.zeros(4, dtype=getattr(wp, dtype)) for _ in range(2)]
    with pytest.raises(RuntimeError, match=rf"tile_atomic_add.*only supports.*got {dtype}"):
        wp.launch_tiled(kernel, dim=1, inputs=arrays, block_dim=4)
