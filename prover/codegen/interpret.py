"""Generated code read as syntax trees, and the one walk that evaluates them.

The generated ``offset`` and ``locate`` (:mod:`codegen.symbolic`) and the
tile/untile sizes (:mod:`codegen.tile_code`) are read with Python's ``ast``
(the C expressions are in the common subset once ``&&``/``||`` are spelled
``and``/``or``).  :func:`interpret` walks such a tree once; what its
operations mean is an :class:`Interpretation`, as :class:`spec.arith.Arithmetic`
says what the spec's formulas mean:

- :class:`Exact` (here): Python ints, with the language's own division (C
  truncates toward zero, Python floors) and its ``&&``/``and`` stopping
  early, noting the first subexpression outside int64 and the first
  division that is not floor division: a witness replayed;
- ``Columns`` (:mod:`prover.codegen.exhaustive`): columns of Python ints,
  every index of a small shape at once;
- ``Terms`` (:mod:`prover.codegen.terms`): Z3 terms, the conditions
  collected as parts of the claim.

The walk holds what is the same in all three: which subexpressions are
integers (each is watched for int64), that a later operand of ``and``/``or``
runs only where the earlier ones left the answer open (:meth:`Interpretation.only_where`),
and the order a language evaluates ``locate`` in (:func:`locate`).

>>> run = Exact("c", {"x": -7, "y": 2})
>>> interpret(expression("x / y", "c"), run), run.fault
(-3, {'division': 'x / y', 'dividend': -7, 'divisor': 2})
>>> run = Exact("c", {"y": 2**62})
>>> interpret(expression("y * 4 - 1", "c"), run), run.fault["overflow"]
(18446744073709551615, 'y * 4')
"""

from __future__ import annotations

import ast
import contextlib
import re
from dataclasses import dataclass
from typing import Any, Iterator

from ...spec import TilespecError
from ..result import ProverBug

#: int64_t's range, [INT64_MIN, INT64_MAX].
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

_COMPARE = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
            ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
            ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b}


class Interpretation:
    """What the operations of generated code mean, in ``language``, with
    the code's names bound by ``env``.  The defaults are Python's operators
    (right for ints and Z3 terms); a subclass says what division means and
    what it watches.  ``int64``: whether integer subexpressions must lie in
    int64 (:meth:`watch` is told each one).
    """

    #: Whether the order of evaluation shows (the first fault is reported);
    #: else C's ``locate`` may be read test first.
    in_order = True

    def __init__(self, language: str, env: dict, int64: bool):
        self.c, self.env, self.int64 = language == "c", env, int64

    def name(self, name: str) -> Any:
        return self.env[name]

    def constant(self, value: Any) -> Any:
        return value

    def add(self, a: Any, b: Any) -> Any:
        return a + b

    def sub(self, a: Any, b: Any) -> Any:
        return a - b

    def mul(self, a: Any, b: Any) -> Any:
        return a * b

    def neg(self, a: Any) -> Any:
        return -a

    def divide(self, node: ast.BinOp, a: Any, b: Any) -> Any:
        """``a / b`` or ``a % b`` (``node`` says which) as the language
        divides, where the divisor is positive and (C) the dividend is not
        negative: there C's truncation and Python's floor agree."""
        raise NotImplementedError

    def compare(self, op: type[ast.cmpop], a: Any, b: Any) -> Any:
        return _COMPARE[op](a, b)

    def all(self, parts: list) -> Any:
        return all(parts)

    def any(self, parts: list) -> Any:
        return any(parts)

    def negate(self, p: Any) -> Any:
        return not p

    def watch(self, node: ast.AST, value: Any) -> None:
        """Told every integer subexpression the code evaluates (with
        ``int64``), after its operands."""

    def stops(self, runs: Any) -> bool:
        """Whether nothing more is evaluated where ``runs`` holds (a
        concrete False: the code stops early there)."""
        return False

    @contextlib.contextmanager
    def only_where(self, runs: Any) -> Iterator[None]:
        """Evaluate what follows only where ``runs`` holds: what it watches
        counts there alone."""
        yield


