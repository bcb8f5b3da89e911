"""Is SRC -> DST a bitcast?  The one function that answers it: :func:`is_bitcast`.

By default the question is XLA's: ``ShapeUtil::DecomposeBitcast`` reads a
bitcast as a reshape, else a transpose with the permutation XLA deduces from
the layouts (here every permutation that lines the dims up, XLA's first),
else a transpose-reshape-transpose (TRT); see
:mod:`tilespec.prover.bitcast.xla_reading`.  Each reading is decided by
:func:`tilespec.prover.bitcast.reading.prove_reading` on the spec's offsets, on
bytes, with tiles, padding, ``E(n)`` and ``L(n)``.  A keyword asks one
reading: ``reading="reshape"`` or ``reading=(1, 0)`` (a transpose).

``proved`` when one reading is proved (for every size of the named dims);
``refuted`` only at dims where *every* reading fails: the counterexample is
the TRT's at those dims, each reading replayed there (``details["readings"]``);
``unknown`` otherwise.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> r = is_bitcast(shape("f32[2,3,4]{2,1,0}"), shape("f32[4,6]{0,1}"))
>>> r.status, r.property
('proved', 'bitcast (transpose-reshape-transpose)')
>>> r = is_bitcast(shape("f32[2,3,4]{2,1,0}"), shape("f32[4,6]{0,1}"), "reshape")
>>> r.status, r.counterexample.reading
('refuted', 'reshape')
>>> r = is_bitcast(shape("f32[8,128]{1,0:T(8,128)}"), shape("f32[2,512]{1,0:T(8,128)}"))
>>> r.counterexample.side("source").byte_offset != r.counterexample.side("target").byte_offset
True
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

from ...spec import (
    Holds,
    Shape,
    TilespecError,
    XlaCommit,
    num_elements,
    parse_array_shape,
    resolve_xla,
)
from ..core import DEFAULT_TIMEOUT, first_refutation, probe_values, scope
from ..result import (
    PROVED,
    REFUTED,
    UNKNOWN,
    Counterexample,
    ProverBug,
    Result,
    Side,
    counterexample_json,
    counterexample_lines,
)
from . import dynamic, reading as one_reading
from .memo import remembered
from .memory_space import memory_space_violation, memory_spaces_note
from .reading import shape_text
from .reshape_groups import monomial
from .resize import changes_size, resized
from .xla_reading import (
    TRT,
    inverse,
    major_to_minor,
    normalized,
    transpose_candidates,
    trt_counterexample,
    xla_transpose_permutation,
)

RESHAPE = "reshape"
#: Whose order of readings: ``ShapeUtil::DecomposeBitcast`` (xla/shape_util.cc:
#: reshape, then transpose, then TRT, at every version modelled) or the
#: indexing analysis's ``GetBitcastMap`` (xla/hlo/analysis/indexing_analysis.cc),
#: which since 5d1dc54c5f (2026-03-27) tries XLA's deduced transpose before the
#: reshape (for a source of rank >= 1), a pair that is both then read as a
#: transpose; before it, ``GetBitcastMap`` took ``DecomposeBitcast``'s answer.
DECOMPOSE_BITCAST = "DecomposeBitcast"
GET_BITCAST_MAP = "GetBitcastMap"
ORDERS = (DECOMPOSE_BITCAST, GET_BITCAST_MAP)
PREFER_TRANSPOSE = resolve_xla("5d1dc54c5f")
#: Where ``GetBitcastMap`` reads a transpose first.
TRANSPOSE_FIRST = Holds(since=PREFER_TRANSPOSE)
#: Why ``GetBitcastMap`` reads no bitcast that changes the element count:
#: it returns ``IndexingMap::GetUndefined()`` unless
#: ``ShapeUtil::IsDecomposableBitcast`` (equal ``ElementsIn``) holds, directly
#: since 5d1dc54c5f and through ``DecomposeBitcast`` before it.
UNDEFINED_MAP = ("GetBitcastMap, xla/hlo/analysis/indexing_analysis.cc, and "
                 "ShapeUtil::IsDecomposableBitcast, xla/shape_util.cc (ROCm/xla "
                 "183fa00cb5d82384463a1a7aed1ab06bc9026974; ec6acecead alike)")
#: Dims tried for named dims, beyond the readings' own counterexamples.
MAX_CANDIDATES = 12


def reading_name(reading) -> str:
    """``"reshape"``, ``"transpose 1,0"`` or the TRT's name.

    >>> reading_name((1, 0)), reading_name(None)
    ('transpose 1,0', 'reshape')
    """
    if reading is None or reading == RESHAPE:
        return RESHAPE
    if reading == TRT:
        return TRT
    return "transpose " + ",".join(map(str, reading))


# --- one reading ---------------------------------------------------------------------------

def _named(r: Result, reading: str) -> Result:
    """``r`` with its counterexample naming the reading tried."""
    if r.counterexample is None:
        return r
    return dataclasses.replace(
        r, counterexample=dataclasses.replace(r.counterexample, reading=reading))


def decide_reading(src: Shape, dst: Shape, reading=RESHAPE, *,
                   timeout: float = DEFAULT_TIMEOUT) -> Result:
    """One reading (``"reshape"`` or a permutation), judged on bytes, with a
    typed counterexample."""
    transpose = None if reading in (None, RESHAPE) else tuple(reading)
    return remembered(_decide_reading, src, dst, transpose, timeout)


def _decide_reading(src: Shape, dst: Shape, transpose, timeout: float) -> Result:
    name = reading_name(transpose)
    if src == dst and (transpose is None or transpose == tuple(range(src.rank))):
        # One shape paired with itself: every element keeps its offset by
        # reflexivity (XLA's TRT steps, same-layout copies).
        q = one_reading.question(src, dst, transpose)
        return Result(q.text, f"bitcast ({name})",
                      PROVED, 0.0, _where(src, dst),
                      steps=("SRC and DST are one shape and the pairing is the "
                             "identity: every element keeps its offset",), shapes=(q.src, q.dst))
    if not dynamic.is_dynamic_pair(src, dst):
        return _named(one_reading.prove_reading(src, dst, transpose, timeout=timeout), name)
    if transpose is None:
        return _named(dynamic.prove_dynamic_reshape(src, dst, timeout=timeout), name)
    # A transpose pairs e with its permutation whatever the runtime sizes,
    # and the offsets are the bound's: the bound decides every runtime size
    # where each DST dim varies as the SRC dim it is.
    q = one_reading.question(src, dst, transpose)
    p = tuple(transpose)
    vs, vd = set(dynamic.varying(src)), set(dynamic.varying(dst))
    r = one_reading.prove_reading(src, dst, transpose, timeout=timeout)
    if r.status == PROVED and any((p[i] in vs) != (i in vd) for i in range(dst.rank)):
        # the bound, where every array is full, is one runtime size: a
        # refutation there stands, a proof covers no other size
        return Result(q.text, q.what, UNKNOWN, r.seconds, _where(src, dst), shapes=(src, dst),
                      reason="proved at the bound, but a dim is dynamic on one side of the "
                      "transpose and static on the other: its runtime sizes below the "
                      "bound are not modelled")
    return _named(dataclasses.replace(r, scope=_where(src, dst), steps=(
        "a transpose pairs the elements of every runtime size as at the bound",
        *r.steps)), name)


def _where(src: Shape, dst: Shape) -> str:
    """What a verdict on SRC -> DST covers: the named dims' sizes, the
    dynamic dims' runtime sizes, or the given sizes."""
    named = (scope(src) if src.is_symbolic else scope(dst) if dst.is_symbolic
             else "concrete")
    if not dynamic.is_dynamic_pair(src, dst):
        return named
    runtime = dynamic.runtime_scope(src, dst)
    return runtime if named == "concrete" else f"{named}; {runtime}"


