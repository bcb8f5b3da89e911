"""tilespec's executable specification of XLA tiled layouts.

This package is the spec's door: the definitions other packages ask for.
They take parsed shapes (``parse_shape`` reads the text; its ``dims=`` sizes
named dims); ``tilespec.offset`` and the other top-level names of the
package take the text as well.

>>> from tilespec.spec import parse_shape, offset, locate, byte_size
>>> s = parse_shape("bf16[1024,1024]{1,0:T(8,128)(2,1)}")
>>> offset(s, (1, 0)), offset(s, (0, 1)), offset(s, (8, 0))
(1, 2, 8192)
>>> locate(s, 2), byte_size(s)
((0, 1), 2097152)
>>> offset(parse_shape("f32[m,n]{1,0:T(2,2)}", {"m": 3, "n": 5}), (2, 3))
17
"""

from .arith import INT, SYMPY, Arithmetic, SympyArithmetic
from .errors import (
    LayoutError,
    OutOfRangeError,
    ParseError,
    ShapeError,
    SymbolicShapeError,
    TilespecError,
)

# The definitions take parsed shapes; tilespec's top-level names (the root
# __init__) wrap the shape functions so that they take text and dims= too.
from .index import (
    all_offsets,
    linear_index,
    linear_index_with_tile,
    locate,
    locate_many,
    offset,
    offset_expr,
    offsets,
    padded_elements,
    pipeline,
    tiled_dims,
)
from .layout import COMBINE, Layout, Shape, SplitConfig, Tile, TupleShape
from .physical import from_physical, to_physical
from .printer import (
    format_layout,
    format_shape,
)
from .prt import physical_size
from .shapes import (
    DimValues,
    ShapeLike,
    accepts_text,
    as_shape,
    parse_array_shape,
    parse_shape,
)
from .size import (
    aligned_elements,
    bit_range,
    byte_size,
    num_elements,
    padding_fraction,
    unpadded_bytes,
)
from .text import canonical, parse_layout

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
    "DimValues", "ShapeLike", "accepts_text", "as_shape", "resolve_xla",
]

# What other packages ask of this one (`x as x`: re-exported for mypy).
from .arith import (
    index_mod as index_mod,
)
from .dtypes import (
    BIT_WIDTHS as BIT_WIDTHS,
    ELEMENT_TYPES as ELEMENT_TYPES,
    NON_ARRAY_TYPES as NON_ARRAY_TYPES,
    bit_width as bit_width,
    storage_bits as storage_bits,
)
from .index import (
    Combine as Combine,
    Pad as Pad,
    Permute as Permute,
    Prepend as Prepend,
    Split as Split,
    combine_groups as combine_groups,
    concrete_dims as concrete_dims,
    delinearise as delinearise,
    dim_symbols as dim_symbols,
    dims_through as dims_through,
    evaluate as evaluate,
    index_symbols as index_symbols,
    product as product,
    shape_pipeline as shape_pipeline,
    unevaluate as unevaluate,
)
from .layout import (
    INT64_MAX as INT64_MAX,
    BufferShape as BufferShape,
    Dim as Dim,
)
from .memory import (
    HOST_MEMORY_SPACE as HOST_MEMORY_SPACE,
    UNPINNED_HOST_MEMORY_SPACE as UNPINNED_HOST_MEMORY_SPACE,
    memory_space_name as memory_space_name,
)
from .naming import (
    Names as Names,
    names as names,
    reserved as reserved,
)
from .prt import (
    PrtLevel as PrtLevel,
    level_steps as level_steps,
    prt_final_dims as prt_final_dims,
    prt_level as prt_level,
    prt_levels as prt_levels,
    prt_offset as prt_offset,
    prt_steps as prt_steps,
    reshape_index as reshape_index,
)
from .shapes import (
    give_values as give_values,
    logical_dims as logical_dims,
)
from .size import (
    bytes_of as bytes_of,
    ifrt_compact_byte_size as ifrt_compact_byte_size,
    padded_count as padded_count,
    round_up as round_up,
    storage_sizes as storage_sizes,
)
from .stablehlo import (
    StablehloError as StablehloError,
    custom_call_attribute as custom_call_attribute,
    custom_call_attributes as custom_call_attributes,
    custom_call_shapes as custom_call_shapes,
    print_result_tilings as print_result_tilings,
    read_custom_call as read_custom_call,
    read_result_tilings as read_result_tilings,
)
from .text import (
    read_shape as read_shape,
)
from .versions import (
    JAXLIB_XLA as JAXLIB_XLA,
    NEWEST_XLA as NEWEST_XLA,
    XLA_HISTORY as XLA_HISTORY,
    Holds as Holds,
    UnknownXlaVersion as UnknownXlaVersion,
    XlaCommit as XlaCommit,
    resolve as resolve_xla,
)
