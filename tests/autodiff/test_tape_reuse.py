"""A program that reuses a buffer on a tape (a scratch array written again after a recorded step
read it) gets the gradient of the same program with fresh buffers, bit for bit, and both match
central finite differences (wp.config.tape_copy_on_write, runtime/tape_keep.py). Each case is
run twice: ``fresh=True`` gives every write its own array; ``fresh=False`` reuses one."""

import numpy as np
import pytest

import warp_interactive as wp

F = wp.float64
N = 16
V3 = wp.vec3d


@wp.kernel
def k_f(x: wp.array(dtype=F), s: wp.array(dtype=F)):
    i = wp.tid()
    s[i] = wp.sin(x[i]) * x[i] + F(0.5)


@wp.kernel
def k_g(s: wp.array(dtype=F), u: wp.array(dtype=F)):
    i = wp.tid()
    u[i] = s[i] * s[(i + 1) % s.shape[0]] + F(1.0)


@wp.kernel
def k_square_in_place(s: wp.array(dtype=F)):
    i = wp.tid()
    s[i] = s[i] * s[i]


@wp.kernel
def k_accumulate(x: wp.array(dtype=F), s: wp.array(dtype=F)):
    i = wp.tid()
    wp.atomic_add(s, i, wp.cos(x[i]) * x[i])
    wp.atomic_add(s, (i + 3) % s.shape[0], x[i] * x[i])


@wp.kernel
def k_loss(s: wp.array(dtype=F), w: F, loss: wp.array(dtype=F)):
    i = wp.tid()
    wp.atomic_add(loss, 0, w * s[i] * s[i] * F(i + 1))


@wp.kernel
def k_tile_f(x: wp.array(dtype=F), s: wp.array(dtype=F)):
    i = wp.tid()
    t = wp.tile_load(x, shape=8, offset=i * 8)
    wp.tile_store(s, wp.tile_map(wp.sin, t) * t + t, offset=i * 8)


@wp.kernel
def k_tile_g(s: wp.array(dtype=F), u: wp.array(dtype=F)):
    i = wp.tid()
    t = wp.tile_load(s, shape=8, offset=i * 8)
    wp.tile_store(u, t * t, offset=i * 8)


@wp.struct
class Buffers:
    src: wp.array(dtype=F)
    dst: wp.array(dtype=F)


@wp.kernel
def k_struct_g(b: Buffers):
    i = wp.tid()
    b.dst[i] = b.src[i] * b.src[(i + 1) % b.src.shape[0]] + F(1.0)


@wp.kernel
def k_vec_f(x: wp.array(dtype=F), v: wp.array(dtype=V3)):
    i = wp.tid()
    v[i] = V3(x[i], wp.sin(x[i]), x[i] * x[i])


@wp.kernel
def k_vec_g(v: wp.array(dtype=V3), u: wp.array(dtype=F)):
    i = wp.tid()
    u[i] = wp.dot(v[i], v[(i + 1) % v.shape[0]]) * F(0.25)


def _scratch(fresh, pool, key):
    """A fresh array per use (``fresh``), or the one array ``key`` names."""
    if fresh or key not in pool:
        pool[key] = wp.zeros(N, dtype=F, requires_grad=True)
    return pool[key]


def plain(x, fresh, pool):
    s = _scratch(fresh, pool, "s")
    wp.launch(k_f, N, inputs=[x], outputs=[s])
    u = _scratch(True, pool, "u")
    wp.launch(k_g, N, inputs=[s], outputs=[u])
    s = _scratch(fresh, pool, "s")
    wp.launch(k_f, N, inputs=[u], outputs=[s])
    return s


def in_place(x, fresh, pool):
    s = _scratch(True, pool, "s")
    wp.launch(k_f, N, inputs=[x], outputs=[s])
    if fresh:
        t = _scratch(True, pool, "t")
        wp.copy(t, s)
        s = t
    wp.launch(k_square_in_place, N, inputs=[s])
    return s


def zero_then_accumulate(x, fresh, pool):
    s = _scratch(fresh, pool, "s")
    wp.launch(k_accumulate, N, inputs=[x], outputs=[s])
    u = _scratch(True, pool, "u")
    wp.launch(k_g, N, inputs=[s], outputs=[u])
    s = _scratch(fresh, pool, "s")
    s.zero_()
    wp.launch(k_accumulate, N, inputs=[u], outputs=[s])
    return s


def fill_then_accumulate(x, fresh, pool):
    s = _scratch(fresh, pool, "s")
    wp.launch(k_f, N, inputs=[x], outputs=[s])
    u = _scratch(True, pool, "u")
    wp.launch(k_g, N, inputs=[s], outputs=[u])
    s = _scratch(fresh, pool, "s")
    s.fill_(0.25)
    wp.launch(k_accumulate, N, inputs=[u], outputs=[s])
    return s