def transposes(src: Shape, dst: Shape, *, timeout: float = DEFAULT_TIMEOUT, ask=None):
    """Which transposes of SRC to DST keep every byte: each permutation that
    lines DST's dims up with SRC's (XLA's deduced one first,
    :func:`~.xla_reading.transpose_candidates`) with its Result, decided as it
    is yielded (``ask(p)``, default :func:`decide_reading`), so a caller may
    stop at the first proof.

    Not a search of :func:`~prover.core.search.drive`: that one looks for
    the dims that refute one question; here each candidate is a question of
    its own (a reading), decided for every size of the dims.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> [(p, r.status) for p, r in transposes(shape("f32[4,4]{1,0}"), shape("f32[4,4]{0,1}"))]
    [((1, 0), 'proved'), ((0, 1), 'refuted')]
    """
    for p in transpose_candidates(src, dst):
        yield p, (decide_reading(src, dst, p, timeout=timeout) if ask is None else ask(p))


# --- XLA's order -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Trt:
    """XLA's transpose-reshape-transpose for SRC -> DST: transpose SRC by
    ``transpose1`` into ``transpose1_shape`` (its dims in physical order,
    the same bytes), reshape to ``reshape_shape`` (DST's likewise), then
    transpose by ``transpose2`` into DST."""

    transpose1: tuple[int, ...]
    transpose1_shape: Shape
    reshape_shape: Shape
    transpose2: tuple[int, ...]

    @classmethod
    def of(cls, src: Shape, dst: Shape) -> "Trt":
        """The TRT XLA reads between ``src`` and ``dst``.

        >>> from tilespec.spec.text import parse_array_shape as shape
        >>> t = Trt.of(shape("f32[2,3,4]{2,1,0}"), shape("f32[4,6]{0,1}"))
        >>> t.transpose1, shape_text(t.reshape_shape), t.transpose2
        ((0, 1, 2), 'f32[6,4]{1,0}', (1, 0))
        """
        return cls(major_to_minor(src), normalized(src), normalized(dst),
                   inverse(major_to_minor(dst)))

    def to_json(self) -> dict:
        return {"transpose1": list(self.transpose1),
                "transpose1_shape": shape_text(self.transpose1_shape),
                "reshape_shape": shape_text(self.reshape_shape),
                "transpose2": list(self.transpose2)}


