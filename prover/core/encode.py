"""One naming scheme, and the index arithmetic as solver terms.

**Names.**  A user's dim name and a variable the prover makes up (an element
index, a fresh DST index, an offset) must never be the same solver
constant, or a fact about one silently becomes a fact about the other and a
false "proved" follows.  So no solver symbol is ever a name as written: a
user name ``n`` becomes :func:`user_symbol` ``u.<n>`` (characters other
than letters, digits and ``_`` written ``$<hex>$``), and every internal
variable :func:`internal_symbol` ``i.<tag>``.  The two sets are disjoint
for every string (different prefixes) and the user mapping is injective
(the escape is decodable), so no choice of names can make two variables
one.  Every symbol is a plain SMT-LIB symbol, which Z3 and cvc5 read alike.

>>> user_symbol("m"), internal_symbol("e1_0"), user_symbol("i.e1_0")
('u.m', 'i.e1_0', 'u.i$2e$e1_0')
>>> readable("(+ u.m (* 8 i.e1_0))")
'(+ m (* 8 i.e1_0))'

**Terms.**  :class:`SmtArithmetic` gives ``add``, ``mul``, ``floordiv``,
``mod`` and the comparisons their SMT-LIB meanings as text, so
:mod:`spec.index` writes solver formulas with the very code that computes
offsets on ints; :class:`Z3Arithmetic` does the same on Z3 objects, for the
modules that build and read Z3 terms directly.  Both name constants only
through :class:`Encoding` and :class:`SmtEncoding`, which share the scheme
above.  The solvers' ``div``/``mod`` are Euclidean, Python's are floor
division: they agree for a positive divisor.  A negative int divisor is
written as Python's floor division by a positive one; any other divisor (a
term, or 0) is recorded in the arithmetic's ``divisors``, and a proof that
divides by it must also prove it positive (or not be a proof).

Every function here takes the ``z3.Context`` of one proof: proofs never share
solver state.
"""

from __future__ import annotations

import re

import z3

from ...spec import Arithmetic, Shape
from ..result import ProverBug
from .bounds import describe_ranges, dim_ranges

#: Every user name's solver symbol starts with this, and nothing else does.
USER_PREFIX = "u."
#: Every internal variable's solver symbol starts with this.
INTERNAL_PREFIX = "i."

_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def user_symbol(name: str) -> str:
    """The solver symbol of the user's name ``name`` (any string)."""
    return USER_PREFIX + "".join(c if c in _PLAIN else f"${ord(c):x}$" for c in str(name))


def internal_symbol(tag: str) -> str:
    """The solver symbol of an internal variable; ``tag`` is the prover's
    own (letters, digits, ``_``)."""
    if not tag or any(c not in _PLAIN for c in tag):
        raise ValueError(f"internal tag {tag!r} must be letters, digits and _")
    return INTERNAL_PREFIX + tag


def internal_ints(tags: str, ctx: z3.Context) -> tuple:
    """Integer constants for the prover's own variables, one per
    space-separated tag, named by :func:`internal_symbol`.

    >>> internal_ints("A e0", z3.Context())
    (i.A, i.e0)
    """
    return tuple(z3.Int(internal_symbol(t), ctx) for t in tags.split())


_USER_RE = re.compile(r"(?<![A-Za-z0-9_.$])u\.((?:[A-Za-z0-9_]|\$[0-9a-f]+\$)*)")


def readable(text: str) -> str:
    """Solver text (or a Z3 term's ``str``) with user symbols written as the
    user's names again, for messages and steps."""
    def name(m):
        return re.sub(r"\$([0-9a-f]+)\$", lambda h: chr(int(h.group(1), 16)), m.group(1))
    return _USER_RE.sub(name, str(text))


class Z3Arithmetic(Arithmetic):
    """The index operations on Z3 integer terms of one context."""

    name = "z3"

    def __init__(self, ctx: z3.Context):
        self.ctx = ctx
        #: every divisor that is not a positive int, in the order divided by
        self.divisors: list = []

    def term(self, v):
        """``v`` as a Z3 term of this context (ints and bools lifted).

        >>> Z3Arithmetic(z3.Context()).term(3).as_long()
        3
        """
        return self._term(v)

    def _term(self, v):
        if isinstance(v, z3.ExprRef):
            return v
        if isinstance(v, bool):
            return z3.BoolVal(v, self.ctx)
        return z3.IntVal(int(v), self.ctx)

    def add(self, a, b):
        if _plain(a) and _plain(b):
            return a + b
        return self._term(a) + self._term(b)

    def mul(self, a, b):
        if _plain(a) and _plain(b):
            return a * b
        return self._term(a) * self._term(b)

    def floordiv(self, a, b):
        # A broken pipeline can divide by a 0 dim; Z3 leaves x div 0
        # unspecified instead of raising, so the search still runs (and the
        # divisor is recorded: see ``divisors``).
        if _plain(a) and _plain(b) and b != 0:
            return a // b
        if _plain(b) and b < 0:
            # Python's floor division: a // b == (-a) // (-b), by a positive
            return self._term(self.mul(-1, a)) / self._term(-b)
        self._divisor(b)
        return self._term(a) / self._term(b)

    def mod(self, a, b):
        if _plain(a) and _plain(b) and b != 0:
            return a % b
        if _plain(b) and b < 0:
            # Python's remainder takes the divisor's sign: -((-a) mod -b)
            return -(self._term(self.mul(-1, a)) % self._term(-b))
        self._divisor(b)
        return self._term(a) % self._term(b)

    def _divisor(self, b):
        if not (_plain(b) and b > 0):
            self.divisors.append(b)

    def lt(self, a, b):
        if _plain(a) and _plain(b):
            return a < b
        return self._term(a) < self._term(b)

    def eq(self, a, b):
        if _plain(a) and _plain(b):
            return a == b
        return self._term(a) == self._term(b)

    def both(self, p, q):
        return z3.And(self._term(p), self._term(q))

    def true(self):
        return z3.BoolVal(True, self.ctx)


