"""One question, one verdict: ``tilespec.bitcast``, ``tilespec bitcast``,
``check-hlo`` and ``check-rule``'s spec side all answer "is this a bitcast"
through :func:`tilespec.prover.bitcast.is_bitcast`."""

from __future__ import annotations

import io
import json
import random
from contextlib import redirect_stdout

import pytest

import tilespec
from tilespec.cli.main import main
from tilespec.prover.bitcast import RESHAPE, TRT, decompose, is_bitcast, remembering
from tilespec.prover.bitcast.xla_reading import transpose_candidates, xla_transpose_permutation
from tilespec.prover.hlo.check import check_module
from tilespec.prover.hlo.module import parse_hlo
from tilespec.prover.models.bitcast_rules import check_bitcast_rule
from tilespec.prover.result import EXIT_STATUS, Counterexample
from tilespec.spec.index import offset
from tilespec.spec.printer import format_shape
from tilespec.spec.text import parse_array_shape as shape

#: Element counts and the dims (major to minor) that hold them.
COUNTS = {4: ((4,), (2, 2), (1, 4), (4, 1), (2, 1, 2)),
          6: ((6,), (2, 3), (3, 2), (1, 6), (3, 1, 2)),
          8: ((8,), (2, 4), (4, 2), (2, 2, 2), (8, 1)),
          12: ((12,), (3, 4), (2, 6), (2, 3, 2), (4, 3))}
#: Tiles and element sizes per element type: untiled, tiled, E(n).
TILINGS = {"f32": ("", "T(2,2)", "T(2)", "T(2,1,4)"),
           "bf16": ("", "T(2,2)(2,1)", "T(4)"),
           "s4": ("E(4)", "T(2)E(4)", "T(4)E(4)", "T(2,2)E(4)")}


def _layout(rank: int, rng: random.Random, fields: str) -> str:
    m2m = list(range(rank - 1, -1, -1))
    if rank > 1 and rng.random() < 0.5:
        rng.shuffle(m2m)
    if rng.random() < 0.2:
        fields += "L(4)"
    return "{" + ",".join(map(str, m2m)) + (":" + fields if fields else "") + "}"


def generated_pairs(count: int, seed: int = 0) -> list[tuple[str, str]]:
    """``count`` distinct pairs: reshapes, transposes (DST's dims a
    permutation of SRC's), TRTs and non-bitcasts among them, tiled and
    untiled, with E(n) and L(n)."""
    rng = random.Random(seed)
    out: dict = {}
    while len(out) < count:
        et = rng.choice(sorted(TILINGS))
        a = rng.choice(COUNTS[rng.choice(sorted(COUNTS))])
        ta = rng.choice(TILINGS[et])
        tb = ta if rng.random() < 0.6 else rng.choice(TILINGS[et])
        if rng.random() < 0.4 and len(a) > 1:
            perm = list(range(len(a)))
            rng.shuffle(perm)
            b = tuple(a[p] for p in perm)
        else:
            b = rng.choice(COUNTS[_count(a)])
        texts = tuple(f"{et}[{','.join(map(str, d))}]{_layout(len(d), rng, t)}"
                      for d, t in ((a, ta), (b, tb)))
        try:
            pair = tuple(format_shape(shape(t)) for t in texts)
        except ValueError:           # a tile that does not fit the rank
            continue
        out.setdefault(pair, None)
    return list(out)


def _count(dims) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def _cli_status(*argv) -> tuple[int, str]:
    buf = io.StringIO()
    with redirect_stdout(buf):
        code = main([*argv, "--json"])
    return code, json.loads(buf.getvalue())["results"][0]["status"]


def _hlo_module(pairs) -> str:
    lines = ["HloModule generated", "", "ENTRY %e () -> f32[] {"]
    for i, (src, dst) in enumerate(pairs):
        lines.append(f"  %p{i} = {src} parameter({i})")
        lines.append(f"  {'ROOT ' if i == len(pairs) - 1 else ''}%b{i} = {dst} bitcast(%p{i})")
    return "\n".join(lines + ["}"])


