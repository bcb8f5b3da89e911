"""Regression cases for a layout: every boundary class, then random ones.

A case is a shape (XLA text), an element (logical index) or ``None`` for a
padding position, its offset in elements and its byte offset -- all from the
spec.  Cases come in two kinds:

* *Boundary classes*, one witness each, found by Z3 on the spec's own stage
  pipeline (so a class is whatever the layout really has, level by level):

  - ``first element`` / ``last element`` and ``first offset`` / ``last offset``;
  - for each tiling level and each tiled entry with a tile > 1: the first and
    the last index within a tile, and an index in the last (maybe partial)
    tile;
  - for each padded entry of each level: a padding offset that is padding
    because of that entry (``element: None``);
  - for each ``*`` combination: the last index before a carry into the more
    major dim, and the first after it.

  A class can be empty (no padding where a tile divides its dim; no second
  tile in a dim that fits in one): it is recorded as empty, with the
  solver's ``unsat``.  Every witness is replayed: the class's condition is
  evaluated again on ints, and the offset comes from
  :func:`spec.index.offset`.
* *Random cases*: elements drawn uniformly with numpy (seeded) and a share
  of random offsets (some land on padding), computed with the vectorised
  :func:`spec.index.offsets` / :func:`spec.index.locate_many`.

* A *size case* per shape: its aligned element count and byte size
  (:mod:`spec.size`), present in every output format.

Machine integers: XLA computes offsets and sizes in int64, so every
expected value is exact and fits int64.  A shape whose padded size is beyond
2^63 - 1 elements or bytes is refused (:func:`check_int64`); random cases of
arrays past :data:`NUMPY_EXACT_BITS` bits are computed on Python ints, and
byte offsets never form the product ``offset * bits`` in int64.

Everything is deterministic for a seed.  :func:`write_jsonl`,
:func:`pytest_module` and :func:`gtest_source` (in
:mod:`prover.regress.formats`) write a suite out; :func:`from_counterexamples`
turns refuted XLA rules (:mod:`prover.models.rules`) into cases.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> suite = generate([shape("f32[3,5]{1,0:T(2,2)}")], count=4, seed=1)
>>> [c.klass for c in suite.cases][:4]
['first element', 'last element', 'first offset', 'last offset (padding)']
>>> c = next(c for c in suite.cases if c.klass.startswith("level 1 padding"))
>>> c.element is None, c.offset
(True, 14)
>>> [o.name for o in boundary(shape("f32[4,6]{1,0:T(2,2)}")) if o.status == "empty"]
['level 1 padding of dim 0 (tile 2)', 'level 1 padding of dim 1 (tile 2)']
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import z3

from ...spec import (
    INT,
    INT64_MAX,
    Combine,
    Pad,
    Shape,
    Split,
    TilespecError,
    aligned_elements,
    byte_size,
    concrete_dims,
    delinearise,
    dims_through,
    format_shape,
    linear_index,
    locate,
    locate_many,
    offset,
    offsets,
    padded_elements,
    parse_array_shape,
    product,
    shape_pipeline,
)
from ..core import DEFAULT_TIMEOUT, Encoding, search
from ..models import rules
from ..names import counted
from ..result import ProverBug

#: Share of the random cases drawn as offsets (padding included).
OFFSET_SHARE = 8


@dataclass(frozen=True)
class Case:
    """One expected value from the spec.  ``kind`` is ``offset`` (element,
    offset, byte offset; element None for padding) or ``size``."""

    shape: str
    klass: str
    element: tuple | None
    offset: int | None
    byte_offset: int | None
    kind: str = "offset"
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        d: dict[str, object] = {"shape": self.shape, "class": self.klass}
        if self.kind == "size":
            d.update(kind="size", **self.extra)
            return d
        d.update(element=None if self.element is None else list(self.element),
                 offset=self.offset, byte_offset=self.byte_offset)
        d.update(self.extra)
        return d


@dataclass(frozen=True)
class ClassOutcome:
    """A boundary class of a shape: its witness case, or why it has none."""

    shape: str
    name: str
    status: str              # 'witness', 'empty' or 'unknown'
    case: Case | None = None
    reason: str = ""


@dataclass(frozen=True)
class RandomCases:
    """Random cases of one shape, as arrays: elements (n, rank) with a mask
    (False = padding offset), offsets and byte offsets."""

    shape: str
    elements: np.ndarray
    is_element: np.ndarray
    offsets: np.ndarray
    byte_offsets: np.ndarray

    def __len__(self) -> int:
        return len(self.offsets)


@dataclass(frozen=True)
class Suite:
    shapes: tuple[str, ...]
    seed: int
    classes: tuple[ClassOutcome, ...]
    random: tuple[RandomCases, ...]
    extra: tuple[Case, ...] = ()
    sizes: tuple[Case, ...] = ()

    @property
    def cases(self) -> list[Case]:
        """Boundary witnesses, size cases and extra cases (random ones are
        in ``random``)."""
        return ([c.case for c in self.classes if c.case is not None] + list(self.sizes)
                + list(self.extra))

    @property
    def count(self) -> int:
        return len(self.cases) + sum(len(r) for r in self.random)


# --- boundary classes ---------------------------------------------------------------

class _Bools:
    """Conditions on ints (Python bools) or Z3 terms, built the same way."""

    def __init__(self, ar, ctx=None):
        self.ar, self.ctx = ar, ctx

    def eq(self, a, b):
        return self._b(self.ar.eq(a, b))

    def ge(self, a, b):
        v = self.ar.lt(a, b)
        return (not v) if isinstance(v, bool) else z3.Not(v)

    def gt(self, a, b):
        return self.ge(a, self.ar.add(b, 1))

    def all(self, parts):
        parts = list(parts)
        if self.ctx is None:
            return all(parts)
        return z3.And([self._b(p) for p in parts]) if parts else z3.BoolVal(True, self.ctx)

    def _b(self, v):
        if self.ctx is not None and isinstance(v, bool):
            return z3.BoolVal(v, self.ctx)
        return v


def _forward_walk(stages, e, dims, ar):
    """(stage, index before it, dims before it) for every stage."""
    out, d = [], tuple(dims)
    for s in stages:
        out.append((s, e, d))
        e, d = s.forward(e, d, ar), s.dims(d, ar)
    return out


def _backward_walk(stages, o, dims, ar):
    """(stage, index after it, dims before it), last stage first, from an offset."""
    through = dims_through(stages, dims, ar)
    e = delinearise(o, through[-1], ar)
    out = []
    for s, d in zip(reversed(stages), reversed(through[:-1])):
        out.append((s, e, d))
        e, _ = s.backward(e, d, ar)
    return out


def _entry_label(shape: Shape, stage, j: int, width: int) -> str:
    """Which dim a tiled entry is, in words."""
    if stage.level == 1 and not shape.layout.tiles[0].combines and \
            len(shape.layout.tiles[0]) <= shape.rank:
        logical = shape.physical_order[shape.rank - width + j]
        return f"dim {logical}"
    return f"entry {j} of the level's tiled entries"


def element_classes(shape: Shape):
    """(name, condition(e, B, ar)) for the element classes of ``shape``."""
    stages = shape_pipeline(shape)
    dims = concrete_dims(shape)
    out = []
    walk_dims = dims_through(stages, dims)
    for i, s in enumerate(stages):
        d_in = walk_dims[i]
        if isinstance(s, Split):
            k = len(s.sizes)
            for j, t in enumerate(s.sizes):
                if t == 1:
                    continue
                what = _entry_label(shape, s, j, k)
                pos = len(d_in) - k + j
                count = -(-d_in[pos] // t)

                def at(cond, i=i, pos=pos):
                    def f(e, B, ar):
                        walk = _forward_walk(stages, e, dims, ar)
                        return cond(walk[i][1][pos], B, ar)
                    return f
                out.append((f"level {s.level} {what} (tile {t}): first index in a tile",
                            at(lambda x, B, ar, t=t: B.eq(ar.mod(x, t), 0))))
                out.append((f"level {s.level} {what} (tile {t}): last index in a tile",
                            at(lambda x, B, ar, t=t: B.eq(ar.mod(x, t), t - 1))))
                out.append((f"level {s.level} {what} (tile {t}): in the last tile",
                            at(lambda x, B, ar, t=t, c=count: B.eq(ar.floordiv(x, t), c - 1))))
        elif isinstance(s, Combine):
            start = 0
            for g, width in enumerate(s.groups):
                if width > 1:
                    lo, hi = start, start + width

                    def run(cond, i=i, lo=lo, hi=hi):
                        def f(e, B, ar):
                            walk = _forward_walk(stages, e, dims, ar)
                            x, d = walk[i][1][lo:hi], walk[i][2][lo:hi]
                            return cond(x, d, B, ar)
                        return f
                    out.append((f"level {s.level} '*' group {g}: last index before a carry",
                                run(lambda x, d, B, ar: B.all([
                                    B.eq(x[-1], d[-1] - 1),
                                    B.gt(product(d), ar.add(linear_index(x, d, ar), 1))]))))
                    out.append((f"level {s.level} '*' group {g}: first index after a carry",
                                run(lambda x, d, B, ar: B.all([
                                    B.eq(x[-1], 0), B.gt(linear_index(x, d, ar), 0)]))))
                start += width
    return out


def padding_classes(shape: Shape):
    """(name, condition(o, B, ar)) for each padded entry of each level."""
    stages = shape_pipeline(shape)
    dims = concrete_dims(shape)
    through = dims_through(stages, dims)
    out = []
    n = len(stages)
    for i, s in enumerate(stages):
        if not isinstance(s, Pad):
            continue
        k = len(s.sizes)
        d_in = through[i]
        for j, t in enumerate(s.sizes):
            pos = len(d_in) - k + j
            if t == 1:
                continue
            what = _entry_label(shape, s, j, k)

            def f(o, B, ar, i=i, pos=pos):
                walk = _backward_walk(stages, o, dims, ar)
                _, e_after, d_before = walk[n - 1 - i]
                return B.ge(e_after[pos], d_before[pos])
            out.append((f"level {s.level} padding of {what} (tile {t})", f))
    return out


def _byte(shape: Shape, o: int) -> int:
    return o * shape.element_bits // 8            # Python ints: exact


def _offset_case(shape: Shape, klass: str, element) -> Case:
    element = tuple(int(x) for x in element)
    o = offset(shape, element)
    return Case(format_shape(shape), klass, element, o, _byte(shape, o))


def _padding_case(shape: Shape, klass: str, o: int) -> Case:
    if locate(shape, o) is not None:
        raise ProverBug(f"padding witness {o} of {format_shape(shape)} is an element")
    return Case(format_shape(shape), klass, None, o, _byte(shape, o))


def boundary(shape: Shape, timeout: float = DEFAULT_TIMEOUT) -> list[ClassOutcome]:
    """One witness per boundary class of a concrete ``shape`` (or empty)."""
    if not isinstance(shape, Shape):
        raise TilespecError("regression cases need an array shape, not a tuple")
    dims = concrete_dims(shape)
    text = format_shape(shape)
    if product(dims) == 0:
        return [ClassOutcome(text, "no elements", "empty", reason="a dim is 0")]
    P = padded_elements(shape)
    out = [ClassOutcome(text, "first element", "witness",
                        _offset_case(shape, "first element", [0] * len(dims))),
           ClassOutcome(text, "last element", "witness",
                        _offset_case(shape, "last element", [d - 1 for d in dims]))]
    for name, o in (("first offset", 0), ("last offset", P - 1)):
        e = locate(shape, o)
        klass = name if e is not None else f"{name} (padding)"
        out.append(ClassOutcome(text, klass, "witness",
                                _offset_case(shape, klass, e) if e is not None
                                else _padding_case(shape, klass, o)))
    ints = _Bools(INT)
    for name, cond in element_classes(shape):
        ctx = z3.Context()
        enc = Encoding(shape, ctx)
        e = enc.fresh("e", len(dims))
        answer, detail = search(z3.And(enc.box(e, dims), cond(e, _Bools(enc.ar, ctx), enc.ar)),
                                ctx, timeout)
        if answer == "sat":
            w = [enc.value(detail, x) for x in e]
            if not cond(tuple(w), ints, INT):
                raise ProverBug(f"class '{name}' witness {w} does not replay")
            out.append(ClassOutcome(text, name, "witness", _offset_case(shape, name, w)))
        elif answer == "unsat":
            out.append(ClassOutcome(text, name, "empty", reason="no element (unsat)"))
        else:
            out.append(ClassOutcome(text, name, "unknown", reason=detail))
    for name, cond in padding_classes(shape):
        ctx = z3.Context()
        enc = Encoding(shape, ctx)
        o = z3.Int("o", ctx)
        answer, detail = search(z3.And(o >= 0, o < P, cond(o, _Bools(enc.ar, ctx), enc.ar)),
                                ctx, timeout)
        if answer == "sat":
            w = detail.eval(o, model_completion=True).as_long()
            if not cond(w, ints, INT):
                raise ProverBug(f"class '{name}' witness {w} does not replay")
            out.append(ClassOutcome(text, name, "witness", _padding_case(shape, name, w)))
        elif answer == "unsat":
            out.append(ClassOutcome(text, name, "empty",
                                    reason="the tile divides this entry: no padding (unsat)"))
        else:
            out.append(ClassOutcome(text, name, "unknown", reason=detail))
    return out


# --- random cases --------------------------------------------------------------------

#: Below this many bits of array (padding and L(n) included), numpy's int64
#: computes every random case exactly: every intermediate of an offset is at
#: most the padded size, and a byte offset at most the byte size, far from
#: 2^63.  Larger arrays are computed case by case on Python's exact ints.
NUMPY_EXACT_BITS = 2**60


def check_int64(shape: Shape) -> None:
    """Refuse a shape whose offsets or byte sizes do not fit int64.

    Expected values are written as int64 (gtest's ``int64_t``), as XLA
    computes them; a padded size beyond 2^63 - 1 elements or bytes has
    offsets XLA cannot compute, so no int64 value is right for them.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> check_int64(shape("s8[144115188075855872,1]{1,0:T(1,128)}"))
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.TilespecError: s8[144115188075855872,1]{1,0:T(1,128)}: its padded size, 18446744073709551616 elements in 18446744073709551616 bytes, is beyond int64 (2^63-1), where XLA computes offsets; regression cases need a padded size below 2^63 elements and bytes
    """
    elements, nbytes = aligned_elements(shape), byte_size(shape)
    if max(elements, nbytes) > INT64_MAX:
        raise TilespecError(
            f"{format_shape(shape)}: its padded size, {elements} elements in {nbytes} "
            "bytes, is beyond int64 (2^63-1), where XLA computes offsets; regression "
            "cases need a padded size below 2^63 elements and bytes")


def byte_offsets(offs: np.ndarray, bits: int) -> np.ndarray:
    """``offs * bits // 8`` without the product: ``o = 8q + r`` gives
    ``q*bits + r*bits // 8``, whose terms stay below the byte offset, so
    int64 holds it whenever the byte offset fits.

    >>> byte_offsets(np.array([2**61, 3]), 32).tolist()
    [9223372036854775808, 12]
    """
    offs = np.asarray(offs)
    if offs.dtype != object and offs.size and \
            int(offs.max()) // 8 * bits + 7 * bits > INT64_MAX:
        offs = offs.astype(object)                 # exact, as Python ints
    return (offs // 8) * bits + (offs % 8) * bits // 8


def random_cases(shape: Shape, count: int, rng: np.random.Generator) -> RandomCases:
    """``count`` random cases: mostly elements, 1 in ``OFFSET_SHARE`` an offset.

    Exact for every shape :func:`check_int64` accepts: vectorised int64 for
    arrays below :data:`NUMPY_EXACT_BITS` bits, Python ints above.
    """
    dims = concrete_dims(shape)
    text = format_shape(shape)
    r = len(dims)
    if count <= 0 or product(dims) == 0:
        z = np.zeros((0,), np.int64)
        return RandomCases(text, np.zeros((0, r), np.int64), z.astype(bool), z, z)
    check_int64(shape)
    n_off = count // OFFSET_SHARE
    n_el = count - n_off
    E = (np.stack([rng.integers(0, d, size=n_el, dtype=np.int64) for d in dims], axis=-1)
         if r else np.zeros((n_el, 0), np.int64))
    P = padded_elements(shape)
    o_off = rng.integers(0, P, size=n_off, dtype=np.int64)
    bits = shape.element_bits
    if aligned_elements(shape) * max(bits, 1) < NUMPY_EXACT_BITS:
        o_el = offsets(shape, E)
        E_off, valid = locate_many(shape, o_off)
    else:
        o_el = np.array([offset(shape, tuple(int(x) for x in e)) for e in E],
                        dtype=np.int64).reshape(n_el)
        found = [locate(shape, int(o)) for o in o_off]
        valid = np.array([f is not None for f in found], dtype=bool)
        E_off = np.array([f if f is not None else (0,) * r for f in found],
                         dtype=np.int64).reshape(n_off, r)
    elements = np.concatenate([E, E_off])
    is_el = np.concatenate([np.ones(n_el, bool), valid])
    offs = np.concatenate([o_el, o_off])
    return RandomCases(text, elements, is_el, offs,
                       byte_offsets(offs, bits).astype(np.int64))


def generate(shapes, *, count: int = 1000, seed: int = 0,
             timeout: float = DEFAULT_TIMEOUT, extra=()) -> Suite:
    """Boundary classes and ``count`` random cases for each shape."""
    shapes = list(shapes)
    for s in shapes:
        if not isinstance(s, Shape):
            raise TilespecError("regression cases need array shapes, not tuples")
        if s.is_symbolic:
            raise TilespecError(f"{format_shape(s)} has named dims; regression cases "
                                "need sizes (e.g. f32[300,500]{1,0:T(8,128)})")
        concrete_dims(s)
        check_int64(s)
    rng = np.random.default_rng(seed)
    classes, rand = [], []
    for s in shapes:
        classes.extend(boundary(s, timeout))
        rand.append(random_cases(s, count, rng))
    sizes = tuple(size_case(s) for s in shapes)
    return Suite(tuple(format_shape(s) for s in shapes), seed, tuple(classes),
                 tuple(rand), tuple(extra), sizes)


def size_case(shape: Shape, klass: str = "size") -> Case:
    """The array's aligned element count and byte size, from :mod:`spec.size`.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> size_case(shape("f32[3,5]{1,0:T(2,2)}")).to_json()
    {'shape': 'f32[3,5]{1,0:T(2,2)}', 'class': 'size', 'kind': 'size', 'aligned_elements': 24, 'byte_size': 96}
    """
    return Case(format_shape(shape), klass, None, None, None, "size",
                {"aligned_elements": aligned_elements(shape), "byte_size": byte_size(shape)})


# --- from refuted XLA rules ---------------------------------------------------------------

def from_counterexamples(shapes=(), *, timeout: float = DEFAULT_TIMEOUT) -> list[Case]:
    """Cases at the counterexamples of the XLA rules that disagree with the
    spec: on ``shapes`` (single-shape rules), or on each rule's documented
    disagreeing examples when no shape is given."""
    out = []
    jobs = []
    if shapes:
        for s in shapes:
            for name, rule in rules.RULES.items():
                if rule.shapes == 1:
                    jobs.append((name, [s], None))
    else:
        for name, rule in rules.RULES.items():
            for ex in rule.disagree:
                if rule.shapes == 1:
                    jobs.append((name, [parse_array_shape(ex)], None))
                else:
                    t = ex[2] if len(ex) > 2 else None
                    jobs.append((name, [parse_array_shape(ex[0]), parse_array_shape(ex[1])], t))
    for name, ss, t in jobs:
        try:
            r = rules.check(name, ss, transpose=t, timeout=timeout)
        except rules.RuleNotApplicable:
            continue
        # where XLA aborts, is undefined or wraps there is no value of XLA's
        # to turn into a regression case
        if r.status == "refuted" and r.xla is None:
            assert r.counterexample is not None  # a refuted Result carries one
            out.extend(_cases_from(name, r.counterexample))
    return out


def _cases_from(rule: str, ce) -> list[Case]:
    if rule == "linear_index":
        xla = ce.side("xla")
        s = parse_array_shape(xla.shape)
        c = _offset_case(s, f"counterexample: XLA's LinearIndex gives {xla.offset}",
                         list(xla.element))
        return [Case(c.shape, c.klass, c.element, c.offset, c.byte_offset,
                     extra={"xla_linear_index": xla.offset})]
    if rule == "array_size":
        s = parse_array_shape(ce.side("xla").shape)
        return [size_case(s, f"counterexample: XLA's ArraySize gives "
                          f"{counted(ce.details['elements']['xla'], 'element')}")]
    if rule not in ("reshape_is_bitcast", "transpose_is_bitcast"):
        return []          # the other rules' answers are not offsets or sizes of one shape
    out = []
    source, target = ce.side("source"), ce.side("target")
    a, b = parse_array_shape(source.shape), parse_array_shape(target.shape)
    what = "bitcast" if ce.details.get("xla_says_bitcast") else "not a bitcast"
    if source.element is not None and target.element is not None:
        out.append(_offset_case(a, f"counterexample: {rule} says {what} (SRC)",
                                list(source.element)))
        out.append(_offset_case(b, f"counterexample: {rule} says {what} (DST)",
                                list(target.element)))
    if "sizes" in ce.details:
        for s, side in ((a, "SRC"), (b, "DST")):
            out.append(size_case(s, f"counterexample: {rule} says {what} ({side} size)"))
    return out