def interpret(node: ast.AST, meaning: Interpretation) -> Any:
    """The value of the expression ``node`` under ``meaning``.

    >>> interpret(expression("x // 2 * 2 + x % 2 < 9 and x > 0", "python"),
    ...           Exact("python", {"x": 7}))
    True
    """
    if isinstance(node, ast.Expression):
        return interpret(node.body, meaning)
    if isinstance(node, ast.Tuple):
        return tuple(interpret(x, meaning) for x in node.elts)
    if isinstance(node, ast.Compare):
        return _compare(node, meaning)
    if isinstance(node, ast.BoolOp):
        return _logic(node, meaning)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return meaning.negate(interpret(node.operand, meaning))
    value = _integer(node, meaning)
    if meaning.int64:
        meaning.watch(node, value)
    return value


def _integer(node: Any, meaning: Interpretation) -> Any:
    if isinstance(node, ast.Name):
        return meaning.name(node.id)
    if isinstance(node, ast.Constant):
        return meaning.constant(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return meaning.neg(interpret(node.operand, meaning))
    if not isinstance(node, ast.BinOp):
        raise TilespecError(f"generated code has an unexpected {type(node).__name__}")
    op = type(node.op)
    if op is ast.Div and not meaning.c:
        raise TilespecError("generated Python uses '/', not integer division")
    a, b = interpret(node.left, meaning), interpret(node.right, meaning)
    if op is ast.Add:
        return meaning.add(a, b)
    if op is ast.Sub:
        return meaning.sub(a, b)
    if op is ast.Mult:
        return meaning.mul(a, b)
    if op in (ast.FloorDiv, ast.Div, ast.Mod):
        return meaning.divide(node, a, b)
    raise TilespecError(f"generated code uses an unexpected operator {op.__name__}")


def _compare(node: ast.Compare, meaning: Interpretation) -> Any:
    left, parts = interpret(node.left, meaning), []
    for op, right in zip(node.ops, node.comparators):
        r = interpret(right, meaning)
        parts.append(meaning.compare(type(op), left, r))
        left = r
    return meaning.all(parts)


def _logic(node: ast.BoolOp, meaning: Interpretation) -> Any:
    # ``and``/``&&`` and ``or``/``||`` stop early: a later operand runs only
    # where the earlier ones left the answer open.
    conj = isinstance(node.op, ast.And)
    parts: list = []
    for x in node.values:
        if not parts:
            parts.append(interpret(x, meaning))
            continue
        runs = meaning.all(parts) if conj else meaning.negate(meaning.any(parts))
        if meaning.stops(runs):
            break
        with meaning.only_where(runs):
            parts.append(interpret(x, meaning))
    return meaning.all(parts) if conj else meaning.any(parts)


def locate(meaning: Interpretation, is_element: ast.AST, element: ast.AST) -> tuple:
    """(is-an-element, element) of the generated ``locate``, in the order
    the language runs it: C assigns ``e[]`` before its test; Python builds
    the element only past ``if not (is an element): return None`` (None
    where it stops).

    >>> f = code_functions("def offset(e0):\\n    return e0\\n"
    ...                    "def locate(o):\\n    if not (o < 3):\\n        return None\\n"
    ...                    "    return (o,)\\n", "python", "e")
    >>> locate(Exact("python", {"o": 5}), f.is_element, f.element)
    (False, None)
    """
    if meaning.c and meaning.in_order:
        element_value = interpret(element, meaning)
        return interpret(is_element, meaning), element_value
    ok = interpret(is_element, meaning)
    if meaning.c:
        return ok, interpret(element, meaning)
    if meaning.stops(ok):
        return ok, None
    with meaning.only_where(ok):
        return ok, interpret(element, meaning)


class Exact(Interpretation):
    """Python ints, as the language computes: C's ``/`` and ``%``
    truncate toward zero, Python's floor, and ``&&``/``and`` stop early.

    ``fault`` is None, or a dict naming the first subexpression that left
    int64 (with ``int64``) and its exact value, or the first division C
    would not do as floor (a divisor <= 0, or for C a negative dividend).

    >>> run = Exact("c", {"x": 0, "y": 2**62})
    >>> interpret(expression("x > 0 && y * 4 > 0", "c"), run), run.fault
    (False, None)
    """

    def __init__(self, language: str, env: dict, int64: bool = True):
        super().__init__(language, env, int64)
        self.fault: dict | None = None   # the first fault met, if any

    def divide(self, node, a, b):
        if b <= 0 or (self.c and a < 0):
            if self.fault is None:
                self.fault = {"division": ast.unparse(node), "dividend": a, "divisor": b}
            if b == 0:
                return 0
        q = a // b
        if self.c and q < 0 and q * b != a:
            q += 1                                  # C truncates toward zero
        return a - q * b if isinstance(node.op, ast.Mod) else q

    def watch(self, node, value):
        if isinstance(value, int) and not isinstance(value, bool) and \
                not INT64_MIN <= value <= INT64_MAX and self.fault is None:
            self.fault = {"overflow": ast.unparse(node), "value": value}

    def stops(self, runs):
        return not runs


# --- reading the generated source --------------------------------------------------

def expression(text: str, language: str) -> ast.expr:
    """One expression of generated code as a tree; C's ``&&`` and ``||``
    read as ``and`` and ``or`` (the rest of the C is in Python's syntax).

    >>> ast.unparse(expression("a < b && (x / 2) % 3 == 0", "c"))
    'a < b and x / 2 % 3 == 0'
    """
    if language == "c":
        text = text.replace("&&", " and ").replace("||", " or ")
    return ast.parse(text.strip(), mode="eval").body


@dataclass(frozen=True)
class CodeFunctions:
    """The generated ``offset`` and ``locate`` as trees: each one's
    parameters, offset's return value, and locate's is-an-element test and
    element tuple."""

    offset_params: tuple[str, ...]
    offset: ast.expr
    locate_params: tuple[str, ...]
    is_element: ast.expr
    element: ast.expr


def code_functions(source: str, language: str, out: str) -> CodeFunctions:
    """The generated ``offset`` and ``locate`` in ``source``; ``out`` is
    the name of C's element array parameter."""
    return _python_functions(source) if language == "python" else _c_functions(source, out)


def _python_functions(source: str) -> CodeFunctions:
    tree = ast.parse(source)
    fns = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    off, loc = fns["offset"], fns["locate"]
    off_ret = next(s for s in off.body if isinstance(s, ast.Return)).value
    test = next((s.test for s in loc.body if isinstance(s, ast.If)), None)  # none: no padding
    # the generated test reads "if not (is an element): return None"
    is_element = test.operand if isinstance(test, ast.UnaryOp) else expression("0 == 0",
                                                                               "python")
    loc_ret = [s for s in loc.body if isinstance(s, ast.Return)][-1].value
    if off_ret is None or loc_ret is None:
        raise ProverBug("the generated Python has a bare return")
    return CodeFunctions(tuple(a.arg for a in off.args.args), off_ret,
                         tuple(a.arg for a in loc.args.args), is_element, loc_ret)


def _found(pattern: str, text: str) -> re.Match[str]:
    """The match of ``pattern`` in generated C, which always has it."""
    m = re.search(pattern, text, re.S)
    if m is None:
        raise ProverBug(f"the generated C has no {pattern!r}")
    return m


def _c_functions(source: str, out: str) -> CodeFunctions:
    off = _found(r"int64_t offset\(([^)]*)\)\s*\{(.*?)\n\}", source)
    loc = _found(r"int locate\(([^)]*)\)\s*\{(.*?)\n\}", source)

    def params(text):
        return tuple(p.split()[-1].lstrip("*") for p in text.split(",")
                     if p.strip() and p.strip() != "void")
    off_expr = expression(_found(r"return (.*?);", off.group(2)).group(1), "c")
    sets = dict((int(i), expression(x, "c")) for i, x in
                re.findall(rf"\b{out}\[(\d+)\] = (.*?);", loc.group(2), re.S))
    test = expression(_found(r"return (.*?);", loc.group(2)).group(1), "c")
    element = ast.Tuple(elts=[sets[i] for i in sorted(sets)], ctx=ast.Load())
    return CodeFunctions(params(off.group(1)), off_expr,
                         tuple(p for p in params(loc.group(1)) if p != out), test, element)
