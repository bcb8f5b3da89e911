"""XLA's nested-tiling index functions against the spec, in both versions.

Transcribed from openxla/xla ``xla/layout_util.cc``, functions
``LayoutUtil::LinearIndexForNestedTiling`` and
``LayoutUtil::DelinearizeIndexForNestedTiling`` (facts carried over, no
code), at two commits (:data:`XLA_MODELS`; ``xla=`` chooses, default the
newest modelled):

* before 1f375f52d4 (read at 22eee29e01, 2026-05-20): as below, a tile
  longer than the current dims CHECK-fails;
* since 1f375f52d4 (2026-05-28; read again at 183fa00cb5, 2026-08-22): a
  tile longer than the current dims first prepends unit dims (index 0) to
  them, in both functions; ``DelinearizeIndexForNestedTiling`` drops the
  leading indices those pads gave (``pad_offset``).  Undoing an earlier
  tile's split there reads the indices from the vector's start, which a
  later level's pads have shifted: where a level after the first pads, the
  element read back is not the one written (modelled as the code does it).

Before 1f375f52d4:

* rank 0: the offset is 0 (the element list is empty), before any tile is
  looked at;
* the physical dims, major to minor (``minor_to_major`` reversed), and the
  index likewise;
* each tile in turn: ``CHECK_LE(tile_rank, current_shape.size())`` -- a
  tile longer than the current dims aborts (no unit dims are prepended:
  ``f32[200]{0:T(8,128)}`` aborts XLA); its ``k`` entries split the last
  ``k`` dims, each into a tile count ``CeilOfRatio(d, t)`` (index ``e / t``)
  kept in place and a within-tile dim ``t`` (index ``e % t``) appended;
* the offset is the row-major position in the final dims, in ``int64_t``.

A ``*`` entry is INT64_MIN there: ``CeilOfRatio(d, INT64_MIN)`` is 0,
``e / INT64_MIN`` is 0 and ``e % INT64_MIN`` is ``e``, and the running
multiplier of the linearisation becomes INT64_MIN, whose next product
overflows (undefined behaviour; the binaries wrap).

``DelinearizeIndexForNestedTiling`` makes no CHECK on the tile rank: a tile
longer than the dims reads ``current_shape`` before its start (undefined
behaviour).  It takes the offset's digits in the final dims with ``%`` and
``/`` (so an offset past the padded size wraps around in the most major dim,
and a negative one gives negative digits), a ``*`` entry makes a final dim 0
(``% 0``: division by zero), and it undoes each split as ``count * t +
within`` from the last tile back: a padding offset gives indices outside the
dims, returned without a word.

:func:`xla_nested_linear_index` and :func:`xla_nested_delinearize` run the
transcription over any :class:`~spec.arith.Arithmetic` (ints, numpy columns,
Z3 terms: the proofs); :func:`nested_linear_index_int64` and
:func:`nested_delinearize_int64` run it in ``int64_t`` (C++ division, wrap,
overflow recorded) for the verdicts beyond agree/disagree.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> s = shape("bf16[16,256]{1,0:T(8,128)(2,1)}")
>>> xla_nested_linear_index(s, (0, 1)), xla_nested_linear_index(s, (1, 0))
(2, 1)
>>> xla_nested_delinearize(s, 2)
(0, 1)
>>> xla_nested_linear_index(shape("f32[200]{0:T(8,128)}"), (130,), xla="2026-05-22")
Traceback (most recent call last):
...
tilespec.prover.models.cpp.XlaGivesNoValue: XLA aborts: CHECK_LE(tile_rank, current_shape.size()) (tile 1 (8,128) has 2 entries, the dims 1) fails in LayoutUtil::LinearIndexForNestedTiling
>>> xla_nested_linear_index(shape("f32[200]{0:T(8,128)}"), (130,))
1026
"""

from __future__ import annotations

from ...spec import (
    COMBINE,
    INT,
    Arithmetic,
    Layout,
    Shape,
    concrete_dims,
    delinearise,
)
from ..core import Form
from ..result import (
    UNDEFINED,
    XlaBehaviour,
)
from .cpp import Int64, XlaGivesNoValue, check
from .rule_check import (
    RuleNotApplicable,
    no_split_configs,
)
from .versions import (
    ABORTS_ON_LONG_TILES,
    ABSL_MACROS,
    NEWEST_READ,
    PADS_NESTED_TILES,
    XlaCommit,
    XlaModel,
    model_at,
    resolve,
)

