"""Closed forms written to be read: an integer expression from the index
arithmetic with its nested floors and mods folded, and the terms that fold
to 0 dropped.  :func:`~codegen.symbolic.formula` and the copy's closed form
(:mod:`codegen.convert`) pass their sympy expressions through it; the tests
check the folded forms against the spec at random points.
"""

from __future__ import annotations

from math import gcd

from ..spec import index_mod


def readable(expr):
    """The same integer expression, written to be read: nested floors and
    mods folded.  For integers x and positive integers a, b:

    - ``floor(floor(x/a)/b) == floor(x/(a*b))``;
    - ``Mod(Mod(x, a*b), b) == Mod(x, b)``;
    - ``floor(Mod(x, a*b)/b) == Mod(floor(x/b), a)``, and ``floor(Mod(x, a)/b) == 0``
      when ``b >= a``;
    - ``floor((g*k + r)/q) == floor(g*k/q)`` when ``g`` divides ``q`` and
      ``r`` is a sum of mods below ``g``.

    Later tiles that split a within-tile dim, and a copy's offset run back
    through a layout, leave such terms; terms that fold to 0 drop out.

    >>> import sympy
    >>> from tilespec.spec.arith import index_mod
    >>> Mod, x = index_mod(), sympy.Symbol("x", integer=True, nonnegative=True)
    >>> readable(Mod(sympy.floor(sympy.floor(x / 2) / 2), 3))
    Mod(floor(x/4), 3)
    >>> readable(Mod(Mod(x, 8), 2) + 256 * sympy.floor(Mod(x, 8) / 2))
    Mod(x, 2) + 256*(Mod(floor(x/2), 4))
    >>> readable(sympy.floor(Mod(x, 4) / 4) + sympy.floor(sympy.floor(x / 4) / 3))
    floor(x/12)
    """
    import sympy
    Mod = index_mod()
    mods = (Mod, sympy.Mod)

    def quotient(arg):
        """(x, q) with arg == x/q, x an integer expression, q an int > 1."""
        x, q = sympy.fraction(sympy.together(arg))
        if q.is_Integer and q > 1 and x.is_integer:
            return x, int(q)
        return None

    def constant_mod(t):
        return isinstance(t, mods) and t.args[1].is_Integer and t.args[1] > 0

    def fold_floor(t):
        got = quotient(t.args[0])
        if got is None:
            return t
        x, q = got
        if isinstance(x, sympy.floor):
            inner = quotient(x.args[0])
            if inner is not None:
                return sympy.floor(inner[0] / (inner[1] * q))
        if x.is_Add:
            # x = g*k + r with 0 <= r < g and g | q: r cannot carry past a
            # multiple of q, so floor(x/q) == floor((x - r)/q)
            small: list = []
            whole: list = []
            for term in x.args:
                c, rest = term.as_coeff_Mul()
                (small if constant_mod(rest) and c.is_Integer and c > 0 else whole).append(term)
            g = gcd(q, *(int(w.as_coeff_Mul()[0]) if w.as_coeff_Mul()[0].is_Integer else 1
                         for w in whole))
            bound = sum((int(c) * (int(r.args[1]) - 1) for c, r in
                         (t.as_coeff_Mul() for t in small)), 0)
            keep = [t for t in small if int(t.as_coeff_Mul()[0]) % g == 0]
            if g > 1 and small and bound < g and len(keep) < len(small):
                return sympy.floor(sympy.Add(*whole, *keep) / q)
        if constant_mod(x):
            m = int(x.args[1])
            if q >= m:
                return sympy.Integer(0)
            if m % q == 0:
                return Mod(sympy.floor(x.args[0] / q), m // q)
        return t

    def fold_mod(t):
        x, b = t.args
        if constant_mod(x) and b.is_Integer and b > 0 and int(x.args[1]) % int(b) == 0:
            return Mod(x.args[0], b)
        return t

    expr = sympy.sympify(expr)  # a rank-0 shape's offset is the int 0
    previous = None
    while previous != expr:
        previous = expr
        expr = expr.replace(lambda t: isinstance(t, sympy.floor), fold_floor)
        expr = expr.replace(lambda t: isinstance(t, mods), fold_mod)
    return expr
