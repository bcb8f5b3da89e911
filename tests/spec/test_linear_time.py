"""Parsing and building the pipeline take time linear in a tile's entries
(a per-entry message built from the whole tile made 5,001 entries take
a minute)."""

from __future__ import annotations

import time

from tilespec.spec.index import dims_through, shape_pipeline
from tilespec.spec.text import parse_array_shape


def test_a_tile_of_twenty_thousand_entries_is_parsed_and_tiled_in_linear_time():
    n = 20_000      # quadratic work here is hundreds of seconds; linear, a fraction of one
    text = f"f32[3,5]{{1,0:T({','.join(['1'] * n)})}}"
    start = time.perf_counter()
    shape = parse_array_shape(text)
    last = dims_through(shape_pipeline(shape), shape.dims)[-1]
    assert len(shape.layout.tiles[0]) == n and len(last) == 2 * n
    assert time.perf_counter() - start < 10
