"""@wp.func_grad (custom adjoints) and @wp.func_replay (custom forward replay), and the
enable_backward switches (kernel flag, module option, wp.config)."""

import numpy as np
import pytest

import warp_interactive as wp


# --- func_grad: the reference's safe square root ---------------------------------------------------
@wp.func
def safe_sqrt(x: float):
    return wp.sqrt(x)


@wp.func_grad(safe_sqrt)
def adj_safe_sqrt(x: float, adj_ret: float):
    if x > 0.0:
        wp.adjoint[x] += 1.0 / (2.0 * wp.sqrt(x)) * adj_ret


@wp.kernel
def run_safe_sqrt(xs: wp.array(dtype=float), output: wp.array(dtype=float)):
    i = wp.tid()
    output[i] = safe_sqrt(xs[i])


def test_func_grad_replaces_the_generated_adjoint():
    xs = wp.array([0.0, 1.0, 4.0], dtype=float, requires_grad=True)
    out = wp.zeros_like(xs)
    tape = wp.Tape()
    with tape:
        wp.launch(run_safe_sqrt, dim=3, inputs=[xs], outputs=[out])
    tape.backward(grads={out: wp.ones_like(out)})
    # the generated adjoint of sqrt would give inf at 0; the custom one gives 0 there
    np.testing.assert_allclose(xs.grad.numpy(), [0.0, 0.5, 0.25], rtol=1e-6)


# --- func_grad with several parameters, vectors and a scalar --------------------------------------
@wp.func
def scaled_dot(a: wp.vec3d, b: wp.vec3d, s: wp.float64):
    return wp.dot(a, b) * s


@wp.func_grad(scaled_dot)
def adj_scaled_dot(a: wp.vec3d, b: wp.vec3d, s: wp.float64, adj_ret: wp.float64):
    wp.adjoint[a] += b * (s * adj_ret)
    wp.adjoint[b] += a * (s * adj_ret)
    wp.adjoint[s] += wp.dot(a, b) * adj_ret