def _rule_spec_status(src, dst, transpose) -> str:
    """The spec's verdict as check-rule reports it."""
    r = check_bitcast_rule(src, dst, transpose)
    if r.status == "refuted":
        return "proved" if r.counterexample.details["spec_says_bitcast"] else "refuted"
    return r.steps[1].removeprefix("spec: ")


def test_every_entry_point_gives_one_verdict_on_generated_pairs(monkeypatch):
    # one parser for the thousand runs: building it costs more than a verdict
    import importlib
    cli_main = importlib.import_module("tilespec.cli.main")
    parser = cli_main.build_parser()
    monkeypatch.setattr(cli_main, "build_parser", lambda only=None: parser)
    with remembering():           # each pair is decided once, then reused
        _one_verdict_everywhere(generated_pairs(1000))


def _one_verdict_everywhere(pairs):
    verdicts = {}
    for src_text, dst_text in pairs:
        src, dst = shape(src_text), shape(dst_text)
        r = is_bitcast(src, dst)
        verdicts[(src_text, dst_text)] = r.status
        # the Python API
        assert tilespec.bitcast(src_text, dst_text).status == r.status, (src_text, dst_text)
        # the CLI, in-process, as JSON
        code, status = _cli_status("bitcast", src_text, dst_text)
        assert (code, status) == (EXIT_STATUS[r.status], r.status), (src_text, dst_text)
        # proved exactly when some reading is; refuted only when all are
        readings = [is_bitcast(src, dst, RESHAPE)] + [
            is_bitcast(src, dst, p) for p in transpose_candidates(src, dst)]
        if r.status == "refuted":
            assert all(x.status == "refuted" for x in readings)
            assert isinstance(r.counterexample, Counterexample)
        elif any(x.status == "proved" for x in readings):
            assert r.status == "proved"
        # check-rule's spec side is the one function, asked for the rule's reading
        if src.element_type == dst.element_type:
            assert _rule_spec_status(src, dst, None) == readings[0].status
            p = xla_transpose_permutation(src, dst)
            if p is not None:
                assert _rule_spec_status(src, dst, p) == is_bitcast(src, dst, p).status
    # check-hlo, on one module holding every pair as a bitcast
    report = check_module(parse_hlo(_hlo_module(pairs)))
    found = {f.instruction: f.rule.removeprefix("bitcast-") for f in report.findings
             if f.rule.startswith("bitcast-")}
    assert len(found) == len(pairs)
    for i, pair in enumerate(pairs):
        assert found[f"b{i}"] == verdicts[pair], pair
    kinds = {status for status in verdicts.values()}
    assert kinds == {"proved", "refuted"}      # the family holds both verdicts


def test_the_family_holds_every_kind_of_pair():
    kinds = set()
    for src_text, dst_text in generated_pairs(300):
        d = decompose(shape(src_text), shape(dst_text))
        kinds.add(d.kind)
    assert kinds == {"reshape", "transpose", "trt", None}


@pytest.mark.parametrize("src,dst", [
    ("f32[2,3,4]{2,1,0}", "f32[4,6]{0,1}"),
    ("f32[m,n]{1,0:T(8,128)}", "f32[n,m]{0,1:T(8,128)}"),
])
def test_api_and_cli_agree_where_only_a_transpose_or_trt_holds(src, dst):
    # the reviewer's held-out pairs: the API answered with the reshape alone
    assert tilespec.bitcast(src, dst).status == "proved"
    assert tilespec.bitcast(src, dst, "reshape").status == "refuted"
    assert _cli_status("bitcast", src, dst) == (0, "proved")


