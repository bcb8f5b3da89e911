"""The bitcast decision by XLA version: the verifier's memory-space check
(added at 8a84ad7ef7, 2026-04-06; none before), ``S(6)`` named at c56c6be6b8
(2026-05-15), and ``GetBitcastMap``'s preference for a transpose over a
reshape (5d1dc54c5f, 2026-03-27)."""

from __future__ import annotations

import pytest

from tilespec.prover.bitcast import (
    GET_BITCAST_MAP,
    decompose,
    is_bitcast,
    memory_space_name,
    memory_space_violation,
)
from tilespec.spec import num_elements
from tilespec.spec.text import parse_array_shape as shape

HOST = ("f32[8,128]{1,0:T(8,128)S(5)}", "f32[1024]{0}")


@pytest.mark.parametrize("xla,status", [("2026-04-05", "proved"), ("8a84ad7ef7", "refuted"),
                                        (None, "refuted")])
def test_host_memory_on_one_side_is_rejected_only_since_the_check(xla, status):
    src, dst = map(shape, HOST)
    assert is_bitcast(src, dst, xla=xla).status == status
    assert decompose(src, dst, xla=xla).status == status
    assert (memory_space_violation(src, dst, xla=xla) is None) == (status == "proved")


def test_before_the_check_a_proof_says_the_verifier_compared_nothing():
    r = is_bitcast(*map(shape, HOST), xla="2026-04-05")
    assert any("compares no memory spaces before 8a84ad7ef7" in s for s in r.steps)


@pytest.mark.parametrize("xla", ["2026-05-14", None])
def test_unpinned_host_memory_joins_device_memory_but_not_pinned_host(xla):
    # the verifier compares with kHostMemorySpace (5) only, at every version
    assert memory_space_violation(shape("f32[8]{0:S(6)}"), shape("f32[8]{0}"), xla=xla) is None
    assert memory_space_violation(shape("f32[8]{0:S(6)}"), shape("f32[8]{0:S(5)}"),
                                  xla=xla) is not None


def test_s6_is_named_unpinned_host_memory_since_c56c6be6b8():
    assert memory_space_name(6).startswith("unpinned host memory")
    assert memory_space_name(6, xla="c56c6be6b8").startswith("unpinned host memory")
    assert memory_space_name(6, xla="2026-05-14").startswith("memory space 6 (no name")


@pytest.mark.parametrize("src,dst", [
    # XLA's own test, BitcastWithSize1DimensionIsTranspose (5d1dc54c5f)
    ("f32[1,250]{0,1}", "f32[250,1]{1,0}"),
    ("f32[1,8]{1,0}", "f32[8,1]{0,1}"),
])
def test_get_bitcast_map_prefers_the_transpose_since_5d1dc54c5f(src, dst):
    a, b = shape(src), shape(dst)
    assert decompose(a, b).kind == "reshape"      # ShapeUtil::DecomposeBitcast, every version
    after = decompose(a, b, order=GET_BITCAST_MAP)
    assert after.kind == "transpose" and after.permutations == ((1, 0),)
    before = decompose(a, b, order=GET_BITCAST_MAP, xla="2026-03-26")
    assert before.kind == "reshape"
    assert before.status == after.status == "proved"


def test_a_pair_that_is_no_transpose_is_read_as_before():
    a, b = shape("f32[2,3]{1,0}"), shape("f32[6]{0}")
    assert decompose(a, b, order=GET_BITCAST_MAP).kind == "reshape"


@pytest.mark.parametrize("xla", ["2026-03-02", None])
@pytest.mark.parametrize("src,dst", [("f32[1024]{0:T(1024)}", "f32[1000]{0:T(1024)}"),
                                     ("f32[8,16]{1,0}", "f16[8,32]{1,0}")])
def test_get_bitcast_map_reads_no_change_of_the_element_count(src, dst, xla):
    # IsDecomposableBitcast (equal ElementsIn) fails: the map is undefined,
    # where the verifier's readings (prefix, reshape of units) prove it
    a, b = shape(src), shape(dst)
    d = decompose(a, b, order=GET_BITCAST_MAP, xla=xla)
    assert d.status == "refuted" and "IsDecomposableBitcast" in d.reason
    assert [s.value for s in d.counterexample.sides] == [num_elements(a), num_elements(b)]
    assert decompose(a, b, xla=xla).status == "proved"


def test_the_command_reads_in_get_bitcast_maps_order(capsys):
    from tilespec.cli import main
    assert main(["bitcast", "f32[1,250]{0,1}", "f32[250,1]{1,0}",
                 "--as", "get-bitcast-map"]) == 0
    assert "proved as a transpose" in capsys.readouterr().out
    assert main(["bitcast", "f32[1,250]{0,1}", "f32[250,1]{1,0}"]) == 0
    assert "proved as a reshape" in capsys.readouterr().out


def test_explain_names_s6_by_version(capsys):
    from tilespec.cli import main
    assert main(["explain", "f32[8]{0:S(6)}"]) == 0
    assert "memory space     S(6): unpinned host memory" in capsys.readouterr().out
    assert main(["explain", "f32[8]{0:S(6)}", "--xla", "2026-05-14"]) == 0
    assert "S(6): memory space 6 (no name in XLA before c56c6be6b8" in capsys.readouterr().out
