"""Running a stage the spec did not write on solver terms, without trusting it.

The spec's own stage classes (:mod:`spec.index`) are written only in the
operations of an :class:`~spec.arith.Arithmetic`, so running them on
solver terms (SMT-LIB text, Z3 objects) means what running them on ints
means.  A stage of any other class (a subclass too: it may override
anything) may use Python itself: ``if e[0] == e[1]``, ``sorted``, ``x + 0``.
On text, ``==`` compares two variable names; on Z3 terms, ``bool(x == y)``
is *structural* equality: either way a branch is silently taken on
something other than the values, and a false "proved" follows.

So such a stage only ever sees :class:`Traced` values: Python's arithmetic
operators build the same terms the arithmetic would, and anything that asks
for a concrete value of a symbolic term (``bool``, ``int``, ``hash``,
indexing, true division) raises :class:`NotSymbolic`.  The prover turns
that into "not decided symbolically" and decides the question another way
(enumeration on ints, where the stage means what its author meant).

>>> from tilespec.prover.core.encode import SmtArithmetic
>>> ar = GuardedArithmetic(SmtArithmetic())
>>> x, y = Traced("i.x", ar.inner), Traced("i.y", ar.inner)
>>> raw(x + 0), raw(2 * x - y)
('(+ i.x 0)', '(+ (* 2 i.x) (* (- 1) i.y))')
>>> bool(x == y)
Traceback (most recent call last):
...
tilespec.prover.properties.traced.NotSymbolic: a Python decision (bool) on a symbolic value
"""

from __future__ import annotations

from ...spec import Arithmetic
from ..core import STAGE_CLASSES


def is_spec_stage(stage) -> bool:
    """Is ``stage`` an instance of one of the spec's classes, exactly?"""
    return type(stage) in STAGE_CLASSES   # exactly these: not subclasses


class NotSymbolic(Exception):
    """A custom stage asked a question a symbolic value cannot answer."""


def _refuse(what):
    def method(self, *args):
        raise NotSymbolic(f"a Python decision ({what}) on a symbolic value")
    return method


class _Value:
    __slots__ = ("raw", "ar")

    def __init__(self, raw, ar):
        self.raw, self.ar = raw, ar

    __bool__ = _refuse("bool")
    __hash__ = _refuse("hash")
    __index__ = _refuse("index")
    __int__ = _refuse("int")
    __float__ = _refuse("float")
    __round__ = _refuse("round")
    __floor__ = _refuse("floor")
    __ceil__ = _refuse("ceil")
    __trunc__ = _refuse("trunc")
    __iter__ = _refuse("iteration")
    __len__ = _refuse("len")

    def __repr__(self):
        return f"{type(self).__name__}({self.raw!r})"


class Traced(_Value):
    """A symbolic integer: Python's operators mean the arithmetic's."""

    def _op(self, f, a, b):
        return Traced(f(raw(a), raw(b)), self.ar)

    def _other(self, o):
        if isinstance(o, Traced) or (isinstance(o, int) and not isinstance(o, bool)):
            return o
        raise NotSymbolic(f"an operation of a symbolic value with {type(o).__name__}")

    def __add__(self, o): return self._op(self.ar.add, self, self._other(o))
    def __radd__(self, o): return self._op(self.ar.add, self._other(o), self)
    def __mul__(self, o): return self._op(self.ar.mul, self, self._other(o))
    def __rmul__(self, o): return self._op(self.ar.mul, self._other(o), self)
    def __neg__(self): return self._op(self.ar.mul, -1, self)
    def __pos__(self): return self
    def __sub__(self, o): return self + (-1) * self._other(o)
    def __rsub__(self, o): return self._other(o) + (-1) * self
    def __floordiv__(self, o): return self._op(self.ar.floordiv, self, self._other(o))
    def __rfloordiv__(self, o): return self._op(self.ar.floordiv, self._other(o), self)
    def __mod__(self, o): return self._op(self.ar.mod, self, self._other(o))
    def __rmod__(self, o): return self._op(self.ar.mod, self._other(o), self)
    def __divmod__(self, o): return self // o, self % o
    def __rdivmod__(self, o): return o // self, o % self

    def __pow__(self, k):
        if isinstance(k, int) and not isinstance(k, bool) and 0 <= k <= 64:
            out = 1
            for _ in range(k):
                out = out * self
            return out
        raise NotSymbolic("a power of a symbolic value")

    __truediv__ = __rtruediv__ = _refuse("true division")
    __lshift__ = __rshift__ = __and__ = __or__ = __xor__ = _refuse("a bit operation")
    __abs__ = _refuse("abs")

    def _cmp(self, f, a, b):
        return TracedBool(f(raw(a), raw(b)), self.ar)

    def __eq__(self, o): return self._cmp(self.ar.eq, self, self._other(o))
    __ne__ = _refuse("!=")
    __hash__ = _refuse("hash")   # defining __eq__ would otherwise unset it
    def __lt__(self, o): return self._cmp(self.ar.lt, self, self._other(o))
    def __gt__(self, o): return self._cmp(self.ar.lt, self._other(o), self)
    # integers: a <= b is a < b + 1
    def __le__(self, o): return self._cmp(self.ar.lt, self, self._other(o) + 1)
    def __ge__(self, o): return self._cmp(self.ar.lt, self._other(o), self + 1)


