"""Check your own offset function against the spec.

Write the offset of element ``(i, j, ...)`` in plain Python arithmetic --
``+ - * // %`` and integer constants, no ``if`` on the indices -- taking the
element's indices first (logical order) and then, optionally, the dims
(by position, or by the shape's dim names):

>>> def my_offset(i, j, m, n):
...     return ((i // 8) * (((n + 127) // 128) * 1024) + (j // 128) * 1024
...             + (i % 8) * 128 + j % 128)

:func:`check_offset_function` runs the very same function three ways: on
Z3 terms (each argument a :class:`Z3Int`, whose ``//`` and ``%`` are
Python's floor division and remainder on Z3 integers of one context), on
numpy arrays (a fast scan for counterexamples) and on ints (to replay a
counterexample).  With names for dims, Z3 compares your formula with the
spec's for every size at once:

>>> from tilespec.spec.text import parse_array_shape as shape
>>> r = check_offset_function(my_offset, shape("f32[m,n]{1,0:T(8,128)}"))
>>> r.status, r.scope
('proved', 'all shapes: m >= 1, n >= 1')

A formula that forgets the second tiling level of bf16 is refuted, with the
element, both offsets and the dims it fails at (replayed on the spec's
concrete evaluator):

>>> r = check_offset_function(my_offset, shape("bf16[m,n]{1,0:T(8,128)(2,1)}"))
>>> r.status, r.counterexample.side("yours").offset != r.counterexample.side("spec").offset
('refuted', True)

A claim that two layouts are the same mapping is checked with
:func:`claim_equivalent` (:func:`prover.equivalence.equivalent`).

Never ``proved`` without ``unsat`` from Z3: where your formula and the
spec's are too nonlinear for the time limit, the answer is a counterexample
found at probe sizes, or ``unknown``.
"""

from __future__ import annotations

import inspect
import time

import numpy as np
import z3

from ..spec import Shape, TilespecError, concrete_dims, format_shape, offset, offsets, product
from .core import (
    DEFAULT_TIMEOUT,
    EXHAUSTIVE,
    Encoding,
    element_grid,
    first_refutation,
    probe_values,
    scope,
    search,
    spec_form,
)
from .equivalence import equivalent
from .result import PROVED, REFUTED, UNKNOWN, Counterexample, ProverBug, Result, Side


class UserFunctionError(TilespecError):
    """The function cannot be evaluated on symbolic integers (it branches on
    them, calls int(), ...) or has the wrong parameters."""


class _Owner:
    """The context a family of :class:`Z3Int` values lives in, and the
    divisors they used (a division by zero is a counterexample too)."""

    def __init__(self, ctx: z3.Context):
        self.ctx = ctx
        self.divisors: list = []


class Z3Int:
    """A Z3 integer term that behaves like a Python int under + - * // %.

    ``//`` and ``%`` are Python's: floor division, remainder with the
    divisor's sign.  Z3's own ``div``/``mod`` are Euclidean, which agree
    with Python's only for a positive divisor, so other divisors get the
    sign fix-up.  Comparisons and ``int()`` raise: a symbolic value has no
    truth value to branch on.

    >>> ctx = z3.Context(); o = _Owner(ctx)
    >>> x = Z3Int(z3.Int("x", ctx), o)
    >>> def at(v, value):
    ...     return z3.simplify(z3.substitute(v.term, (x.term, z3.IntVal(value, ctx))))
    >>> at((x * 8 + 5) // 8, 3), at((x - 10) // -3, 0), (0 - 10) // -3
    (3, 3, 3)
    >>> at((x - 10) % -3, 0), (0 - 10) % -3
    (-1, -1)
    """

    __slots__ = ("term", "owner")

    def __init__(self, term, owner: _Owner):
        self.term = term
        self.owner = owner

    def _t(self, other):
        if isinstance(other, Z3Int):
            return other.term
        if isinstance(other, bool) or not isinstance(other, (int, np.integer)):
            raise UserFunctionError(
                f"cannot combine a symbolic index with {type(other).__name__} "
                f"{other!r}: use integers only")
        return z3.IntVal(int(other), self.owner.ctx)

    def _new(self, term):
        return Z3Int(term, self.owner)

    def __add__(self, o):
        return self._new(self.term + self._t(o))

    def __radd__(self, o):
        return self._new(self._t(o) + self.term)

    def __sub__(self, o):
        return self._new(self.term - self._t(o))

    def __rsub__(self, o):
        return self._new(self._t(o) - self.term)

    def __mul__(self, o):
        return self._new(self.term * self._t(o))

    def __rmul__(self, o):
        return self._new(self._t(o) * self.term)

    def __neg__(self):
        return self._new(-self.term)

    def __pos__(self):
        return self

    def __pow__(self, k):
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise UserFunctionError("only a constant non-negative integer power is allowed")
        out = z3.IntVal(1, self.owner.ctx)
        for _ in range(k):
            out = out * self.term
        return self._new(out)

    def _floordiv(self, a, b, b_py):
        if b_py is not None:
            if b_py == 0:
                raise ZeroDivisionError("integer division or modulo by zero")
            return a / b if b_py > 0 else (-a) / (-b)
        self.owner.divisors.append(b)
        return z3.If(b > 0, a / b, (-a) / (-b))

    def __floordiv__(self, o):
        return self._new(self._floordiv(self.term, self._t(o), _py(o)))

    def __rfloordiv__(self, o):
        return self._new(self._floordiv(self._t(o), self.term, None))

    def __mod__(self, o):
        b = self._t(o)
        return self._new(self.term - b * self._floordiv(self.term, b, _py(o)))

    def __rmod__(self, o):
        a = self._t(o)
        return self._new(a - self.term * self._floordiv(a, self.term, None))

    def __divmod__(self, o):
        return self // o, self % o

    def __rdivmod__(self, o):
        return o // self, o % self

    def __abs__(self):
        # Python's abs on an integer, as a term: no branch on a symbolic value
        return self._new(z3.If(self.term >= 0, self.term, -self.term))

    def _refuse(self, *_):
        raise UserFunctionError(
            "the function compares or converts a symbolic value (an if, min, "
            "max, int() or range on an index or dim); write it with + - * // % only")

    __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __int__ = __index__ = _refuse
    __float__ = __truediv__ = __rtruediv__ = _refuse

    def __eq__(self, other):
        self._refuse()

    # unhashable, like any value whose == is refused; typeshed types object.__hash__
    # as a method, so the data model's way of saying it needs the ignore
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self):
        return f"Z3Int({self.term})"