def _plain(v) -> bool:
    return not isinstance(v, z3.ExprRef)


class _Named:
    """The one place where names become solver constants: user dims through
    :func:`user_symbol` (each assumed >= 1, and <= its bound), the prover's
    variables through :func:`internal_symbol`.  Subclasses say what a
    constant is (a Z3 object, or SMT-LIB text)."""

    def __init__(self, shape: Shape, bounds: dict | None = None):
        self.shape = shape
        self.names: dict = {}
        self.assumptions: list = []
        self._ranges = dim_ranges(shape, bounds)   # bad bounds are bad input
        self._fresh = 0
        for n in shape.names:
            self.name(n)
        self.dims = tuple(self.names[d] if isinstance(d, str) else d
                          for d in shape.dims)

    def constant(self, symbol: str):
        raise NotImplementedError

    def le(self, a, b):
        raise NotImplementedError

    def value(self, model, term) -> int:
        raise NotImplementedError

    def name(self, n: str):
        """The constant for the user's dim name ``n`` (made on first use,
        with its assumptions)."""
        if n not in self.names:
            v = self.names[n] = self.constant(user_symbol(n))
            lo, hi = self._ranges.get(n, (1, None))
            self.assumptions.append(self.le(lo, v))
            if hi is not None:
                self.assumptions.append(self.le(v, hi))
        return self.names[n]

    def internal(self, tag: str):
        """One internal constant, e.g. ``internal("o")``."""
        return self.constant(internal_symbol(tag))

    def fresh(self, prefix: str, count: int) -> tuple:
        """``count`` new internal constants ``<prefix><k>_<i>``."""
        self._fresh += 1
        return tuple(self.internal(f"{prefix}{self._fresh}_{i}") for i in range(count))

    def dim_values(self, model) -> dict:
        """The user's dims in a Z3 model, by their names."""
        return {n: self.value(model, v) for n, v in self.names.items()}


class Encoding(_Named):
    """The Z3 view of a shape: dim terms, their assumptions, fresh indices."""

    def __init__(self, shape: Shape, ctx: z3.Context, bounds: dict | None = None):
        self.ctx = ctx
        self.ar = Z3Arithmetic(ctx)
        super().__init__(shape, bounds)

    def constant(self, symbol: str):
        return z3.Int(symbol, self.ctx)

    def box(self, e, d):
        """``0 <= e[i] < d[i]`` for every i, as one flat Z3 conjunction."""
        parts = []
        for x, n in zip(e, d):
            if _plain(x):
                if not _plain(n):
                    if x < 0:
                        return z3.BoolVal(False, self.ctx)
                    parts.append(n > x)
                elif not 0 <= x < n:
                    return z3.BoolVal(False, self.ctx)
                continue
            parts += [x >= 0, x < n]
        return z3.And(parts) if parts else self.ar.true()

    def equal(self, a, b):
        parts = []
        for x, y in zip(a, b):
            if _plain(x) and _plain(y):
                if x != y:
                    return z3.BoolVal(False, self.ctx)
                continue
            parts.append(self.ar._term(x) == y if _plain(y) else y == x)
        return z3.And(parts) if parts else self.ar.true()

    def and_(self, *ps):
        terms = [self.ar._term(p) for p in ps]
        return z3.And(terms) if terms else self.ar.true()

    def or_(self, *ps):
        terms = [self.ar._term(p) for p in ps]
        return z3.Or(terms) if terms else z3.BoolVal(False, self.ctx)

    def not_(self, p):
        return z3.Not(self.ar._term(p))

    def term(self, v):
        return self.ar._term(v)

    def le(self, a, b):
        return self.ar._term(a) <= self.ar._term(b)

    def distinct(self, a, b):
        return self.ar._term(a) != self.ar._term(b)

    def value(self, model, term) -> int:
        if _plain(term):
            return int(term)
        return model.eval(self.ar._term(term), model_completion=True).as_long()


