"""tilespec's CuTe layouts judged by the real CuTe: pycute, the pure-Python
CuTe that the nvidia-cutlass wheel ships (the ``cute`` extra, in the
``test`` extra so that CI runs this file).

- Every exported layout, read by pycute from the text tilespec prints, gives
  the spec's offset at every element (a sample of a huge array's), and maps
  its domain onto ``[0, padded elements)`` once each: it is exact.
- Every refusal is put to a complete test of whether *any* CuTe layout with
  one mode per dim gives the spec's offsets on the logical elements
  (:func:`colex_modes`).  Where none does, pycute confirms it by brute force
  on short dims; where one does, pycute confirms that one.  The refusal
  means "no exact layout" (dense over the padded shape), not "CuTe cannot
  address these elements": most refused layouts have a CuTe form on their
  logical elements whose offsets leave gaps (``f32[3,5]{1,0:T(2,2)(3,1)}``
  is ``((2,2),5):((1,18),3)``).
"""

import ast
import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import tilespec
from tilespec import LayoutError
from tilespec.spec.index import all_offsets, padded_elements
from tilespec.testing import elements, shapes_with_layout

pycute = pytest.importorskip("pycute")


def judge(text: str):
    """The pycute layout of a CuTe text as tilespec prints it."""
    shape, stride = text.split(":")
    return pycute.Layout(ast.literal_eval(shape), ast.literal_eval(stride))


def judged_offset(layout, element):
    return layout(element[0]) if len(element) == 1 else layout(*element)


SMALL = shapes_with_layout(min_rank=1, max_rank=4, max_elements=256, allow_zero=False)


def _exported(shape):
    try:
        return tilespec.cute_layout(shape)
    except LayoutError:
        return None


def check_exact(shape):
    c = _exported(shape)
    if c is None:
        return False
    layout = judge(str(c))
    off = all_offsets(shape)
    for e in itertools.product(*map(range, off.shape)):
        assert judged_offset(layout, e) == off[e], (shape, c, e)
    # Over its whole domain, pycute's layout hits each padded offset once.
    assert sorted(layout(i) for i in range(layout.size())) == \
        list(range(padded_elements(shape))), (shape, c)
    return True


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SMALL)
def test_pycute_gives_the_spec_offsets_of_every_exported_layout(shape):
    check_exact(shape)


@pytest.mark.slow
@settings(max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes_with_layout(min_rank=1, max_rank=5, max_elements=2048, allow_zero=False))
def test_pycute_gives_the_spec_offsets_of_thousands_of_exported_layouts(shape):
    check_exact(shape)


HUGE = shapes_with_layout(min_rank=1, max_rank=4, max_dim=5000, max_tile_size=128,
                          max_elements=2**40, allow_zero=False, fields=())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_pycute_gives_the_spec_offsets_on_a_sample_of_huge_arrays(data):
    shape = data.draw(HUGE)
    c = _exported(shape)
    if c is None:
        return
    layout = judge(str(c))
    corner = tuple(d - 1 for d in shape.dims)
    sample = data.draw(st.lists(elements(shape), min_size=1, max_size=30))
    for e in [corner, tuple(0 for _ in shape.dims)] + sample:
        assert judged_offset(layout, e) == tilespec.offset(shape, e), (shape, c, e)
    assert layout.size() == padded_elements(shape)


@pytest.mark.parametrize("text", ["bf16[1024,1024]{1,0:T(8,128)(2,1)}",
                                  "s8[4096,300]{0,1:T(32,128)(4,1)}",
                                  "f32[3,1000,513]{2,0,1:T(8,128)}"])
def test_pycute_gives_the_spec_offsets_of_tpu_layouts(text):
    shape = tilespec.parse_shape(text)
    layout = judge(str(tilespec.cute_layout(shape)))
    rng = np.random.default_rng(0)
    for _ in range(200):
        e = tuple(int(rng.integers(d)) for d in shape.dims)
        assert judged_offset(layout, e) == tilespec.offset(shape, e)


# --- refusals: what CuTe can and cannot say about them ----------------------------------

def colex_mode(line):
    """The CuTe mode (coalesced ``(size, stride)`` digits, minor first) whose
    offsets are ``line`` on ``[0, len(line))``, or None when no mode gives them.

    Complete: a mode's first digit, coalesced, is exactly as long as the
    run on which ``line`` grows by a constant (a shorter one would be
    followed by a digit of stride ``size * stride``, which coalesces), and
    the rest is a mode of ``line[::length]``.

    >>> colex_mode([0, 1, 18]), colex_mode([0, 3, 6, 9, 12]), colex_mode([0, 1, 5, 2])
    ([(2, 1), (2, 18)], [(5, 3)], None)
    """
    line, digits = [int(x) for x in line], []
    while len(line) > 1:
        step = line[1] - line[0]
        run = next((x for x in range(len(line)) if line[x] != line[0] + x * step), len(line))
        if any(line[x] != line[x - x % run] + (x % run) * step for x in range(len(line))):
            return None
        digits.append((run, step))
        line = line[::run]
    return digits