@wp.kernel
def run_scaled_dot(a: wp.array(dtype=wp.vec3d), b: wp.array(dtype=wp.vec3d),
                   s: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = scaled_dot(a[i], b[i], s[i]) * scaled_dot(a[i], b[i], s[i])


def test_func_grad_with_several_parameters():
    rng = np.random.default_rng(3)
    an, bn, sn = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=4)
    a = wp.array(an, dtype=wp.vec3d, requires_grad=True)
    b = wp.array(bn, dtype=wp.vec3d, requires_grad=True)
    s = wp.array(sn, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(4, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(run_scaled_dot, dim=4, inputs=[a, b, s, out])
    tape.backward(grads={out: np.ones(4)})
    d = np.sum(an * bn, axis=1)
    f = d * sn                       # out = f^2
    np.testing.assert_allclose(a.grad.numpy(), (2 * f * sn)[:, None] * bn, rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), (2 * f * sn)[:, None] * an, rtol=1e-12)
    np.testing.assert_allclose(s.grad.numpy(), 2 * f * d, rtol=1e-12)


def test_func_grad_errors_name_the_problem():
    @wp.func
    def twice(x: float, n: int):
        return x * float(n)

    @wp.func_grad(twice)
    def adj_twice(x: float, n: int, adj_ret: float):
        wp.adjoint[n] += 1

    @wp.kernel(module="wpi_test_bad_func_grad")   # its own module: it cannot build an adjoint
    def run_twice(xs: wp.array(dtype=float)):
        i = wp.tid()
        xs[i] = twice(xs[i], 2)

    xs = wp.zeros(2, dtype=float, requires_grad=True)
    with pytest.raises(wp.CodegenError, match="parameter 'n' is not a float value"):
        wp.launch(run_twice, dim=2, inputs=[xs], adjoint=True, adj_inputs=[xs.grad])
    with pytest.raises(TypeError, match="needs a @wp.func"):
        wp.func_grad(len)


# --- func_replay: a function with a side effect (atomic counter) ---------------------------------------
@wp.func
def take_slot(counter: wp.array(dtype=int), i: int, data: wp.array2d(dtype=float)):
    slot = wp.atomic_add(counter, i, 1)     # 0 in the forward pass; counter[i] is 1 after it
    return data[i, slot] * data[i, slot]


@wp.func_replay(take_slot)
def replay_take_slot(counter: wp.array(dtype=int), i: int, data: wp.array2d(dtype=float)):
    slot = counter[i] - 1                   # the slot the forward pass took, without adding again
    return data[i, slot] * data[i, slot]


@wp.kernel
def run_take_slot(counter: wp.array(dtype=int), data: wp.array2d(dtype=float),
                  out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = take_slot(counter, i, data)


def test_func_replay_is_used_in_the_adjoint():
    dn = np.array([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]], dtype=np.float32)
    counter = wp.zeros(3, dtype=int)
    data = wp.array(dn, dtype=float, requires_grad=True)
    out = wp.zeros(3, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(run_take_slot, dim=3, inputs=[counter, data, out])
    tape.backward(grads={out: np.ones(3, dtype=np.float32)})
    np.testing.assert_array_equal(counter.numpy(), [1, 1, 1])   # the replay added nothing
    expect = np.zeros_like(dn)
    expect[:, 0] = 2 * dn[:, 0]           # slot 0 (the replay of the atomic alone would read 1)
    np.testing.assert_allclose(data.grad.numpy(), expect)


# --- enable_backward -----------------------------------------------------------------------------------
@wp.kernel(enable_backward=False)
def no_adjoint(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel(module="wpi_test_backward_off")
def in_module_without_backward(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


def _square_and_backward(kernel):
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    y = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=2, inputs=[x, y])
    np.testing.assert_allclose(y.numpy(), [1.0, 4.0])     # the forward pass runs
    tape.backward(grads={y: np.ones(2, dtype=np.float32)})
    return x.grad.numpy()


# the tape warns and skips a kernel without adjoint, as warp-lang 1.19's Tape.backward
KERNEL_OFF = "recorded kernel {} is configured with the option 'enable_backward=False'"
MODULE_OFF = "recorded kernel {} is defined in a module with the option 'enable_backward=False' set"


def _warned(capsys, text):
    """Whether the default logger wrote the warning (on stderr, in Warp's format)."""
    err = capsys.readouterr().err
    return ("Warp UserWarning: Running the tape backwards may produce incorrect gradients because "
            + text + ".") in err


def test_kernel_flag_enable_backward_false(capsys):
    np.testing.assert_allclose(_square_and_backward(no_adjoint), [0.0, 0.0])
    assert _warned(capsys, KERNEL_OFF.format(no_adjoint.key))
    src = no_adjoint.module.source()
    assert f"{no_adjoint.ir.name}_cpu_forward" in src
    assert f"{no_adjoint.ir.name}_cpu_backward" not in src
    # an adjoint launch asked for directly still has nothing to run
    x = wp.zeros(2, dtype=float, requires_grad=True)
    with pytest.raises(RuntimeError, match="kernel 'no_adjoint' has no adjoint"):
        wp.launch(no_adjoint, dim=2, inputs=[x, x], adj_inputs=[x.grad, x.grad], adjoint=True)


def test_module_option_and_config_enable_backward(capsys):
    wp.set_module_options({"enable_backward": False}, "wpi_test_backward_off")
    assert wp.get_module_options("wpi_test_backward_off")["enable_backward"] is False
    msg = MODULE_OFF.format(in_module_without_backward.key)
    np.testing.assert_allclose(_square_and_backward(in_module_without_backward), [0.0, 0.0])
    assert _warned(capsys, msg)
    wp.set_module_options({"enable_backward": True}, "wpi_test_backward_off")
    np.testing.assert_allclose(_square_and_backward(in_module_without_backward), [2.0, 4.0])
    assert not _warned(capsys, msg)
    # the global default, read by modules with no option of their own
    del in_module_without_backward.module.options["enable_backward"]
    saved = wp.config.enable_backward
    wp.config.enable_backward = False
    try:
        in_module_without_backward.module.invalidate()
        np.testing.assert_allclose(_square_and_backward(in_module_without_backward), [0.0, 0.0])
        assert _warned(capsys, msg)
    finally:
        wp.config.enable_backward = saved
        in_module_without_backward.module.invalidate()
    np.testing.assert_allclose(_square_and_backward(in_module_without_backward), [2.0, 4.0])


def test_skipped_kernel_silent_below_warning_level(capsys):
    saved = wp.config.log_level
    wp.config.log_level = wp.LOG_ERROR
    try:
        np.testing.assert_allclose(_square_and_backward(no_adjoint), [0.0, 0.0])
    finally:
        wp.config.log_level = saved
    assert "enable_backward" not in capsys.readouterr().err


@wp.kernel
def scale_by_three(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 3.0 * wp.sin(x[i])


@wp.kernel
def sum_squares(y: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, y[i] * y[i])


@pytest.mark.parametrize("position", ["first", "middle", "last"])
def test_other_kernels_gradients_with_a_skipped_kernel(position, capsys):
    """The kernels with adjoints still give the right gradients (finite differences) when a
    forward-only kernel is on the tape between, before or after them; that one is skipped."""
    x0 = np.array([0.3, -1.2, 2.0], dtype=np.float32)

    def run(xv, with_tape):
        x = wp.array(xv, dtype=float, requires_grad=True)
        y = wp.zeros(3, dtype=float, requires_grad=True)
        loss = wp.zeros(1, dtype=float, requires_grad=True)
        side = wp.zeros(3, dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            steps = [lambda: wp.launch(scale_by_three, 3, inputs=[x, y]),
                     lambda: wp.launch(sum_squares, 3, inputs=[y, loss])]
            off = lambda: wp.launch(no_adjoint, 3, inputs=[x, side])  # noqa: E731
            steps.insert({"first": 0, "middle": 1, "last": 2}[position], off)
            for step in steps:
                step()
        if with_tape:
            tape.backward(loss)
            assert _warned(capsys, KERNEL_OFF.format(no_adjoint.key))
            np.testing.assert_allclose(side.grad.numpy(), 0.0)
            return x.grad.numpy()
        return float(loss.numpy()[0])

    grad = run(x0, True)
    eps = 1e-3
    fd = [(run(x0 + eps * e, False) - run(x0 - eps * e, False)) / (2 * eps) for e in np.eye(3, dtype=np.float32)]
    np.testing.assert_allclose(grad, fd, rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(grad, 18.0 * np.sin(x0) * np.cos(x0), rtol=1e-5)
