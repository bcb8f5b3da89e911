"""Is a reshape (or a transpose) a bitcast?  Decided on the spec, with Z3.

A logical reshape from SRC to DST (same element count) pairs element ``e``
of SRC with the element of DST that has the same row-major position:
``f = delinearise(linear_index(e, SRC dims), DST dims)``.  A transpose with
permutation ``P`` pairs ``e`` with ``f[i] = e[P[i]]`` (XLA's convention:
output dim i is input dim P[i]).  The operation is a *bitcast* when no byte
moves: every element keeps its offset, ``offset(SRC, e) == offset(DST, f)``,
and the elements take the same number of bits (so each element occupies the
same bits of memory), and the two buffers have the same size in *bytes*, as
XLA's verifier compares them: with ``E(n)`` packing, buffers of different
aligned element counts can be the same bytes (padding inside the last byte).

How it is decided:

* Concrete dims: a vectorised scan with numpy (every element when there are
  at most ``EXHAUSTIVE`` of them, in row-major order block by block up to
  the first that moves: :mod:`.enumeration`; else edges and random ones)
  finds a counterexample fast.  A scan of every element whose values cannot leave
  int64 (:func:`exact_in_int64`) decides the question both ways, as the
  properties' enumeration does: ``proved`` then says it was exhaustive.
  Otherwise Z3 proves the offsets equal (linear arithmetic: every divisor is
  a constant); ``proved`` only from ``unsat``.
* Named dims: compositionally.  The reshape splits into groups of dims with
  equal products (``[m, 6] -> [m, 2, 3]`` is ``[m]->[m]`` and ``[6]->[2, 3]``);
  a group that keeps one dim (units aside) or has only constant dims is a
  linear map, shown by a linear fact plus the mixed-radix lemma (the groups
  together are the whole reshape: Horner's rule).  Both sides are then
  :class:`~prover.core.linform.Form` s compared by :func:`prover.core.linform.add_same_offset`.
  When a fact fails, or the dims do not group, the failing dims and a few
  probe sizes are tried on the concrete evaluator: a counterexample found
  there is ``refuted``; none is ``unknown``, never ``proved``.

Every counterexample is replayed with :func:`spec.index.offset` before it is
shown; one that does not replay raises :class:`~prover.result.ProverBug`.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> prove_reading(shape("f32[m,n]{1,0:T(8,128)}"), shape("f32[1,m,n]{2,1,0:T(8,128)}")).status
'proved'
>>> r = prove_reading(shape("f32[m,n]{1,0:T(8,128)}"), shape("f32[m,n,1]{2,1,0:T(8,128)}"))
>>> r.status, r.counterexample.offsets["source"] != r.counterexample.offsets["target"]
('refuted', True)
>>> prove_reading(shape("f32[8,256]{1,0}"), shape("f32[256,8]{0,1}"), transpose=(1, 0)).status
'proved'
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
import z3

from ...spec import (
    INT,
    Shape,
    TilespecError,
    aligned_elements,
    byte_size,
    bytes_of,
    delinearise,
    format_shape,
    linear_index,
    offset,
    offsets,
    padded_elements,
    product,
    round_up,
)
from ..core import (
    DEFAULT_TIMEOUT,
    EXHAUSTIVE,
    SAMPLES,
    Encoding,
    Facts,
    Form,
    add_same_offset,
    constant,
    drive,
    horner_for,
    sample_elements,
    scope,
    spec_form,
)
from ..names import counted
from ..result import (
    PROVED,
    REFUTED,
    UNKNOWN,
    Counterexample,
    ProverBug,
    Result,
    Side,
    counterexample_lines,
)
from . import row_major
from .enumeration import first_moved
from .reshape_groups import element_count, monomial, reshape_groups

#: Index entries (elements times the ranks) a scan may build before a
#: reshape between untiled row-major layouts is proved by theorem instead.
SCAN_ENTRIES = 1 << 22

# --- the question ----------------------------------------------------------------

@lru_cache(maxsize=4096)
def shape_text(shape: Shape) -> str:
    """``shape`` as XLA prints it, printed once however often a question,
    its readings and their counterexamples name it.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> shape_text(shape("f32[8]{0:T(8)L(16)}"))
    'f32[8]{0:T(8)L(16)}'
    """
    return format_shape(shape)


@dataclass(frozen=True)
class Question:
    """SRC, DST and how their elements pair: a reshape, or a transpose."""

    src: Shape
    dst: Shape
    transpose: tuple[int, ...] | None = None

    @property
    def is_symbolic(self) -> bool:
        return self.src.is_symbolic or self.dst.is_symbolic

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.src.names + self.dst.names))

    @cached_property
    def text(self) -> str:
        """``SRC -> DST``, printed once per question."""
        return f"{shape_text(self.src)} -> {shape_text(self.dst)}"

    @property
    def what(self) -> str:
        if self.transpose is None:
            return "bitcast (reshape)"
        return "bitcast (transpose " + ",".join(map(str, self.transpose)) + ")"

    @property
    def empty(self) -> bool:
        return any(d == 0 for d in self.src.dims)

    def instantiate(self, values: dict) -> "Question":
        return Question(self.src.instantiate(values), self.dst.instantiate(values),
                        self.transpose)

    def pair(self, e, ar, src_dims=None, dst_dims=None):
        """The DST element paired with SRC element ``e`` (any arithmetic)."""
        if self.transpose is not None:
            return tuple(e[p] for p in self.transpose)
        src_dims = self.src.dims if src_dims is None else src_dims
        dst_dims = self.dst.dims if dst_dims is None else dst_dims
        return delinearise(linear_index(e, src_dims, ar), dst_dims, ar)


def question(src: Shape, dst: Shape, transpose=None) -> Question:
    """Check that SRC and DST can be paired; raise TilespecError if not."""
    for name, s in (("SRC", src), ("DST", dst)):
        if not isinstance(s, Shape):
            raise TilespecError(f"{name} must be an array shape, not a tuple")
        if any(d is None for d in s.dims):
            raise TilespecError(f"{name} {shape_text(s)} has an unbounded dim "
                                "('?'); name it to reason about every size")
    if transpose is not None:
        p = tuple(int(x) for x in transpose)
        if sorted(p) != list(range(src.rank)):
            raise TilespecError(f"transpose {','.join(map(str, p))} is not a "
                                f"permutation of 0..{src.rank - 1}")
        want = tuple(src.dims[i] for i in p)
        if tuple(dst.dims) != want:
            raise TilespecError(
                f"transpose {','.join(map(str, p))} of {shape_text(src)} has dims "
                f"[{','.join(map(str, want))}], not [{','.join(map(str, dst.dims))}]")
        return Question(src, dst, p)
    zero_s = any(d == 0 for d in src.dims)
    zero_d = any(d == 0 for d in dst.dims)
    if zero_s != zero_d or (not zero_s and monomial(src.dims) != monomial(dst.dims)):
        raise TilespecError(
            f"a reshape keeps the element count: {shape_text(src)} has "
            f"{counted(element_count(src.dims), 'element')}, {shape_text(dst)} has "
            f"{element_count(dst.dims)}")
    return Question(src, dst, None)


# --- concrete dims ------------------------------------------------------------------

def sizes(shape: Shape) -> dict:
    return {"padded_elements": padded_elements(shape),
            "aligned_elements": aligned_elements(shape),
            "element_bits": shape.element_bits,
            "byte_size": byte_size(shape)}


def _np_pair(q: Question, E: np.ndarray) -> np.ndarray:
    if q.transpose is not None:
        return E[:, list(q.transpose)]
    cols = tuple(E[:, i] for i in range(E.shape[1]))
    k = linear_index(cols, q.src.dims)
    out = delinearise(k, q.dst.dims)
    return np.stack([np.broadcast_to(np.asarray(x, dtype=np.int64), E.shape[:1])
                     for x in out], axis=-1) if out else np.zeros((len(E), 0), np.int64)


def scan(q: Question, seed: int = 0):
    """A counterexample from the numpy scan, or None; and whether the scan
    covered every element."""
    if q.empty:
        return None, True
    n = product(q.src.dims)
    if n <= EXHAUSTIVE:
        # every element in SRC's row-major order, block by block: the first
        # that moves is the counterexample, whatever comes after it
        k = first_moved(q.src, q.dst, q.transpose)
        if k is None:
            return None, True
        return replay(q, delinearise(k, q.src.dims)), True
    E = sample_elements((q.src, q.dst), np.random.default_rng(seed))
    F = _np_pair(q, E)
    a, b = offsets(q.src, E), offsets(q.dst, F)
    bad = np.flatnonzero(a != b)
    if bad.size == 0:
        return None, False
    return replay(q, tuple(int(x) for x in E[bad[0]])), False


def exact_in_int64(q: Question) -> bool:
    """Whether every offset of both sides, and every value the evaluator
    forms on the way (non-negative terms that add up to an offset), stays
    below 2^62: then the numpy scan's int64 arithmetic is exact.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> exact_in_int64(question(shape("f32[3,5]{1,0:T(2,2)}"), shape("f32[15]{0}")))
    True
    """
    return all(padded_elements(s) < 2**62 for s in (q.src, q.dst))


def replay(q: Question, e) -> Counterexample:
    """The counterexample for SRC element ``e``, from the concrete evaluator;
    ProverBug if the offsets agree there."""
    e = tuple(int(x) for x in e)
    return moved_element(q.src, q.dst, e, tuple(int(x) for x in q.pair(e, INT)))


def element_side(name: str, shape: Shape, element, at: int) -> Side:
    """One side of a bitcast counterexample: the element, its offset in
    elements, bytes and (sub-byte elements) the bit inside its byte.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> element_side("source", shape("s4[4]{0:E(4)}"), (3,), 3).bit_offset
    4
    """
    bit = at * shape.element_bits
    return Side(name, element=tuple(element), offset=at, byte_offset=bit // 8,
                bit_offset=bit % 8 if shape.element_bits < 8 else None,
                shape=shape_text(shape))


def moved_element(src: Shape, dst: Shape, e, f, reading: str | None = None) -> Counterexample:
    """SRC element ``e`` paired with DST element ``f`` at different offsets
    (concrete shapes), replayed on :func:`spec.index.offset`; ProverBug if
    the offsets agree.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> ce = moved_element(shape("f32[8,256]{1,0:T(8,128)}"), shape("f32[2048]{0}"), (0, 128), (128,))
    >>> ce.what, ce.side("source").byte_offset, ce.side("target").byte_offset
    ('the offsets differ', 4096, 512)
    """
    e, f = tuple(int(x) for x in e), tuple(int(x) for x in f)
    a, b = offset(src, e), offset(dst, f)
    if a == b:
        raise ProverBug(f"bitcast witness {e} -> {f} does not replay: both at {a}")
    return Counterexample({}, (element_side("source", src, e, a),
                               element_side("target", dst, f, b)),
                          reading, "the offsets differ")


def size_counterexample(src: Shape, dst: Shape) -> Counterexample | None:
    """The buffers' bytes, as XLA's verifier compares them, where they
    differ (concrete shapes); each side's ``value`` is its byte size and
    ``details["sizes"]`` the element counts behind it.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> ce = size_counterexample(shape("f32[8,128]{1,0:T(8,128)}"), shape("f32[4,256]{1,0:T(8,128)}"))
    >>> ce.what, ce.side("source").value, ce.side("target").value
    ('the sizes differ', 4096, 8192)
    """
    a, b = sizes(src), sizes(dst)
    if a["byte_size"] == b["byte_size"]:
        return None
    return Counterexample({}, (Side("source", shape=shape_text(src), value=a["byte_size"]),
                               Side("target", shape=shape_text(dst), value=b["byte_size"])),
                          what="the sizes differ", details={"sizes": {"source": a, "target": b}})


def width_counterexample(src: Shape, dst: Shape) -> Counterexample:
    """The elements take different bits: each side's ``value`` is its
    element width in bits.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> width_counterexample(shape("f32[2]{0}"), shape("bf16[2]{0}")).lines()[0]
    'what: the element widths differ'
    """
    return Counterexample({}, (Side("source", shape=shape_text(src), value=src.element_bits),
                               Side("target", shape=shape_text(dst), value=dst.element_bits)),
                          what="the element widths differ")


# --- the solver's part -----------------------------------------------------------------

def group_pair(q: Question, e, ds, dd, ar, fresh=None):
    """The reshape of ``e`` group by group: (DST element, per-group parts,
    definitions).

    A ``same`` group moves its one dim's index; a ``units`` group is zeros;
    a ``constant`` group reshapes with ``delinearise(linear_index(...))``,
    linear since its dims are constants.  A ``mixed`` group does too, unless
    ``fresh(prefix, n)`` makes variables: then its DST index is fresh,
    pinned down by a definition (inside DST's box, same row-major position:
    by the mixed-radix lemma exactly one index is), which keeps division by
    a name out of the terms.  Each part is (label, SRC index, SRC dims, DST
    index, DST dims, kind), for the facts that justify it.
    """
    f: list = []
    parts: list = []
    defs: list = []
    for g in reshape_groups(q.src.dims, q.dst.dims):
        eg, Ds, Dd = e[g.src[0]:g.src[1]], ds[g.src[0]:g.src[1]], dd[g.dst[0]:g.dst[1]]
        if g.kind == "same":
            i = next(k for k, d in enumerate(q.src.dims[g.src[0]:g.src[1]]) if d != 1)
            j = next(k for k, d in enumerate(q.dst.dims[g.dst[0]:g.dst[1]]) if d != 1)
            r = tuple(eg[i] if k == j else 0 for k in range(len(Dd)))
        elif g.kind == "units":
            r = (0,) * len(Dd)
        elif g.kind == "mixed" and fresh is not None:
            r = tuple(fresh("r", len(Dd)))
            box = [z3.And(ar.term(0) <= x, ar.lt(x, n)) for x, n in zip(r, Dd)]
            defs.append(z3.And(*box, ar.term(ar.eq(linear_index(r, Dd, ar),
                                                    linear_index(eg, Ds, ar)))))
        else:
            r = tuple(delinearise(linear_index(eg, Ds, ar), Dd, ar))
        label = (f"reshape group SRC dims {g.src[0]}..{g.src[1] - 1} -> DST dims "
                 f"{g.dst[0]}..{g.dst[1] - 1} ({g.kind})")
        parts.append((label, eg, Ds, r, Dd, g.kind))
        f.extend(r)
    return tuple(f), parts, defs


class ReadingFacts:
    """The facts for one question in a fresh Z3 context."""

    def __init__(self, q: Question, timeout: float, assume=None):
        self.q = q
        self.ctx = z3.Context()
        self.enc = Encoding(q.src, self.ctx)
        self.ar = self.enc.ar
        # DST's names join SRC's, through the one naming scheme
        self.dd = tuple(self.enc.name(d) if isinstance(d, str) else d for d in q.dst.dims)
        self.names = dict(self.enc.names)
        self.facts = Facts(self.ctx, list(self.enc.assumptions), timeout,
                           names={n: self.names[n] for n in q.names})
        if assume is not None:
            self.facts.assume(assume(self))
        self.e = self.enc.fresh("e", q.src.rank)
        self.box = self.enc.box(self.e, self.enc.dims)
        self.grouped: bool | None = None

    def pair(self):
        """DST's element for ``e``: per group of the reshape, with facts."""
        q, ar, F = self.q, self.ar, self.facts
        if q.transpose is not None:
            F.note("transpose: DST element f[i] = e[P[i]], DST dim i = SRC dim P[i]")
            return tuple(self.e[p] for p in q.transpose)
        f, parts, defs = group_pair(q, self.e, self.enc.dims, self.dd, ar, self.enc.fresh)
        self.group_facts(q, parts, self.enc.dims, self.dd, defs)
        return f

    def group_facts(self, q: Question, parts, ds, dd, defs=()) -> None:
        """The facts that make :func:`group_pair` the reshape of q."""
        ar, F = self.ar, self.facts
        for d in defs:
            # a fresh DST index of a mixed group, defined by the lemma's
            # characterisation (exists and is unique: onto + injective)
            F.assume(d)
        if defs:
            F.note("a group mixing names is a fresh index with the same "
                   "row-major position inside DST's box (mixed-radix lemma)")
        for label, eg, Ds, r, Dd, kind in parts:
            if kind != "mixed":
                # r is the reshape of this group: in DST's box with the same
                # row-major position (then the lemma makes it delin(lin)).
                F.fact(f"{label}: same position, inside DST's box", z3.And(
                    self.enc.box(eg, Ds), z3.Not(z3.And(
                        self.enc.box(r, Dd),
                        ar.term(ar.eq(linear_index(r, Dd, ar), linear_index(eg, Ds, ar)))))))
            F.cite(max(len(Dd), len(Ds)))
        groups = reshape_groups(q.src.dims, q.dst.dims)
        F.cite_lemma(horner_for(ds, [g.src for g in groups]))
        F.cite_lemma(horner_for(dd, [g.dst for g in groups]))
        F.note("the groups have equal products (equal monomials), so the "
               "reshape is the groups' reshapes side by side (Horner's rule)")

    def build(self, whole: bool = False):
        """The facts; ``whole`` compares the offsets as one formula instead
        of grouping the tiled dims (a second try when grouping fails)."""
        q, ar, F = self.q, self.ar, self.facts
        if q.src.element_bits != q.dst.element_bits:
            F.fact("elements take the same bits", True)
            return self
        A = spec_form(q.src, self.e, self.enc.dims, ar)
        if q.empty:
            F.note("no elements: only the sizes matter")
            self._sizes(A, spec_form(q.dst, (0,) * q.dst.rank, self.dd, ar), None)
            return self
        f = self.pair()
        B = spec_form(q.dst, f, self.dd, ar)
        self.grouped = not whole and add_same_offset(F, A, B, self.box, ar)
        if not self.grouped:
            F.note("the tiled dims do not group: the offsets are compared whole")
            F.fact("every element keeps its offset",
                   z3.And(self.box, ar.term(A.offset(ar)) != ar.term(B.offset(ar))))
        self._sizes(A, B, self.grouped)
        return self

    def _sizes(self, A: Form, B: Form, grouped):
        q, ar, F = self.q, self.ar, self.facts
        la = q.src.layout.tail_padding_alignment_in_elements
        lb = q.dst.layout.tail_padding_alignment_in_elements
        if grouped:
            F.note("padded sizes agree: the grouped dims are equal")
            if la == lb:
                return
            # Both sizes are c * Y, Y the anchors' product; Y stands free.
            c = product(v for v in (constant(x) for x in A.dims) if v is not None)
            y = self.enc.internal("anchor_product")
            P = c * y if any(constant(x) is None for x in A.dims) else z3.IntVal(c, self.ctx)
            F.fact(f"L({la}) and L({lb}) round the padded size to the same bytes",
                   z3.And(y >= 0, self._bytes(P, la) != self._bytes(P, lb)))
            return
        pa, pb = ar.term(A.size(ar)), ar.term(B.size(ar))
        F.fact("the buffers take the same bytes",
               ar.term(self._bytes(pa, la)) != ar.term(self._bytes(pb, lb)))

    def _bytes(self, padded, align):
        """Bytes of ``padded`` elements rounded up to ``L(align)`` (the
        element bits are the same on both sides)."""
        ar, bits = self.ar, self.q.src.element_bits
        return bytes_of(round_up(padded, align, ar), bits, ar)


