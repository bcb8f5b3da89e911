"""What a layout does to a shape, in words and as a text map.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> print(text_map(shape("f32[3,5]{1,0:T(2,2)}")))
offset of each element (row = dim 0, column = dim 1):
        0   1   2   3   4
   0    0   1   4   5   8
   1    2   3   6   7  10
   2   12  13  16  17  20
<BLANKLINE>
element at each offset ('.' = padding), 4 per line:
    0: (0,0) (0,1) (1,0) (1,1)
    4: (0,2) (0,3) (1,2) (1,3)
    8: (0,4)   .   (1,4)   .
   12: (2,0) (2,1)   .     .
   16: (2,2) (2,3)   .     .
   20: (2,4)   .     .     .
"""

from __future__ import annotations

import numpy as np

from ..spec import (
    Shape,
    TilespecError,
    aligned_elements,
    all_offsets,
    byte_size,
    concrete_dims,
    dims_through,
    format_shape,
    locate_many,
    memory_space_name,
    num_elements,
    padding_fraction,
    product,
    shape_pipeline,
    storage_sizes,
)

#: Largest padded size drawn as a text map.
MAP_LIMIT = 4096


def levels(shape: Shape) -> list[dict]:
    """For each tiling level: the tile, the dims it tiles, and the dims after."""
    stages = shape_pipeline(shape)
    through = dims_through(stages, concrete_dims(shape))
    out = []
    for level, tile in enumerate(shape.layout.tiles, start=1):
        idx = [i for i, s in enumerate(stages) if s.level == level]
        first, last = idx[0], idx[-1]
        pad = next(i for i in idx if stages[i].name == "pad")
        out.append({
            "tile": str(tile),
            "dims_before": list(through[first]),
            "dims_tiled": list(through[pad]),
            "dims_padded": list(through[pad + 1]),
            "dims_after": list(through[last + 1]),
        })
    return out


def explain(shape: Shape, xla_model=None, xla=None) -> dict:
    """A summary of the layout of ``shape`` as plain data (for JSON).

    ``byte_size`` is the spec's padded size.  Given ``xla_model``, a function
    from a shape to XLA's ``ShapeUtil::ArraySize`` in bytes as tilespec models
    it (``tilespec.prover.models.rules.xla_array_bytes``; the spec imports no
    prover), ``xla_array_size`` holds its answer beside it, or ``None`` with
    ``xla_array_size_note`` saying why there is none.  A memory space other
    than 0 is named as XLA ``xla`` (default the newest modelled) names it,
    and the f6 types' two sizes (XLA's, IFRT's) are given.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> info = explain(shape("f32[3]{0:L(4)}"), xla_model=lambda s: 12)
    >>> info["byte_size"], info["xla_array_size"]
    (16, 12)
    >>> explain(shape("f32[8]{0:S(6)}"))["memory_space"]
    'S(6): unpinned host memory (Layout::kUnpinnedHostMemorySpace, since c56c6be6b8 (2026-05-15))'
    """
    order = shape.physical_order
    elements = num_elements(shape)
    tiled = dims_through(shape_pipeline(shape), concrete_dims(shape))[-1]
    info = {
        "shape": format_shape(shape),
        "element_type": shape.element_type,
        "dims": list(shape.dims),
        "physical_order": list(order),
        "physical_dims": [shape.dims[i] for i in order],
        "levels": levels(shape),
        "tiled_dims": list(tiled),
        "elements": elements,
        "padded_elements": product(tiled),
        "aligned_elements": aligned_elements(shape),
        "element_bits": shape.element_bits,
        "byte_size": byte_size(shape),
        "padding_fraction": padding_fraction(shape),
    }
    if shape.layout.memory_space:
        info["memory_space"] = (f"S({shape.layout.memory_space}): "
                                + memory_space_name(shape.layout.memory_space, xla))
    sizes = storage_sizes(shape, xla)
    if sizes:
        # one buffer, two sizes: XLA's bytes and IFRT's (the 6-bit floats)
        info["storage_sizes"] = list(sizes)
    if xla_model is not None:
        try:
            info["xla_array_size"], info["xla_array_size_note"] = xla_model(shape), None
        except TilespecError as e:  # a layout the model does not cover
            info["xla_array_size"], info["xla_array_size_note"] = None, str(e)
    return info