LINEAR = "LayoutUtil::LinearIndexForNestedTiling"
DELINEARIZE = "LayoutUtil::DelinearizeIndexForNestedTiling"
_BOTH = f"{LINEAR} and {DELINEARIZE}"

#: The two versions: a long tile aborts, then (1f375f52d4) unit dims pad it.
XLA_MODELS = (
    XlaModel(_BOTH, "xla/layout_util.cc", ABSL_MACROS, ABORTS_ON_LONG_TILES),
    XlaModel(_BOTH, "xla/layout_util.cc", NEWEST_READ, PADS_NESTED_TILES),
)
#: Where the newest version was read (``source_at`` names each version's).
SOURCE = XLA_MODELS[-1].cites


def pads_long_tiles(xla: XlaCommit | str | None = None) -> bool:
    """Whether XLA at ``xla`` pads a tile longer than the current dims with
    leading unit dims (since 1f375f52d4) rather than CHECK-failing.

    >>> pads_long_tiles("2026-05-27"), pads_long_tiles("2026-05-28"), pads_long_tiles()
    (False, True, True)
    """
    return PADS_NESTED_TILES.holds_at(resolve(xla))


def source_at(xla: XlaCommit | str | None = None) -> str:
    """The citation of the version of the functions XLA runs at ``xla``."""
    return model_at(XLA_MODELS, resolve(xla)).cites


def tile_ranks_fit(shape: Shape) -> bool:
    """Every tile is no longer than the dims it splits (a rank-0 shape
    returns before its tiles are read): before 1f375f52d4, the condition
    under which XLA does not abort.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> tile_ranks_fit(shape("bf16[256]{0:T(128)(2,1)}")), tile_ranks_fit(shape("f32[2]{0:T(2,2)}"))
    (True, False)
    """
    return _first_long_tile(shape) is None


def later_tiles_fit(shape: Shape) -> bool:
    """No tile after the first is longer than the dims it splits: since
    1f375f52d4, where DelinearizeIndexForNestedTiling undoes every split at
    the indices it was made at.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> later_tiles_fit(shape("f32[8]{0:T(2,2)}"))
    True
    >>> later_tiles_fit(shape("f32[8,8]{1,0:T(2,2)(2,2,2,2,2)}"))
    False
    """
    long = _first_long_tile(shape)
    return long is None or long[0] == 1 and _first_long_tile(_after_first(shape)) is None


def _after_first(shape: Shape) -> Shape:
    """The shape whose physical dims are those the first tile leaves (its
    later tiles kept), for asking about the later tiles alone."""
    n = max(shape.rank, len(shape.layout.tiles[0].sizes)) + len(shape.layout.tiles[0].sizes)
    return Shape(shape.element_type, (1,) * n,
                 Layout(tuple(range(n - 1, -1, -1)), tiles=shape.layout.tiles[1:]))


def _first_long_tile(shape: Shape):
    if shape.rank == 0:
        return None
    n = shape.rank
    for level, t in enumerate(shape.layout.tiles, 1):
        if len(t.sizes) > n:
            return level, t.sizes, n
        n += len(t.sizes)
    return None


def check_tile_ranks(shape: Shape, xla: XlaCommit | str | None = None) -> None:
    """LinearIndexForNestedTiling's ``CHECK_LE(tile_rank, current_shape.size())``,
    which fails before 1f375f52d4 only (since, the pads make it hold)."""
    long = _first_long_tile(shape)
    if long is not None and not pads_long_tiles(xla):
        level, t, n = long
        entries = ",".join("*" if x == COMBINE else str(x) for x in t)
        check(False, LINEAR, "CHECK_LE(tile_rank, current_shape.size())", source_at(xla),
              f"tile {level} ({entries}) has {len(t)} entries, the dims {n}")