def scope(shape: Shape, bounds: dict | None = None) -> str:
    """Words for what a proof about ``shape`` covers."""
    ranges = dim_ranges(shape, bounds)
    if not shape.is_symbolic:
        return "concrete"
    return "all shapes: " + describe_ranges(ranges)


# --- the same facts as SMT-LIB text -------------------------------------------

class SmtArithmetic(Arithmetic):
    """The index operations on SMT-LIB terms written as text.

    Building a formula as text and handing it to Z3 in one parse is many
    times faster than building it node by node through Z3's Python API, and
    the text comes from the very same spec code.
    """

    name = "smtlib"

    def __init__(self):
        #: every divisor that is not a positive int, in the order divided by
        self.divisors: list = []

    def add(self, a, b):
        if _num(a) and _num(b):
            return a + b
        return f"(+ {smt(a)} {smt(b)})"

    def mul(self, a, b):
        if _num(a) and _num(b):
            return a * b
        return f"(* {smt(a)} {smt(b)})"

    def floordiv(self, a, b):
        if _num(a) and _num(b) and b != 0:
            return a // b
        if _num(b) and b < 0:
            # Python's floor division: a // b == (-a) // (-b), by a positive
            return f"(div {smt(self.mul(-1, a))} {-b})"
        self._divisor(b)
        return f"(div {smt(a)} {smt(b)})"

    def mod(self, a, b):
        if _num(a) and _num(b) and b != 0:
            return a % b
        if _num(b) and b < 0:
            # Python's remainder takes the divisor's sign: -((-a) mod -b)
            return self.mul(-1, f"(mod {smt(self.mul(-1, a))} {-b})")
        self._divisor(b)
        return f"(mod {smt(a)} {smt(b)})"

    def _divisor(self, b):
        if not (_num(b) and b > 0):
            self.divisors.append(b)

    def lt(self, a, b):
        if _num(a) and _num(b):
            return a < b
        return f"(< {smt(a)} {smt(b)})"

    def eq(self, a, b):
        if _num(a) and _num(b):
            return a == b
        return f"(= {smt(a)} {smt(b)})"

    def both(self, p, q):
        return f"(and {smt(p)} {smt(q)})"

    def true(self):
        return "true"


def _num(v) -> bool:
    return isinstance(v, int)


def smt(v) -> str:
    """An int, bool or SMT-LIB term as SMT-LIB text."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v) if v >= 0 else f"(- {-v})"
    return v


class SmtEncoding(_Named):
    """:class:`Encoding`'s interface, producing SMT-LIB text; the same
    symbols, so :meth:`to_z3` reads a formula back as the Z3 terms
    :class:`Encoding` would have built."""

    def __init__(self, shape: Shape, bounds: dict | None = None, ctx: z3.Context | None = None):
        self.ar = SmtArithmetic()
        self.ctx = ctx
        self.declared: list[str] = []
        super().__init__(shape, bounds)

    def constant(self, symbol: str):
        self.declared.append(symbol)
        return symbol

    def box(self, e, d):
        parts = []
        for x, n in zip(e, d):
            if _num(x) and _num(n):
                if not 0 <= x < n:
                    return "false"
                continue
            parts += [f"(<= 0 {smt(x)})", f"(< {smt(x)} {smt(n)})"]
        return self.and_(*parts)

    def equal(self, a, b):
        parts = []
        for x, y in zip(a, b):
            if _num(x) and _num(y):
                if x != y:
                    return "false"
                continue
            parts.append(f"(= {smt(x)} {smt(y)})")
        return self.and_(*parts)

    def and_(self, *ps):
        terms = [smt(p) for p in ps]
        return "true" if not terms else terms[0] if len(terms) == 1 else \
            f"(and {' '.join(terms)})"

    def or_(self, *ps):
        terms = [smt(p) for p in ps]
        return "false" if not terms else terms[0] if len(terms) == 1 else \
            f"(or {' '.join(terms)})"

    def not_(self, p):
        return f"(not {smt(p)})"

    def term(self, v):
        return smt(v)

    def le(self, a, b):
        return f"(<= {smt(a)} {smt(b)})"

    def distinct(self, a, b):
        return f"(distinct {smt(a)} {smt(b)})"

    def declarations(self) -> str:
        return "".join(f"(declare-const {v} Int)" for v in dict.fromkeys(self.declared))

    def to_z3(self, formulas) -> list:
        """The formulas (SMT-LIB text) as Z3 terms of ``self.ctx``, by one
        parse: the solver's view of the very text that was built."""
        formulas = list(formulas)
        text = self.declarations() + "".join(f"(assert {smt(f)})" for f in formulas)
        out = list(z3.parse_smt2_string(text, ctx=self.ctx))
        if len(out) != len(formulas):
            raise ProverBug(f"{len(formulas)} formulas read back as {len(out)}")
        return out

    def value(self, model, term) -> int:
        if _num(term):
            return int(term)
        if term in self.declared:       # a constant: no parse needed
            t = z3.Int(term, self.ctx)
        else:
            t = self.to_z3([f"(= {term} {term})"])[0].arg(0)
        return model.eval(t, model_completion=True).as_long()
