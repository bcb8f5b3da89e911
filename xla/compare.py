"""tilespec's answers beside real XLA's, each difference named.

For a shape text, :func:`compare` asks XLA (through :mod:`.real`) and
tilespec (its parser, printer, the spec's padded size and its model of
XLA's ``ShapeUtil::ArraySize``) and lists every difference as either a
*divergence* documented in :data:`DIVERGENCES` (and in docs/xla.md), where
tilespec follows the layout document or rejects text XLA only takes by
accident, or a *bug*: a disagreement nothing explains.

>>> from tilespec.xla import real
>>> if real.available():
...     c, = compare(["f32[3]{0:L(4)}"])
...     print(c.spec_bytes, c.model_bytes, c.xla.array_size,
...           [d.name for d in c.differences])
... else:
...     print("16 12 12 ['untiled-L']")
16 12 12 ['untiled-L']
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from ..prover.models import xla_array_bytes
from ..spec import (
    COMBINE,
    BufferShape,
    Shape,
    TilespecError,
    TupleShape,
    byte_size,
    format_shape,
    parse_array_shape,
    read_shape,
)
from . import real

#: Documented divergences between XLA's code and the layout document (or
#: tilespec's own extensions), by name: a title and where XLA shows it.
DIVERGENCES = {
    "untiled-L": (
        "XLA applies L(n) (tail padding alignment) only to tiled layouts; the "
        "spec, after the shape proto's description, applies it to every array",
        "openxla/xla xla/shape_util.cc, ShapeUtil::ArraySize"),
    "first-tile-only": (
        "XLA sizes a tiled array by its first tile only; the spec pads for "
        "every tiling level, as the document's pad-reshape-transpose does",
        "openxla/xla xla/shape_util.cc, ShapeUtil::ArraySize"),
    "split-configs": (
        "XLA sizes an array with split configs SC(d:i,...) by its largest "
        "split of each split dim (LayoutUtil::MaxSplitSize); the document has "
        "no split configs and the spec sizes the whole array",
        "openxla/xla xla/layout_util.cc, LayoutUtil::MaxSplitSize; "
        "xla/shape_util.cc, ShapeUtil::ArraySize"),
    "combined-dims": (
        "the document's combined dimension '*' (XLA's Tile::kCombineDimension, "
        "INT64_MIN) parses, prints and passes XLA's layout validator, but the "
        "CPU compiler cannot produce an array in such a layout (RET_CHECK "
        "'dimension >= 0' in xla/layout.h), so its ArraySize is not measured; "
        "tilespec follows the document",
        "openxla/xla xla/layout.h, Tile; xla/shape_util.cc, ShapeUtil::ArraySize"),
    "cpu-device-layout": (
        "the CPU compiler changes the layout it is given before allocating: it "
        "drops E(n) on types of 8 bits or more and S(n), and packs sub-byte "
        "types with E(bits); XLA's ArraySize is measured on that layout",
        "observed on the binary (the layout read back after compiling); the "
        "openxla/xla pass responsible was not pinned down"),
    "memory-space-8bit": (
        "XLA keeps S(n) in 8 bits (S(300) prints as S(44)); tilespec rejects "
        "what does not fit and says what XLA would read",
        "openxla/xla xla/layout.h, class Layout, member memory_space_ (int8_t)"),
    "array-size-wraps": (
        "XLA accepts L(n) up to 2^63-1, and ShapeUtil::ArraySize computes the "
        "padded size in int64 with no overflow check: past 2^63-1 bytes it "
        "wraps (undefined behaviour in C++; two's complement on the binary) and "
        "XLA allocates by the wrapped value; the spec's size is the true one "
        "(an XLA defect: docs/xla.md, array-size-wraps)",
        "openxla/xla xla/shape_util.cc, ShapeUtil::ArraySize"),
    "int64-wrap": (
        "XLA's lexer reads 2^63 to 2^64-1 as uint64 and bit-casts it to int64, "
        "so such a number wraps to a negative one (2^63 as a tile entry is '*'); "
        "tilespec rejects the text and says what XLA makes of it",
        "openxla/xla xla/hlo/parser/hlo_lexer.cc, HloLexer::LexInt64Impl"),
    "parser-slack": (
        "XLA's layout parser drops its field parsers' verdicts and reads on "
        "from the token that failed (a field or tile without its ')', a stray "
        "'*'); tilespec rejects the text and says what XLA reads instead",
        "openxla/xla xla/hlo/parser/hlo_parser.cc, HloParserImpl::ParseLayout"),
    "named-dims": (
        "a dim given by a name is tilespec's extension for proofs over all "
        "sizes; XLA's parser expects an integer", "tilespec"),
    "int64-dims": (
        "dims whose sizes, element count or byte size leave int64: XLA's "
        "parser rejects them or XLA aborts; tilespec's range check for dims "
        "is in spec/layout.py",
        "observed on the binary (parse error, or abort: 'overflow in static "
        "extent product')"),
    "no-sized-type": (
        "jax cannot allocate this element type, so XLA's ArraySize is not "
        "measured", "jax"),
}

INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class Difference:
    """One way tilespec's answer differs from XLA's.

    ``kind`` is ``"divergence"`` (``name`` is a key of :data:`DIVERGENCES`)
    or ``"bug"`` (unexplained: a bug in tilespec or in its model of XLA).
    """

    aspect: str
    tilespec: object
    xla: object
    kind: str
    name: str | None
    explanation: str


@dataclass(frozen=True)
class Comparison:
    """What XLA and tilespec say about one text."""

    text: str
    xla: real.Answer
    tilespec_printed: str | None
    tilespec_error: str | None
    spec_bytes: int | None
    model_bytes: int | None
    model_note: str | None
    differences: tuple[Difference, ...]

    @property
    def bugs(self) -> tuple[Difference, ...]:
        return tuple(d for d in self.differences if d.kind == "bug")

    def to_json(self) -> dict:
        data = asdict(self)
        data["xla"] = self.xla.to_json()
        return data


def model_bytes(shape: Shape) -> tuple[int | None, str | None]:
    """XLA's ArraySize in bytes as tilespec models it (prover/models/rules.py), or
    ``None`` and why not."""
    try:
        return xla_array_bytes(shape), None
    except TilespecError as e:
        return None, str(e)


def compare(texts, measure: bool = True,
            timeout: float = real.DEFAULT_TIMEOUT) -> list[Comparison]:
    """One :class:`Comparison` per text, XLA asked once for them all
    (``measure=False``: without XLA's ArraySize, much faster)."""
    texts = list(texts)
    answers = real.ask(texts, measure=measure, timeout=timeout)
    devices = [device_text(t, a) for t, a in zip(texts, answers)]
    return [_compare(t, a, d) for t, a, d in zip(texts, answers, devices)]


def device_text(text: str, answer: real.Answer) -> str | None:
    """The shape with the layout the CPU compiler kept."""
    if answer.device_layout is None or not answer.printed:
        return None
    head = answer.printed[:answer.printed.index("]") + 1]
    layout = answer.device_layout
    return head if layout == "{}" else head + layout


def _compare(text: str, answer: real.Answer, device: str | None) -> Comparison:
    try:
        shape = read_shape(text)
        printed, error = format_shape(shape), None
    except TilespecError as e:
        shape, printed, error = None, None, str(e)
    spec = model = note = None
    if isinstance(shape, Shape) and not shape.is_symbolic and shape.element_type \
            not in ("token", "opaque") and None not in shape.dims:
        try:
            spec = byte_size(shape)
        except TilespecError as e:
            note = str(e)
        model, note = model_bytes(shape)
    diffs = _accept_differences(text, shape, printed, error, answer)
    if answer.array_size is not None and isinstance(shape, Shape):
        diffs += _size_differences(shape, answer, device, spec)
    return Comparison(text, answer, printed, error, spec, model, note, tuple(diffs))


def _divergence(aspect, ours, theirs, name) -> Difference:
    return Difference(aspect, ours, theirs, "divergence", name, DIVERGENCES[name][0])


def _bug(aspect, ours, theirs, explanation) -> Difference:
    return Difference(aspect, ours, theirs, "bug", None, explanation)


def _accept_differences(text, shape, printed, error, answer) -> list[Difference]:
    ours = "accepts" if error is None else "rejects"
    if error is None and answer.accepted:
        if printed != answer.printed:
            return [_bug("print", printed, answer.printed,
                         "tilespec prints the shape differently from XLA's printer")]
        return []
    if error is not None and not answer.accepted:
        return []
    theirs = answer.verdict
    if error is None:  # tilespec accepts what XLA rejects or aborts on
        name = _why_xla_rejects(shape)
        if name:
            return [_divergence("accept", ours, theirs, name)]
        return [_bug("accept", ours, theirs,
                     "tilespec accepts text that real XLA rejects")]
    name = _why_tilespec_rejects(text, error)
    claimed = re.search(r"\(XLA's parser lets this pass: it reads on from there and "
                        r"reads (.*)\) at column", error)
    if claimed and claimed.group(1) != answer.printed:
        return [_bug("accept", error, theirs,
                     "tilespec's message says XLA reads the text otherwise than it does")]
    if name:
        return [_divergence("accept", error, theirs, name)]
    if answer.valid is None and answer.note:
        return [Difference("accept", error, theirs, "divergence", "no-sized-type",
                           f"XLA's validator was not asked ({answer.note}); "
                           "tilespec rejects it")]
    return [_bug("accept", error, theirs, "tilespec rejects text that real XLA accepts")]


def _leaves(shape):
    if isinstance(shape, TupleShape):
        for e in shape.elements:
            yield from _leaves(e)
    elif isinstance(shape, BufferShape):
        yield shape.array
    else:
        yield shape


def _why_xla_rejects(shape) -> str | None:
    leaves = list(_leaves(shape))
    if any(s.is_symbolic for s in leaves):
        return "named-dims"
    if any(any(COMBINE in t.sizes for t in s.layout.tiles) for s in leaves):
        return "combined-dims"
    for s in leaves:
        # XLA multiplies the dims out even when one of them is 0.
        n = 1
        for d in s.dims:
            n *= max(d, 1) if isinstance(d, int) else 1
        if n * max(s.element_bits // 8, 1) > INT64_MAX or any(
                isinstance(d, int) and d > INT64_MAX for d in s.dims):
            return "int64-dims"
    return None


def _why_tilespec_rejects(text, error) -> str | None:
    if "XLA's lexer wraps it" in error:
        return "int64-wrap"
    if "8-bit field" in error:
        return "memory-space-8bit"
    if "XLA's parser lets this pass" in error:
        return "parser-slack"
    return None


def _size_differences(shape, answer, device, spec) -> list[Difference]:
    measured = answer.array_size
    if measured is not None and measured >= 2**63:
        # The CPU client reports ArraySize through an unsigned size_t: the
        # int64 XLA computed is the same bits read as signed.
        measured -= 2**64
    out = []
    dev_shape = None
    if device is not None:
        try:
            dev_shape = parse_array_shape(device)
        except TilespecError:
            dev_shape = None
    if dev_shape is None:
        return [_bug("array_size", None, measured,
                     f"tilespec cannot read the layout XLA kept: {device}")]
    model, note = model_bytes(dev_shape)
    if model is not None and model != measured:
        out.append(_bug("array_size (model)", model, measured,
                        "tilespec's model of ShapeUtil::ArraySize "
                        "(prover/models/rules.py) disagrees with XLA"))
    if spec is None or spec == measured:
        return out
    reasons = []
    if dev_shape.layout != shape.layout:
        reasons.append("cpu-device-layout")
    layout = dev_shape.layout
    if not layout.tiles and layout.tail_padding_alignment_in_elements > 1:
        reasons.append("untiled-L")
    if len(layout.tiles) > 1:
        reasons.append("first-tile-only")
    if layout.split_configs:
        reasons.append("split-configs")
    if spec >= 2**63:   # past int64: XLA's ArraySize has wrapped
        reasons.append("array-size-wraps")
    explained = model == measured and reasons
    if not explained:
        out.append(_bug("array_size (spec)", spec, measured,
                        "the spec's padded size differs from XLA's ArraySize "
                        "for no documented reason"))
    for name in reasons if explained else ():
        out.append(_divergence("array_size (spec)", spec, measured, name))
    return out
