"""Where generated code looks for Ctrl-C (the macros of native/include/.../core.h).

A CPU launch can only stop between chunks; a thread inside a loop of 10^10 iterations would
never get there. So every dynamic loop polls at the top of its body (a counter: the flag is read
every 1024 iterations), and a function whose loop saw the interrupt returns at once; its caller,
after a call of a function that may poll, checks the flag too (one load) and returns in turn, so
no code runs on with a value a callee left unfinished. Memory written so far stays as it is.
On CUDA the macros are constant false and the counter does not exist.

The tick itself costs a short inner loop dearly (a CSR row of 5 entries: +45% in bsr_mv), so an
innermost range loop with a small body gets a second, tick-free copy that runs when its trip
count is at most 1024 (core.h: range_short): the enclosing loops still tick once per
iteration, so at most ~10^6 small bodies run between two polls; a longer run takes the polled
copy. The copy exists on the CPU only (``#if WPI_POLLS``): CUDA compiles one."""

from ..lang import ir
from ..lang.analysis.walk import statements

TICKS = "    WPI_LOOP_TICKS;"      # declared at the top of a function whose loops poll
LOOP_STOP = "WPI_LOOP_STOP()"
LOOP_POLL = "WPI_LOOP_POLL();"   # a range loop's first line: sets WPI_STOPPED, which ends it
STOPPED = "WPI_STOPPED"
CALL_STOP = "WPI_CALL_STOP()"
# kernel bodies: the launch's flag through a pointer taken at their start (core.h says why)
KERNEL = {TICKS: "    WPI_KERNEL_TICKS;", LOOP_STOP: "WPI_KLOOP_STOP()", LOOP_POLL: "WPI_KLOOP_POLL();",
          CALL_STOP: "WPI_KCALL_STOP()"}


def spelling(macro, in_kernel):
    return KERNEL[macro] if in_kernel else macro


_LOOPS = (ir.ForRange, ir.While)
SHORT_BODY_LINES = 40   # a larger body amortises its tick, and doubling it costs compile time


def has_loop(block):
    """Whether ``block`` (an ir.Block) holds a dynamic loop, at any depth."""
    return any(isinstance(st, _LOOPS) for st in statements(block))


def calls_poll(cpp, functions, memo):
    """Whether a call of the user function ``cpp`` (or of its custom replay or grad) may return
    early on an interrupt: it or a function it calls has a dynamic loop. ``functions``: the
    ModuleIR's CalleeIRs by C++ name; ``memo``: a dict kept by the caller for the module."""
    if cpp not in memo:
        memo[cpp] = False   # recursion is refused at the call elsewhere: no cycle to follow
        f = functions[cpp]
        found = has_loop(f.fir.body) or any(calls_poll(c.cpp, functions, memo) for c in f.fir.calls)
        memo[cpp] = found or any(calls_poll(h, functions, memo) for h in (f.replay, f.grad) if h)
    return memo[cpp]


def short_copy(s, body, p, polling_call):
    """The tick-free copy of the forward range loop ``s`` (an ir.ForRange) and the ``else``
    that leads to its polled form, or [] where it gets none: the loop holds a loop or a call
    that may poll (``polling_call(stmt)``), or its body (``body``, its C++ lines) is large or
    has a label (a label written twice would not compile)."""
    if has_loop(s.body) or len(body) > SHORT_BODY_LINES or any(polling_call(st) for st in statements(s.body)):
        return []
    if any(line.rstrip().endswith(":;") for line in body):
        return []
    a, b, c, v = s.start.label, s.stop.label, s.step.label, s.var.label
    return (["#if WPI_POLLS", f"{p}if (wp::range_short({a}, {b}, {c})) {{",
             f"{p}for ({v} = {a}; wp::range_continues({v}, {b}, {c}); {v} += {c}) {{"] + body +
            [f"{p}}}", f"{p}}} else", "#endif"])