def _no_combine(shape: Shape) -> tuple:
    tiles = tuple(t.sizes for t in shape.layout.tiles)
    if any(COMBINE in t for t in tiles):
        raise RuleNotApplicable(
            "'*' (INT64_MIN) in a tile: the index arithmetic is int64 there "
            "(nested_linear_index_int64), not over an Arithmetic")
    return tiles


def nested_form(shape: Shape, index, dims, ar: Arithmetic = INT,
                xla: XlaCommit | str | None = None) -> Form:
    """LinearIndexForNestedTiling as ``lin(V, W)``: the final indices and dims."""
    m2m = shape.layout.minor_to_major
    W = [dims[d] for d in reversed(m2m)]
    V = [index[d] for d in reversed(m2m)]
    if not m2m:
        return Form((), ())
    check_tile_ranks(shape, xla)
    for t in _no_combine(shape):
        k = len(t)
        if k > len(W):      # since 1f375f52d4: unit dims, index 0, in front
            V = [0] * (k - len(W)) + V
            W = [1] * (k - len(W)) + W
        start = len(W) - k
        for j, tj in enumerate(t):
            d = start + j
            W.append(tj)
            V.append(ar.mod(V[d], tj))
            W[d] = ar.ceildiv(W[d], tj)
            V[d] = ar.floordiv(V[d], tj)
    return Form(tuple(V), tuple(W))


def xla_nested_linear_index(shape: Shape, index, dims=None, ar: Arithmetic = INT,
                            xla: XlaCommit | str | None = None):
    """LayoutUtil::LinearIndexForNestedTiling at ``xla`` (works on numpy columns too)."""
    source_at(xla)
    no_split_configs(shape)
    dims = concrete_dims(shape) if dims is None else tuple(dims)
    return nested_form(shape, index, dims, ar, xla).offset(ar)


def final_dims(shape: Shape, dims, ar) -> tuple[list, list]:
    """The final dims (major to minor) and each tile's dims before it
    (padded with unit dims where the tile is longer)."""
    W = [dims[d] for d in reversed(shape.layout.minor_to_major)]
    steps = []
    for t in _no_combine(shape):
        k = len(t)
        if k > len(W):
            W = [1] * (k - len(W)) + W
        steps.append((len(W), t))
        start = len(W) - k
        for j, tj in enumerate(t):
            W.append(tj)
            W[start + j] = ar.ceildiv(W[start + j], tj)
    return W, steps


def xla_nested_delinearize(shape: Shape, position, dims=None, ar: Arithmetic = INT,
                           xla: XlaCommit | str | None = None) -> tuple:
    """LayoutUtil::DelinearizeIndexForNestedTiling at ``xla``: the element
    at ``position`` (for a padding position, the indices the splits give,
    which may lie outside the dims).  Before 1f375f52d4 a tile longer than
    the dims is undefined behaviour (a read before ``current_shape``):
    :class:`~.cpp.XlaGivesNoValue`."""
    source_at(xla)
    no_split_configs(shape)
    if shape.rank == 0:
        return ()
    delinearize_reads_in_bounds(shape, xla)
    dims = concrete_dims(shape) if dims is None else tuple(dims)
    W, steps = final_dims(shape, dims, ar)
    return reassemble(shape, list(delinearise(position, tuple(W), ar)), steps, ar)


def reassemble(shape: Shape, V: list, steps, ar) -> tuple:
    """Each split undone from the last tile back, as XLA indexes it: the
    tile's dims at ``len(shape_before) - k`` from the vector's start, the
    prefix kept, anything after the tile's inner indices dropped."""
    for before, t in reversed(steps):
        k = len(t)
        start = before - k
        V = V[:start] + [ar.add(ar.mul(V[start + j], tj), V[start + k + j])
                         for j, tj in enumerate(t)]
    m2m = shape.layout.minor_to_major
    pad = len(V) - len(m2m)
    out = [None] * len(m2m)
    for p, d in enumerate(reversed(m2m)):
        out[d] = V[pad + p]
    return tuple(out)


def delinearize_reads_in_bounds(shape: Shape, xla: XlaCommit | str | None = None) -> None:
    long = _first_long_tile(shape)
    if long is not None and not pads_long_tiles(xla):
        level, t, n = long
        raise XlaGivesNoValue(XlaBehaviour(
            UNDEFINED, DELINEARIZE,
            f"tile {level} has {len(t)} entries, the dims {n}: there is no CHECK, "
            f"suffix_start is {n - len(t)} and current_shape[suffix_start + i] reads "
            "before the vector (out of bounds)", None, source_at(xla)))