@dataclass(frozen=True)
class Decomposition:
    """The record of :func:`is_bitcast` in XLA's order: ``src`` and ``dst``
    the shapes asked about (text is parsed here, once); ``verdict`` its
    Result (``verdict.shape`` the pair as text); ``kind`` the first reading
    proved (``reshape``, ``transpose``, ``trt``) or None; ``permutations``
    every transpose proved; ``trt`` XLA's TRT where it was tried; ``tried``
    each reading with its Result."""

    src: Shape
    dst: Shape
    verdict: Result
    kind: str | None
    permutations: tuple[tuple[int, ...], ...]
    xla_permutation: tuple[int, ...] | None
    trt: Trt | None
    tried: tuple[tuple[str, Result], ...]
    cached: bool = field(default=False, compare=False)

    def __post_init__(self):
        for name in ("src", "dst"):
            value = getattr(self, name)
            if isinstance(value, str):
                object.__setattr__(self, name, parse_array_shape(value))

    @property
    def status(self) -> str:
        return self.verdict.status

    @property
    def counterexample(self) -> Counterexample | None:
        return self.verdict.counterexample

    @property
    def reason(self) -> str | None:
        return self.verdict.reason

    @property
    def seconds(self) -> float:
        return self.verdict.seconds

    @property
    def text(self) -> str:
        """``SRC -> DST`` as XLA prints the shapes."""
        return self.verdict.shape

    def result(self, name: str) -> Result | None:
        return next((r for n, r in self.tried if n == name), None)

    def to_json(self) -> dict:
        src, _, dst = self.text.partition(" -> ")
        return {"src": src, "dst": dst, "status": self.status,
                "kind": self.kind,
                "permutations": [list(p) for p in self.permutations],
                "xla_permutation": None if self.xla_permutation is None
                else list(self.xla_permutation),
                "trt": None if self.trt is None else self.trt.to_json(),
                "tried": [{"as": n, **r.to_json()} for n, r in self.tried],
                "counterexample": None if self.verdict.counterexample is None
                else counterexample_json(self.verdict.counterexample),
                "reason": self.reason,
                "seconds": round(self.seconds, 6)}


