"""Hypothesis strategies for CuTe int tuples and layouts (small sizes, so
that every coordinate can be enumerated)."""

from hypothesis import strategies as st

from tilespec.cute import Layout
from tilespec.cute.int_tuple import flatten, is_tuple


def shapes(max_leaves: int = 4, max_size: int = 6):
    """Nested shapes of up to ``max_leaves`` ints, each in [1, max_size]."""
    leaf = st.integers(1, max_size)
    return st.recursive(leaf, lambda inner: st.lists(inner, min_size=1, max_size=3)
                        .map(tuple), max_leaves=max_leaves)


def strides_like(shape, max_stride: int = 64):
    """A stride congruent to ``shape``."""
    if is_tuple(shape):
        return st.tuples(*(strides_like(m, max_stride) for m in shape))
    return st.integers(0, max_stride)


@st.composite
def layouts(draw, max_leaves: int = 4, max_size: int = 6, max_stride: int = 64):
    shape = draw(shapes(max_leaves, max_size))
    return Layout(shape, draw(strides_like(shape, max_stride)))


def leaves(layout: Layout) -> int:
    return len(flatten(layout.shape))


STRIDES = (0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)


def random_layout(rng, max_size: int = 6) -> Layout:
    """A random layout from ``rng`` (a ``random.Random``): nested up to
    depth 2, sizes in [1, max_size], strides that often divide one another
    (so that many compositions are admissible)."""
    def shape(depth):
        if depth < 2 and rng.random() < 0.4:
            return tuple(shape(depth + 1) for _ in range(rng.randint(1, 3)))
        return rng.randint(1, max_size)

    def stride(s):
        return tuple(stride(m) for m in s) if is_tuple(s) else rng.choice(STRIDES)

    s = shape(0)
    return Layout(s, stride(s))


def divisible_strides_like(shape):
    """A stride congruent to ``shape``, each from :data:`STRIDES` (strides
    that often divide one another, so that many compositions are
    admissible)."""
    if is_tuple(shape):
        return st.tuples(*(divisible_strides_like(m) for m in shape))
    return st.sampled_from(STRIDES)


@st.composite
def algebra_layouts(draw, max_leaves: int = 4, max_size: int = 6):
    """Layouts for the algebra: small nested shapes, strides from
    :data:`STRIDES`."""
    shape = draw(shapes(max_leaves, max_size))
    return Layout(shape, draw(divisible_strides_like(shape)))


@st.composite
def carrying_compositions(draw):
    """``(A, B)`` where B's modes often carry into one another in A's first
    mode: A's first mode ``s:1`` (s a power of 2), followed by modes that do
    not coalesce with it; B's modes of power-of-2 sizes and strides below
    ``s``."""
    s = draw(st.sampled_from((2, 4, 8, 16)))
    rest = draw(st.lists(st.tuples(st.integers(2, 6), st.sampled_from(STRIDES[1:])),
                         min_size=1, max_size=2).filter(lambda m: m[0][1] != s))
    a = Layout((s, *(n for n, _ in rest)), (1, *(d for _, d in rest)))
    powers = st.sampled_from([p for p in (1, 2, 4, 8) if p < s] or [1])
    modes = draw(st.lists(st.tuples(st.sampled_from((1, 2, 4, 8)), powers),
                          min_size=2, max_size=3))
    return a, Layout(tuple(n for n, _ in modes), tuple(d for _, d in modes))
