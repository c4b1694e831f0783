"""The on-screen side of ``OpenGLRenderer`` (only with a display): showing each frame in the
window, closing, resizing, and a fly camera (drag to look around, W/A/S/D to move, scroll to
zoom, space to pause, Escape to close)."""

import numpy as np


def connect_window(renderer):
    from pyglet.window import key as keys
    window = renderer.window
    state = {"keys": keys.KeyStateHandler()}
    window.push_handlers(state["keys"])

    @window.event
    def on_close():
        renderer._has_exit = True

    @window.event
    def on_resize(width, height):
        renderer.screen_width, renderer.screen_height = window.get_framebuffer_size()
        renderer.update_projection_matrix()

    @window.event
    def on_mouse_drag(x, y, dx, dy, buttons, modifiers):
        if renderer.enable_mouse_interaction:
            _turn(renderer, dx * 0.1, dy * 0.1)

    @window.event
    def on_mouse_scroll(x, y, scroll_x, scroll_y):
        if renderer.enable_mouse_interaction:
            renderer.camera_fov = float(np.clip(renderer.camera_fov - scroll_y, 15.0, 90.0))
            renderer.update_projection_matrix()

    @window.event
    def on_key_press(symbol, modifiers):
        from pyglet.window import key
        for callback in renderer._key_callbacks:
            callback(symbol, modifiers)
        if not renderer.enable_keyboard_interaction:
            return
        if symbol == key.ESCAPE:
            renderer._has_exit = True
        elif symbol == key.SPACE:
            renderer.paused = not renderer.paused
        elif symbol in (key.W, key.S, key.A, key.D):
            front = renderer.camera_front / np.linalg.norm(renderer.camera_front)
            side = np.cross(front, renderer.camera_up)
            step = 0.2 * {key.W: front, key.S: -front, key.D: side, key.A: -side}[symbol]
            renderer.update_view_matrix(cam_pos=renderer.camera_pos + step)

    return state


def _turn(renderer, yaw_deg, pitch_deg):
    """Rotate the camera's front about its up vector (yaw) and its side vector (pitch)."""
    front = renderer.camera_front / np.linalg.norm(renderer.camera_front)
    up = renderer.camera_up / np.linalg.norm(renderer.camera_up)
    front = _rotate(front, up, -np.radians(yaw_deg))
    side = np.cross(front, up)
    new = _rotate(front, side, np.radians(pitch_deg))
    if abs(np.dot(new, up)) < 0.99:
        front = new
    renderer.update_view_matrix(cam_front=front)


def _rotate(v, axis, angle):
    axis = axis / np.linalg.norm(axis)
    return v * np.cos(angle) + np.cross(axis, v) * np.sin(angle) + axis * np.dot(axis, v) * (1 - np.cos(angle))


def present(renderer):
    """Copy the off-screen frame into the window and show it; the 2-D callbacks (UI overlays)
    draw on top."""
    from pyglet import gl
    for callback in renderer._input_processors:
        callback(renderer._window_state["keys"])
    fb = renderer._framebuffer
    gl.glBindFramebuffer(gl.GL_READ_FRAMEBUFFER, fb.fbo)
    gl.glBindFramebuffer(gl.GL_DRAW_FRAMEBUFFER, 0)
    w, h = renderer.window.get_framebuffer_size()
    gl.glBlitFramebuffer(0, 0, fb.width, fb.height, 0, 0, w, h, gl.GL_COLOR_BUFFER_BIT, gl.GL_LINEAR)
    gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, 0)
    for callback in renderer.render_2d_callbacks:
        callback()
    renderer.window.flip()