def _py(o):
    return int(o) if isinstance(o, (int, np.integer)) and not isinstance(o, bool) else None


# --- binding the parameters -----------------------------------------------------

def _binder(fn, shape: Shape):
    """How to call ``fn``: (indices, dims) -> fn(...)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        raise UserFunctionError(f"cannot read the parameters of {fn!r}") from None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    r = shape.rank
    if len(positional) < r:
        raise UserFunctionError(
            f"{getattr(fn, '__name__', 'the function')} takes {len(positional)} "
            f"parameters; a rank-{r} shape needs at least {r} (the indices)")
    rest = [p.name for p in positional[r:] if p.default is p.empty]
    extra = positional[r:]
    if not extra:
        return lambda e, d: fn(*e)
    names = shape.names
    if all(p.name in names for p in extra):
        where = {n: shape.dims.index(n) for n in names}
        return lambda e, d: fn(*e, *[d[where[p.name]] for p in extra])
    if len(extra) == r:
        return lambda e, d: fn(*e, *d)
    if not rest:
        return lambda e, d: fn(*e)
    raise UserFunctionError(
        f"after the {r} indices, the parameters {[p.name for p in extra]} must be "
        f"the {r} dims in order or the shape's dim names {list(names)}")


# --- checking ------------------------------------------------------------------

def _concrete_counterexample(fn, call, shape: Shape, timeout: float):
    """A replayed counterexample at these (concrete) dims, or None; and
    whether every element was checked."""
    dims = concrete_dims(shape)
    grid = element_grid(shape)
    if grid is None:
        return None, True
    exhaustive = product(dims) <= EXHAUSTIVE
    try:
        # numpy divides by zero quietly; make it raise, to go element by element
        with np.errstate(divide="raise", invalid="raise", over="ignore"):
            yours = np.broadcast_to(np.asarray(call(tuple(grid[:, i] for i in range(len(dims))),
                                                    dims), dtype=np.int64), grid.shape[:1])
        bad = np.flatnonzero(yours != offsets(shape, grid))
        if bad.size:
            return replay(fn, call, shape, grid[bad[0]]), exhaustive
    except Exception:
        # not vectorisable (or divides by zero somewhere): element by element
        for row in grid[: min(len(grid), 4096)]:
            ce = _try_replay(fn, call, shape, row)
            if ce:
                return ce, False
        exhaustive = False
    if exhaustive:
        return None, True
    ctx = z3.Context()
    enc = Encoding(shape, ctx)
    e, owner = enc.fresh("e", shape.rank), _Owner(ctx)
    query = _disagree(call, shape, enc, e, owner)
    answer, model = search(query, ctx, timeout)
    if answer == "sat":
        return replay(fn, call, shape, [enc.value(model, x) for x in e]), False
    return None, answer == "unsat"


def _try_replay(fn, call, shape, element):
    try:
        return replay(fn, call, shape, element)
    except ProverBug:
        return None


def replay(fn, call, shape: Shape, element) -> Counterexample:
    """Your function and the spec on one element, as ints; ProverBug if
    they agree (a counterexample that does not replay)."""
    element = tuple(int(x) for x in element)
    dims = concrete_dims(shape)
    spec = offset(shape, element)
    try:
        yours = _number(call(element, dims), fn)
    except ZeroDivisionError:
        yours = "division by zero"
    except TilespecError:
        raise
    except Exception as e:  # the user's code failed on ints: say so, in one line
        raise UserFunctionError(f"{_name(fn)} raised {type(e).__name__} at element "
                                f"{element}: {e}") from None
    if yours == spec:
        raise ProverBug(f"counterexample {element} does not replay: both give {spec}")
    text = format_shape(shape)
    failed = {} if isinstance(yours, int) else {"yours": yours}
    return Counterexample(
        {}, (Side("yours", element=element, offset=yours if not failed else None, shape=text),
             Side("spec", element=element, offset=spec, shape=text)),
        what=f"your offset is {yours}, the spec's is {spec}", details=failed)


def _name(fn) -> str:
    return getattr(fn, "__name__", "the user function")


def _number(value, fn):
    """The function's value on ints, as an int (or a non-integral float,
    which then disagrees with the spec); anything else is bad input."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (float, np.floating)) and np.isfinite(value):
        return int(value) if float(value).is_integer() else float(value)
    raise UserFunctionError(f"{_name(fn)} returned {type(value).__name__} {value!r:.60}, "
                            "not an integer")


