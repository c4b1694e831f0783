"""Field-wise arithmetic of a ``@wp.struct`` for tiles of structs (warp-lang 1.19's rules).

``tile_sum``, ``t + u``, ``t - u``, ``-t``, ``t[i] += s``, ``tile_atomic_add`` and the tile
adjoints work on struct elements field by field. As in warp-lang, a field *accumulates* only when
its scalar type is one ``wp.atomic_add`` takes (int32, int64, uint32, uint64, float16, bfloat16,
float32, float64, and vectors/matrices/quaternions/transforms of them) or when it is a nested
struct (which follows its own rule); other fields (bool, 8/16-bit integers, arrays) ride along:
``a + b``, ``a - b`` and ``-a`` keep ``a``'s value, an atomic add leaves the destination's.

The helpers sit beside the struct in the global namespace, where argument-dependent lookup finds
them from the header templates (``add``, ``sub``, ``neg``, ``atomic_add_ptr`` and their adjoints);
as plain functions they win over the headers' generic templates.
"""

from ..types.array import array
from ..types.tile import atomic_add_scalar
from .cpp_types import member



def accumulates(t):
    """Whether a struct field of type ``t`` takes part in field-wise sums."""
    if getattr(t, "_wp_struct_", None) is not None:
        return True
    if isinstance(t, array):
        return False
    return atomic_add_scalar(t)


def _lines(st, acc, other):
    out = []
    for f, t in st.fields.items():
        text = acc if accumulates(t) else other
        if text:
            out.append("    " + text.format(m=member(f)))
    return "\n".join(out)


def struct_ops_source(st):
    """The C++ helpers of struct ``st`` (a StructType) for tile arithmetic and atomics."""
    n = st.cpp_name
    add = _lines(st, "r.{m} = add(a.{m}, b.{m});", "")
    sub = _lines(st, "r.{m} = sub(a.{m}, b.{m});", "")
    neg = _lines(st, "r.{m} = neg(a.{m});", "")
    adj_add = _lines(st, "adj_accum(adj_a.{m}, adj_ret.{m}); adj_accum(adj_b.{m}, adj_ret.{m});",
                     "adj_accum(adj_a.{m}, adj_ret.{m});")
    adj_sub = _lines(st, "adj_accum(adj_a.{m}, adj_ret.{m}); adj_accum(adj_b.{m}, neg(adj_ret.{m}));",
                     "adj_accum(adj_a.{m}, adj_ret.{m});")
    adj_neg = _lines(st, "adj_accum(adj_a.{m}, neg(adj_ret.{m}));", "adj_accum(adj_a.{m}, adj_ret.{m});")
    atomic = _lines(st, "old.{m} = atomic_add_ptr(&p->{m}, v.{m});", "old.{m} = p->{m};")
    using = "    using wp::add; using wp::sub; using wp::neg; using wp::adj_accum; using wp::atomic_add_ptr;"
    return (
        f"WPI_FUNC {n} add(const {n}& a, const {n}& b) {{\n{using}\n    {n} r = a;\n{add}\n    return r;\n}}\n"
        f"WPI_FUNC {n} sub(const {n}& a, const {n}& b) {{\n{using}\n    {n} r = a;\n{sub}\n    return r;\n}}\n"
        f"WPI_FUNC {n} neg(const {n}& a) {{\n{using}\n    {n} r = a;\n{neg}\n    return r;\n}}\n"
        f"WPI_FUNC void adj_add(const {n}&, const {n}&, {n}& adj_a, {n}& adj_b, const {n}& adj_ret) {{\n"
        f"{using}\n{adj_add}\n}}\n"
        f"WPI_FUNC void adj_sub(const {n}&, const {n}&, {n}& adj_a, {n}& adj_b, const {n}& adj_ret) {{\n"
        f"{using}\n{adj_sub}\n}}\n"
        f"WPI_FUNC void adj_neg(const {n}&, {n}& adj_a, const {n}& adj_ret) {{\n{using}\n{adj_neg}\n}}\n"
        f"WPI_FUNC {n} atomic_add_ptr({n}* p, const {n}& v) {{\n{using}\n    {n} old = {{}};\n{atomic}\n"
        f"    return old;\n}}\n")