def format_explain(info: dict) -> str:
    def dims(v):
        return "(" + ",".join(map(str, v)) + ")"
    lines = [
        f"shape            {info['shape']}",
        f"physical dims    {dims(info['physical_dims'])}  "
        f"(major to minor: logical dims {','.join(map(str, info['physical_order'])) or '-'})",
    ]
    for n, lv in enumerate(info["levels"], start=1):
        # "combined" only where '*' merged dims (or unit dims were added)
        merged = ("" if lv["dims_tiled"] == lv["dims_before"]
                  else f" -> combined {dims(lv['dims_tiled'])}")
        lines.append(
            f"level {n} T{lv['tile']:<9} {dims(lv['dims_before'])}{merged} -> padded "
            f"{dims(lv['dims_padded'])} -> {dims(lv['dims_after'])}")
    lines += [
        f"tiled dims       {dims(info['tiled_dims'])}",
        f"elements         {info['elements']}",
        f"padded elements  {info['padded_elements']}",
        f"aligned elements {info['aligned_elements']}",
        f"element bits     {info['element_bits']}",
        f"byte size        {info['byte_size']}",
        *([f"memory space     {info['memory_space']}"] if info.get("memory_space") else []),
        *(f"storage          {line}" for line in info.get("storage_sizes", ())),
        *([f"XLA ArraySize    {info['xla_array_size']}  " + (
            info.get("xla_array_size_note")
            or "(as tilespec models XLA's ShapeUtil::ArraySize)")]
          if info.get("xla_array_size") is not None else []),
        f"padding          {100 * info['padding_fraction']:.2f}%",
    ]
    return "\n".join(lines)


def text_map(shape: Shape) -> str | None:
    """Offsets drawn as text for rank <= 2, like the document's figures.

    ``None`` when the shape is of higher rank or too large to draw.
    """
    dims = concrete_dims(shape)
    total = product(dims_through(shape_pipeline(shape), dims)[-1])
    # each dim bounded too: an empty f32[4294967295,0] has no elements, but
    # numpy's indices() would allocate a range of each dim
    if shape.rank > 2 or total > MAP_LIMIT or any(d > MAP_LIMIT for d in dims):
        return None
    grid: np.ndarray = all_offsets(shape).reshape((1,) * (2 - shape.rank) + dims)
    rows, cols = grid.shape
    width = max(3, len(str(max(total - 1, 0)))) + 1
    head = ("row = dim 0, column = dim 1" if shape.rank == 2 else
            "one row, column = dim 0" if shape.rank == 1 else "a scalar")
    lines = [f"offset of each element ({head}):",
             " " * 5 + "".join(f"{c:>{width}}" for c in range(cols))]
    for r in range(rows):
        lines.append(f"{r:>4} " + "".join(f"{grid[r, c]:>{width}}" for c in range(cols)))
    idx, ok = locate_many(shape, list(range(total)))
    names = [("(" + ",".join(map(str, i)) + ")") if k else "." for i, k in zip(idx.tolist(), ok.tolist())]
    cell = max(len(n) for n in names) if names else 1
    per_line = _line_width(shape, total)
    lines += ["", f"element at each offset ('.' = padding), {per_line} per line:"]
    for start in range(0, total, per_line):
        chunk = names[start:start + per_line]
        lines.append(f"{start:>5}: " + " ".join(n.center(cell) for n in chunk).rstrip())
    return "\n".join(lines)


def _line_width(shape: Shape, total: int) -> int:
    """One first-level tile per line when a tile is small enough to read."""
    if not shape.layout.tiles:
        return min(16, max(total, 1))
    size = product(s for s in shape.layout.tiles[0].sizes if s > 0)
    return size if size <= 16 else 16
