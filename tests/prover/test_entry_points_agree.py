"""One bitcast verdict, whichever entry point asks: the padding advisor
(:func:`tilespec.prover.padding.advice.bitcast_verdict`), the Python API
(``tilespec.bitcast``), ``tilespec bitcast`` and ``check-hlo`` on a module
that holds the bitcast agree on every pair -- with ``L(n)`` tails, ``E(n)``
packing, tile padding, reshapes and memory spaces (host memory ``S(5)`` on
one side only is no bitcast: XLA's verifier rejects it).

The advisor asks about a program that keeps its elements in order (a
layout change or a reshape): the reshape reading.  The module records its
bitcast as a reshape (``op_name``), so ``check-hlo`` checks that reading too.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import tilespec
from tilespec.cli.main import main
from tilespec.prover.padding.advice import bitcast_verdict
from tilespec.spec.layout import Layout, Shape, Tile
from tilespec.spec.printer import format_shape
from tilespec.spec.text import parse_array_shape

#: The pair of the issue: XLA's ArraySize is 32 bytes against 64 (L(n) is
#: read only when tiled), the spec's 64 and 64, ByteSizeOf 32 and 32.
ISSUE_PAIR = ("f32[8]{0:L(16)}", "f32[8]{0:T(8)L(16)}")

#: (element type, E(n) or 0, tile families that fit it)
TYPES = [("f32", 0, [(), ((8,),), ((8, 128),), ((2, 128),)]),
         ("bf16", 0, [(), ((8, 128), (2, 1)), ((4, 128), (2, 1)), ((16,),)]),
         ("s4", 4, [(), ((8, 128), (4, 1)), ((32,),)]),
         ("s8", 0, [(), ((8, 128), (4, 1)), ((1, 128),)]),
         ("bf16", 32, [(), ((8, 128),)])]

DIMS = st.lists(st.sampled_from([1, 2, 3, 4, 8, 16, 130]), min_size=1, max_size=3)


def reshapes(dims: tuple[int, ...]) -> list[tuple[int, ...]]:
    """DST dims with SRC's element count: the same, unit dims dropped or
    added, neighbours merged, a dim split in two."""
    out = [dims, dims + (1,), (1,) + dims]
    kept = tuple(d for d in dims if d != 1)
    if kept:
        out.append(kept)
    for i in range(len(dims) - 1):
        out.append(dims[:i] + (dims[i] * dims[i + 1],) + dims[i + 2:])
    for i, d in enumerate(dims):
        if d % 2 == 0 and d > 2:
            out.append(dims[:i] + (2, d // 2) + dims[i + 1:])
    return out


@st.composite
def layouts(draw, rank: int, families, bits: int):
    order = draw(st.permutations(range(rank)))
    tiles = draw(st.sampled_from(families))
    tail = draw(st.sampled_from([1, 1, 2, 16, 128]))
    space = draw(st.sampled_from([0, 0, 0, 1, 5]))
    return Layout(tuple(order), tiles=tuple(Tile(t) for t in tiles),
                  tail_padding_alignment_in_elements=tail, element_size_in_bits=bits,
                  memory_space=space)


@st.composite
def pairs(draw):
    element_type, bits, families = draw(st.sampled_from(TYPES))
    dims = tuple(draw(DIMS))
    other = draw(st.sampled_from(reshapes(dims)))
    src = Shape(element_type, dims, draw(layouts(len(dims), families, bits)))
    dst = Shape(element_type, other, draw(layouts(len(other), families, bits)))
    return format_shape(src), format_shape(dst)


def advisor_says(src: str, dst: str) -> str:
    bitcast, proved = bitcast_verdict(parse_array_shape(src), parse_array_shape(dst),
                                      timeout=20.0)
    return "unknown" if not proved else "proved" if bitcast else "refuted"


def api_says(src: str, dst: str) -> str:
    return tilespec.bitcast(src, dst, "reshape", timeout=20.0).status


def check_hlo_says(src: str, dst: str) -> str:
    report = tilespec.check_hlo(f"""HloModule m