def _disagree(call, shape: Shape, enc: Encoding, e, owner: _Owner):
    """Z3: e is an element and your offset differs from the spec's (or
    divides by zero)."""
    ar = enc.ar
    args = tuple(Z3Int(x, owner) for x in e)
    dims = tuple(Z3Int(d, owner) if isinstance(d, z3.ExprRef) else d for d in enc.dims)
    try:
        value = call(args, dims)
    except ZeroDivisionError:
        return z3.And(*enc.assumptions, enc.box(e, enc.dims))
    except TilespecError:
        raise
    except Exception as err:  # e.g. a function of Python that Z3Int does not provide
        raise UserFunctionError(f"the function cannot be evaluated on symbolic "
                                f"integers: {type(err).__name__}: {err}") from None
    if isinstance(value, Z3Int):
        value = value.term
    elif isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        value = ar.term(int(value))
    else:
        raise UserFunctionError(f"the function returned {type(value).__name__} "
                                f"{value!r:.60}, not an integer expression")
    spec = ar.term(spec_form(shape, e, enc.dims, ar).offset(ar))
    bad = [value != spec] + [d == 0 for d in owner.divisors]
    return z3.And(*enc.assumptions, enc.box(e, enc.dims), z3.Or(bad))


def check_offset_function(fn, shape: Shape, *, timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Is ``fn`` the spec's offset for every element of ``shape`` (for every
    size of its named dims)?  See the module docstring."""
    if not isinstance(shape, Shape):
        raise TilespecError("a user function is checked on an array shape, not a tuple")
    start = time.perf_counter()
    call = _binder(fn, shape)
    name = getattr(fn, "__name__", "user function")
    text, where = format_shape(shape), scope(shape)

    def done(status, **kw):
        return Result(text, f"offset function {name}", status,
                      time.perf_counter() - start, where, **kw, shapes=(shape,))

    if not shape.is_symbolic:
        ce, complete = _concrete_counterexample(fn, call, shape, timeout)
        if ce:
            return done(REFUTED, counterexample=ce)
    ctx = z3.Context()
    enc = Encoding(shape, ctx)
    e, owner = enc.fresh("e", shape.rank), _Owner(ctx)
    answer, model = search(_disagree(call, shape, enc, e, owner), ctx, timeout)
    steps = ("Z3: your offset equals the spec's for every element"
             + (" and every size" if shape.is_symbolic else ""),)
    if answer == "unsat":
        return done(PROVED, steps=steps)
    if answer == "sat" and not shape.is_symbolic:
        return done(REFUTED, counterexample=replay(
            fn, call, shape, [enc.value(model, x) for x in e]))
    candidates = []
    if answer == "sat":
        candidates.append(enc.dim_values(model))
    candidates += list(probe_values(shape.names))

    def refute(values):
        ce, _ = _concrete_counterexample(fn, call, shape.instantiate(values), timeout)
        return ce.at(values) if ce else None

    ce, tried = first_refutation(candidates, refute)
    if ce is not None:
        return done(REFUTED, counterexample=ce)
    reason = model if answer == "unknown" else "the solver's model did not replay"
    return done(UNKNOWN, reason=f"{reason}; no counterexample at dims "
                + ", ".join("{" + ", ".join(f"{k}={v}" for k, v in t.items()) + "}"
                            for t in tried))


def claim_equivalent(a: Shape, b: Shape, *, timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Your claim that two layouts (same dims) are the same mapping."""
    return equivalent(a, b, timeout=timeout)


def load_function(source: str, name: str | None = None):
    """The function defined by ``source`` (Python text): the one called
    ``name``, or the only one.  For command lines and notebooks.

    >>> f = load_function("def f(i, j):\\n    return i * 5 + j\\n")
    >>> f(2, 3)
    13
    """
    scope_: dict = {}
    exec(compile(source, "<user function>", "exec"), scope_)
    fns = {k: v for k, v in scope_.items() if inspect.isfunction(v)}
    if name is not None:
        if name not in fns:
            raise UserFunctionError(f"no function {name!r} in the source")
        return fns[name]
    if len(fns) != 1:
        raise UserFunctionError(f"the source defines {len(fns)} functions; name one")
    return next(iter(fns.values()))
