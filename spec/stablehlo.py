"""StableHLO's ``custom_call`` layouts as text: ``result_layouts`` and
``result_tilings``, read into XLA shapes and printed back.

Since 1f1d2e8769 (openxla/xla, 2026-06-09; StableHLO 1.18.0) a
``stablehlo.custom_call`` may carry ``result_tilings``: per result, an array
of tiles, each a rank-1 ``index`` tensor, as MLIR prints them:

    result_layouts = [dense<[1, 0]> : tensor<2xindex>],
    result_tilings = [[dense<[16, 128]> : tensor<2xindex>, dense<[2, 1]> : tensor<2xindex>]]

(jax's ``test_with_layout_constraint_with_tiling`` checks this text for a
``LayoutConstraint``).  XLA's exporter (``SetLayout``/``SetTiling`` in
xla/hlo/translate/mhlo_to_hlo/mlir_hlo_to_hlo.cc) takes each result's
``minor_to_major`` from ``result_layouts`` and replaces its tiles by the
tiling's, in order; an empty ``result_tilings`` (``[]``) sets no tiles.
For several results (a tuple) a count that differs from the results' fails
its ``CHECK_EQ`` (here :class:`StablehloError`); a single result takes the
first tiling and no count is checked (the non-tuple branch of
``SetLayout``; ``CustomCallOp::verify`` counts the layouts, not the
tilings).  A target XLA wraps in a tuple (``CustomCallOpReturnTuple``) is
not modelled.  The importer (``ExtractTilingsFromShapes``,
xla/hlo/translate/hlo_to_mhlo/attribute_importer.cc) writes them back, one
``[]`` for a result that is no array.

MLIR prints a tensor whose entries are all equal as a splat: the tile
``(8,8)`` is ``dense<8> : tensor<2xindex>``, the empty one ``dense<> :
tensor<0xindex>``.  :func:`print_result_tilings` prints as MLIR does, so the
round trip of MLIR's text is exact:

>>> text = "[[dense<[16, 128]> : tensor<2xindex>, dense<[2, 1]> : tensor<2xindex>]]"
>>> tilings = read_result_tilings(text)
>>> [[str(t) for t in tiles] for tiles in tilings]
[['(16,128)', '(2,1)']]
>>> print_result_tilings(tilings) == text
True
>>> from tilespec.spec.printer import format_shape
>>> (s,) = custom_call_shapes("tensor<64x256xbf16>", "[dense<[1, 0]> : tensor<2xindex>]", text)
>>> format_shape(s)
'bf16[64,256]{1,0:T(16,128)(2,1)}'
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

from .dtypes import BIT_WIDTHS
from .errors import TilespecError
from .layout import Layout, Shape, Tile


class StablehloError(TilespecError):
    """StableHLO attribute text tilespec cannot read, or one XLA's exporter
    rejects."""


_DENSE = re.compile(
    r"\s*dense<\s*(?P<body>\[[^\]]*\]|-?\d+|)\s*>\s*:\s*tensor<\s*(?P<n>\d+)\s*x\s*index\s*>\s*")


def _dense(text: str, pos: int) -> tuple[tuple[int, ...], int]:
    """One rank-1 ``index`` tensor at ``pos``, and where it ends."""
    m = _DENSE.match(text, pos)
    if m is None:
        raise StablehloError(f"expected 'dense<...> : tensor<Nxindex>' at column {pos + 1} "
                             f"in {text!r}")
    body, n = m.group("body"), int(m.group("n"))
    if body.startswith("["):
        inner = body[1:-1].strip()
        values = tuple(int(v) for v in inner.split(",")) if inner else ()
    elif body:
        values = (int(body),) * n        # a splat: one value for every entry
    else:
        values = ()
    if len(values) != n:
        raise StablehloError(f"dense<{body}> has {len(values)} entries for tensor<{n}xindex> "
                             f"in {text!r}")
    return values, m.end()


def _expect(text: str, pos: int, char: str) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if not text.startswith(char, pos):
        raise StablehloError(f"expected {char!r} at column {pos + 1} in {text!r}")
    return pos + 1


def _peek(text: str, pos: int) -> tuple[str, int]:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return (text[pos] if pos < len(text) else ""), pos


#: One item of a list: read at a position, with where it ends.
Item = Callable[[str, int], "tuple[Any, int]"]


def _items(text: str, pos: int, item: Item) -> tuple[list[Any], int]:
    """``[item, item, ...]`` at ``pos``."""
    pos = _expect(text, pos, "[")
    out: list[Any] = []
    c, pos = _peek(text, pos)
    if c == "]":
        return out, pos + 1
    while True:
        value, pos = item(text, pos)
        out.append(value)
        c, pos = _peek(text, pos)
        if c == "]":
            return out, pos + 1
        pos = _expect(text, pos, ",")


def _whole(text: str, name: str, item: Item) -> list[Any]:
    body = re.sub(rf"^\s*{name}\s*=\s*", "", text)
    values, end = _items(body, 0, item)
    if body[end:].strip():
        raise StablehloError(f"unexpected {body[end:].strip()!r} after {name} in {text!r}")
    return values


def read_result_layouts(text: str) -> tuple[tuple[int, ...], ...]:
    """``result_layouts``: each result's ``minor_to_major``.

    >>> read_result_layouts("result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<> : tensor<0xindex>]")
    ((1, 0), ())
    """
    return tuple(_whole(text, "result_layouts", _dense))


def read_result_tilings(text: str) -> tuple[tuple[Tile, ...], ...]:
    """``result_tilings``: each result's tiles (``INT64_MIN``, XLA's
    ``Tile::kCombineDimension``, is ``*``).

    >>> read_result_tilings("result_tilings = [[dense<8> : tensor<2xindex>], []]")
    ((Tile(sizes=(8, 8)),), ())
    """
    def tiling(t: str, pos: int) -> tuple[tuple[Tile, ...], int]:
        tiles, end = _items(t, pos, _dense)
        try:
            return tuple(Tile(sizes) for sizes in tiles), end
        except TilespecError as e:
            raise StablehloError(f"{e} in {text!r}") from None
    return tuple(_whole(text, "result_tilings", tiling))


def _print_dense(values: Sequence[int]) -> str:
    n = len(values)
    if n == 0:
        body = ""
    elif len(set(values)) == 1:
        body = str(values[0])
    else:
        body = "[" + ", ".join(map(str, values)) + "]"
    return f"dense<{body}> : tensor<{n}xindex>"


def print_result_layouts(layouts: Sequence[Sequence[int]]) -> str:
    """``result_layouts`` as MLIR prints it.

    >>> print_result_layouts([(1, 0), (0,)])
    '[dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]'
    """
    return "[" + ", ".join(_print_dense(tuple(m)) for m in layouts) + "]"


def print_result_tilings(tilings: Sequence[Sequence[Tile]]) -> str:
    """``result_tilings`` as MLIR prints it (a combined entry ``*`` as
    ``INT64_MIN``).

    >>> print_result_tilings([[Tile((8, 128)), Tile((2, 1))], []])
    '[[dense<[8, 128]> : tensor<2xindex>, dense<[2, 1]> : tensor<2xindex>], []]'
    """
    return "[" + ", ".join(
        "[" + ", ".join(_print_dense(t.sizes) for t in tiles) + "]" for tiles in tilings) + "]"


#: MLIR's element types as XLA names them (xla/mlir/utils/type_util.cc).
_MLIR_TYPES = {"i1": "pred", "bf16": "bf16", "f16": "f16", "f32": "f32", "f64": "f64",
               "complex<f32>": "c64", "complex<f64>": "c128"}


def xla_element_type(mlir_type: str) -> str:
    """XLA's name for an MLIR element type.

    >>> xla_element_type("i8"), xla_element_type("ui4"), xla_element_type("f8E4M3FN")
    ('s8', 'u4', 'f8e4m3fn')
    """
    t = mlir_type.strip()
    name = _MLIR_TYPES.get(t)
    if name is None:
        m = re.fullmatch(r"(u?)i(\d+)", t)
        name = (("u" if m.group(1) else "s") + m.group(2)) if m else t.lower()
    if name not in BIT_WIDTHS:
        raise StablehloError(f"element type {mlir_type!r} has no XLA array type")
    return name


def read_tensor_type(text: str) -> tuple[str, tuple[int, ...]]:
    """``tensor<64x256xbf16>``: XLA's element type and the dims.

    >>> read_tensor_type("tensor<64x256xbf16>"), read_tensor_type("tensor<f32>")
    (('bf16', (64, 256)), ('f32', ()))
    """
    m = re.fullmatch(r"\s*tensor<\s*((?:\d+x)*)([^>]+(?:>)?)\s*>\s*", text)
    if m is None:
        raise StablehloError(f"expected a static 'tensor<DxDx...xTYPE>', not {text!r}")
    dims = tuple(int(d) for d in m.group(1).split("x") if d)
    return xla_element_type(m.group(2)), dims


def custom_call_shapes(result_types: str | Sequence[str], result_layouts: str,
                       result_tilings: str = "[]") -> tuple[Shape, ...]:
    """The XLA shapes XLA's exporter makes of a custom call's results:
    each result's ``minor_to_major`` from ``result_layouts``, its tiles from
    ``result_tilings`` (none where that is empty).

    >>> [str(s.layout.tiles[0]) for s in custom_call_shapes(
    ...     ["tensor<8x128xf32>"], "[dense<[1, 0]> : tensor<2xindex>]",
    ...     "[[dense<[8, 128]> : tensor<2xindex>]]")]
    ['(8,128)']
    >>> one = "dense<0> : tensor<1xindex>"
    >>> custom_call_shapes(["tensor<8xf32>"] * 2, f"[{one}, {one}]", "[[], [], []]")
    Traceback (most recent call last):
    ...
    tilespec.spec.stablehlo.StablehloError: 3 result tilings for 2 results: XLA's exporter fails CHECK_EQ(tilings->size(), ...)
    """
    types = [result_types] if isinstance(result_types, str) else list(result_types)
    layouts = read_result_layouts(result_layouts)
    tilings = read_result_tilings(result_tilings)
    if len(layouts) != len(types):
        raise StablehloError(f"{len(layouts)} result layouts for {len(types)} results: "
                             "XLA's CustomCallOp::verify rejects it (number of results "
                             f"must match the number of result layouts, {len(types)} != "
                             f"{len(layouts)})")
    if len(types) == 1:
        tilings = tilings[:1]   # a single result reads (*tilings)[0], no count checked
    elif tilings and len(tilings) != len(types):
        raise StablehloError(f"{len(tilings)} result tilings for {len(types)} results: "
                             "XLA's exporter fails CHECK_EQ(tilings->size(), ...)")
    shapes = []
    for i, t in enumerate(types):
        element_type, dims = read_tensor_type(t)
        tiles = tilings[i] if tilings else ()
        try:
            shapes.append(Shape(element_type, dims, Layout(layouts[i], tiles=tiles)))
        except TilespecError as e:
            raise StablehloError(f"result {i}: {e}") from None
    return tuple(shapes)


def custom_call_attributes(shapes: Sequence[Shape]) -> tuple[str, str]:
    """``result_layouts`` and ``result_tilings`` of these result shapes, as
    XLA's importer writes them (``ExtractTilingsFromShapes``).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> custom_call_attributes([shape("f32[8,128]{1,0:T(8,128)}")])
    ('[dense<[1, 0]> : tensor<2xindex>]', '[[dense<[8, 128]> : tensor<2xindex>]]')
    """
    return (print_result_layouts([s.layout.minor_to_major for s in shapes]),
            print_result_tilings([s.layout.tiles for s in shapes]))



def custom_call_attribute(text: str, name: str) -> str | None:
    """The bracketed value of ``name = [...]`` in an op's text, or None.

    >>> custom_call_attribute("{result_tilings = [[]], x = 1}", "result_tilings")
    '[[]]'
    """
    m = re.search(rf"\b{name}\s*=\s*", text)
    if m is None:
        return None
    depth, i = 0, m.end()
    for j in range(i, len(text)):
        depth += {"[": 1, "]": -1}.get(text[j], 0)
        if depth == 0:
            return text[i:j + 1]
    raise StablehloError(f"unclosed '[' in {name} of {text!r}")


def read_custom_call(text: str) -> tuple[Shape, ...]:
    """The result shapes of a ``stablehlo.custom_call`` as MLIR prints it:
    its ``result_layouts``, ``result_tilings`` (optional) and the result
    types after ``->``.

    >>> op = ('%0 = stablehlo.custom_call @LayoutConstraint(%arg0) {'
    ...       'result_layouts = [dense<[0, 1]> : tensor<2xindex>], '
    ...       'result_tilings = [[dense<[16, 128]> : tensor<2xindex>, dense<[2, 1]> : tensor<2xindex>]]'
    ...       '} : (tensor<256x64xbf16>) -> tensor<256x64xbf16>')
    >>> from tilespec.spec.printer import format_shape
    >>> [format_shape(s) for s in read_custom_call(op)]
    ['bf16[256,64]{0,1:T(16,128)(2,1)}']
    """
    layouts = custom_call_attribute(text, "result_layouts")
    if layouts is None:
        raise StablehloError("no result_layouts in the custom call: XLA's exporter "
                             "uses result_tilings only beside result_layouts")
    tilings = custom_call_attribute(text, "result_tilings") or "[]"
    arrow = text.rfind("->")
    if arrow < 0:
        raise StablehloError("no result type ('-> tensor<...>') in the custom call")
    types = re.findall(r"tensor<[^<>]*(?:<[^<>]*>[^<>]*)*>", text[arrow:])
    return custom_call_shapes(types, layouts, tilings)