def test_named_dims_counterexample_refutes_every_reading_at_its_dims():
    # At m=2 this pair is a reshape; a counterexample must not be shown there.
    src, dst = shape("f32[m,2,2]{2,1,0:T(2,1,4)}"), shape("f32[m,2,2]{0,2,1:T(4,1)}")
    r = tilespec.bitcast(src, dst)
    assert r.status == "refuted"
    values = dict(r.counterexample.dim_values)
    s, d = src.instantiate(values), dst.instantiate(values)
    assert is_bitcast(s, d).status == "refuted"
    assert is_bitcast(s, d, RESHAPE).status == "refuted"
    for p in transpose_candidates(s, d):
        assert is_bitcast(s, d, p).status == "refuted"
    assert is_bitcast(src.instantiate({"m": 2}), dst.instantiate({"m": 2})).status == "proved"
    # the sides replay at those dims
    ce = r.counterexample
    assert ce.reading == TRT
    source, target = ce.side("source"), ce.side("target")
    assert offset(s, source.element) == source.offset
    assert offset(d, target.element) == target.offset
    assert source.byte_offset != target.byte_offset


def test_counterexample_is_typed_with_bytes_and_bits():
    r = tilespec.bitcast("s4[3,2]{0,1:E(4)}", "s4[6]{0:E(4)}", "reshape")
    assert r.status == "refuted"
    ce = r.counterexample
    assert ce.reading == "reshape" and ce.side("source").bit_offset == 4
    for side, s in (("source", "s4[3,2]{0,1:E(4)}"), ("target", "s4[6]{0:E(4)}")):
        x = ce.side(side)
        assert x.shape == s and x.bit_offset == (x.offset * 4) % 8
        assert x.byte_offset == x.offset * 4 // 8


@pytest.mark.parametrize("src,dst,reading", [
    ("f32[8,128]{1,0:T(8,128)}", "f32[2,512]{1,0:T(8,128)}", None),      # TRT, element moves
    ("f32[8,256]{1,0:T(8,128)}", "f32[256,8]{0,1:T(2,128)}", (1, 0)),    # one transpose
    ("f32[3,128]{1,0:T(8,128)}", "f32[384]{0}", "reshape"),              # sizes only
    ("f32[4]{0}", "bf16[4]{0}", None),                                   # element widths
    ("f32[m,n]{1,0:T(8,128)}", "f32[m,n,1]{2,1,0:T(8,128)}", "reshape"),  # named dims
])
def test_bitcast_text_and_json_show_the_same_counterexample(src, dst, reading):
    """describe, describe_decomposition, check-hlo's finding and --json all
    render the one typed counterexample: its lines appear in each text (in
    check-hlo's, what differs in the headline, the other facts below it),
    and the JSON is its to_json."""
    from tilespec.prover.bitcast import describe, describe_decomposition
    s, d = shape(src), shape(dst)
    r = is_bitcast(s, d, reading)
    assert r.status == "refuted"
    ce = r.counterexample
    assert isinstance(ce, Counterexample) and ce.what.startswith("the ")
    assert {x.name for x in ce.sides} == {"source", "target"}
    text = describe(r) if reading is not None else describe_decomposition(decompose(s, d))
    for line in ce.lines():
        assert line in text
    assert r.to_json()["counterexample"] == ce.to_json()
    if reading is None:
        report = check_module(parse_hlo(_hlo_module([(src, dst)])))
        from tilespec.render.hlo import fact_lines
        finding = next(f for f in report.findings
                       if f.rule in ("bitcast-refuted", "bitcast-size-mismatch"))
        assert finding.counterexample.to_json() == ce.to_json()
        assert finding.message.endswith(ce.what)
        facts = fact_lines(finding, "")
        for line in ce.lines()[:len(ce.lines()) - len(ce.details)]:
            assert line == f"what: {ce.what}" or line in facts


def test_a_byte_sized_element_has_no_bit_offset():
    ce = is_bitcast(shape("f32[16,256]{1,0:T(8,128)}"), shape("f32[4096]{0}"),
                    "reshape").counterexample
    source = ce.side("source")
    assert (source.element, source.offset, source.byte_offset) == ((0, 128), 1024, 4096)
    assert source.bit_offset is None and ce.what == "the offsets differ"
