"""XLA's printed form of shapes and layouts.

The printer writes XLA's canonical form, always with the layout (but for a
scalar's empty ``{}`` and on a token or opaque, which XLA prints without
one), its fields in XLA's order.  The parser that reads this form back is
:mod:`tilespec.spec.text`: ``parse_shape(format_shape(x)) == x``.

>>> from tilespec.spec.layout import Layout, Shape, Tile
>>> format_shape(Shape("bf16", (1024, 1024), Layout((1, 0), (Tile((8, 128)), Tile((2, 1))))))
'bf16[1024,1024]{1,0:T(8,128)(2,1)}'
>>> format_shape(Shape("f32", (3, 5)))
'f32[3,5]{1,0}'
"""

from __future__ import annotations

from .dtypes import NON_ARRAY_TYPES
from .layout import BufferShape, Layout, Shape, TupleShape


def format_dim(d: int | str | None, dynamic: bool) -> str:
    """XLA's printed form of one dim: its size or name, ``<=N`` or ``?``.

    >>> format_dim(8, False), format_dim(8, True), format_dim(None, True), format_dim("n", False)
    ('8', '<=8', '?', 'n')
    """
    if d is None:
        return "?"
    return f"<={d}" if dynamic else str(d)


def format_layout(layout: Layout) -> str:
    """XLA's printed form of a layout, ``{1,0:T(8,128)(2,1)}``.

    >>> format_layout(Layout((0,), memory_space=1, element_size_in_bits=4))
    '{0:E(4)S(1)}'
    """
    parts = []
    # No D(...): XLA's printer no longer writes dim level types.
    if layout.tiles:
        parts.append("T" + "".join(str(t) for t in layout.tiles))
    if layout.tail_padding_alignment_in_elements != 1:
        parts.append(f"L({layout.tail_padding_alignment_in_elements})")
    if layout.index_primitive_type:
        parts.append(f"#({layout.index_primitive_type})")
    if layout.pointer_primitive_type:
        parts.append(f"*({layout.pointer_primitive_type})")
    if layout.element_size_in_bits:
        parts.append(f"E({layout.element_size_in_bits})")
    if layout.memory_space:
        parts.append(f"S({layout.memory_space})")
    if layout.split_configs:
        parts.append("SC" + "".join(
            f"({sc.dimension}:" + ",".join(map(str, sc.split_indices)) + ")"
            for sc in layout.split_configs))
    if layout.physical_shape is not None:
        parts.append(f"P({format_shape(layout.physical_shape)})")
    if layout.dynamic_shape_metadata_prefix_bytes > 0:
        parts.append(f"M({layout.dynamic_shape_metadata_prefix_bytes})")
    m2m = ",".join(map(str, layout.minor_to_major))
    return "{" + m2m + (":" + "".join(parts) if parts else "") + "}"


def format_shape(shape: Shape | TupleShape | BufferShape) -> str:
    """XLA's printed form of a shape, with its layout.

    >>> format_shape(TupleShape((Shape("s32", ()), BufferShape(Shape("f32", (3,))))))
    '(s32[], b(f32[3]{0}))'
    """
    if isinstance(shape, BufferShape):
        return f"b({format_shape(shape.array)})"
    if isinstance(shape, TupleShape):
        # XLA marks every fifth element's index in a comment.
        return "(" + "".join(
            ("" if i == 0 else f", /*index={i}*/" if i % 5 == 0 else ", ")
            + format_shape(s) for i, s in enumerate(shape.elements)) + ")"
    dims = ",".join(format_dim(d, f) for d, f in zip(shape.dims, shape.dynamic))
    layout = format_layout(shape.layout)
    if shape.element_type in NON_ARRAY_TYPES or layout == "{}":
        return f"{shape.element_type}[{dims}]"
    return f"{shape.element_type}[{dims}]{layout}"
