"""A shape given as a value or as its text, with values for its named dims.

Every public function that takes a shape goes through :func:`as_shape`, so
each of them accepts ``"f32[3,5]{1,0:T(2,2)}"`` as well as a parsed
:class:`~tilespec.spec.layout.Shape`, and takes ``dims={"m": 16}`` to give
named dims their sizes.  The wrapping happens once, in :func:`accepts_text`,
not in each function body.

>>> as_shape("f32[m,n]{1,0:T(8,128)}", dims={"m": 16, "n": 300}).dims
(16, 300)
>>> as_shape("f32[m,n]{1,0}", dims={"k": 2})
Traceback (most recent call last):
...
tilespec.spec.errors.SymbolicShapeError: dims={'k': ...}: 'k' is not a dim name of f32[m,n]{1,0} (its names: m, n)
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Literal, Mapping, Union, cast, overload

from . import text as grammar
from .errors import ShapeError, SymbolicShapeError
from .layout import Shape, TupleShape

#: What the public functions accept as a shape.
ShapeLike = Union[Shape, str]

#: Named dims' sizes, e.g. ``{"m": 16, "n": 300}``.
DimValues = Mapping[str, int]


def give_values(shape: Shape, dims: DimValues) -> Shape:
    """``shape`` with each named dim given its size from ``dims``.

    Unlike :meth:`Shape.instantiate` (which the prover uses, and which reads a
    missing name as 1), a user's name that the shape lacks is an error, a
    size must be a non-negative int, and a name left out stays a name.
    """
    names = shape.names
    for name, value in dims.items():
        if name not in names:
            known = f"its names: {', '.join(names)}" if names else "it has no named dims"
            raise SymbolicShapeError(
                f"dims={{{name!r}: ...}}: {name!r} is not a dim name of {shape} ({known})")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ShapeError(f"dims={{{name!r}: {value!r}}}: a size must be a "
                             "non-negative integer")
    return shape.replace(dims=tuple(
        int(dims[d]) if isinstance(d, str) and d in dims else d for d in shape.dims))


@overload
def as_shape(shape: object, dims: DimValues | None = None, *,
             array: Literal[True] = True) -> Shape: ...
@overload
def as_shape(shape: object, dims: DimValues | None = None, *,
             array: bool) -> Shape | TupleShape: ...
def as_shape(shape: object, dims: DimValues | None = None, *,
             array: bool = True) -> Shape | TupleShape:
    """A :class:`Shape` from a shape or its text; ``dims`` sizes the names.

    >>> as_shape("f32[3,5]{1,0:T(2,2)}").layout.tiles
    (Tile(sizes=(2, 2)),)
    >>> as_shape(42)
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.ShapeError: expected a shape or its text, not int
    """
    s: Shape | TupleShape
    if isinstance(shape, str):
        s = grammar.parse_array_shape(shape) if array else grammar.parse_shape(shape)
    elif isinstance(shape, (Shape, TupleShape)):
        s = shape
    else:
        raise ShapeError(f"expected a shape or its text, not {type(shape).__name__}")
    if array and isinstance(s, TupleShape):
        raise ShapeError(f"{s} is a tuple; an array shape is needed here")
    if dims:
        if not isinstance(s, Shape):
            raise ShapeError("dims= applies to an array shape, not a tuple")
        s = give_values(s, dims)
    return s


def accepts_text(fn: Callable[..., Any] | None = None, *, shapes: int = 1,
                 array: bool = True) -> Any:
    """Decorate ``fn`` so that its first ``shapes`` arguments may be text,
    and add a keyword ``dims`` that gives named dims their sizes.

    The wrapped function keeps its name, docstring and signature (with
    ``Shape | str`` for the shape arguments and ``dims`` added).

    >>> from tilespec.spec.index import offset
    >>> accepts_text(offset)("f32[m,5]{1,0:T(2,2)}", (2, 3), dims={"m": 3})
    17
    """
    if fn is None:
        return functools.partial(accepts_text, shapes=shapes, array=array)

    @functools.wraps(fn)
    def wrapper(*args: Any, dims: DimValues | None = None, **kwargs: Any) -> Any:
        given = list(args)
        for i in range(min(shapes, len(given))):
            given[i] = as_shape(given[i], dims, array=array)
        return fn(*given, **kwargs)

    try:
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())
        for i in range(min(shapes, len(params))):
            params[i] = params[i].replace(annotation="Shape | str")
        if "dims" not in sig.parameters:
            dims_param = inspect.Parameter("dims", inspect.Parameter.KEYWORD_ONLY,
                                           default=None,
                                           annotation="Mapping[str, int] | None")
            at = len(params) - (1 if params and params[-1].kind == params[-1].VAR_KEYWORD
                                else 0)
            params.insert(at, dims_param)
        cast(Any, wrapper).__signature__ = sig.replace(parameters=params)
    except (TypeError, ValueError):  # a builtin without a signature: leave it
        pass
    return wrapper


def parse_shape(text: str, dims: DimValues | None = None) -> Shape | TupleShape:
    """Parse a shape (array or tuple) in XLA's text form; ``dims`` sizes its names.

    >>> parse_shape("bf16[m,n]{1,0:T(8,128)(2,1)}", dims={"m": 16, "n": 300}).dims
    (16, 300)
    """
    return as_shape(grammar.parse_shape(text), dims, array=False)


def parse_array_shape(text: str, dims: DimValues | None = None) -> Shape:
    """Parse an array shape (not a tuple); ``dims`` sizes its names."""
    return as_shape(grammar.parse_array_shape(text), dims)


def shape_and_data(first: object, second: Any, what: str,
                   dims: DimValues | None = None) -> tuple[Shape, Any]:
    """(shape, data) from either argument order.

    A shape is a :class:`Shape` or a ``str``; the data is an array-like (a
    numpy array, a list of numbers), which is neither, so the order in which
    the two were passed is never ambiguous.

    >>> s, data = shape_and_data([1, 2], "f32[2]{0}", "to_physical")
    >>> s.dims, data
    ((2,), [1, 2])
    """
    if isinstance(first, (Shape, TupleShape, str)):
        return as_shape(first, dims), second
    if isinstance(second, (Shape, TupleShape, str)):
        return as_shape(second, dims), first  # the older (data, shape) order
    raise ShapeError(f"{what}: neither argument is a shape or shape text "
                     f"(got {type(first).__name__} and {type(second).__name__})")


def logical_dims(shape: object) -> tuple[int, ...]:
    """The dims of an array shape, each a size.

    >>> logical_dims(as_shape("f32[m,5]{1,0}"))
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.SymbolicShapeError: dim 0 is the name 'm'; give a size
    """
    if not isinstance(shape, Shape):
        raise ShapeError(f"{shape} is not an array shape")
    for i, d in enumerate(shape.dims):
        if isinstance(d, str):
            raise SymbolicShapeError(f"dim {i} is the name {d!r}; give a size")
        if d is None:
            raise ShapeError(f"dim {i} is unbounded ('?'); it has no size")
    return tuple(int(d) for d in shape.dims if d is not None)