def _z3_concrete(q: Question, timeout: float):
    """Prove the concrete question with Z3: ('proved'|'unknown', detail) or
    ('refuted', counterexample) -- replayed."""
    b = ReadingFacts(q, timeout).build()
    status, detail = b.facts.check()
    if status == "proved":
        return "proved", b.facts.steps()
    if status == "unknown":
        return "unknown", detail
    failed, model = detail
    e = [b.enc.value(model, x) for x in b.e]
    size = size_counterexample(q.src, q.dst)
    if any("offset" in f or "index group" in f for f in failed) and not q.empty:
        return "refuted", replay(q, e)
    if size:
        return "refuted", size
    raise ProverBug(f"facts {failed} fail for {q.text} but nothing replays")


def prove_concrete(q: Question, timeout: float, start: float, prove: bool = True) -> Result:
    """:func:`prove_reading` for concrete dims; ``prove=False`` stops after the
    scan (refuted, or unknown: a search for counterexamples only)."""
    where = "concrete"
    text, what = q.text, q.what

    def done(status, **kw):
        return Result(text, what, status, time.perf_counter() - start, where, **kw, shapes=(q.src, q.dst))

    if q.src.element_bits != q.dst.element_bits:
        return done(REFUTED, counterexample=width_counterexample(q.src, q.dst))
    if (prove and q.transpose is None and not q.empty and size_counterexample(q.src, q.dst) is None
            and product(q.src.dims) * (q.src.rank + q.dst.rank) > SCAN_ENTRIES):
        # untiled row-major on both sides: a theorem, whatever the rank
        steps = row_major.reshape_proof(q.src, q.dst, timeout=timeout)
        if steps is not None:
            return done(PROVED, steps=(*steps, "the buffers take the same bytes"))
    found, exhaustive = scan(q)
    size = size_counterexample(q.src, q.dst)
    if found or size:
        # a moved element, with the sizes too where they also differ
        ce = size if found is None else found if size is None else dataclasses.replace(
            found.with_details(**size.details), what="the offsets and the sizes differ")
        return done(REFUTED, counterexample=ce,
                    steps=("numpy scan of " + ("every element" if exhaustive else
                                               "edge and random elements"),))
    if not prove:
        return done(UNKNOWN, reason="no counterexample found by the scan")
    if exhaustive and exact_in_int64(q):
        # Every element's offset, both sides, by the spec's own evaluator on
        # int64 values that cannot wrap: a finite domain enumerated whole.
        n = product(q.src.dims)
        return done(PROVED, steps=(
            f"enumeration: {counted(n, 'element', grouped=True)} "
            f"{'keeps its offset' if n == 1 else 'all keep their offsets'} and "
            "the buffers have the same bytes (exhaustive: a proof for this shape)",))
    status, detail = _z3_concrete(q, timeout)
    if status == "proved":
        return done(PROVED, steps=detail)
    if status == "refuted":
        return done(REFUTED, counterexample=detail, steps=("found by Z3, replayed",))
    checked = "every element" if exhaustive else f"{SAMPLES} random and edge elements"
    return done(UNKNOWN, reason=f"{detail}; the scan of {checked} found no counterexample")


