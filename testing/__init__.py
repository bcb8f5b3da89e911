"""Hypothesis strategies for XLA shapes, tiles and layouts
(:mod:`testing.strategies`), for the tests of code that takes shapes.

This package needs Hypothesis, which tilespec itself does not: install the
extra, ``pip install tilespec[testing]``.

>>> from hypothesis import given, settings
>>> @settings(max_examples=10, database=None, deadline=None)
... @given(shapes_with_layout(max_rank=2))
... def valid(shape):
...     assert shape.rank <= 2
>>> valid()
"""

from .strategies import (
    ALL_FIELDS,
    SIZE_FIELDS,
    SPARSE_FIELDS,
    element_types,
    elements,
    layouts,
    positions,
    shapes_with_layout,
    tiles,
    xla_shapes,
)

__all__ = [
    "ALL_FIELDS", "SIZE_FIELDS", "SPARSE_FIELDS",
    "element_types", "tiles", "layouts", "shapes_with_layout", "xla_shapes",
    "elements", "positions",
]
