"""A CuTe layout: a shape and a stride, a function from coordinates to
offsets.

>>> L = parse_cute("((8,3),(128,2)):((128,2048),(1,1024))")
>>> L.size, L.cosize, L.rank, L.depth
(6144, 6144, 2, 2)
>>> L((3, 1), (5, 1)), L(11, 133)
(3461, 3461)
>>> print(L)
((8, 3), (128, 2)):((128, 2048), (1, 1024))
>>> L.cute_text()
'((8,3),(128,2)):((128,2048),(1,1024))'

``str`` prints a layout exactly as pycute does (Python's tuples), and
:meth:`Layout.cute_text` as CuTe's C++ ``print`` does; :func:`parse_cute`
reads both.  The default stride is the compact colexicographic one (CuTe's
``LayoutLeft``):

>>> print(Layout((2, (3, 4))))
(2, (3, 4)):(1, (2, 6))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from ..spec import INT, Arithmetic, ParseError
from .int_tuple import (
    CuteError,
    IntTuple,
    as_int_tuple,
    congruent,
    crd2idx,
    depth,
    flatten,
    is_tuple,
    prefix_product,
    product,
    rank,
)


@dataclass(frozen=True, init=False)
class Layout:
    """A CuTe layout ``shape:stride`` (congruent int tuples; sizes >= 1).

    ``Layout(shape)`` takes the compact colexicographic stride; lists are
    read as tuples.

    >>> Layout([8, 3], [3, 1])
    Layout(shape=(8, 3), stride=(3, 1))
    >>> Layout((8, 3), (1,))
    Traceback (most recent call last):
    ...
    tilespec.cute.int_tuple.CuteError: the stride (1,) does not nest like the shape (8, 3)
    """

    shape: IntTuple
    stride: IntTuple

    def __init__(self, shape: Any, stride: Any = None):
        shape = as_int_tuple(shape, "shape")
        stride = prefix_product(shape) if stride is None else as_int_tuple(stride, "stride")
        if not congruent(shape, stride):
            raise CuteError(f"the stride {stride} does not nest like the shape {shape}")
        if any(s < 1 for s in flatten(shape)):
            raise CuteError(f"the shape {shape} has a size below 1")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "stride", stride)

    def __call__(self, *coordinate: Any, ar: Arithmetic = INT) -> Any:
        """The offset of a coordinate: one int (an index, split
        colexicographically), one tuple, or one argument per mode."""
        crd = coordinate[0] if len(coordinate) == 1 else coordinate
        return crd2idx(crd, self.shape, self.stride, ar)

    def offset(self, coordinate: Any, ar: Arithmetic = INT) -> Any:
        """The offset of a coordinate or an index (``layout(coordinate)``).

        >>> Layout((4, 2), (2, 1)).offset(5)
        3
        """
        return crd2idx(coordinate, self.shape, self.stride, ar)

    @property
    def size(self) -> int:
        """Elements in the domain: the product of the shape."""
        return int(product(self.shape))

    @property
    def cosize(self) -> int:
        """One past the largest offset (strides >= 0): the codomain's size.

        >>> Layout((4, 2), (2, 1)).cosize, Layout(4, 0).cosize
        (8, 1)
        """
        return int(self(self.size - 1)) + 1

    @property
    def rank(self) -> int:
        """Top-level modes (1 for an int shape)."""
        return rank(self.shape)

    @property
    def depth(self) -> int:
        """How deeply the shape nests (0 for an int shape)."""
        return depth(self.shape)

    def __len__(self) -> int:
        return self.rank

    def __getitem__(self, i: int) -> "Layout":
        """Mode ``i`` as a layout; an int-shaped layout is its own mode 0.

        >>> print(Layout(((8, 3), 128), ((128, 2048), 1))[0])
        (8, 3):(128, 2048)
        """
        if is_tuple(self.shape):
            return Layout(self.shape[i], self.stride[i])  # type: ignore[index]
        if i not in (0, -1):
            raise IndexError(f"mode {i} of a rank-1 layout")
        return self

    def modes(self) -> Iterator["Layout"]:
        """The top-level modes, as layouts."""
        return (self[i] for i in range(self.rank))

    def flat(self) -> tuple[tuple[int, int], ...]:
        """The (size, stride) pairs of the leaves, in order.

        >>> Layout(((8, 3), 128), ((128, 2048), 1)).flat()
        ((8, 128), (3, 2048), (128, 1))
        """
        return tuple(zip(flatten(self.shape), flatten(self.stride)))

    def __str__(self) -> str:
        return f"{self.shape}:{self.stride}"

    def cute_text(self) -> str:
        """The layout as CuTe's C++ ``print`` writes it (no spaces; a
        one-mode tuple as ``(8)``)."""
        return f"{_cpp(self.shape)}:{_cpp(self.stride)}"


def _cpp(t: IntTuple) -> str:
    if is_tuple(t):
        return "(" + ",".join(_cpp(m) for m in t) + ")"  # type: ignore[union-attr]
    return str(t)


def make_layout(*layouts: Any) -> Layout:
    """One layout whose modes are ``layouts`` (each a layout, its text, or
    an int size).

    >>> print(make_layout(Layout(8, 1), Layout((3, 2), (8, 24))))
    (8, (3, 2)):(1, (8, 24))
    """
    modes = [as_layout(x) for x in layouts]
    return Layout(tuple(m.shape for m in modes), tuple(m.stride for m in modes))


def as_layout(x: Any) -> Layout:
    """A :class:`Layout` from a layout, its text (:func:`parse_cute`), an int
    size (compact), or any object with ``shape`` and ``stride`` (a pycute
    ``Layout``).

    >>> as_layout("(4,2):(2,1)") == Layout((4, 2), (2, 1)), as_layout(8)
    (True, Layout(shape=8, stride=1))
    """
    if isinstance(x, Layout):
        return x
    if isinstance(x, str):
        return parse_cute(x)
    if hasattr(x, "shape") and hasattr(x, "stride"):
        return Layout(x.shape, x.stride)
    if isinstance(x, (tuple, list)):
        raise CuteError(f"{x!r} is a tuple, not a layout: write Layout(shape) "
                        "or one layout per mode")
    return Layout(x)


def parse_cute(text: str) -> Layout:
    """A layout from its text ``SHAPE:STRIDE`` (or ``SHAPE``, compact):
    pycute's (``(8, 3):(3, 1)``, ``(8,):(1,)``) or CuTe C++'s
    (``(8,3):(3,1)``, ``(8):(1)``, static ints ``_8`` read as 8).

    >>> parse_cute("((8,3),(128,2)):((128,2048),(1,1024))").shape
    ((8, 3), (128, 2))
    >>> parse_cute("(8,):(1,)") == parse_cute("(8):(1)") == Layout((8,), (1,))
    True
    >>> parse_cute("(_8,_3):(_1,_8)") == Layout((8, 3), (1, 8))
    True
    >>> parse_cute("(8,3):(1,8")
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.ParseError: expected ',' or ')' at column 11 in '(8,3):(1,8'
    """
    reader = _Reader(text)
    shape = reader.int_tuple()
    stride = None
    if reader.peek() == ":":
        reader.pos += 1
        stride = reader.int_tuple()
    if reader.peek() != "":
        reader.fail("expected the end of the layout")
    try:
        return Layout(shape, stride)
    except CuteError as e:
        raise ParseError(str(e), text, 1) from None


class _Reader:
    """A cursor over layout text; whitespace is skipped."""

    def __init__(self, text: str):
        self.text, self.pos = text, 0

    def peek(self) -> str:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def fail(self, message: str) -> None:
        raise ParseError(message, self.text, self.pos + 1)

    def int_tuple(self) -> IntTuple:
        c = self.peek()
        if c == "(":
            self.pos += 1
            items: list[IntTuple] = []
            if self.peek() == ")":
                self.pos += 1
                return ()
            while True:
                items.append(self.int_tuple())
                c = self.peek()
                if c == ")":
                    self.pos += 1
                    return tuple(items)
                if c != ",":
                    self.fail("expected ',' or ')'")
                self.pos += 1
                if self.peek() == ")":   # pycute's one-mode tuple: (8,)
                    self.pos += 1
                    return tuple(items)
        if c == "_":   # CuTe C++ prints a static int as _8 (cute::Int<8>)
            self.pos += 1
            if not self.text[self.pos:self.pos + 1].isdigit():
                self.fail("expected digits after '_'")
        start = self.pos
        if c == "-":
            self.pos += 1
        while self.pos < len(self.text) and self.text[self.pos].isdigit():
            self.pos += 1
        if self.pos == start or self.text[start:self.pos] == "-":
            self.pos = start
            self.fail("expected an int or '('")
        return int(self.text[start:self.pos])