def _check_pair(src: Shape, dst: Shape) -> None:
    for name, s in (("SRC", src), ("DST", dst)):
        if not isinstance(s, Shape):
            raise TilespecError(f"{name} must be an array shape, not a tuple")
    if any(d is None for d in src.dims + dst.dims):
        one_reading.question(src, dst)
    if not (src.is_symbolic or dst.is_symbolic):
        # other counts or widths: a verdict of :mod:`.resize`
        return
    zs, zd = 0 in src.dims, 0 in dst.dims
    if not (zs == zd and (zs or monomial(src.dims) == monomial(dst.dims))):
        # as for a reshape: bad input, not a verdict
        one_reading.question(src, dst)


def decompose(src: Shape, dst: Shape, *, timeout: float = DEFAULT_TIMEOUT,
              constant_operand: bool = False, xla: str | XlaCommit | None = None,
              order: str = DECOMPOSE_BITCAST) -> Decomposition:
    """:func:`is_bitcast` in XLA's order, with the record of every reading.
    A pair XLA's verifier at ``xla`` (default the newest modelled) rejects
    for its memory spaces (:func:`~.memory_space.memory_space_violation`) is
    refuted before any reading is tried.  ``order``: :data:`DECOMPOSE_BITCAST`
    (reshape first) or :data:`GET_BITCAST_MAP` (at ``xla`` since
    5d1dc54c5f, XLA's transpose first; the verdict is the same, the reading
    named may differ, except that ``GetBitcastMap`` reads no change of the
    element count: refuted, where ``DECOMPOSE_BITCAST`` tries tilespec's
    prefix, suffix and slice readings).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> a, b = shape("f32[1,250]{0,1}"), shape("f32[250,1]{1,0}")
    >>> decompose(a, b).kind, decompose(a, b, order=GET_BITCAST_MAP).kind
    ('reshape', 'transpose')
    >>> decompose(a, b, order=GET_BITCAST_MAP, xla="2026-03-20").kind
    'reshape'
    >>> c, d = shape("f32[1024]{0:T(1024)}"), shape("f32[1000]{0:T(1024)}")
    >>> decompose(c, d).kind, decompose(c, d, order=GET_BITCAST_MAP).status
    ('prefix', 'refuted')

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> d = decompose(shape("f32[4,8]{1,0}"), shape("f32[8,4]{0,1}"))
    >>> d.status, d.kind, d.permutations, d.xla_permutation
    ('proved', 'transpose', ((1, 0),), (1, 0))
    >>> d = decompose(shape("f32[1,8]{1,0:S(5)}"), shape("f32[8]{0}"))
    >>> d.status, d.tried
    ('refuted', ())
    """
    if order not in ORDERS:
        raise TilespecError(f"order {order!r} is not one of {', '.join(ORDERS)}")
    return remembered(_decompose, src, dst, timeout, constant_operand, resolve_xla(xla),
                       order)


