"""XLA's layout of a Pallas operand beside the one Mosaic expects: equal or
not, whether the elements lie in the same order (the one bitcast decision,
:func:`tilespec.prover.bitcast.is_bitcast`, read as a reshape), which element
lands where when they do not, the bytes of the copy XLA inserts between
them, and the layouts that make them one (each proved).

>>> from tilespec.spec.text import parse_array_shape as shape
>>> m = compare_layouts(shape("f32[16,3072]{1,0:T(128)S(1)}"),
...                     shape("f32[16,3072]{1,0:T(8,128)S(1)}"))
>>> m.equal, m.same_order.status, m.copy_bytes
(False, 'refuted', 393216)
>>> print(m.sentence)
element (0, 128) is at byte 512 in XLA's layout but at byte 4096 in Mosaic's: the elements
    are in another order, so the operand must be copied into Mosaic's layout (196,608 bytes read,
    196,608 written)
"""

from __future__ import annotations

from dataclasses import dataclass

from ..prover.bitcast import is_bitcast
from ..prover.names import counted
from ..prover.result import Result
from ..spec import Shape, byte_size, concrete_dims, format_shape, parse_array_shape

__all__ = ["Fix", "LayoutMatch", "compare_layouts"]


@dataclass(frozen=True)
class Fix:
    """A layout that makes XLA's and Mosaic's one: what to do, the shape it
    gives the operand, and the proof that it keeps Mosaic's element order
    (None where the evidence is the compiler's record, said in ``evidence``)."""

    what: str
    shape: str
    proof: Result | None
    evidence: str = ""

    @property
    def status(self) -> str:
        """``proved``/``refuted``/``unknown``, or ``recorded`` (the compiler's)."""
        return self.proof.status if self.proof is not None else "recorded"


@dataclass(frozen=True)
class LayoutMatch:
    """XLA's layout of one operand against Mosaic's."""

    xla: str
    mosaic: str
    equal: bool
    same_order: Result
    sentence: str
    copy_bytes: int
    fixes: tuple[Fix, ...]


def _where(result: Result) -> str:
    ce = result.counterexample
    if ce is None:
        return ""
    sides = {s.name: s for s in ce.sides}
    src, dst = sides.get("source"), sides.get("target")
    if src is None or dst is None or src.element is None:
        return ce.what
    return (f"element {tuple(src.element)} is at byte {src.byte_offset} in XLA's layout but at "
            f"byte {dst.byte_offset} in Mosaic's")


def _rank1_view(xla: Shape) -> Shape | None:
    """A rank-1 shape of the same elements tiled like XLA's 1-d tile, or None."""
    tiles = xla.layout.tiles if xla.layout else ()
    if len(xla.dims) < 2 or not tiles or len(tiles[0].sizes) != 1:
        return None
    n = 1
    for d in concrete_dims(xla):
        n *= d
    text = format_shape(xla)
    tiling = text[text.index(":") + 1:text.rindex("}")]
    return parse_array_shape(f"{xla.element_type}[{n}]{{0:{tiling}}}")


def compare_layouts(xla: Shape, mosaic: Shape, preferred: Shape | None = None,
                    rank1_accepted=None) -> LayoutMatch:
    """XLA's layout ``xla`` of an operand against Mosaic's ``mosaic``;
    ``preferred``: the layout to propose instead (the tiling rule's, where
    the compiler's message names one no array should have);
    ``rank1_accepted(view)``: whether Mosaic's rule gives the rank-1 view of
    the operand XLA's tiles (only then is the view proposed)."""
    same = is_bitcast(xla, mosaic, "reshape")
    equal = format_shape(xla) == format_shape(mosaic)
    src, dst = byte_size(xla), byte_size(mosaic)
    if same.status == "proved":
        sentence = ("every element lies at the same byte in both layouts: no copy"
                    + ("" if equal else " (the layouts are written differently)"))
        copy = 0
    elif same.counterexample is not None and not any(
            s.element is not None for s in same.counterexample.sides):
        # no element is placed apart: only the sizes differ (padding rows)
        copy = src + dst
        sentence = (f"XLA's buffer is {src:,} bytes and Mosaic's {dst:,}, so the operand must be "
                    f"copied into Mosaic's layout ({src:,} bytes read, {dst:,} written)")
    else:
        copy = src + dst
        sentence = (f"{_where(same)}: the elements are in another order, so the operand must "
                    f"be copied into Mosaic's layout ({counted(src, 'byte', grouped=True)} read, "
                    f"{dst:,} written)")
    fixes = []
    if not equal:
        if preferred is None:
            fixes.append(Fix("give the operand the layout Mosaic infers (XLA then copies "
                             "nothing)", format_shape(mosaic),
                             is_bitcast(mosaic, mosaic, "reshape")))
        else:
            fixes.append(Fix("give the operand the layout Mosaic's tiling rule infers",
                             format_shape(preferred), None,
                             "libtpu 0.0.42.1 takes an operand given this layout with no "
                             "copy (tests/data/pallas/layouts.json.gz)"))
        view = _rank1_view(xla)
        if view is not None and rank1_accepted is not None and rank1_accepted(view):
            fixes.append(Fix("keep XLA's layout and pass the operand flattened to rank 1, "
                             "with a rank-1 block (the elements stay where they are)",
                             format_shape(view), is_bitcast(xla, view, "reshape")))
    return LayoutMatch(format_shape(xla), format_shape(mosaic), equal, same, sentence, copy,
                       tuple(fixes))
