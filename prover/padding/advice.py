"""Why is my buffer 32x bigger?  The one function that answers it: :func:`advise`.

For one laid-out array: XLA's size (``ShapeUtil::ArraySize`` as
:func:`tilespec.prover.models.array_size.xla_array_bytes` models it), the
spec's padded bytes (:func:`tilespec.spec.size.byte_size`), the unpadded
bytes (:func:`tilespec.spec.size.unpadded_bytes`: elements times the bits
each is stored in); where the padding comes from (each tile
entry of each tiling level, ``E(n)``, ``L(n)``); and alternatives ranked by
XLA's bytes: other layouts of the same array (minor-to-major orders, the TPU
tile families) and reshapes the program could make (dropping unit dims,
merging a small dim into a neighbour).  An alternative is the same array
elsewhere: it changes the dims, their order, the tiles and ``E(n)`` only,
and keeps every other field of the layout (memory space, ``L(n)``, ``M``,
index and pointer types; split configs, dynamic dims and dim level types on
their own dim, or no alternative where that dim is merged or dropped).
Whether going there is a bitcast is :func:`bitcast_verdict`: XLA's size
precondition (:func:`tilespec.prover.models.same_byte_size`) and the one
bitcast function, :func:`tilespec.prover.bitcast.is_bitcast`, each asked once.

>>> a = advise("s32[8388608,8,4]{2,1,0:T(8,128)}")
>>> a.xla_bytes // 2**30, a.unpadded_bytes // 2**30, a.factor
(32, 1, 32.0)
>>> a.sentence
'dim 2 (4) padded to 128 by the minor 128 of T(8,128): 32x'
>>> best = a.alternatives[0]
>>> best.shape, best.xla_bytes // 2**30, best.bitcast, best.proved
('s32[8388608,8,4]{0,1,2:T(8,128)}', 1, False, True)
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from ...spec import (
    Shape,
    ShapeError,
    SplitConfig,
    Tile,
    byte_size,
    format_shape,
    padded_count,
    parse_array_shape,
    product,
    storage_bits,
    unpadded_bytes,
)
from ..bitcast import RESHAPE, is_bitcast, memory_space_violation
from ..models import same_byte_size, xla_array_bytes
from ..names import counted
from ..result import PROVED, REFUTED
from .frameworks import JAX

#: The TPU tile families: (second-minor, minor) of the first tile.
TILE_FAMILY = ((8, 128), (4, 128), (2, 128), (1, 128))

#: The packed second level for narrow types: 16-bit (2,1), 8-bit (4,1).
PACKED_LEVEL = {16: (2, 1), 8: (4, 1)}

#: How many alternatives :func:`advise` keeps.
DEFAULT_LIMIT = 6

#: The seconds each bitcast question may take.
BITCAST_TIMEOUT = 2.0


@dataclass(frozen=True)
class Part:
    """One source of padding: a tile entry of a tiling level padding one
    physical dim (``kind`` ``"tile"``), the element size ``E(n)``
    (``"element"``), the tail alignment ``L(n)`` (``"tail"``) or what the
    others do not explain (``"other"``).  ``extent`` before, ``padded``
    after; ``share``: its part of the waste, as a share of log(total factor).
    """

    kind: str
    level: int
    dim: int | None
    position: int
    tile: str
    entry: int
    extent: int
    padded: int
    share: float = 0.0

    @property
    def factor(self) -> float:
        return self.padded / self.extent if self.extent else 1.0

    def sentence(self) -> str:
        """The part in one plain sentence."""
        f = f"{self.factor:.3g}x"
        if self.kind == "element":
            return (f"each element takes E({self.padded}) bits for its "
                    f"{counted(self.extent, 'bit')} of storage: {f}")
        if self.kind == "tail":
            return (f"L({self.entry}) rounds {counted(self.extent, 'element')} up to "
                    f"{self.padded}: {f}")
        if self.kind == "other":
            return f"{counted(self.extent, 'byte')} become {self.padded} for other reasons: {f}"
        if self.level > 0:
            which = f"the previous tile's {_ordinal(self.position)} entry"
        else:
            which = "a unit dim past the rank" if self.dim is None else f"dim {self.dim}"
        level = "" if self.level == 0 else f" (tiling level {self.level + 1})"
        return (f"{which} ({self.extent}) padded to {self.padded} by the "
                f"{_ordinal(self.position)} {self.entry} of {self.tile}{level}: {f}")

    def to_json(self) -> dict:
        return {"kind": self.kind, "level": self.level, "dim": self.dim,
                "position": self.position, "tile": self.tile, "entry": self.entry,
                "extent": self.extent, "padded": self.padded,
                "factor": self.factor, "share": self.share}


@dataclass(frozen=True)
class Alternative:
    """Another layout (``kind`` ``"layout"``) or a reshape (``"reshape"``)
    of the array: its bytes (XLA's and the spec's), and whether going there
    from the current layout is a ``bitcast``; ``proved`` when that verdict
    was shown (a bitcast proved, or refuted, or XLA's verifier rejects it), false
    when the solver did not decide.  ``copy_bytes``: bytes a copy reads and
    writes (0 for a bitcast)."""

    shape: str
    kind: str
    xla_bytes: int
    spec_bytes: int
    bitcast: bool
    proved: bool
    copy_bytes: int
    why: str
    requestable: bool = True

    @property
    def sizes_differ(self) -> float | None:
        """The spec's bytes over XLA's ``ArraySize`` where they differ
        (``ArraySize`` reads the first tile only), else None."""
        return sizes_differ(self.spec_bytes, self.xla_bytes)

    def to_json(self) -> dict:
        return {"shape": self.shape, "kind": self.kind, "xla_bytes": self.xla_bytes,
                "spec_bytes": self.spec_bytes, "bitcast": self.bitcast,
                "proved": self.proved, "copy_bytes": self.copy_bytes, "why": self.why,
                "requestable": self.requestable, "sizes_differ": self.sizes_differ}


def sizes_differ(spec_bytes: int, xla_bytes: int) -> float | None:
    """``spec_bytes / xla_bytes`` where the two sizes differ, else None.

    >>> sizes_differ(12288, 6144), sizes_differ(64, 64)
    (2.0, None)
    """
    if spec_bytes == xla_bytes:
        return None
    return spec_bytes / xla_bytes if xla_bytes else float("inf")


@dataclass(frozen=True)
class Advice:
    """Where one array's bytes go, and what would take fewer."""

    shape: str
    xla_bytes: int
    spec_bytes: int
    unpadded_bytes: int
    breakdown: tuple[Part, ...]
    alternatives: tuple[Alternative, ...] = field(default=())
    #: Smaller alternatives left out because their tiles or element size are
    #: not the ones XLA picked (``any_tiles`` False: what a JAX user can request).
    other_tiles: int = 0

    @property
    def factor(self) -> float:
        """XLA's bytes over the unpadded bytes."""
        return self.xla_bytes / self.unpadded_bytes if self.unpadded_bytes else 1.0

    @property
    def worst(self) -> Part | None:
        parts = [p for p in self.breakdown if p.factor > 1]
        return max(parts, key=lambda p: p.factor) if parts else None

    @property
    def sentence(self) -> str:
        worst = self.worst
        return "no padding" if worst is None else worst.sentence()

    def to_json(self) -> dict:
        return {"shape": self.shape, "xla_bytes": self.xla_bytes,
                "spec_bytes": self.spec_bytes, "unpadded_bytes": self.unpadded_bytes,
                "factor": self.factor, "sentence": self.sentence,
                "sizes_differ": sizes_differ(self.spec_bytes, self.xla_bytes),
                "other_tiles": self.other_tiles,
                "breakdown": [p.to_json() for p in self.breakdown],
                "alternatives": [a.to_json() for a in self.alternatives]}


def _ordinal(position: int) -> str:
    return {0: "minor", 1: "second-minor"}.get(position, f"{position + 1}th-minor")


def _round_up(n: int, t: int) -> int:
    return -(-n // t) * t


def breakdown(shape: Shape) -> tuple[Part, ...]:
    """Each source of padding of ``shape``, with its share of the waste.

    >>> [p.sentence() for p in breakdown(parse_array_shape("f32[8,8]{1,0:T(8,128)}"))]
    ['dim 1 (8) padded to 128 by the minor 128 of T(8,128): 16x', 'dim 0 (8) padded to 8 by the second-minor 8 of T(8,128): 1x']
    """
    layout = shape.layout
    dims = [int(d) for d in shape.dims]  # type: ignore[arg-type]
    if 0 in dims:
        return ()   # no elements, no bytes: nothing to explain
    physical = [dims[d] for d in layout.minor_to_major]  # i = 0 most minor
    parts: list[Part] = []
    previous: tuple[int, ...] | None = None
    for level, tile in enumerate(layout.tiles):
        t = tile.sizes
        name = f"T({','.join(map(str, t))})"
        if previous is None:
            for i in range(len(t)):
                extent = physical[i] if i < len(physical) else 1
                dim = layout.minor_to_major[i] if i < len(physical) else None
                parts.append(Part("tile", level, dim, i, name, t[-1 - i],
                                  extent, _round_up(extent, t[-1 - i])))
        elif len(t) <= len(previous):
            for i in range(len(t)):
                extent = previous[-1 - i]
                parts.append(Part("tile", level, None, i, name, t[-1 - i],
                                  extent, _round_up(extent, t[-1 - i])))
        previous = t if previous is None else previous
    bits = shape.element_bits
    # E(n) above the type's storage pads each element; below it packs them,
    # which the unpadded bytes already count.
    if shape.element_type not in ("token", "opaque") and bits > storage_bits(shape.element_type):
        parts.append(Part("element", 0, None, 0, "", bits,
                          storage_bits(shape.element_type), bits))
    count = padded_count(shape)
    align = layout.tail_padding_alignment_in_elements
    if align > 1 and count % align:
        parts.append(Part("tail", 0, None, 0, "", align, count, _round_up(count, align)))
    spec, unpadded = byte_size(shape), unpadded_bytes(shape)
    explained = math.prod(p.factor for p in parts)
    if unpadded and abs(spec / unpadded - explained) > 1e-9 * explained:
        parts.append(Part("other", 0, None, 0, "", 0, round(unpadded * explained), spec))
    total = math.log(spec / unpadded) if unpadded and spec > unpadded else 0.0
    return tuple(Part(p.kind, p.level, p.dim, p.position, p.tile, p.entry, p.extent,
                      p.padded, math.log(p.factor) / total if total and p.factor > 0 else 0.0)
                 for p in parts)


# --- alternatives -------------------------------------------------------------------

#: For each dim of a candidate, the dims of the array it is made of.
Origin = tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class _Candidate:
    dims: tuple[int, ...]
    minor_to_major: tuple[int, ...]
    tiles: tuple[tuple[int, ...], ...]
    element_bits: int
    kind: str
    why: str
    order: tuple[int, ...]   # the order it starts from: fewer changes rank first
    origin: Origin           # () for a unit dim made of none


def _reshapes(dims: tuple[int, ...]) -> list[tuple[tuple[int, ...], str, Origin]]:
    """The dims the program could reshape to: unit dims dropped, each small
    dim (under 128) merged into a logical neighbour; with each new dim's
    origin (the old dims it is made of)."""
    out: list[tuple[tuple[int, ...], str, Origin]] = []
    if 1 in dims and len(dims) > 1:
        kept = tuple(i for i, d in enumerate(dims) if d != 1)
        out.append((tuple(dims[i] for i in kept) or (1,), "drop the unit dims",
                    tuple((i,) for i in kept) or ((),)))
    for i in range(len(dims) - 1):
        if min(dims[i], dims[i + 1]) < 128:
            merged = dims[:i] + (dims[i] * dims[i + 1],) + dims[i + 2:]
            origin = tuple((j,) for j in range(i)) + ((i, i + 1),) + tuple(
                (j,) for j in range(i + 2, len(dims)))
            out.append((merged, f"merge dims {i} and {i + 1}", origin))
    return out


def _orders(dims: tuple[int, ...], current: tuple[int, ...]):
    """Minor-to-major orders: each choice of the two most minor dims, the
    others in their ``current`` relative order."""
    r = len(dims)
    if r <= 1:
        yield tuple(range(r))
        return
    for a, b in itertools.permutations(range(r), 2):
        yield (a, b) + tuple(d for d in current if d not in (a, b))


def _estimate(dims, m2m, tiles, bits) -> int:
    """ArraySize for the candidates' simple layouts, to rank them (the bytes
    reported are :func:`xla_array_bytes` of the shape built)."""
    t = tiles[0] if tiles else ()
    phys = [dims[d] for d in m2m]
    n = 1
    for i in range(len(t)):
        n *= _round_up(phys[i] if i < len(phys) else 1, t[-1 - i])
    for i in range(len(t), len(phys)):
        n *= phys[i]
    return -(-n * bits // 8)


def _candidates(shape: Shape, any_tiles: bool = True):
    dims = tuple(int(d) for d in shape.dims)  # type: ignore[arg-type]
    bits = storage_bits(shape.element_type)
    element_bits = sorted({shape.element_bits, bits}) if any_tiles else [shape.element_bits]
    packed = PACKED_LEVEL.get(bits)
    families: list[tuple[tuple[int, ...], ...]] = [
        ((a, b),) + ((packed,) if packed else ()) for a, b in TILE_FAMILY] if any_tiles else []
    current_tiles = tuple(t.sizes for t in shape.layout.tiles)
    if current_tiles not in families:
        families.append(current_tiles)
    m2m = shape.layout.minor_to_major
    bases: list[tuple[tuple[int, ...], tuple[int, ...], str, str, Origin]] = [
        (dims, m2m, "layout", "", tuple((i,) for i in range(len(dims))))]
    for new, why, origin in _reshapes(dims):
        bases.append((new, tuple(range(len(new) - 1, -1, -1)), "reshape", why, origin))
    for base, order, kind, why, origin in bases:
        for o in _orders(base, order):
            for tiles in families:
                for e in element_bits:
                    yield _Candidate(base, o, tiles, e, kind, why, order, origin)


def _shape_of(shape: Shape, c: _Candidate) -> Shape | None:
    """The candidate as a shape: its dims, order, tiles and element size,
    and every other field of ``shape`` kept (memory space, ``L(n)``, ``M``,
    index and pointer types, the physical shape; split configs, dim level
    types and dynamic dims on the dim they belong to).  None where a field
    cannot follow (a split, dynamic or sparse dim merged or dropped): the
    array there is not this array in another layout."""
    layout = shape.layout
    single = {o[0]: j for j, o in enumerate(c.origin) if len(o) == 1}
    touched = [i for o in c.origin if len(o) != 1 for i in o]
    touched += [i for i in range(shape.rank) if not any(i in o for o in c.origin)]
    if any(shape.dynamic[i] for i in touched) or (layout.dim_level_types and touched):
        return None
    splits = []
    for sc in layout.split_configs:
        dim = layout.minor_to_major[shape.rank - 1 - sc.dimension]
        if dim not in single:
            return None
        new = len(c.dims) - 1 - c.minor_to_major.index(single[dim])
        splits.append(SplitConfig(new, sc.split_indices))
    e = (layout.element_size_in_bits if c.element_bits == shape.element_bits
         else 0 if c.element_bits == storage_bits(shape.element_type) else c.element_bits)
    flags = [shape.dynamic[o[0]] if len(o) == 1 else False for o in c.origin]
    levels = tuple(layout.dim_level_types[o[0]] for o in c.origin) if (
        layout.dim_level_types) else ()
    return Shape(shape.element_type, c.dims, layout.replace(
        minor_to_major=c.minor_to_major, tiles=tuple(Tile(t) for t in c.tiles),
        element_size_in_bits=e, split_configs=tuple(splits), dim_level_types=levels),
        dynamic=flags)


def bitcast_verdict(src: Shape, dst: Shape, *, decide: bool = True,
                    timeout: float = BITCAST_TIMEOUT) -> tuple[bool, bool]:
    """(bitcast, proved): is going from ``src`` to ``dst`` free?  Two
    conditions, both needed: XLA's verifier accepts the bitcast (the same
    byte size, :func:`~tilespec.prover.models.same_byte_size`:
    ``ShapeUtil::ByteSizeOf`` as ``HloVerifier::HandleBitcast`` compares it;
    memory spaces it lets a bitcast join,
    :func:`~tilespec.prover.bitcast.memory_space_violation`), and no byte
    moves: the one bitcast decision,
    :func:`~tilespec.prover.bitcast.is_bitcast`, which asks the memory
    spaces too.  The program keeps its elements in order (a layout change
    or a reshape), so the reading asked is the reshape.  ``proved``: the
    verdict was shown (``decide`` False asks no solver: only the verifier's
    conditions answer).

    >>> a, b = parse_array_shape("f32[8,128]{1,0}"), parse_array_shape("f32[8,128]{0,1}")
    >>> bitcast_verdict(a, b)   # the same bytes, but transposed
    (False, True)
    >>> bitcast_verdict(parse_array_shape("f32[8]{0:L(16)}"), parse_array_shape("f32[8]{0:T(8)L(16)}"))
    (True, True)
    >>> bitcast_verdict(parse_array_shape("f32[8]{0:S(5)}"), parse_array_shape("f32[8]{0}"),
    ...                 decide=False)   # host memory on one side only
    (False, True)
    """
    if not same_byte_size(src, dst) or memory_space_violation(src, dst) is not None:
        return False, True
    if not decide:
        return False, False
    r = is_bitcast(src, dst, RESHAPE, timeout=timeout)
    return r.status == PROVED, r.status in (PROVED, REFUTED)


#: Alternatives of the array's own size that :func:`alternatives` keeps:
#: reshapes in the dims' order with the same tiles, the ones that may be
#: free (a bitcast), each decided by the solver.
SAME_SIZE_LIMIT = 1


def alternatives(shape: Shape, limit: int = DEFAULT_LIMIT, *, decide: bool = True,
                 timeout: float = BITCAST_TIMEOUT,
                 any_tiles: bool = False) -> tuple[Alternative, ...]:
    """The ``limit`` cheapest other layouts and reshapes of ``shape`` by
    XLA's bytes (then the spec's; at equal bytes layouts before reshapes,
    the current tiles first), one per order of the dims; smaller than
    ``shape``, or a reshape of its size that keeps the order and the tiles
    (at most :data:`SAME_SIZE_LIMIT`).
    A bitcast only where :func:`bitcast_verdict` proved it.  ``any_tiles``
    False: only the tiles and element size ``shape`` has (what a JAX user
    can request, :data:`~tilespec.prover.padding.frameworks.JAX`).  The loop over
    candidates here is not a search for dims (that is
    :func:`~tilespec.prover.core.search.drive`'s): each candidate is another
    layout of this array, ranked by its size and then asked its own question.

    >>> u32 = parse_array_shape("u32[12582912,1]{1,0:T(8,128)}")
    >>> [a.shape for a in alternatives(u32, 2, any_tiles=True)]
    ['u32[12582912,1]{0,1:T(1,128)}', 'u32[12582912]{0:T(1,128)}']
    """
    here_xla, here_spec = xla_array_bytes(shape), byte_size(shape)
    here_tiles = tuple(t.sizes for t in shape.layout.tiles)
    ranked = sorted(((_estimate(c.dims, c.minor_to_major, c.tiles, c.element_bits),
                      c.kind != "layout", c.tiles != here_tiles,
                      c.element_bits != shape.element_bits, c.minor_to_major != c.order,
                      n, c) for n, c in enumerate(_candidates(shape, any_tiles))),
                    key=lambda x: x[:6])
    out: list[Alternative] = []
    seen = {(tuple(shape.dims), shape.layout.minor_to_major)}
    same_size = 0
    for estimate, *_, c in ranked:
        if len(out) >= limit or estimate > here_xla:
            break
        same_kept = (c.kind == "reshape" and c.minor_to_major == c.order
                     and c.tiles == here_tiles and same_size < SAME_SIZE_LIMIT)
        if (c.dims, c.minor_to_major) in seen or (estimate == here_xla and not same_kept):
            continue
        alt = _shape_of(shape, c)
        if alt is None:
            continue
        xla, spec = xla_array_bytes(alt), byte_size(alt)
        if xla > here_xla or (xla == here_xla and not (same_kept and spec == here_spec)):
            continue
        seen.add((c.dims, c.minor_to_major))
        same_size += xla == here_xla
        bitcast, proved = bitcast_verdict(shape, alt, decide=decide, timeout=timeout)
        out.append(Alternative(format_shape(alt), c.kind, xla, spec, bitcast, proved,
                               0 if bitcast else here_xla + xla, c.why or "another layout",
                               JAX.requestable(shape, alt)))
    return tuple(sorted(out, key=lambda a: (a.xla_bytes, a.spec_bytes, not a.bitcast)))


def advise(shape: Shape | str, limit: int = DEFAULT_LIMIT, *, decide: bool = True,
           timeout: float = BITCAST_TIMEOUT, any_tiles: bool = False) -> Advice:
    """Where the bytes of ``shape`` go, and the ``limit`` cheapest
    alternatives (``decide`` False: no solver is asked, and an alternative
    is a bitcast nowhere, proved only where XLA's verifier rejects it).
    By default, as ``tilespec padding``, only the alternatives a JAX user
    can request, and ``other_tiles`` counts the smaller ones left out;
    ``any_tiles`` True (``--any-tiles``): the TPU tile families and E(n) too.

    >>> b = advise("bf16[3,1000]{1,0:T(8,128)(2,1)}", decide=False)
    >>> b.alternatives, b.other_tiles
    ((), 1)
    >>> a = advise("bf16[3,1000]{1,0:T(8,128)(2,1)}", decide=False, any_tiles=True)
    >>> alt = a.alternatives[0]
    >>> alt.shape, alt.requestable, alt.sizes_differ
    ('bf16[3000]{0:T(1,128)(2,1)}', False, 2.0)

    >>> advise("f32[1024,1024]{1,0:T(8,128)}").factor
    1.0
    """
    if isinstance(shape, str):
        shape = parse_array_shape(shape)
    if shape.is_symbolic or any(d is None for d in shape.dims):
        raise ShapeError(f"{format_shape(shape)}: padding needs every dim's size")
    if shape.element_type in ("token", "opaque"):
        raise ShapeError(f"{format_shape(shape)} has no elements to pad")
    if any(t.combines for t in shape.layout.tiles):
        raise ShapeError(f"{format_shape(shape)}: a '*' tile entry has no size to pad to")
    if not product(shape.dims):
        return Advice(format_shape(shape), xla_array_bytes(shape), byte_size(shape),
                      unpadded_bytes(shape), breakdown(shape))
    alts = alternatives(shape, limit, decide=decide, timeout=timeout, any_tiles=any_tiles)
    other = 0 if any_tiles else sum(
        not a.requestable for a in alternatives(shape, limit, decide=False, any_tiles=True))
    return Advice(format_shape(shape), xla_array_bytes(shape), byte_size(shape),
                  unpadded_bytes(shape), breakdown(shape), alts, other)
