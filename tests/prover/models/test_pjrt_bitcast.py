"""PjRt's ``Buffer::Bitcast`` checks only byte sizes (ROCm/xla ec6acecead,
``CommonPjRtBufferImpl::Bitcast``: ``ShapeUtil::ArraySize`` of both shapes);
tilespec says whether each element then stays where the reader expects it,
through the one bitcast decision."""

import pytest

from tilespec.cli import EXIT_BAD_INPUT, main
from tilespec.prover.bitcast import is_bitcast
from tilespec.prover.models import pjrt_buffer_bitcast, xla_array_bytes
from tilespec.spec import offset
from tilespec.spec.text import parse_array_shape as shape


def test_different_array_sizes_are_refused_as_pjrt_refuses_them():
    src, dst = shape("f32[8,130]{1,0:T(8,128)}"), shape("f32[1040]{0}")
    r = pjrt_buffer_bitcast(src, dst)
    assert r.status == "refuted"
    assert r.reason.startswith("sizes differ (8192 bytes against 4160): PjRt refuses")
    assert [s.value for s in r.counterexample.sides] == [xla_array_bytes(src),
                                                        xla_array_bytes(dst)]


def test_equal_sizes_with_a_moved_element_are_accepted_silently_and_replayed():
    src, dst = shape("f32[8,128]{1,0}"), shape("f32[8,128]{0,1}")
    r = pjrt_buffer_bitcast(src, dst)
    assert r.status == "refuted" and "PjRt accepts it silently" in r.reason
    s, t = r.counterexample.sides
    # replayed on the spec: the element's byte differs between the layouts
    assert s.element == t.element
    assert 4 * offset(src, s.element) == s.byte_offset != t.byte_offset == 4 * offset(dst, t.element)
    # XLA's own order would read this pair as a transpose-reshape-transpose:
    # a bitcast for XLA's compiler, not for a reader of the buffer's new shape
    assert is_bitcast(src, dst).status == "proved"


@pytest.mark.parametrize("src,dst", [("f32[8,128]{1,0:T(8,128)}", "f32[1024]{0}"),
                                     ("f32[4]{0}", "u8[4,4]{1,0}")])
def test_equal_sizes_keeping_every_element_are_proved(src, dst):
    r = pjrt_buffer_bitcast(shape(src), shape(dst))
    assert r.status == "proved"
    assert r.steps[0].startswith("sizes equal")


def test_the_command_gives_the_three_verdicts(capsys):
    assert main(["bitcast", "f32[8,128]{1,0:T(8,128)}", "f32[1024]{0}",
                 "--as", "pjrt-buffer"]) == 0
    assert main(["bitcast", "f32[8,4]{1,0}", "f32[8,4]{0,1}", "--as", "pjrt-buffer"]) == 1
    assert "PjRt accepts it silently" in capsys.readouterr().out
    assert main(["bitcast", "f32[8,4]{1,0}", "f32[4]{0}", "--as", "pjrt-buffer"]) == 1
    assert "PjRt refuses" in capsys.readouterr().out
    assert main(["bitcast", "f32[8,4]{1,0}", "f32[8,4]{0,1}", "--as", "pjrt-buffer",
                 "--reshape"]) == EXIT_BAD_INPUT


def test_the_new_buffer_keeps_the_old_memory_space_and_no_verifier_is_asked():
    # MakeDefaultShapeForMemorySpace(memory_space(), ...): S(5) written in the
    # target is the source's space; HandleBitcast's host-memory rule is no part of it
    src, dst = shape("f32[8,128]{1,0:T(8,128)}"), shape("f32[1024]{0:S(5)}")
    assert is_bitcast(src, dst).status == "refuted"
    assert pjrt_buffer_bitcast(src, dst).status == "proved"


def test_other_dims_of_the_same_size_are_a_question_not_bad_input(capsys):
    # PjRt's Bitcast takes any dims whose ArraySize is the old one's: the
    # reader of DST expects its element i where SRC kept element i
    src, dst = shape("f32[1024]{0:T(1024)}"), shape("f32[1000]{0:T(1024)}")
    r = pjrt_buffer_bitcast(src, dst)
    assert r.status == "proved" and "SRC elements 1000.. lie on the padding of DST" in r.steps
    src, dst = shape("f32[4,6]{1,0:T(4,8)}"), shape("f32[5,4]{0,1:T(4,8)}")
    r = pjrt_buffer_bitcast(src, dst)
    s, t = r.counterexample.side("source"), r.counterexample.side("target")
    assert r.status == "refuted" and s.element == t.element
    assert (s.offset, t.offset) == (offset(src, s.element), offset(dst, t.element))
    assert s.offset != t.offset
    assert main(["bitcast", "f32[1024]{0:T(1024)}", "f32[1000]{0:T(1024)}",
                 "--as", "pjrt-buffer"]) == 0


@pytest.mark.parametrize("dst", ["f32[8,4]{1,0:T(*,2)}", "f32[32]{0}"])
def test_a_source_tiled_with_star_is_no_buffer_so_never_proved(dst):
    # ArraySize is 0 bytes for every '*' layout: the sizes compared equal
    # and the bitcast of 32 elements in 0 bytes was "proved"
    r = pjrt_buffer_bitcast(shape("f32[4,8]{1,0:T(*,4)}"), shape(dst))
    assert r.status == "unknown" and "no PjRt buffer" in r.reason
