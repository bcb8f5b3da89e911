"""A bitcast decomposed as XLA's ``ShapeUtil::DecomposeBitcast`` does, judged
on physical bytes.

XLA reads a bitcast from SRC to DST as one of three logical operations, tried
in this order:

* a *reshape* (``ReshapeIsBitcast``);
* a *transpose* whose permutation XLA deduces from the two layouts
  (``DeduceTransposeDimensionsForBitcast``: DST dim ``mtm_dst[k]`` is SRC dim
  ``mtm_src[k]``, ``mtm`` the dims from most major to most minor), when the
  ranks agree and the dims line up;
* a *transpose-reshape-transpose* (TRT): SRC transposed into its dims in
  physical order with a descending layout (the same bytes), a row-major
  reshape, then a transpose into DST.  Its two transposes move no byte by
  construction, so the TRT is a bitcast exactly when the middle reshape is.

XLA's predicates look at dims and layouts only.  Here every interpretation is
decided by :func:`tilespec.prover.bitcast.reading.decide` on the spec's offsets, with
tiles, padding, ``E(n)`` and ``L(n)``; a transpose is tried with *every*
permutation that lines the dims up (several when dims repeat), XLA's first.
The bitcast is ``proved`` when one interpretation is proved, ``refuted``
when all are refuted (the counterexample is the TRT's, mapped back to SRC and
DST elements and replayed), ``unknown`` otherwise.

Bytes, not element counts: when two concrete shapes differ only in padding
that ends inside the same last byte (``s4[3]{0:T(4)E(4)}`` holds 4 padded
elements, ``s4[3]{0:E(4)}`` 3, both 2 bytes), the offsets are proved equal
on their own and the byte sizes compared.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> d = decompose(shape("f32[4,8]{1,0}"), shape("f32[8,4]{0,1}"))
>>> d.status, d.kind, d.permutations, d.xla_permutation
('proved', 'transpose', ((1, 0),), (1, 0))
>>> d = decompose(shape("f32[2,3,4]{2,1,0}"), shape("f32[4,6]{0,1}"))
>>> d.status, d.kind, d.trt["transpose2"]
('proved', 'trt', (1, 0))
>>> d = decompose(shape("f32[8,128]{1,0:T(8,128)}"), shape("f32[2,512]{1,0:T(8,128)}"))
>>> d.status, d.counterexample["src_offset"] != d.counterexample["dst_offset"]
('refuted', True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from tilespec.prover.bitcast.reading import decide, question
from tilespec.prover.core.solve import DEFAULT_TIMEOUT
from tilespec.prover.result import PROVED, REFUTED, UNKNOWN, ProverBug, Result
from tilespec.spec.errors import TilespecError
from tilespec.spec.index import offset
from tilespec.spec.layout import Shape
from tilespec.spec.size import aligned_elements, byte_size
from tilespec.spec.text import format_shape

#: At most this many permutations are tried for a transpose (repeated dims).
MAX_PERMUTATIONS = 24


# --- XLA's reading of the layouts ---------------------------------------------------------

def major_to_minor(shape: Shape) -> tuple[int, ...]:
    """Dim numbers from most major to most minor (XLA's ``LayoutPerm``)."""
    return tuple(reversed(shape.layout.minor_to_major))


def inverse(p) -> tuple[int, ...]:
    out = [0] * len(p)
    for i, x in enumerate(p):
        out[x] = i
    return tuple(out)


def xla_transpose_permutation(src: Shape, dst: Shape) -> tuple[int, ...] | None:
    """The permutation XLA's ``DeduceTransposeDimensionsForBitcast`` gives, or
    None: DST dim ``i`` is SRC dim ``P[i]`` where both sit at the same
    physical position.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> xla_transpose_permutation(shape("f32[2,3,4]{2,1,0}"), shape("f32[2,4,3]{1,2,0}"))
    (0, 2, 1)
    """
    if src.rank != dst.rank:
        return None
    a, b = major_to_minor(src), major_to_minor(dst)
    p = tuple(a[k] for k in inverse(b))
    if tuple(src.dims[x] for x in p) != tuple(dst.dims):
        return None
    return p


def transpose_candidates(src: Shape, dst: Shape) -> list[tuple[int, ...]]:
    """Every permutation P with ``dst.dims[i] == src.dims[P[i]]`` (XLA's first),
    at most :data:`MAX_PERMUTATIONS`."""
    if src.rank != dst.rank:
        return []
    out = []
    first = xla_transpose_permutation(src, dst)
    if first is not None:
        out.append(first)

    def extend(prefix, used):
        if len(out) >= MAX_PERMUTATIONS:
            return
        i = len(prefix)
        if i == dst.rank:
            if prefix not in out:
                out.append(prefix)
            return
        for j in range(src.rank):
            if j not in used and src.dims[j] == dst.dims[i]:
                extend(prefix + (j,), used | {j})

    extend((), frozenset())
    return out


def normalized(shape: Shape) -> Shape:
    """The same bytes as a shape whose dims are in physical order with a
    descending layout (XLA's ``MakeShapeWithDescendingLayoutAndSamePhysicalLayout``):
    tiles and every other field stay, since they act on physical dims."""
    mtm = major_to_minor(shape)
    return Shape(shape.element_type, tuple(shape.dims[i] for i in mtm),
                 shape.layout.replace(minor_to_major=tuple(range(shape.rank - 1, -1, -1))),
                 tuple(shape.dynamic[i] for i in mtm))


# --- one interpretation, judged on bytes ----------------------------------------------------

def _same_bytes_sizes(src: Shape, dst: Shape) -> bool:
    return (not src.is_symbolic and not dst.is_symbolic
            and src.element_bits == dst.element_bits
            and aligned_elements(src) != aligned_elements(dst)
            and byte_size(src) == byte_size(dst))


def physical_decide(src: Shape, dst: Shape, transpose=None, *,
                    timeout: float = DEFAULT_TIMEOUT) -> Result:
    """:func:`~tilespec.prover.bitcast.reading.decide`, but sizes compared in bytes:
    padding that differs only inside the last byte is no difference.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> physical_decide(shape("s4[3]{0:T(4)E(4)}"), shape("s4[3]{0:E(4)}"), (0,)).status
    'proved'
    """
    if src == dst and (transpose is None or tuple(transpose) == tuple(range(src.rank))):
        # The same shape paired with itself: every element keeps its offset
        # by reflexivity; no solver needed (XLA's TRT steps, same-layout copies).
        what = "bitcast (" + ("reshape" if transpose is None else
                              "transpose " + ",".join(map(str, transpose))) + ")"
        return Result(f"{format_shape(src)} -> {format_shape(dst)}", what, PROVED, 0.0,
                      "all shapes" if src.is_symbolic else "concrete",
                      steps=("SRC and DST are one shape and the pairing is the "
                             "identity: every element keeps its offset",))
    r = decide(src, dst, transpose, timeout=timeout)
    if r.status == REFUTED and set(r.counterexample or {}) == {"sizes"} \
            and _same_bytes_sizes(src, dst):
        # Offsets alone: give both sides one common alignment, larger than
        # either padded size, so the element sizes agree and only the
        # offsets are left to prove.
        m = max(aligned_elements(src), aligned_elements(dst))
        r2 = decide(src.with_layout(src.layout.replace(tail_padding_alignment_in_elements=m)),
                    dst.with_layout(dst.layout.replace(tail_padding_alignment_in_elements=m)),
                    transpose, timeout=timeout)
        steps = r2.steps + (f"byte sizes agree: {byte_size(src)} bytes each "
                            "(the padding differs only inside the last byte)",)
        return Result(r.shape, r.property, r2.status, r.seconds + r2.seconds, r.scope,
                      r2.counterexample, r2.reason, steps)
    return r


# --- the decomposition --------------------------------------------------------------------

@dataclass(frozen=True)
class Decomposition:
    """What a bitcast SRC -> DST is, physically.

    ``kind`` is the first interpretation proved in XLA's order (``reshape``,
    ``transpose``, ``trt``) or None; ``permutations`` every transpose proved;
    ``tried`` each interpretation with its :class:`Result`.
    """

    src: str
    dst: str
    status: str
    kind: str | None
    permutations: tuple[tuple[int, ...], ...]
    xla_permutation: tuple[int, ...] | None
    trt: dict | None
    tried: tuple[tuple[str, Result], ...]
    seconds: float
    counterexample: dict | None = None
    reason: str | None = None
    cached: bool = field(default=False, compare=False)

    def result(self, name: str) -> Result | None:
        return next((r for n, r in self.tried if n == name), None)

    def to_json(self) -> dict:
        return {"src": self.src, "dst": self.dst, "status": self.status,
                "kind": self.kind,
                "permutations": [list(p) for p in self.permutations],
                "xla_permutation": None if self.xla_permutation is None
                else list(self.xla_permutation),
                "trt": None if self.trt is None else {
                    k: list(v) if isinstance(v, tuple) else v for k, v in self.trt.items()},
                "tried": [{"as": n, **r.to_json()} for n, r in self.tried],
                "counterexample": self.counterexample, "reason": self.reason,
                "seconds": round(self.seconds, 6)}


def _transpose_name(p) -> str:
    return "transpose " + ",".join(map(str, p))


def with_bytes(ce: dict, src: Shape, dst: Shape) -> dict:
    """Add the byte (and bit) offsets of a counterexample's two elements."""
    if "src_offset" not in ce:
        return ce
    out = dict(ce)
    for side, shape in (("src", src), ("dst", dst)):
        if ce.get("dim_values"):
            shape = shape.instantiate(ce["dim_values"])
        bit = ce[f"{side}_offset"] * shape.element_bits
        out[f"{side}_bit_offset"] = bit
        out[f"{side}_byte_offset"] = bit // 8
    return out


def trt_counterexample(src: Shape, dst: Shape, reshape_ce: dict) -> dict:
    """The TRT's counterexample in SRC and DST elements, from the middle
    reshape's; replayed on the spec's offsets (ProverBug if it does not)."""
    ce = dict(reshape_ce)
    if "src_element" not in ce:
        return ce
    values = ce.get("dim_values") or {}
    s, d = (src.instantiate(values), dst.instantiate(values)) if values else (src, dst)
    e, f = [0] * src.rank, [0] * dst.rank
    for i, x in enumerate(major_to_minor(src)):
        e[x] = ce["src_element"][i]
    for k, x in enumerate(major_to_minor(dst)):
        f[x] = ce["dst_element"][k]
    a, b = offset(s, tuple(e)), offset(d, tuple(f))
    if a == b:
        raise ProverBug(f"TRT witness {e} -> {f} does not replay: both at {a}")
    ce.update(src_element=e, dst_element=f, src_offset=a, dst_offset=b)
    if values:
        ce.update(src_shape=format_shape(s), dst_shape=format_shape(d))
    return with_bytes(ce, src, dst)


def _counts_agree(src: Shape, dst: Shape) -> bool:
    from tilespec.prover.bitcast.reshape_groups import monomial
    zs, zd = 0 in src.dims, 0 in dst.dims
    return zs == zd and (zs or monomial(src.dims) == monomial(dst.dims))


def decompose(src: Shape, dst: Shape, *, timeout: float = DEFAULT_TIMEOUT) -> Decomposition:
    """Decide what the bitcast SRC -> DST is: see the module's docstring."""
    start = time.perf_counter()
    for name, s in (("SRC", src), ("DST", dst)):
        if not isinstance(s, Shape):
            raise TilespecError(f"{name} must be an array shape, not a tuple")
    tried: list[tuple[str, Result]] = []
    xla_p = xla_transpose_permutation(src, dst)
    src_text, dst_text = format_shape(src), format_shape(dst)

    def done(status, kind=None, perms=(), trt=None, ce=None, reason=None):
        return Decomposition(status=status, kind=kind, permutations=tuple(perms), trt=trt,
                             tried=tuple(tried), seconds=time.perf_counter() - start,
                             counterexample=ce, reason=reason, src=src_text, dst=dst_text,
                             xla_permutation=xla_p)

    if any(d is None for d in src.dims + dst.dims) or not _counts_agree(src, dst):
        # as for a reshape: bad input, not a verdict (XLA's bitcast keeps them)
        question(src, dst)
    if src.element_bits != dst.element_bits:
        return done(REFUTED, ce={"element_bits": {"src": src.element_bits,
                                                  "dst": dst.element_bits}},
                    reason="no reshape, transpose or TRT pairs the elements: "
                    "element widths differ")
    r = physical_decide(src, dst, timeout=timeout)
    tried.append(("reshape", r))
    if r.status == PROVED:
        return done(PROVED, "reshape")
    perms = []
    for p in transpose_candidates(src, dst):
        rp = physical_decide(src, dst, p, timeout=timeout)
        tried.append((_transpose_name(p), rp))
        if rp.status == PROVED:
            perms.append(p)
    if perms:
        return done(PROVED, "transpose", perms)
    ns, nd = normalized(src), normalized(dst)
    t1, t2 = major_to_minor(src), inverse(major_to_minor(dst))
    trt = {"transpose1": t1, "transpose1_shape": format_shape(ns),
           "reshape_shape": format_shape(nd), "transpose2": t2}
    steps = [physical_decide(src, ns, t1, timeout=timeout),
             physical_decide(ns, nd, timeout=timeout),
             physical_decide(nd, dst, t2, timeout=timeout)]
    for name, rs in zip(("TRT transpose1", "TRT reshape", "TRT transpose2"), steps):
        tried.append((name, rs))
    if all(rs.status == PROVED for rs in steps):
        return done(PROVED, "trt", trt=trt)
    if any(rs.status == UNKNOWN for _, rs in tried):
        return done(UNKNOWN, trt=trt, reason="; ".join(
            f"{n}: {rs.reason}" for n, rs in tried if rs.status == UNKNOWN))
    if steps[0].status != PROVED or steps[2].status != PROVED:
        bad = steps[0] if steps[0].status != PROVED else steps[2]
        raise ProverBug(f"a TRT transpose into physical order moved bytes: {bad.shape}")
    # a refuted Result carries its counterexample
    assert steps[1].counterexample is not None
    return done(REFUTED, trt=trt, ce=trt_counterexample(src, dst, steps[1].counterexample),
                reason="no reshape, transpose or TRT keeps every byte in place")


def describe(d: Decomposition) -> str:
    """A few lines for a person."""
    head = {PROVED: f"bitcast: proved as a {d.kind}", REFUTED: "not a bitcast: refuted",
            UNKNOWN: "unknown"}[d.status]
    lines = [f"{head} -- {d.src} -> {d.dst}  [{d.seconds:.3f} s]"]
    if d.kind == "transpose":
        lines.append("  permutation(s) that keep every byte: "
                     + "; ".join(",".join(map(str, p)) for p in d.permutations)
                     + (f" (XLA deduces {','.join(map(str, d.xla_permutation))})"
                        if d.xla_permutation is not None else ""))
    if d.trt:
        lines.append(f"  TRT: transpose {','.join(map(str, d.trt['transpose1']))} -> "
                     f"{d.trt['transpose1_shape']}, reshape -> {d.trt['reshape_shape']}, "
                     f"transpose {','.join(map(str, d.trt['transpose2']))}")
    ce = d.counterexample or {}
    if "dim_values" in ce:
        lines.append("  at " + ", ".join(f"{k}={v}" for k, v in ce["dim_values"].items()))
    if "src_element" in ce:
        lines.append(f"  SRC element ({','.join(map(str, ce['src_element']))}) at byte "
                     f"{ce['src_byte_offset']} (element offset {ce['src_offset']}); "
                     f"DST element ({','.join(map(str, ce['dst_element']))}) at byte "
                     f"{ce['dst_byte_offset']} (element offset {ce['dst_offset']})")
    if "sizes" in ce:
        lines.append(f"  sizes differ: SRC {ce['sizes']['src']['aligned_elements']} "
                     f"elements, DST {ce['sizes']['dst']['aligned_elements']}")
    if d.reason:
        lines.append(f"  reason: {d.reason}")
    for n, r in d.tried:
        lines.append(f"  - as {n}: {r.status}")
    return "\n".join(lines)