def copy_into_read(x, fresh, pool):
    s = _scratch(True, pool, "s")
    wp.launch(k_f, N, inputs=[x], outputs=[s])
    u = _scratch(True, pool, "u")
    wp.launch(k_g, N, inputs=[s], outputs=[u])
    s = _scratch(fresh, pool, "s")
    wp.copy(s, u)                       # s, read by k_g, now holds u
    v = _scratch(True, pool, "v")
    wp.launch(k_g, N, inputs=[s], outputs=[v])
    return v


def assign_into_read(x, fresh, pool):
    s = _scratch(True, pool, "s")
    wp.launch(k_f, N, inputs=[x], outputs=[s])
    u = _scratch(True, pool, "u")
    wp.launch(k_g, N, inputs=[s], outputs=[u])
    s = _scratch(fresh, pool, "s")
    s.assign(u)
    v = _scratch(True, pool, "v")
    wp.launch(k_g, N, inputs=[s], outputs=[v])
    w = _scratch(True, pool, "w")
    wp.launch(k_g, N, inputs=[v], outputs=[w])
    return w


def tiles(x, fresh, pool):
    s = _scratch(fresh, pool, "s")
    wp.launch_tiled(k_tile_f, dim=N // 8, inputs=[x, s], block_dim=8)
    u = _scratch(True, pool, "u")
    wp.launch_tiled(k_tile_g, dim=N // 8, inputs=[s, u], block_dim=8)
    s = _scratch(fresh, pool, "s")
    wp.launch_tiled(k_tile_f, dim=N // 8, inputs=[u, s], block_dim=8)
    return s


def struct_fields(x, fresh, pool):
    s = _scratch(fresh, pool, "s")
    wp.launch(k_f, N, inputs=[x], outputs=[s])
    b = Buffers()
    b.src, b.dst = s, _scratch(True, pool, "u")
    wp.launch(k_struct_g, N, inputs=[b])
    s = _scratch(fresh, pool, "s")
    wp.launch(k_f, N, inputs=[b.dst], outputs=[s])
    return s


def vectors(x, fresh, pool):
    if fresh or "v" not in pool:
        pool["v"] = wp.zeros(N, dtype=V3, requires_grad=True)
    v = pool["v"]
    wp.launch(k_vec_f, N, inputs=[x], outputs=[v])
    u = _scratch(True, pool, "u")
    wp.launch(k_vec_g, N, inputs=[v], outputs=[u])
    if fresh:
        pool["v"] = wp.zeros(N, dtype=V3, requires_grad=True)
    v = pool["v"]
    wp.launch(k_vec_f, N, inputs=[u], outputs=[v])
    out = _scratch(True, pool, "o")
    wp.launch(k_vec_g, N, inputs=[v], outputs=[out])
    return out


def write_through_a_view(x, fresh, pool):
    s = _scratch(True, pool, "s")
    wp.launch(k_f, N, inputs=[x], outputs=[s])
    u = _scratch(True, pool, "u")
    wp.launch(k_g, N, inputs=[s], outputs=[u])
    if fresh:
        t = _scratch(True, pool, "t")
        wp.copy(t, s)
        s = t
    wp.launch(k_f, N // 2, inputs=[u[: N // 2]], outputs=[s[N // 2:]])   # half of s, read above
    return s


CASES = [write_through_a_view, plain, in_place, zero_then_accumulate, fill_then_accumulate, copy_into_read,
         assign_into_read, tiles, struct_fields, vectors]
X0 = np.linspace(0.2, 1.7, N)


def _forward(program, x, fresh):
    pool = {}
    s = program(x, fresh, pool)
    loss = wp.zeros(1, dtype=F, requires_grad=True)
    wp.launch(k_loss, N, inputs=[s, F(0.5)], outputs=[loss])
    return loss


def gradient(program, fresh, x0=X0):
    x = wp.array(x0, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        loss = _forward(program, x, fresh)
    tape.backward(loss)
    return x.grad.numpy().copy(), tape


def central_differences(program, eps=1e-6):
    out = np.zeros(N)
    for i in range(N):
        vals = []
        for d in (eps, -eps):
            xp = X0.copy()
            xp[i] += d
            vals.append(_forward(program, wp.array(xp, dtype=F), True).numpy()[0])
        out[i] = (vals[0] - vals[1]) / (2 * eps)
    return out


@pytest.mark.parametrize("program", CASES, ids=lambda p: p.__name__)
def test_reused_buffers_give_the_fresh_buffer_gradient(program):
    fresh, _ = gradient(program, True)
    reused, tape = gradient(program, False)
    np.testing.assert_array_equal(reused, fresh)
    np.testing.assert_allclose(reused, central_differences(program), rtol=1e-6, atol=1e-7)
    assert tape.kept_bytes > 0 and "overwritten arrays kept" in repr(tape)


@pytest.mark.parametrize("program", [plain, tiles, zero_then_accumulate], ids=lambda p: p.__name__)
def test_turning_the_copies_off_gives_warp_langs_gradient(program):
    """Off, the adjoints read the buffer's last values, as in warp-lang: not the gradient."""
    saved = wp.config.tape_copy_on_write
    wp.config.tape_copy_on_write = False
    try:
        reused, tape = gradient(program, False)
    finally:
        wp.config.tape_copy_on_write = saved
    fresh, _ = gradient(program, True)
    assert tape.kept_bytes == 0 and "kept" not in repr(tape)
    assert np.abs(reused - fresh).max() > 1e-3


def test_the_memory_kept_is_one_copy_per_overwritten_array():
    _, tape = gradient(plain, False)
    # k_f overwrote s after k_g read it: one copy of s (N float64)
    assert tape.kept_bytes == N * 8
    (orig, kept), = tape.kept_arrays
    assert orig.shape == kept.shape == (N,) and kept.grad is orig.grad
    tape.reset()
    assert tape.kept_bytes == 0


def test_repeated_backward_gives_the_same_gradient():
    x = wp.array(X0, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        loss = _forward(plain, x, False)
    tape.backward(loss)
    first = x.grad.numpy().copy()
    tape.zero()
    tape.backward(loss)
    np.testing.assert_array_equal(x.grad.numpy(), first)


def test_reuse_inside_a_captured_graph():
    x = wp.array(X0, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with wp.ScopedCapture(device="cpu") as capture:
        with tape:
            loss = _forward(plain, x, False)
        tape.backward(loss)
    x.assign(X0 * 1.1)                 # the replay reads the new values
    x.grad.zero_()
    wp.capture_launch(capture.graph)
    expect, _ = gradient(plain, True, X0 * 1.1)
    np.testing.assert_array_equal(x.grad.numpy(), expect)
    x.grad.zero_()
    wp.capture_launch(capture.graph)     # a second replay refreshes the copy
    np.testing.assert_array_equal(x.grad.numpy(), expect)


def _captured_gradient(program):
    """The program's forward and backward captured in a CPU graph, replayed twice (each replay
    refreshes the copies the tape keeps)."""
    x = wp.array(X0, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with wp.ScopedCapture(device="cpu") as capture:
        with tape:
            loss = _forward(program, x, False)
        tape.backward(loss)
    grads = []
    for _ in range(2):
        x.grad.zero_()
        wp.capture_launch(capture.graph)
        grads.append(x.grad.numpy().copy())
    return grads, tape


@pytest.mark.parametrize("program", CASES, ids=lambda p: p.__name__)
def test_reuse_inside_a_captured_graph_gives_the_fresh_buffer_gradient(program):
    fresh, _ = gradient(program, True)
    (first, second), tape = _captured_gradient(program)
    np.testing.assert_array_equal(first, fresh)
    np.testing.assert_array_equal(second, fresh)
    np.testing.assert_allclose(first, central_differences(program), rtol=1e-6, atol=1e-7)
    assert tape.kept_bytes > 0


def _recorded_then(write):
    x = wp.array(X0, dtype=F, requires_grad=True)
    s = wp.zeros(N, dtype=F, requires_grad=True)
    u = wp.zeros(N, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k_f, N, inputs=[x], outputs=[s])
        wp.launch(k_g, N, inputs=[s], outputs=[u])
    write(x, s, u)
    return tape, u


@pytest.mark.parametrize("write, words", [
    (lambda x, s, u: wp.launch(k_f, N, inputs=[u], outputs=[s]), "kernel k_f (argument s)"),
    (lambda x, s, u: s.fill_(2.0), "fill_()"),
    (lambda x, s, u: s.zero_(), "zero_()"),
    (lambda x, s, u: s.assign(np.ones(N)), "assign()"),
    (lambda x, s, u: wp.copy(s, u), "wp.copy()"),
    (lambda x, s, u: x.__setitem__(slice(0, 2), 0.0), "an item assignment"),
])
def test_a_write_outside_the_tape_makes_backward_raise(write, words):
    tape, u = _recorded_then(write)
    with pytest.raises(RuntimeError) as err:
        tape.backward(grads={u: wp.ones(N, dtype=F)})
    msg = str(err.value)
    assert "array(shape=(16,), dtype=float64" in msg and words in msg
    assert "launch 1 (kernel k_g, argument s)" in msg or "launch 0 (kernel k_f, argument x)" in msg
    assert "test_tape_reuse.py" in msg       # the user's line of the write
    assert "outside the tape" in msg
    assert "wp.config.tape_copy_on_write = False" in msg     # names the setting that allows it
    saved = wp.config.tape_copy_on_write
    wp.config.tape_copy_on_write = False
    try:
        tape, u = _recorded_then(write)
        tape.backward(grads={u: wp.ones(N, dtype=F)})        # warp-lang's behaviour: no error
    finally:
        wp.config.tape_copy_on_write = saved


def test_writes_of_other_arrays_and_writes_after_backward_are_fine():
    def write(x, s, u):
        wp.zeros(N, dtype=F).fill_(3.0)
    tape, u = _recorded_then(write)
    tape.backward(grads={u: wp.ones(N, dtype=F)})
    wp.launch(k_f, N, inputs=[u], outputs=[tape.launches[0][4][0]])   # after backward: fine
    tape.zero()
    tape.backward(grads={u: wp.ones(N, dtype=F)})


def test_a_tape_is_watched_from_its_recording_to_its_backward():
    from warp_interactive.runtime import tape_keep
    tape, u = _recorded_then(lambda *a: None)
    assert tape.keeper in tape_keep._watching
    tape.backward(grads={u: wp.ones(N, dtype=F)})
    assert tape.keeper not in tape_keep._watching
    tape2, _ = _recorded_then(lambda *a: None)
    tape2.reset()
    assert tape2.keeper not in tape_keep._watching


def test_a_custom_step_whose_input_is_overwritten_on_the_tape_raises():
    x = wp.array(X0, dtype=F, requires_grad=True)
    s = wp.zeros(N, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k_f, N, inputs=[x], outputs=[s])
        tape.record_func(lambda: None, [s])
        s.fill_(1.0)
    with pytest.raises(RuntimeError, match=r"read by step 1 \(record_func\) was overwritten by fill_\(\)"):
        tape.backward(grads={s: wp.ones(N, dtype=F)})


def test_the_notebook_view_names_the_kept_copies_and_their_bytes():
    from warp_interactive.notebook.widgets.tape_view import tape_html, tape_text
    x = wp.array(X0, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        loss = _forward(plain, x, False)
    (orig, _), = tape.kept_arrays
    names = {id(orig): "s", id(x): "x"}
    text = tape_text(tape, names)
    assert f"1 overwritten array kept for the backward pass: {N * 8:,} bytes" in text
    assert "k_g dim=16: s -> " in text      # the copy k_g reads is drawn as the buffer s
    assert "128 bytes" in tape_html(tape, names, engine="python")


def test_a_reset_tape_gives_its_copies_memory_to_the_next_one():
    """A CUDA graph capture cannot allocate: a run before it leaves the copies' memory behind."""
    _, tape = gradient(plain, False)
    (_, kept), = tape.kept_arrays
    tape.reset()
    _, tape2 = gradient(plain, False)
    (_, kept2), = tape2.kept_arrays
    assert kept2 is kept
    np.testing.assert_array_equal(gradient(plain, False)[0], gradient(plain, True)[0])


def test_a_gradient_array_assigned_after_recording_reaches_the_copies():
    x = wp.array(X0, dtype=F, requires_grad=True)
    s = wp.zeros(N, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k_f, N, inputs=[x], outputs=[s])
        wp.launch(k_square_in_place, N, inputs=[s])      # s is copied: the launch reads it
    s.grad = wp.ones(N, dtype=F)                         # a new gradient array, as a seed
    tape.backward()
    f = np.sin(X0) * X0 + 0.5
    np.testing.assert_allclose(x.grad.numpy(), 2 * f * (np.cos(X0) * X0 + np.sin(X0)), rtol=1e-12)


def test_a_dropped_tape_stops_the_checks_and_the_fast_path_stays_on(monkeypatch):
    import gc
    import weakref

    from warp_interactive.runtime import launch_state, tape_keep
    from warp_interactive.state import state
    # only this test's tape is watched: a tape that another test in this process still holds
    # (or that waits in a reference cycle for the collector) would rightly keep the checks on
    gc.collect()
    with monkeypatch.context() as m:
        m.setattr(tape_keep, "_watching", weakref.WeakSet())
        tape, u = _recorded_then(lambda *a: None)
        assert state.tape_writes[0] == 1 and not [r for r in launch_state.slow_reasons() if "tape" in r]
        del tape
        wp.launch(k_f, N, inputs=[u], outputs=[wp.zeros(N, dtype=F)])
        assert not tape_keep._watching and state.tape_writes[0] == 0
    tape_keep.update_flag()     # the other tapes of this process, if any, are watched again