# --- int64, as the binary computes -------------------------------------------------------

def nested_linear_index_int64(shape: Shape, index,
                              xla: XlaCommit | str | None = None) -> tuple[int, Int64]:
    """LinearIndexForNestedTiling at ``xla`` in ``int64_t`` on concrete
    dims: the value (wrapped) and the evaluation (its first overflow, if
    any).  ``*`` is INT64_MIN at every version modelled (33fa87f1cf too):
    ``CeilOfRatio(d, INT64_MIN)`` and a multiplier that overflows.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> v, c = nested_linear_index_int64(shape("f32[3,5]{1,0:T(*,2)}"), (1, 4))
    >>> v, c.overflow is not None
    (2, True)
    """
    c = Int64(LINEAR, source_at(xla))
    if shape.rank == 0:
        return 0, c
    check_tile_ranks(shape, xla)
    dims = concrete_dims(shape)
    m2m = shape.layout.minor_to_major
    W = [dims[d] for d in reversed(m2m)]
    V = [int(index[d]) for d in reversed(m2m)]
    for t in shape.layout.tiles:
        k = len(t.sizes)
        if k > len(W):
            V = [0] * (k - len(W)) + V
            W = [1] * (k - len(W)) + W
        start = len(W) - k
        W = (W[:start] + [c.ceil_of_ratio(W[start + j], x, "CeilOfRatio(d, t)")
                          for j, x in enumerate(t.sizes)] + list(t.sizes))
        V = (V[:start] + [c.div(V[start + j], x, "e / t") for j, x in enumerate(t.sizes)]
             + [c.rem(V[start + j], x, "e % t") for j, x in enumerate(t.sizes)])
    value, multiplier = 0, 1
    for i in range(len(W) - 1, -1, -1):
        value = c.add(value, c.mul(V[i], multiplier, "current_indices[i] * multiplier"),
                      "linear_index += ...")
        multiplier = c.mul(multiplier, W[i], "multiplier *= current_shape[i]")
    return value, c


def nested_delinearize_int64(shape: Shape, position: int,
                             xla: XlaCommit | str | None = None) -> tuple[tuple, Int64]:
    """DelinearizeIndexForNestedTiling at ``xla`` in ``int64_t`` on concrete dims.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> s = shape("f32[3]{0:T(2)}")
    >>> nested_delinearize_int64(s, 3)[0], nested_delinearize_int64(s, 4)[0]
    ((3,), (0,))
    """
    c = Int64(DELINEARIZE, source_at(xla))
    if shape.rank == 0:
        return (), c
    delinearize_reads_in_bounds(shape, xla)
    dims = concrete_dims(shape)
    W = [dims[d] for d in reversed(shape.layout.minor_to_major)]
    steps: list[tuple[int, tuple[int, ...]]] = []
    for t in shape.layout.tiles:
        k = len(t.sizes)
        if k > len(W):
            W = [1] * (k - len(W)) + W
        steps.append((len(W), t.sizes))
        start = len(W) - k
        W = (W[:start] + [c.ceil_of_ratio(W[start + j], x, "CeilOfRatio(d, t)")
                          for j, x in enumerate(t.sizes)] + list(t.sizes))
    V = [0] * len(W)
    rest = int(position)
    for i in range(len(W) - 1, -1, -1):
        V[i] = c.rem(rest, W[i], "remaining_index % current_shape[i]")
        rest = c.div(rest, W[i], "remaining_index /= current_shape[i]")
    for before, sizes in reversed(steps):
        k = len(sizes)
        start = before - k
        V = V[:start] + [c.add(c.mul(V[start + j], x, "outer_idx * tile_dim"),
                               V[start + k + j], "+ inner_idx")
                         for j, x in enumerate(sizes)]
    m2m = shape.layout.minor_to_major
    pad = len(V) - len(m2m)
    out = [0] * len(m2m)
    for p, d in enumerate(reversed(m2m)):
        out[d] = V[pad + p]
    return tuple(out), c
