"""A reshape between untiled row-major layouts is proved by a theorem (each
side's offset is the row-major position, Z3 on the spec's pipeline; the
mixed-radix lemma pairs the positions), whatever the rank: a rank-40 reshape
is decided at once, never left unknown after scanning its elements.
"""

from __future__ import annotations

import time

import pytest

import tilespec
from tilespec.prover.bitcast import row_major
from tilespec.spec.index import Permute
from tilespec.spec.text import parse_array_shape


def row_major_text(dims) -> str:
    order = ",".join(map(str, range(len(dims) - 1, -1, -1)))
    return f"f32[{','.join(map(str, dims))}]{{{order}}}"


RANK_40 = [
    ([2] * 40, [2**40]),
    ([2] * 40, [4] * 20),
    ([2, 3] * 20, [3, 2] * 20),
    ([1] * 20 + [2] * 20, [2] * 20 + [1] * 20),    # 2^20 elements: was a full scan
    ([1, 2] * 20, [2, 1] * 20),
    ([5] + [2] * 39, [2] * 39 + [5]),
]


@pytest.mark.parametrize("src,dst", RANK_40)
def test_a_rank_40_row_major_reshape_is_proved_by_the_theorem_quickly(src, dst):
    start = time.perf_counter()
    r = tilespec.bitcast(row_major_text(src), row_major_text(dst))
    seconds = time.perf_counter() - start
    assert r.status == "proved", r.reason
    assert "mixed-radix rank 40: proved" in r.steps
    assert any("offset is the row-major position" in s for s in r.steps)
    assert seconds < 10.0          # generous: a loaded machine; the theorem takes ~0.1 s


def test_the_theorem_is_about_the_pipeline_that_runs(monkeypatch):
    src, dst = parse_array_shape("f32[2,3]{1,0}"), parse_array_shape("f32[6]{0}")
    assert row_major.reshape_proof(src, dst) is not None

    def reversed_pipeline(rank, layout):
        return (Permute(tuple(range(rank))[::-1]),)

    # a pipeline that is not the row-major position proves nothing here
    monkeypatch.setattr(row_major, "pipeline", reversed_pipeline)
    assert row_major.reshape_proof(src, dst) is None


@pytest.mark.parametrize("src,dst", [
    ("f32[2,3]{0,1}", "f32[6]{0}"),                 # column-major
    ("f32[8,128]{1,0:T(8,128)}", "f32[1024]{0}"),  # tiled
])
def test_other_layouts_are_left_to_the_other_ways(src, dst):
    assert row_major.reshape_proof(parse_array_shape(src), parse_array_shape(dst)) is None


def test_the_buffers_bytes_still_decide():
    # one element arrangement, different bytes (L(8) rounds SRC up)
    r = tilespec.bitcast("f32[2,3]{1,0:L(8)}", "f32[6]{0}", "reshape")
    assert r.status == "refuted" and r.counterexample.what == "the sizes differ"
