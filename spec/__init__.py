"""tilespec's executable specification of XLA tiled layouts.

>>> from tilespec.spec import parse_shape, offset, locate, byte_size
>>> s = parse_shape("bf16[1024,1024]{1,0:T(8,128)(2,1)}")
>>> offset(s, (1, 0)), offset(s, (0, 1)), offset(s, (8, 0))
(1, 2, 8192)
>>> locate(s, 2), byte_size(s)
((0, 1), 2097152)
"""

from .arith import INT, SYMPY, Arithmetic, SympyArithmetic
from .errors import (LayoutError, OutOfRangeError, ParseError, ShapeError,
                     SymbolicShapeError, TilespecError)
from .index import (all_offsets, linear_index, linear_index_with_tile, locate,
                    locate_many, offset, offset_expr, offsets, padded_elements,
                    pipeline, tiled_dims)
from .layout import COMBINE, Layout, Shape, SplitConfig, Tile, TupleShape
from .physical import from_physical, physical_size, to_physical
from .size import aligned_elements, bit_range, byte_size, num_elements, padding_fraction
from .text import (canonical, format_layout, format_shape, parse_array_shape,
                   parse_layout, parse_shape)

__all__ = [
    "INT", "SYMPY", "Arithmetic", "SympyArithmetic",
    "LayoutError", "OutOfRangeError", "ParseError", "ShapeError",
    "SymbolicShapeError", "TilespecError",
    "all_offsets", "linear_index", "linear_index_with_tile", "locate",
    "locate_many", "offset", "offset_expr", "offsets", "padded_elements",
    "pipeline", "tiled_dims",
    "COMBINE", "Layout", "Shape", "SplitConfig", "Tile", "TupleShape",
    "from_physical", "physical_size", "to_physical",
    "aligned_elements", "bit_range", "byte_size", "num_elements", "padding_fraction",
    "canonical", "format_layout", "format_shape", "parse_array_shape",
    "parse_layout", "parse_shape",
]