def colex_modes(off: np.ndarray):
    """One CuTe mode per dim giving the offsets ``off`` at every element, or
    None when there is none: CuTe's offset is the sum of its modes' (so the
    offsets must be that sum of their values along each axis), and each
    mode is then fixed by its axis."""
    axes = [off[tuple(slice(None) if k == j else 0 for k in range(off.ndim))]
            for j in range(off.ndim)]
    if off.flat[0] != 0:
        return None
    total = sum(np.reshape(a, [-1 if k == j else 1 for k in range(off.ndim)])
                for j, a in enumerate(axes))
    if not np.array_equal(total, off):
        return None
    modes = [colex_mode(a) for a in axes]
    return None if any(m is None for m in modes) else modes


def pycute_modes_of(line) -> list:
    """Every pycute layout of one mode of ``len(line)`` coordinates that
    gives ``line`` (brute force: each sequence of digit sizes, the strides
    forced by the line at the digits' weights), as (shape, stride)."""
    d, found = len(line), []

    def sizes(weight):
        yield ()
        for s in range(2, d + 1):
            if weight * s < d:
                for rest in sizes(weight * s):
                    yield (s,) + rest
    for head in sizes(1):
        weights = list(itertools.accumulate((1,) + head, lambda a, b: a * b))
        shape = head + (math.ceil(d / weights[-1]),)
        stride = tuple(int(line[w]) for w in weights)
        layout = pycute.Layout(shape, stride)
        if all(layout(x) == line[x] for x in range(d)):
            found.append((shape, stride))
    return found


def check_refusal(shape) -> str:
    """'none' when no CuTe layout gives the spec's offsets (pycute agrees),
    'gaps' when one does (checked by pycute) though none is exact."""
    if _exported(shape) is not None or 0 in shape.dims:
        return "exported"
    off = all_offsets(shape)
    modes = colex_modes(off)
    if modes is None:
        axes = [off[tuple(slice(None) if k == j else 0 for k in range(off.ndim))]
                for j in range(off.ndim)]
        lines = [colex_mode(a) for a in axes]
        for a, m in zip(axes, lines):
            if m is None and len(a) <= 16:
                assert pycute_modes_of(a) == [], (shape, a)
        if all(m is not None for m in lines):
            # Each axis is a mode, but the offsets are not their sum: the
            # layout of those modes, by pycute, differs somewhere.
            layout = pycute.make_layout(*(pycute.Layout(tuple(s for s, _ in m) or 1,
                                                        tuple(t for _, t in m) or 0)
                                          for m in lines))
            assert any(judged_offset(layout, e) != off[e]
                       for e in itertools.product(*map(range, off.shape)))
        return "none"
    layout = pycute.make_layout(*(pycute.Layout(tuple(s for s, _ in m) or 1,
                                                tuple(t for _, t in m) or 0) for m in modes))
    for e in itertools.product(*map(range, off.shape)):
        assert judged_offset(layout, e) == off[e], (shape, modes, e)
    return "gaps"


@pytest.mark.parametrize("text,kind", [
    ("f32[3,5]{1,0:T(2,2)(3,1)}", "gaps"),          # ((2,2),5):((1,18),3)
    ("f32[9,9]{1,0:T(4,4)(8,1)}", "gaps"),
    ("f32[5]{0:T(2,128)}", "gaps"),                  # 5:1, the unit dim's padding unseen
    ("s8[6,8]{1,0:T(4,4)(3,2)}", "none"),
    ("f32[6,6]{1,0:T(4,4)(3,1)}", "none"),
])
def test_refusals_judged_by_pycute(text, kind):
    assert check_refusal(tilespec.parse_shape(text)) == kind


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes_with_layout(min_rank=1, max_rank=3, max_elements=256, allow_zero=False,
                          min_tiles=2))
def test_every_refusal_is_judged_by_pycute(shape):
    check_refusal(shape)


@pytest.mark.slow
@settings(max_examples=4000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes_with_layout(min_rank=1, max_rank=4, max_elements=1024, allow_zero=False,
                          min_tiles=1))
def test_thousands_of_refusals_are_judged_by_pycute(shape):
    check_refusal(shape)
