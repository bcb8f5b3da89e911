r"""The formulas ``tilespec formula`` prints mean what the spec computes.

The LaTeX is read back by a small reader of its own for the subset printed
(sums, products by juxtaposition, ``\frac``, floor and ceiling brackets,
``\bmod`` binding like a product, as a reader of the formula takes it), and
the printed sympy form is evaluated as Python on exact fractions; both are evaluated at
random points and compared with :func:`tilespec.spec.index.offset`, for every
layout of the built-in catalogue: as written, with every dim a name, and
simplified (dims made multiples of their tiles).
"""

from __future__ import annotations

import dataclasses
import math
import random
import re
from fractions import Fraction

import pytest
import sympy

from tilespec.codegen.symbolic import formula, simplified
from tilespec.prover.properties.catalogue import CATALOGUE
from tilespec.spec.index import offset
from tilespec.spec.text import parse_array_shape
from tilespec.teach.latex import latex, latex_of

POINTS = 10


# --- a reader for the LaTeX subset the formulas use ---------------------------------

_FIXED = (r"\left\lfloor", r"\right\rfloor", r"\left\lceil", r"\right\rceil",
          r"\left(", r"\right)", r"\frac", r"\bmod", r"\cdot", "{", "}", "+", "-", "^")


def tokens(text: str, names: dict[str, sympy.Symbol]) -> list:
    spelled = sorted(names, key=len, reverse=True)
    out, i = [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        m = re.match(r"\d+", text[i:])
        if m:
            out.append(int(m.group()))
            i += m.end()
            continue
        for fixed in _FIXED:
            if text.startswith(fixed, i):
                out.append(fixed)
                i += len(fixed)
                break
        else:
            for name in spelled:
                if text.startswith(name, i):
                    out.append(names[name])
                    i += len(name)
                    break
            else:
                raise ValueError(f"cannot read {text[i:i + 20]!r}")
    return out


class Reader:
    """Recursive descent; ``\\bmod`` is left-associative at product level."""

    def __init__(self, toks, env):
        self.toks, self.at, self.env = toks, 0, env

    def peek(self):
        return self.toks[self.at] if self.at < len(self.toks) else None

    def take(self, want=None):
        tok = self.peek()
        if want is not None and tok != want:
            raise ValueError(f"expected {want!r}, found {tok!r} at token {self.at}")
        self.at += 1
        return tok

    def expr(self):
        sign = -1 if self.peek() == "-" and self.take() else 1
        value = sign * self.term()
        while self.peek() in ("+", "-"):
            value = value + self.term() if self.take() == "+" else value - self.term()
        return value

    def starts_atom(self, tok) -> bool:
        return (isinstance(tok, (int, sympy.Symbol))
                or tok in (r"\left(", r"\left\lfloor", r"\left\lceil", r"\frac", "{"))

    def term(self):
        value = self.factor()
        while True:
            tok = self.peek()
            if tok == r"\bmod":
                self.take()
                value = value % self.factor()
            elif tok == r"\cdot":
                self.take()
                value = value * self.factor()
            elif self.starts_atom(tok):
                value = value * self.factor()
            else:
                return value

    def factor(self):
        value = self.atom()
        if self.peek() == "^":
            self.take()
            self.take("{")
            value = value ** self.expr()
            self.take("}")
        return value

    def group(self):
        self.take("{")
        value = self.expr()
        self.take("}")
        return value

    def atom(self):
        tok = self.take()
        if isinstance(tok, int):
            return Fraction(tok)
        if isinstance(tok, sympy.Symbol):
            return Fraction(self.env[tok])
        if tok == "{":
            self.at -= 1
            return self.group()
        if tok == r"\left(":
            value = self.expr()
            self.take(r"\right)")
            return value
        if tok == r"\left\lfloor":
            value = math.floor(self.group())
            self.take(r"\right\rfloor")
            return Fraction(value)
        if tok == r"\left\lceil":
            value = math.ceil(self.group())
            self.take(r"\right\rceil")
            return Fraction(value)
        if tok == r"\frac":
            return self.group() / self.group()
        raise ValueError(f"unexpected {tok!r}")


def read_latex(text: str, env: dict) -> Fraction:
    names = {latex_of(s): s for s in env}
    reader = Reader(tokens(text, names), env)
    value = reader.expr()
    if reader.peek() is not None:
        raise ValueError(f"left over at token {reader.at}: {reader.toks[reader.at:]}")
    return value


def read_printed(text: str, env: dict) -> Fraction:
    """The printed (sympy ``str``) form evaluated as Python on exact
    fractions, with ``Mod``, ``floor`` and ``ceiling`` as integer maths."""
    names = {"Mod": lambda a, b: a % b, "floor": math.floor, "ceiling": math.ceil}
    names.update({s.name: Fraction(v) for s, v in env.items()})
    return eval(text, {"__builtins__": {}}, names)


def test_the_reader_binds_bmod_like_a_product():
    # The misreading the issue names: without brackets, mod takes e_1 alone.
    b, e0, e1 = sympy.symbols("b e0 e1", integer=True)
    env = {b: 5, e0: 1, e1: 2}
    assert read_latex(r"b e_{0} + e_{1} \bmod 3", env) == 5 + 2
    assert read_latex(r"\left(\left(b e_{0} + e_{1}\right) \bmod 3\right)", env) == 1


# --- the formulas against the spec ----------------------------------------------------

def _check(shape_text, expr, substitutions, rng):
    """Compare LaTeX and printed forms of ``expr`` with the spec at random points.

    ``substitutions`` maps a dim symbol to its value in terms of other
    symbols (the simplified form's ``n = 128*k1``).
    """
    shape = parse_array_shape(shape_text)
    expr = sympy.sympify(expr)
    text = latex_of(expr)
    printed = str(expr)
    index = [s for s in expr.free_symbols if re.fullmatch(r"e\d+", s.name)]
    params = {s for s in expr.free_symbols if s not in index}
    params |= {s for _, v in substitutions for s in v.free_symbols}
    params = sorted(params, key=str)
    rewritten = {str(d): v for d, v in substitutions}
    for _ in range(POINTS):
        env = {s: rng.randint(1, 40) for s in params}
        values = {s.name: v for s, v in env.items()}
        # A named dim the formula does not use still needs a size.
        values.update({d: rng.randint(1, 40) for d in shape.dims
                       if isinstance(d, str) and d not in values})
        dims = []
        for i, d in enumerate(shape.dims):
            name = d if isinstance(d, str) else f"d{i}"
            if name in rewritten:
                dims.append(int(rewritten[name].subs(env)))
            else:
                dims.append(values.get(name, d))
        concrete = dataclasses.replace(shape, dims=tuple(dims))
        element = tuple(rng.randrange(d) for d in dims)
        full = dict(env)
        for s in index:
            full[s] = element[int(s.name[1:])]
        want = offset(concrete, element)
        assert read_latex(text, full) == want, (shape_text, text, full)
        assert read_printed(printed, full) == want, (shape_text, printed, full)


@pytest.mark.parametrize("shape_text", [text for text, _ in CATALOGUE])
def test_formulas_mean_what_the_spec_computes(shape_text):
    rng = random.Random(shape_text)
    shape = parse_array_shape(shape_text)
    _check(shape_text, formula(shape), (), rng)
    _check(shape_text, formula(shape, symbolic=True), (), rng)
    s = simplified(shape, symbolic=True)
    _check(shape_text, s.expr, s.substitutions, rng)


def test_latex_brackets_the_combined_dims_mod():
    text = latex(parse_array_shape("f32[a,b,c]{2,1,0:T(*,3)}"))
    assert r"\left(\left(c e_{1} + e_{2}\right) \bmod 3\right)" in text