ENTRY e {{
  p = {src} parameter(0)
  ROOT b = {dst} bitcast(p), metadata={{op_name="jit(f)/reshape"}}
}}""", timeout=20.0)
    rules = {f.rule: f for f in report.findings}
    against = [rules[r] for r in ("meant-reshape-not-bitcast", "bitcast-refuted",
                                  "bitcast-size-mismatch", "bitcast-unknown",
                                  "bitcast-memory-space") if r in rules]
    if not against:
        assert "bitcast-proved" in rules, report.findings
        return "proved"
    return "refuted" if any(f.decided for f in against) else "unknown"


def test_the_issue_pair_is_a_bitcast_for_every_entry_point(capsys):
    assert advisor_says(*ISSUE_PAIR) == api_says(*ISSUE_PAIR) == "proved"
    assert check_hlo_says(*ISSUE_PAIR) == "proved"
    assert tilespec.bitcast(*ISSUE_PAIR).status == "proved"
    assert main(["bitcast", *ISSUE_PAIR]) == 0
    assert "proved" in capsys.readouterr().out


@settings(max_examples=60, deadline=None)
@given(pairs())
def test_the_advisor_the_api_and_check_hlo_agree_on_every_pair(pair):
    src, dst = pair
    assert advisor_says(src, dst) == api_says(src, dst) == check_hlo_says(src, dst), pair


@pytest.mark.parametrize("src,dst", [
    ("f32[8,128]{1,0}", "f32[8,128]{0,1}"),                        # a copy, however XLA reads it
    ("f32[130]{0:L(128)}", "f32[1,130]{1,0:T(1,128)}"),
    ("s4[8,256]{1,0:T(8,128)(4,1)E(4)}", "s4[2048]{0:T(32)E(4)}"),
    ("bf16[16,8]{1,0:T(8,128)(2,1)}", "bf16[128]{0:L(16)}"),
])
def test_they_agree_on_chosen_pairs(src, dst):
    assert advisor_says(src, dst) == api_says(src, dst) == check_hlo_says(src, dst)


#: Memory-space pairs whose bytes stay in place: (src, dst, verdict).
MEMORY_SPACE_PAIRS = [
    ("f32[1,8,128]{2,1,0:T(8,128)S(5)}", "f32[8,128]{1,0:T(8,128)}", "refuted"),  # the issue's
    ("f32[8,128]{1,0:T(8,128)}", "f32[1024]{0:T(1024)S(5)}", "refuted"),
    ("f32[8,128]{1,0:T(8,128)S(1)}", "f32[8,128]{1,0:T(8,128)S(5)}", "refuted"),
    ("f32[1,8,128]{2,1,0:T(8,128)S(5)}", "f32[8,128]{1,0:T(8,128)S(5)}", "proved"),
    ("f32[1,8,128]{2,1,0:T(8,128)}", "f32[8,128]{1,0:T(8,128)S(1)}", "proved"),
    ("f32[8,128]{1,0:S(6)}", "f32[1024]{0}", "proved"),
]


@pytest.mark.parametrize("src,dst,verdict", MEMORY_SPACE_PAIRS)
def test_every_entry_point_gives_a_memory_space_pair_one_verdict(src, dst, verdict, capsys):
    assert advisor_says(src, dst) == api_says(src, dst) == check_hlo_says(src, dst) == verdict
    assert tilespec.bitcast(src, dst).status == verdict
    code = {"proved": 0, "refuted": 1}[verdict]
    assert main(["bitcast", src, dst]) == code
    assert main(["bitcast", "--reshape", src, dst]) == code
    capsys.readouterr()


#: Bitcasts that change the element type, width or count (issue 30): one
#: verdict each, whichever entry point asks, in XLA's order.
RESIZED = [
    ("f32[8,16]{1,0}", "s32[8,16]{1,0}", "proved"),                   # equal width
    ("pred[8,128]{1,0:T(8,128)E(32)}", "s32[8,128]{1,0:T(8,128)}", "proved"),
    ("f32[8,16]{1,0}", "f16[8,32]{1,0}", "proved"),                   # other width
    ("f32[16,128]{1,0:T(8,128)}", "bf16[16,256]{1,0:T(8,128)(2,1)}", "unknown"),
    ("f32[1024]{0:T(1024)}", "f32[1000]{0:T(1024)}", "proved"),       # a prefix
    ("f32[2,4]{0,1}", "f32[6]{0:L(8)}", "refuted"),                   # moves elements
    ("f32[4]{0}", "f32[2]{0}", "refuted"),                            # byte sizes
]


def check_hlo_decides(src: str, dst: str) -> str:
    report = tilespec.check_hlo(f"""HloModule m
ENTRY e {{
  p = {src} parameter(0)
  ROOT b = {dst} bitcast(p)
}}""", timeout=20.0)
    return report.status


@pytest.mark.parametrize("src,dst,status", RESIZED)
def test_a_type_width_or_count_change_has_one_verdict(src, dst, status, capsys):
    assert tilespec.bitcast(src, dst, timeout=20.0).status == status
    assert check_hlo_decides(src, dst) == status
    assert main(["bitcast", src, dst]) == {"proved": 0, "refuted": 1, "unknown": 3}[status]
    assert capsys.readouterr().out.split()[0] == {"proved": "bitcast:", "refuted": "not",
                                                  "unknown": "unknown"}[status]
