"""tilespec's executable specification of XLA tiled layouts.

Every function here that takes a shape also takes its text, and a keyword
``dims`` that gives named dims their sizes (see :mod:`.shapes`); the
modules themselves (``tilespec.spec.index`` ...) take parsed shapes.

>>> from tilespec.spec import parse_shape, offset, locate, byte_size
>>> s = parse_shape("bf16[1024,1024]{1,0:T(8,128)(2,1)}")
>>> offset(s, (1, 0)), offset(s, (0, 1)), offset(s, (8, 0))
(1, 2, 8192)
>>> locate(s, 2), byte_size(s)
((0, 1), 2097152)
>>> offset("f32[3,5]{1,0:T(2,2)}", (2, 3))
17
>>> offset("f32[m,n]{1,0:T(2,2)}", (2, 3), dims={"m": 3, "n": 5})
17
"""

from . import index as _index
from . import printer as _printer
from . import prt as _prt
from . import size as _size
from .arith import INT, SYMPY, Arithmetic, SympyArithmetic
from .errors import (
    LayoutError,
    OutOfRangeError,
    ParseError,
    ShapeError,
    SymbolicShapeError,
    TilespecError,
)
from .index import linear_index, linear_index_with_tile, pipeline
from .layout import COMBINE, Layout, Shape, SplitConfig, Tile, TupleShape
from .physical import from_physical, to_physical
from .printer import format_layout
from .shapes import (
    DimValues,
    ShapeLike,
    accepts_text,
    as_shape,
    parse_array_shape,
    parse_shape,
)
from .text import canonical, parse_layout

# The public functions of a shape: each accepts text and dims= (one wrapper,
# so the modules' own functions stay plain and fast for internal use).
all_offsets = accepts_text(_index.all_offsets)
locate = accepts_text(_index.locate)
locate_many = accepts_text(_index.locate_many)
offset = accepts_text(_index.offset)
offset_expr = accepts_text(_index.offset_expr)
offsets = accepts_text(_index.offsets)
padded_elements = accepts_text(_index.padded_elements)
tiled_dims = accepts_text(_index.tiled_dims)
physical_size = accepts_text(_prt.physical_size)
aligned_elements = accepts_text(_size.aligned_elements)
bit_range = accepts_text(_size.bit_range)
byte_size = accepts_text(_size.byte_size)
num_elements = accepts_text(_size.num_elements)
padding_fraction = accepts_text(_size.padding_fraction)
unpadded_bytes = accepts_text(_size.unpadded_bytes)
format_shape = accepts_text(_printer.format_shape, array=False)

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
    "unpadded_bytes",
    "canonical", "format_layout", "format_shape", "parse_array_shape",
    "parse_layout", "parse_shape",
    "DimValues", "ShapeLike", "accepts_text", "as_shape",
]

# What other packages ask of this one.
from .arith import index_mod  # noqa: F401
from .dtypes import BIT_WIDTHS, ELEMENT_TYPES, NON_ARRAY_TYPES, bit_width, storage_bits  # noqa: F401
from .index import (  # noqa: F401
    Combine,
    Pad,
    Permute,
    Prepend,
    Split,
    combine_groups,
    concrete_dims,
    delinearise,
    dim_symbols,
    dims_through,
    evaluate,
    index_symbols,
    product,
    shape_pipeline,
    unevaluate,
)
from .layout import INT64_MAX, BufferShape, Dim  # noqa: F401
from .naming import Names, names, reserved  # noqa: F401
from .prt import PrtLevel, prt_final_dims, prt_levels, prt_offset, prt_steps, reshape_index  # noqa: F401
from .shapes import give_values, logical_dims  # noqa: F401
from .size import bytes_of, padded_count, round_up  # noqa: F401
from .text import read_shape  # noqa: F401