def _decompose(src: Shape, dst: Shape, timeout: float,
               constant_operand: bool = False, xla: XlaCommit | None = None,
               order: str = DECOMPOSE_BITCAST) -> Decomposition:
    start = time.perf_counter()
    xla = resolve_xla(xla)
    _check_pair(src, dst)
    text = f"{shape_text(src)} -> {shape_text(dst)}"
    where = _where(src, dst)
    tried: list[tuple[str, Result]] = []
    xla_permutation = xla_transpose_permutation(src, dst)

    def done(status, kind=None, perms=(), trt=None, ce=None, reason=None, steps=(),
             by=None):
        # a reading that covers fewer runtime sizes says so in the verdict
        at = where if by is None or dynamic.NOT_COVERED not in by.scope else (
            where + dynamic.NOT_COVERED + by.scope.split(dynamic.NOT_COVERED, 1)[1])
        prop = "bitcast" if kind is None else f"bitcast ({TRT if kind == 'trt' else kind})"
        if kind == "transpose":
            prop = f"bitcast ({reading_name(perms[0])})"
        if status == PROVED:
            steps = _with_memory_spaces(src, dst, steps, constant_operand, xla)
            if src.element_type != dst.element_type:
                steps = (*steps, f"the element types {src.element_type} and "
                         f"{dst.element_type} differ: the reading pairs element "
                         "positions, each keeping its bits")
        verdict = Result(text, prop, status, time.perf_counter() - start, at,
                         counterexample=ce, reason=reason, steps=tuple(steps), shapes=(src, dst))
        return Decomposition(verdict=verdict, kind=kind, permutations=tuple(perms), trt=trt,
                             tried=tuple(tried), src=src, dst=dst,
                             xla_permutation=xla_permutation)

    rejected = memory_space_violation(src, dst, constant_operand=constant_operand, xla=xla)
    if rejected is not None:
        return done(REFUTED, ce=rejected, reason=rejected.what)
    if order == GET_BITCAST_MAP and not (src.is_symbolic or dst.is_symbolic) \
            and num_elements(src) != num_elements(dst):
        # the prefix, suffix and slice readings are tilespec's, not the
        # indexing analysis's: it has no map to read them by
        why = (f"GetBitcastMap has no indexing map for it: the element counts differ "
               f"({num_elements(src)} against {num_elements(dst)}), so "
               "IsDecomposableBitcast fails and the map is undefined")
        ce = Counterexample({}, (Side("source", shape=shape_text(src), value=num_elements(src)),
                                 Side("target", shape=shape_text(dst), value=num_elements(dst))),
                            what=why, details={"xla": UNDEFINED_MAP})
        return done(REFUTED, ce=ce, reason=why)
    if not (src.is_symbolic or dst.is_symbolic) and changes_size(src, dst):
        other = resized(src, dst)
        tried.extend(other.tried)
        r = other.result
        if r.status == PROVED:
            return dataclasses.replace(
                done(PROVED, other.kind, steps=r.steps),
                verdict=dataclasses.replace(done(PROVED, steps=r.steps).verdict,
                                            property=r.property))
        return done(r.status, ce=r.counterexample, reason=r.reason)
    if src.element_bits != dst.element_bits:
        return done(REFUTED, ce=one_reading.width_counterexample(src, dst), reason="no reshape, transpose or TRT pairs the "
                    "elements: element widths differ")
    if order == GET_BITCAST_MAP and TRANSPOSE_FIRST.holds_at(xla) and src.rank \
            and xla_permutation is not None:
        p = xla_permutation
        rp = decide_reading(src, dst, p, timeout=timeout)
        tried.append((reading_name(p), rp))
        if rp.status == PROVED:
            return done(PROVED, "transpose", (p,), steps=(
                *rp.steps, f"GetBitcastMap reads XLA's transpose before the reshape "
                f"(since {PREFER_TRANSPOSE.label}; XLA {xla.label})"))
    r = decide_reading(src, dst, RESHAPE, timeout=timeout)
    tried.append((RESHAPE, r))
    if r.status == PROVED:
        return done(PROVED, RESHAPE, steps=r.steps, by=r)
    transposed = tuple(transposes(src, dst, timeout=timeout))
    tried.extend((reading_name(p), rp) for p, rp in transposed)
    perms = [p for p, rp in transposed if rp.status == PROVED]
    if perms:
        return done(PROVED, "transpose", perms,
                    steps=next(r.steps for n, r in tried if n == reading_name(perms[0])))
    trt = Trt.of(src, dst)
    ns, nd = trt.transpose1_shape, trt.reshape_shape
    steps = [decide_reading(src, ns, trt.transpose1, timeout=timeout),
             decide_reading(ns, nd, RESHAPE, timeout=timeout),
             decide_reading(nd, dst, trt.transpose2, timeout=timeout)]
    for name, rs in zip(("TRT transpose1", "TRT reshape", "TRT transpose2"), steps):
        tried.append((name, rs))
    if all(rs.status == PROVED for rs in steps):
        return done(PROVED, "trt", trt=trt, steps=steps[1].steps, by=steps[1])
    if steps[0].status == REFUTED or steps[2].status == REFUTED:
        bad = steps[0] if steps[0].status == REFUTED else steps[2]
        raise ProverBug(f"a TRT transpose into physical order moved bytes: {bad.shape}")
    if not (src.is_symbolic or dst.is_symbolic):
        if any(rs.status == UNKNOWN for _, rs in tried):
            return done(UNKNOWN, trt=trt, reason=_unknowns(tried))
        ce = trt_counterexample(src, dst, _refuting(steps[1]))
        # what each reading's own replayed counterexample shows, one line
        # each (the whole of each is in the decomposition's ``tried``)
        readings = {n: _in_one_line(_refuting(rs)) for n, rs in tried
                    if n in (RESHAPE, "TRT reshape") or n.startswith("transpose")}
        return done(REFUTED, trt=trt, ce=ce.with_details(readings=readings),
                    reason="no reshape, transpose or TRT keeps every byte in place")
    # Named dims: a counterexample must refute every reading at the same dims.
    found, tried_dims = _all_readings_fail(src, dst, tried, timeout, xla, order)
    if found is not None:
        values, d = found
        return done(REFUTED, trt=trt, ce=_refuting(d.verdict).at(values),
                    reason=f"at {_show(values)} no reshape, transpose or TRT keeps "
                    "every byte in place (each replayed there)")
    why = _unknowns(tried) or "no reading proved for every size"
    return done(UNKNOWN, trt=trt, reason=f"{why}; every reading failed together at none "
                f"of the dims {', '.join(map(_show, tried_dims))}")