class TracedBool(_Value):
    """A symbolic truth value: it can be returned, never decided in Python."""


def raw(v):
    """The underlying term of a traced value (ints and bools as they are)."""
    return v.raw if isinstance(v, _Value) else v


class GuardedArithmetic(Arithmetic):
    """The arithmetic ``inner`` on :class:`Traced` values."""

    name = "guarded"

    def __init__(self, inner: Arithmetic):
        self.inner = inner

    def _wrap(self, v, kind=Traced):
        return v if isinstance(v, (int, bool)) else kind(v, self.inner)

    def add(self, a, b): return self._wrap(self.inner.add(_raw_int(a), _raw_int(b)))
    def mul(self, a, b): return self._wrap(self.inner.mul(_raw_int(a), _raw_int(b)))
    def floordiv(self, a, b): return self._wrap(self.inner.floordiv(_raw_int(a), _raw_int(b)))
    def mod(self, a, b): return self._wrap(self.inner.mod(_raw_int(a), _raw_int(b)))
    def lt(self, a, b): return self._wrap(self.inner.lt(_raw_int(a), _raw_int(b)), TracedBool)
    def eq(self, a, b): return self._wrap(self.inner.eq(_raw_int(a), _raw_int(b)), TracedBool)

    def both(self, p, q):
        return self._wrap(self.inner.both(_raw_bool(p), _raw_bool(q)), TracedBool)

    def true(self):
        return True


def _raw_int(v):
    if isinstance(v, Traced) or (isinstance(v, int) and not isinstance(v, bool)):
        return raw(v)
    raise NotSymbolic(f"an arithmetic operation on {type(v).__name__}")


def _raw_bool(v):
    if isinstance(v, (TracedBool, bool)):
        return raw(v)
    raise NotSymbolic(f"a logical operation on {type(v).__name__}")


class GuardedStage:
    """A custom stage seen through :class:`Traced` values: same name,
    level and methods; its inputs are wrapped, its outputs unwrapped and
    checked, and any failure is :class:`NotSymbolic`."""

    def __init__(self, stage, index: int):
        self.stage, self.index = stage, index
        self.name, self.level = stage.name, stage.level

    def _run(self, method, e, d, ar):
        g = GuardedArithmetic(ar)
        try:
            out = getattr(self.stage, method)(tuple(map(g._wrap, e)),
                                              tuple(map(g._wrap, d)), g)
            if method == "backward":
                vec, valid = out
                return self._ints(vec), self._bool(valid)
            return self._ints(out)
        except NotSymbolic as err:
            raise NotSymbolic(f"stage {self.index} ({self.name}) {method}(): {err}") from None
        except Exception as err:  # the stage's own failure on symbolic values
            raise NotSymbolic(f"stage {self.index} ({self.name}) {method}() fails on "
                              f"symbolic values: {type(err).__name__}: {err}") from None

    @staticmethod
    def _ints(vec):
        return tuple(_raw_int(x) for x in vec)

    @staticmethod
    def _bool(v):
        return _raw_bool(v)

    def dims(self, d, ar):
        g = GuardedArithmetic(ar)
        try:
            return self._ints(self.stage.dims(tuple(map(g._wrap, d)), g))
        except NotSymbolic as err:
            raise NotSymbolic(f"stage {self.index} ({self.name}) dims(): {err}") from None
        except Exception as err:
            raise NotSymbolic(f"stage {self.index} ({self.name}) dims() fails on "
                              f"symbolic values: {type(err).__name__}: {err}") from None

    def forward(self, e, d, ar):
        return self._run("forward", e, d, ar)

    def backward(self, e, d, ar):
        return self._run("backward", e, d, ar)


def guarded(stages) -> tuple:
    """``stages`` with every stage that is not exactly a spec class wrapped
    in a :class:`GuardedStage`."""
    return tuple(s if is_spec_stage(s) else GuardedStage(s, i) for i, s in enumerate(stages))


def is_custom(stages) -> bool:
    return not all(is_spec_stage(s) for s in stages)
