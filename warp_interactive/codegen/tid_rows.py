"""Multi-dimensional thread indices without a division per thread, on targets whose entries loop
over the launch (the CPU).

A kernel that unpacks ``i, j[, k[, l]] = wp.tid()`` could divide its flat index by the launch's
shape in every thread (``wp::tid_nd``), but then a 512x512 copy takes 50x the time of the same
copy launched 1-D, and the division keeps the loop scalar. So its body takes the coordinates as
parameters (``K_forward_body_nd(args, dim, idx, t0, t1, ...)``, ``wp.tid()`` components read
``_t<k>``), and the entry's loops walk rows of the innermost dimension: one division per
dimension per chunk (``wp::tid_first``), then the innermost coordinate is the loop's counter,
so a 2-D body vectorises as a 1-D one does. The body under its plain name and signature
remains, a wrapper computing the coordinates with ``wp::tid_nd``, for every other caller (lanes bodies' tails,
cooperative blocks, loops this module does not rewrite)."""

import re

# a loop of an entry template over [begin, end), one body call per thread (codegen/target.py)
_LOOP = re.compile(r"^(?P<ivdep>#pragma GCC ivdep\n)?(?P<ind> *)for \(int64_t i = begin; i < end; \+\+i\) "
                   r"(?P<body>\w+_body)\((?P<args>\w+|\*args), (?P<dim>\w+|\*dim), i(?P<extra>, \w+)?\);$",
                   re.M)


def tid_count(fir, target, block_width=1):
    """How many coordinates the body of ``fir`` takes as parameters: its ``wp.tid()`` arity when
    that is 2 to 4 on a target with row loops, else 0 (the body divides its flat index, ``wp::tid_nd``)."""
    if not target.tid_rows or block_width > 1 or not fir.is_kernel:
        return 0
    return fir.tid_arity if 2 <= fir.tid_arity <= 4 else 0


def coord_params(count):
    return "".join(f", int32_t _t{k}" for k in range(count))


def wrapper(qualifier, fname, params, count, own):
    """``fname`` with its usual parameters: the coordinates of ``_idx`` by division, then the
    coordinate body. ``params``: the body's parameter list up to ``_idx``."""
    coords = ", ".join(f"wp::tid_nd(_idx, _dim, {k}, {count})" for k in range(count))
    tail = ", bool _own = false" if own else ""
    return (f"{qualifier} void {fname}({params}{tail}) {{\n"
            f"    {fname}_nd(_args, _dim, _idx, {coords}{', _own' if own else ''});\n}}")


def row_loops(entry, count):
    """``entry`` (an entry's C++) with each loop over [begin, end) rewritten to step coordinates:
    rows of the innermost dimension when the launch has ``count`` dimensions (an `ivdep` loop
    keeps its pragma on the row), one thread at a time when it has more (the leading ones)."""
    return _LOOP.sub(lambda m: _rows(m, count), entry) if count else entry


def _rows(m, count):
    p, body, args, dim = m["ind"], m["body"], m["args"], m["dim"]
    d = "(*dim)" if dim == "*dim" else dim
    extra = m["extra"] or ""
    q, r = p + "    ", p + "        "
    lead = [f"{r}const int32_t _t{k} = _c[{k}];" for k in range(count - 1)]
    row_args = "".join(f"_t{k}, " for k in range(count - 1))
    all_args = ", ".join(f"_c[{k}]" for k in range(count))
    ivdep = "#pragma GCC ivdep\n" if m["ivdep"] else ""
    return "\n".join(
        [f"{p}int32_t _c[4];",
         f"{p}wp::tid_first({d}, begin, _c);",
         f"{p}if ({d}.ndim == {count}) {{",
         f"{q}for (int64_t i = begin; i < end;) {{"] + lead +
        [f"{r}const int32_t _j0 = _c[{count - 1}], _j1 = wp::tid_row_end({d}, _j0, end - i);",
         f"{r}const int64_t _row = i - _j0;",
         f"{ivdep}{r}for (int64_t _j = _j0; _j < _j1; ++_j) {body}_nd({args}, {d}, _row + _j, {row_args}_j{extra});",
         f"{r}i = _row + _j1;",
         f"{r}_c[{count - 1}] = _j1 - 1;",
         f"{r}wp::tid_step({d}, _c);",
         f"{q}}}",
         f"{p}}} else {{",
         f"{q}for (int64_t i = begin; i < end; ++i, wp::tid_step({d}, _c)) {body}_nd({args}, {d}, i, {all_args}{extra});",
         f"{p}}}"])