def _refuting(r: Result) -> Counterexample:
    """The counterexample of a refuted reading (a refutation carries one)."""
    if r.counterexample is None:
        raise ProverBug(f"{r.property} refuted without a counterexample")
    return r.counterexample


def _in_one_line(ce: Counterexample) -> str:
    """What differs and each side, on one line.

    >>> from tilespec.prover.result import Side
    >>> _in_one_line(Counterexample({}, (Side("source", offset=1), Side("target", offset=2)),
    ...                             what="the offsets differ"))
    'the offsets differ: source offset 1; target offset 2'
    """
    return f"{ce.what}: " + "; ".join(f"{s.name} {s.describe()}" for s in ce.sides)


def _unknowns(tried) -> str:
    return "; ".join(f"{n}: {rs.reason}" for n, rs in tried if rs.status == UNKNOWN)


def _show(values: dict) -> str:
    return "{" + ", ".join(f"{k}={v}" for k, v in values.items()) + "}"


def _all_readings_fail(src: Shape, dst: Shape, tried, timeout, xla, order):
    """Dims where the concrete bitcast is refuted -- every reading XLA would
    try there fails, each with a replayed counterexample -- and the dims
    tried: the readings' own counterexamples' dims first, then probes, at
    most :data:`MAX_CANDIDATES` (:func:`~prover.core.search.first_refutation`)."""
    names = tuple(dict.fromkeys(src.names + dst.names))
    candidates = [dict(rs.counterexample.dim_values) for _, rs in tried
                  if rs.counterexample is not None and rs.counterexample.dim_values]
    candidates += list(probe_values(names))

    def refute(values):
        d = decompose(src.instantiate(values), dst.instantiate(values), timeout=timeout,
                      xla=xla, order=order)
        return (values, d) if d.status == REFUTED else None

    return first_refutation(candidates, refute, limit=MAX_CANDIDATES)


# --- the one question ------------------------------------------------------------------------

