r"""The offset formula in LaTeX, with every ``mod`` and ``floor`` kept whole.

Sympy prints ``Mod(b*e0 + e1, 3)`` as ``b e_{0} + e_{1} \bmod 3``, which a
reader takes as ``b e_0 + (e_1 \bmod 3)``: ``\bmod`` binds like a product.
Here the first operand of every ``mod`` is parenthesised unless it is a
single name or number, and the whole ``mod`` is parenthesised too, so the
formula means what the spec computes.  Floors and ceilings already print
with their brackets.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> from tilespec.codegen.symbolic import formula
>>> print(latex_of(formula(shape("f32[4,6]{1,0:T(*,4)}"))))
\left(\left(6 e_{0} + e_{1}\right) \bmod 4\right) + 4 \left\lfloor{\frac{3 e_{0}}{2} + \frac{e_{1}}{4}}\right\rfloor
>>> print(latex_of(formula(shape("f32[3,5]{1,0:T(2,2)}"))))
2 \left(e_{0} \bmod 2\right) + \left(e_{1} \bmod 2\right) + 12 \left\lfloor{\frac{e_{0}}{2}}\right\rfloor + 4 \left\lfloor{\frac{e_{1}}{2}}\right\rfloor
"""

from __future__ import annotations

import re

from ..codegen import formula, simplified
from ..spec import Shape

_PRINTER = None


def _printer():
    # Built on first use: sympy is imported only when a formula is printed.
    global _PRINTER
    if _PRINTER is None:
        import sympy
        from sympy.printing.latex import LatexPrinter

        class OffsetLatexPrinter(LatexPrinter):
            # The spec's Mod carries its own ``_latex``; a different print
            # method name makes the printer dispatch on the class instead.
            printmethod = "_tilespec_latex"

            def _print_Mod(self, expr, exp=None):
                a, b = expr.args
                left = self._print(a)
                if not (a.is_Symbol or a.is_Number or isinstance(
                        a, (sympy.floor, sympy.ceiling)) or type(a).__name__ == "Mod"):
                    left = rf"\left({left}\right)"
                right = self._print(b)
                if not (b.is_Symbol or b.is_Number):
                    right = rf"\left({right}\right)"
                text = rf"\left({left} \bmod {right}\right)"
                return rf"{text}^{{{exp}}}" if exp is not None else text

            def _print_Symbol(self, expr, style="plain"):
                return symbol_latex(expr.name)

        _PRINTER = OffsetLatexPrinter()
    return _PRINTER


def symbol_latex(name: str) -> str:
    r"""A name in LaTeX, one to one: sympy writes both ``e1`` and ``e_1``
    as ``e_{1}``, so a dim named ``e_1`` would read as the index e1.  Here
    a letter and digits (``e1``, ``k1_2``) take a subscript, one letter
    stays itself, and any other name is written out whole.

    >>> [symbol_latex(x) for x in ("m", "e1", "k1_2", "e_1", "batch")]
    ['m', 'e_{1}', 'k_{1,2}', '\\mathit{e\\_1}', '\\mathit{batch}']
    """
    m = re.fullmatch(r"([A-Za-z])(\d+)(?:_(\d+))?", name)
    if m:
        letter, sub, level = m.groups()
        return f"{letter}_{{{sub}{',' + level if level else ''}}}"
    if re.fullmatch(r"[A-Za-z]", name):
        return name
    return r"\mathit{" + name.replace("_", r"\_") + "}"


def latex_of(expr) -> str:
    """``expr`` (an offset formula) in LaTeX; every ``mod`` parenthesised."""
    return _printer().doprint(expr)


def latex(shape: Shape, symbolic: bool = False, simplify: bool = False) -> str:
    r"""The offset formula in LaTeX.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> latex(shape("f32[3,5]{1,0:T(2,2)}"))
    '2 \\left(e_{0} \\bmod 2\\right) + \\left(e_{1} \\bmod 2\\right) + 12 \\left\\lfloor{\\frac{e_{0}}{2}}\\right\\rfloor + 4 \\left\\lfloor{\\frac{e_{1}}{2}}\\right\\rfloor'
    """
    expr = simplified(shape, symbolic).expr if simplify else formula(shape, symbolic)
    return latex_of(expr)
