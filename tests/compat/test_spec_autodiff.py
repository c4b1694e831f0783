"""The Differentiability, Jacobians and Matrix Multiplication examples of the runtime reference
(spec files 003 and 004), run as written (the code between the ``# --- example`` markers is the
reference's, with ``device="cuda"`` made the ``device`` fixture's device); the set-up the examples
leave to the reader comes before them, and the checks against NumPy after."""

import numpy as np

import warp_interactive as wp


# --- kernels the examples name -----------------------------------------------------------------
@wp.kernel
def compute1(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    b[i] = a[i] * 2.0 + wp.vec3(1.0, 2.0, 3.0)


@wp.kernel
def compute2(c: wp.array(dtype=wp.vec3), d: wp.array(dtype=float)):
    i = wp.tid()
    d[i] = wp.length_sq(c[i])


@wp.kernel
def loss(d: wp.array(dtype=float), l: wp.array(dtype=float)):  # noqa: E741
    i = wp.tid()
    wp.atomic_add(l, 0, d[i])


def _chain(device):
    """b = 2a + (1, 2, 3); d = |b|^2 (c is b); l = sum(d): dl/da = 4 (2a + (1, 2, 3))."""
    b = wp.zeros(1024, dtype=wp.vec3, device=device, requires_grad=True)
    c = b
    d = wp.zeros(1024, dtype=float, device=device, requires_grad=True)
    l = wp.zeros(1, dtype=float, device=device, requires_grad=True)  # noqa: E741
    return b, c, d, l


def test_differentiability_newer_reference(device, capsys):
    b, c, d, l = _chain(device)  # noqa: E741
    # --- example (004, Differentiability)
    a = wp.zeros(1024, dtype=wp.vec3, device=device, requires_grad=True)

    tape = wp.Tape()

    # forward pass
    with tape:
        wp.launch(kernel=compute1, inputs=[a, b], device=device)
        wp.launch(kernel=compute2, inputs=[c, d], device=device)
        wp.launch(kernel=loss, inputs=[d, l], device=device)

    # reverse pass
    tape.backward(l)

    # gradient of loss with respect to input a
    print(tape.gradients[a])
    # --- end of example
    grad = tape.gradients[a].numpy().copy()
    np.testing.assert_allclose(grad, np.tile([4.0, 8.0, 12.0], (1024, 1)), rtol=1e-6)
    np.testing.assert_allclose(l.numpy(), [1024 * 14.0], rtol=1e-6)
    assert "array" in capsys.readouterr().out
    # --- example: gradients accumulate; zero them before re-using the buffers
    tape.zero()
    # --- end of example
    assert not a.grad.numpy().any() and not l.grad.numpy().any()
    tape.backward(l)                                 # after zero(): the same gradient again
    np.testing.assert_allclose(a.grad.numpy(), grad, rtol=1e-6)
    # without zero() the inputs' gradients accumulate; the intermediates' (b, d: written by a
    # recorded kernel) were consumed by the store adjoints, as in warp-lang: 2x the first gradient
    tape.backward(l)
    np.testing.assert_allclose(a.grad.numpy(), 2 * grad, rtol=1e-6)
    assert not b.grad.numpy().any() and not d.grad.numpy().any()


def test_differentiability_older_reference(device):
    b, c, d, l = _chain(device)  # noqa: E741
    a = wp.array(np.full((1024, 3), 0.5, dtype=np.float32), dtype=wp.vec3, device=device,
                 requires_grad=True)
    l.grad.fill_(1.0)          # the older tape.backward() takes the loss gradient as it is
    # --- example (003, Differentiability)
    tape = wp.Tape()

    # forward pass
    with tape:
        wp.launch(kernel=compute1, inputs=[a, b], device=device)
        wp.launch(kernel=compute2, inputs=[c, d], device=device)
        wp.launch(kernel=loss, inputs=[d, l], device=device)

    # reverse pass
    tape.backward()

    # gradient of loss with respect to input a
    print(tape.adjoints[a])
    # --- end of example
    np.testing.assert_allclose(tape.adjoints[a].numpy(), np.tile([8.0, 12.0, 16.0], (1024, 1)),
                               rtol=1e-6)
    assert tape.adjoints[a] is tape.gradients[a]


# --- Jacobians -----------------------------------------------------------------------------------------
@wp.kernel
def env_step(q: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    """Per environment (3 inputs, 2 outputs): out = (q0 * q1, sin(q2) + q0)."""
    i = wp.tid()
    env = i // 2
    r = i % 2
    q0, q1, q2 = q[env * 3], q[env * 3 + 1], q[env * 3 + 2]
    if r == 0:
        out[i] = q0 * q1
    else:
        out[i] = wp.sin(q2) + q0


def _expected_jacobian(qe):
    q0, q1, q2 = qe
    return np.array([[q1, q0, 0.0], [1.0, 0.0, np.cos(q2)]])


def test_jacobian_single_output_reference(device):
    input_dim, output_dim = 3, 2
    qn = np.array([0.3, -1.2, 0.7], dtype=np.float32)
    input_buffer = wp.array(qn, dtype=wp.float32, device=device, requires_grad=True)

    def launch_kernels_to_be_differentiated(q):
        out = wp.zeros(output_dim, dtype=wp.float32, device=device, requires_grad=True)
        wp.launch(env_step, dim=output_dim, inputs=[q, out], device=device)
        return out

    # --- example (004, Jacobians)
    # compute the Jacobian for a function of single output
    jacobian = np.empty((output_dim, input_dim), dtype=np.float32)
    tape = wp.Tape()
    with tape:
        output_buffer = launch_kernels_to_be_differentiated(input_buffer)
    for output_index in range(output_dim):
        # select which row of the Jacobian we want to compute
        select_index = np.zeros(output_dim)
        select_index[output_index] = 1.0
        e = wp.array(select_index, dtype=wp.float32)
        # pass input gradients to the output buffer to apply selection
        tape.backward(grads={output_buffer: e})
        q_grad_i = tape.gradients[input_buffer]
        jacobian[output_index, :] = q_grad_i.numpy()
        tape.zero()
    # --- end of example
    np.testing.assert_allclose(jacobian, _expected_jacobian(qn), rtol=1e-6)


def test_jacobian_multiple_environments_reference(device):
    num_envs, input_dim, output_dim = 4, 3, 2
    qn = np.random.default_rng(4).normal(size=num_envs * input_dim).astype(np.float32)
    input_buffer = wp.array(qn, dtype=wp.float32, device=device, requires_grad=True)

    def launch_kernels_to_be_differentiated(q):
        out = wp.zeros(num_envs * output_dim, dtype=wp.float32, device=device, requires_grad=True)
        wp.launch(env_step, dim=num_envs * output_dim, inputs=[q, out], device=device)
        return out

    # --- example (004, Jacobians: block-diagonal, all environments at once)
    # compute the Jacobian for a function over multiple environments in parallel
    jacobians = np.empty((num_envs, output_dim, input_dim), dtype=np.float32)
    tape = wp.Tape()
    with tape:
        output_buffer = launch_kernels_to_be_differentiated(input_buffer)
    for output_index in range(output_dim):
        # select which row of the Jacobian we want to compute
        select_index = np.zeros(output_dim)
        select_index[output_index] = 1.0
        # assemble selection vector for all environments (can be precomputed)
        e = wp.array(np.tile(select_index, num_envs), dtype=wp.float32)
        tape.backward(grads={output_buffer: e})
        q_grad_i = tape.gradients[input_buffer]
        jacobians[:, output_index, :] = q_grad_i.numpy().reshape(num_envs, input_dim)
        tape.zero()
    # --- end of example
    for env, qe in enumerate(qn.reshape(num_envs, input_dim)):
        np.testing.assert_allclose(jacobians[env], _expected_jacobian(qe), rtol=1e-6)
    # the helper gives the same (full, block-diagonal) Jacobian
    full = wp.autograd.jacobian(env_step, dim=num_envs * output_dim, inputs=[input_buffer],
                                outputs=[wp.zeros(num_envs * output_dim, dtype=wp.float32,
                                                  device=device, requires_grad=True)])[(0, 0)].numpy()
    for env in range(num_envs):
        block = full[env * output_dim:(env + 1) * output_dim, env * input_dim:(env + 1) * input_dim]
        np.testing.assert_allclose(block, jacobians[env], rtol=1e-6)
        full[env * output_dim:(env + 1) * output_dim, env * input_dim:(env + 1) * input_dim] = 0
    assert not full.any()          # nothing outside the diagonal blocks


# --- Matrix multiplication -----------------------------------------------------------------------------
@wp.kernel
def loss_kernel(d: wp.array2d(dtype=float), loss: wp.array(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(loss, 0, d[i, j] * d[i, j])


def test_matmul_on_the_tape_reference(device):
    m, k, n = 5, 3, 4
    rng = np.random.default_rng(8)
    an, bn, cn = (rng.normal(size=s).astype(np.float32) for s in ((m, k), (k, n), (m, n)))
    A = wp.array(an, dtype=float, device=device, requires_grad=True)
    B = wp.array(bn, dtype=float, device=device, requires_grad=True)
    C = wp.array(cn, dtype=float, device=device, requires_grad=True)
    D = wp.zeros((m, n), dtype=float, device=device, requires_grad=True)
    loss = wp.zeros(1, dtype=float, device=device, requires_grad=True)
    # --- example (004, Matrix Multiplication)
    tape = wp.Tape()
    with tape:
        wp.matmul(A, B, C, D, device=device)
        wp.launch(loss_kernel, dim=(m, n), inputs=[D, loss], device=device)

    tape.backward(loss=loss)
    A_grad = A.grad.numpy()
    # --- end of example
    dn = an @ bn + cn
    np.testing.assert_allclose(D.numpy(), dn, rtol=1e-5)
    np.testing.assert_allclose(A_grad, 2 * dn @ bn.T, rtol=1e-4)
    np.testing.assert_allclose(C.grad.numpy(), 2 * dn, rtol=1e-5)
