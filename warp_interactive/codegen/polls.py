"""Where generated code looks for Ctrl-C (the macros of native/include/.../core.h).

A CPU launch can only stop between chunks; a thread inside a loop of 10^10 iterations would
never get there. So every dynamic loop polls at the top of its body (a counter: the flag is read
every 1024 iterations), and a function whose loop saw the interrupt returns at once; its caller,
after a call of a function that may poll, checks the flag too (one load) and returns in turn, so
no code runs on with a value a callee left unfinished. Memory written so far stays as it is.
On CUDA the macros are constant false and the counter does not exist."""

from ..lang import ir

TICKS = "    WPI_LOOP_TICKS;"      # declared at the top of a function whose loops poll
LOOP_STOP = "WPI_LOOP_STOP()"
CALL_STOP = "WPI_CALL_STOP()"

_LOOPS = (ir.ForRange, ir.While)


def _blocks(st):
    for sub in ("body", "orelse", "cond_block"):
        b = getattr(st, sub, None)
        if isinstance(b, ir.Block):
            yield b


def has_loop(block):
    """Whether ``block`` (an ir.Block) holds a dynamic loop, at any depth."""
    stack = [block]
    while stack:
        for st in stack.pop().stmts:
            if isinstance(st, _LOOPS):
                return True
            stack.extend(_blocks(st))
    return False


def _helpers(func):
    return [h for h in (getattr(func, "custom_replay", None), getattr(func, "custom_grad", None)) if h]


def calls_poll(func, memo):
    """Whether a call of the user function overload ``func`` (or of its custom replay or grad)
    may return early on an interrupt: it or a function it calls has a dynamic loop. ``memo``:
    a dict kept by the caller for the module being written."""
    key = getattr(func, "cpp", None) or id(func)
    if key not in memo:
        memo[key] = False   # recursion is refused at the call elsewhere: no cycle to follow
        fir = func.ir
        found = has_loop(fir.body) or any(calls_poll(c, memo) for c in fir.calls)
        memo[key] = found or any(calls_poll(h, memo) for h in _helpers(func))
    return memo[key]
