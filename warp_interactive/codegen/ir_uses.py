"""Which variables an IR statement reads and writes, and every statement of a block: one home
for the lane-blocking analysis (lanes.py) and the loop-state analysis (loop_state.py)."""

from ..lang import ir


def var_list(xs):
    return [x for x in xs if isinstance(x, ir.Var)]


def reads(st, every_kind=False):
    """Variables ``st`` reads. Statements of other kinds than these count their ``values``/``args``
    for Print and Return, and for every kind with ``every_kind``."""
    k = type(st)
    if k is ir.Call:
        return var_list(st.args)
    if k in (ir.Copy, ir.GetField):
        return var_list([st.src])
    if k is ir.Select:
        return var_list([st.cond, st.if_true, st.if_false])
    if k is ir.SetField:
        return var_list([st.src, st.value])
    if k in (ir.If, ir.While):
        return var_list([st.cond])
    if k is ir.ForRange:
        return var_list([st.start, st.stop, st.step])
    if every_kind or k in (ir.Print, ir.Return):
        return var_list(getattr(st, "values", None) or getattr(st, "args", None) or [])
    return []


def in_place(st):
    """The arguments a builtin call advances in place (a random ``state``)."""
    if isinstance(st, ir.Call) and not hasattr(st.func, "function") and \
            "state" in getattr(st.func, "input_types", {}):
        return var_list(st.args)
    return []


def writes(st):
    """Variables ``st`` may assign."""
    if isinstance(st, ir.Copy):
        return [st.dst]
    if isinstance(st, ir.ForRange):
        return [st.var]
    out = getattr(st, "out", None)
    outs = list(out) if isinstance(out, list) else var_list([out])
    return outs + in_place(st)