def prove_reading(src: Shape, dst: Shape, transpose=None, *,
                  timeout: float = DEFAULT_TIMEOUT, assume=None) -> Result:
    """Is SRC -> DST (a reshape, or the transpose ``transpose``) a bitcast?

    ``proved``: for these dims, or for every size of the named dims.
    ``refuted``: ``counterexample`` names the SRC and DST elements and their
    offsets (sides ``source`` and ``target``), or the differing sizes or
    element widths, with the names' ``dim_values`` where dims are names --
    replayed.
    ``unknown``: ``reason`` says what was tried.
    ``assume(facts)`` (named dims only) gives a condition on the dims the
    proof may assume, from the :class:`ReadingFacts` it is built on: the
    question is then asked only where it holds.
    """
    start = time.perf_counter()
    q = question(src, dst, transpose)
    if not q.is_symbolic:
        if assume is not None:
            raise TilespecError("an assumption needs named dims to range over")
        return prove_concrete(q, timeout, start)
    return prove_symbolic(q, timeout, start, assume)


def prove_symbolic(q: Question, timeout: float, start: float, assume=None) -> Result:
    where = scope(q.src) if q.src.is_symbolic else scope(q.dst)
    b = ReadingFacts(q, timeout, assume).build()

    def refute(values):
        inst = q.instantiate(values)
        r = prove_concrete(inst, timeout, start, prove=False)
        if r.status != REFUTED or r.counterexample is None:
            return None
        return r.counterexample.at(values)

    # The grouped facts can fail where the offsets still agree (dims that
    # pair differently, [m,n] -> [n,m]): then the whole formula is tried.
    whole = (lambda: ReadingFacts(q, timeout, assume).build(whole=True).facts) \
        if b.grouped else None
    v = drive(b.facts, whole=whole, refute=refute)
    return Result(q.text, q.what, v.status, time.perf_counter() - start, where,
                  steps=v.facts.steps(), counterexample=v.counterexample, reason=v.reason, shapes=(q.src, q.dst))


def describe(r: Result) -> str:
    """A few lines for a person: verdict, then the counterexample or steps."""
    head = {PROVED: "bitcast: proved", REFUTED: "not a bitcast: refuted",
            UNKNOWN: "unknown"}[r.status]
    lines = [f"{head} ({r.scope}) -- {r.property}: {r.shape}  [{r.seconds:.3f} s]"]
    if r.counterexample is not None:
        # a rule broken by the shapes themselves has no element to replay
        replayed = any(s.element is not None for s in r.counterexample.sides)
        lines.append("  counterexample (replayed):" if replayed else "  counterexample:")
        lines += counterexample_lines(r.counterexample, "    ")
    if r.reason:
        lines.append(f"  reason: {r.reason}")
    if r.status == PROVED:
        lines.extend(f"  - {s}" for s in r.steps)
    return "\n".join(lines)
