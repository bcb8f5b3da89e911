"""The errors tilespec raises for bad input.

Every error is a :class:`ValueError` subclass with a one-line message that
names what is wrong and where, so a caller can catch ``ValueError`` and a
command line can print ``str(error)`` and exit with status 2.
"""

from __future__ import annotations


class TilespecError(ValueError):
    """Base class: invalid input to the specification."""


class ParseError(TilespecError):
    """Malformed shape or layout text; ``column`` is 1-based.

    >>> str(ParseError("expected ']'", "f32[3,5", 8))
    "expected ']' at column 8 in 'f32[3,5'"
    """

    def __init__(self, message: str, text: str, column: int):
        self.message = message
        self.text = text
        self.column = column
        super().__init__(f"{message} at column {column} in {text!r}")


class LayoutError(TilespecError):
    """A layout that does not fit its shape, or an invalid tile."""


class ShapeError(TilespecError):
    """An invalid shape: unknown element type, bad dimension size."""


class OutOfRangeError(TilespecError):
    """An element index or linear offset outside the array."""


class SymbolicShapeError(TilespecError):
    """A concrete evaluation asked of a shape whose dims are names."""