def is_bitcast(src: Shape, dst: Shape, reading=None, *,
               timeout: float = DEFAULT_TIMEOUT, constant_operand: bool = False,
               xla: str | XlaCommit | None = None) -> Result:
    """Is SRC -> DST a bitcast?  ``reading`` None: in XLA's order (reshape,
    transpose, TRT); ``"reshape"``: only as a reshape; a permutation: only as
    that transpose (DST dim i is SRC dim ``reading[i]``).

    Whatever the reading, a bitcast XLA's verifier rejects for its memory
    spaces (host memory ``S(5)`` on one side only,
    :func:`~.memory_space.memory_space_violation`) is refuted, however its
    bytes lie; ``constant_operand``: the operand is a constant (through
    copies), which the verifier lets change memory space; ``xla``: the XLA
    whose verifier is asked (default the newest modelled; before 8a84ad7ef7
    it compared no memory spaces).

    The counterexample is a :class:`~tilespec.prover.result.Counterexample`:
    sides ``source`` and ``target`` (element, offset in elements, byte and
    bit offset; or the byte sizes, or the element bits), ``dim_values``, and
    the ``reading`` tried.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> is_bitcast(shape("f32[8,256]{1,0}"), shape("f32[256,8]{0,1}"), (1, 0)).status
    'proved'
    >>> r = is_bitcast(shape("f32[8,128]{1,0}"), shape("f32[8,128]{1,0:S(5)}"), "reshape")
    >>> r.status, r.counterexample.what.startswith("one side in host memory")
    ('refuted', True)
    """
    if reading is None:
        return decompose(src, dst, timeout=timeout, constant_operand=constant_operand,
                         xla=xla).verdict
    transpose = None if reading == RESHAPE else tuple(reading)
    q = one_reading.question(src, dst, transpose)
    rejected = memory_space_violation(src, dst, constant_operand=constant_operand, xla=xla)
    if rejected is not None:
        return Result(q.text, f"bitcast ({reading_name(transpose)})", REFUTED, 0.0,
                      _where(src, dst),
                      counterexample=dataclasses.replace(
                          rejected, reading=reading_name(transpose)),
                      reason=rejected.what, shapes=(q.src, q.dst))
    r = decide_reading(src, dst, reading, timeout=timeout)
    if r.status != PROVED:
        return r
    return dataclasses.replace(r, steps=_with_memory_spaces(src, dst, r.steps,
                                                            constant_operand, xla))


def _with_memory_spaces(src: Shape, dst: Shape, steps, constant_operand: bool,
                        xla: str | XlaCommit | None) -> tuple:
    """A proof's steps, with what the verifier says of different memory spaces."""
    note = memory_spaces_note(src, dst, constant_operand=constant_operand, xla=xla)
    return tuple(steps) + ((note,) if note else ())


def describe(r: Result) -> str:
    """A few lines for a person."""
    return one_reading.describe(r)


def describe_decomposition(d: Decomposition) -> str:
    """A few lines for a person: the verdict, how it was read, each reading."""
    head = {PROVED: f"bitcast: proved as a {d.kind}", REFUTED: "not a bitcast: refuted",
            UNKNOWN: "unknown"}[d.status]
    lines = [f"{head} ({d.verdict.scope}) -- {d.text}  [{d.seconds:.3f} s]"]
    if d.kind == "transpose":
        lines.append("  permutation(s) that keep every byte: "
                     + "; ".join(",".join(map(str, p)) for p in d.permutations)
                     + (f" (XLA deduces {','.join(map(str, d.xla_permutation))})"
                        if d.xla_permutation is not None else ""))
    if d.trt:
        lines.append(f"  TRT: transpose {','.join(map(str, d.trt.transpose1))} -> "
                     f"{shape_text(d.trt.transpose1_shape)}, reshape -> "
                     f"{shape_text(d.trt.reshape_shape)}, "
                     f"transpose {','.join(map(str, d.trt.transpose2))}")
    if d.verdict.counterexample is not None:
        # a rule broken by the shapes themselves has no element to replay
        replayed = any(s.element is not None for s in d.verdict.counterexample.sides)
        lines.append("  counterexample (replayed):" if replayed else "  counterexample:")
        lines += counterexample_lines(d.verdict.counterexample, "    ")
    if d.reason:
        lines.append(f"  reason: {d.reason}")
    for n, r in d.tried:
        lines.append(f"  - as {n}: {r.status}")
    return "\n".join(lines)
