"""The offset as a formula: sympy, LaTeX, simplified, and as Python or C code.

Nothing here re-derives a formula.  The sympy form is
:func:`spec.index.offset_expr`, folded for reading (:func:`readable`); the simplified form evaluates the same stage
pipeline on dims rewritten as ``d = t*k``; the generated source evaluates the
pipeline once more on :class:`~codegen.expressions.CodeArithmetic`, whose
values are expressions in the target language.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> formula(shape("f32[m,n]{1,0:T(8,128)}"))
128*(Mod(e0, 8)) + Mod(e1, 128) + 1024*ceiling(n/128)*floor(e0/8) + 1024*floor(e1/128)
>>> s = simplified(shape("f32[m,n]{1,0:T(8,128)}"))
>>> s.assumptions()
['m = 8*k0', 'n = 128*k1']
>>> s.expr
1024*k1*floor(e0/8) + 128*(Mod(e0, 8)) + Mod(e1, 128) + 1024*floor(e1/128)
>>> print(offset_code(shape("f32[3,5]{1,0:T(2,2)}")))
((e0 // 2 * 3 + e1 // 2) * 2 + e0 % 2) * 2 + e1 % 2
>>> g = python_functions(shape("f32[3,5]{1,0:T(2,2)}"))
>>> g.offset(2, 3), g.locate(17), g.locate(9)
(17, (2, 3), None)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from math import gcd

from ..spec import (
    SYMPY,
    Names,
    Pad,
    Shape,
    dim_symbols,
    dims_through,
    evaluate,
    format_shape,
    index_symbols,
    names,
    offset_expr,
    padded_elements,
    reserved,
    shape_pipeline,
    unevaluate,
)
from .expressions import Code, CodeArithmetic, CodegenError
from .readable import readable

# --- the formula in sympy ----------------------------------------------------------

def formula(shape: Shape, symbolic: bool = False):
    """The offset of element (e0, e1, ...) as a sympy expression: the spec's
    :func:`~spec.index.offset_expr`, with nested floors and mods folded
    (:func:`readable`).

    Named dims stay names; with ``symbolic`` every dim is a name (d0, d1, ...).
    Generated names never equal a user's (:mod:`spec.naming`): with a dim
    named ``e1`` the index is (i0, i1).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> formula(shape("f32[m,e1]{1,0:T(8,128)}"))
    128*(Mod(i0, 8)) + Mod(i1, 128) + 1024*ceiling(e1/128)*floor(i0/8) + 1024*floor(i1/128)
    """
    return readable(offset_expr(shape, symbolic))


@dataclass(frozen=True)
class Simplified:
    """The offset formula when no level of tiling pads.

    ``substitutions`` rewrite dims as multiples of fresh positive integers
    (``n = 128*k1``): the assumption under which ``expr`` holds.  ``notes``
    name the dims that pad whatever the dims are (constants, unit dims).
    """

    shape: Shape
    expr: object
    substitutions: tuple
    notes: tuple[str, ...]

    def assumptions(self) -> list[str]:
        return [f"{d} = {v}" for d, v in self.substitutions]


def simplified(shape: Shape, symbolic: bool = False) -> Simplified:
    """The offset formula assuming every tiled dim is a multiple of its tile.

    Level by level, each dim a tile pads is made a multiple of the tile by
    substituting ``s = (t/g)*k`` for one symbol ``s`` in it (the most minor
    one when dims were combined), ``g`` being what the dim's constant factor
    already supplies.  The pipeline is then evaluated on the rewritten dims,
    so every ``ceiling`` of a tiled dim cancels.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> s = simplified(shape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}"), symbolic=True)
    >>> s.assumptions()
    ['d2 = 2*k2', 'd4 = 3*k4']
    >>> s.expr
    6*d3*k4*(k2*(d1*e0 + e1) + floor(e2/2)) + 6*e3*k4 + 3*(Mod(e2, 2)) + Mod(e4, 3) + 6*floor(e4/3)
    >>> simplified(shape("f32[3,5]{1,0:T(2,2)}")).notes
    ('level 1: dim 3 is not a multiple of 2, so padding remains', 'level 1: dim 5 is not a multiple of 2, so padding remains')
    """
    import sympy
    stages = shape_pipeline(shape)
    named = names(shape, "sympy", symbolic)
    originals = dim_symbols(shape, symbolic)
    # Which logical dim each symbol stands for, to pick the most minor one
    # of a combined dim and to name fresh symbols after it.
    position = {d: shape.physical_order.index(i) for i, d in enumerate(originals)
                if isinstance(d, sympy.Symbol)}
    source = {d: i for i, d in enumerate(originals) if isinstance(d, sympy.Symbol)}
    subs: dict = {}
    notes = []

    def current():
        return tuple(sympy.sympify(d).subs(subs) if d in subs else d for d in originals)

    for at, stage in enumerate(stages):
        if not isinstance(stage, Pad):
            continue
        entering = dims_through(stages, current(), SYMPY)[at]
        tiled = entering[len(entering) - len(stage.sizes):]
        for dim, t in zip(tiled, stage.sizes):
            dim = sympy.sympify(dim)
            if dim.is_Integer:
                if dim % t:
                    notes.append(f"level {stage.level}: dim {dim} is not a "
                                 f"multiple of {t}, so padding remains")
                continue
            coeff, rest = dim.as_coeff_Mul()
            need = t // gcd(t, int(coeff)) if coeff.is_Integer else None
            if need == 1:
                continue
            factors = rest.as_ordered_factors()
            symbols = [f for f in factors if f in position]
            if need is None or not symbols or len(symbols) != len(factors):
                notes.append(f"level {stage.level}: cannot make {dim} a "
                             f"multiple of {t} by renaming a dim")
                continue
            s = max(symbols, key=lambda f: position[f])
            i = source[s]
            k = named.fresh
            name = f"{k}{i}" if stage.level == 1 else f"{k}{i}_{stage.level}"
            fresh = sympy.Symbol(name, integer=True, positive=True)
            position[fresh], source[fresh] = position[s], i
            subs = {k: v.subs(s, need * fresh) for k, v in subs.items()}
            if s in originals and s not in subs:
                subs[s] = need * fresh
    dims = current()
    expr = readable(evaluate(stages, index_symbols(shape.rank, named.indices), dims, SYMPY))
    return Simplified(shape, expr,
                      tuple((d, subs[d]) for d in originals if d in subs),
                      tuple(notes))


# --- source code from the pipeline -------------------------------------------------

def _parameters(shape: Shape, language: str, symbolic: bool):
    """The code's names (:mod:`spec.naming`) and each dim's value: an int,
    or its written name as :class:`Code`."""
    named = names(shape, language, symbolic)
    dims = []
    for i, (d, written) in enumerate(zip(shape.dims, named.dims)):
        if written is None and d is None:
            raise CodegenError(f"dim {i} of {format_shape(shape)} is unbounded ('?'); "
                               "name it")
        dims.append(d if written is None else Code(written))
    return named, tuple(dims)


def offset_code(shape: Shape, language: str = "python", symbolic: bool = False) -> Code:
    """The offset as one expression of e0, e1, ... (and named dims)."""
    ar = CodeArithmetic(language)
    named, dims = _parameters(shape, language, symbolic)
    return _code(evaluate(shape_pipeline(shape), tuple(Code(e) for e in named.indices),
                          dims, ar), ar)


def locate_code(shape: Shape, language: str = "python", symbolic: bool = False):
    """The logical index at offset ``o`` as expressions, and the condition
    that the offset holds an element rather than padding."""
    ar = CodeArithmetic(language)
    named, dims = _parameters(shape, language, symbolic)
    e, valid = unevaluate(shape_pipeline(shape), Code(named.offset), dims, ar)
    return tuple(_code(x, ar) for x in e), _code(valid, ar)


def _code(value, ar: CodeArithmetic) -> Code:
    return value if isinstance(value, Code) else Code(ar.literal(value))


def _size_note(shape: Shape, symbolic: bool, o: str) -> str:
    if shape.is_symbolic or symbolic:
        return f"0 <= {o} < the padded size"
    return f"0 <= {o} < {padded_elements(shape)}"


def python_source(shape: Shape, symbolic: bool = False) -> str:
    """Python source defining ``offset(e0, ..., dims)`` and ``locate(o, dims)``.

    A rank-1 tile only pads: the offset is the index.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> print(python_source(shape("f32[m]{0:T(4)}")))
    # Generated by tilespec from the stage pipeline of f32[m]{0:T(4)}.
    <BLANKLINE>
    def offset(e0, m):
        \"\"\"The linear offset of element (e0); indices must be in range.\"\"\"
        return e0
    <BLANKLINE>
    <BLANKLINE>
    def locate(o, m):
        \"\"\"The element stored at offset o (0 <= o < the padded size), or None for padding.\"\"\"
        if not o < m:
            return None
        return (o,)
    """
    named, _ = _parameters(shape, "python", symbolic)
    dims, o = named.parameters, named.offset
    e, valid = locate_code(shape, "python", symbolic)
    lines = [
        f"# Generated by tilespec from the stage pipeline of {format_shape(shape)}.",
        *respelled(named, "#"),
        "",
        python_offset_function(shape, symbolic),
        "",
        "",
        f"def locate({', '.join((o,) + dims)}):",
        f'    """The element stored at offset {o} ({_size_note(shape, symbolic, o)}), '
        'or None for padding."""',
    ]
    if valid.text != "True":
        test = f"({valid})" if valid.op == "and" else valid.text
        lines += [f"    if not {test}:", "        return None"]
    items = ", ".join(x.text for x in e)
    lines.append(f"    return ({items}{',' if len(e) == 1 else ''})")
    return "\n".join(lines)


def c_function_names(prefix: str, functions: tuple[str, ...],
                     taken: set[str]) -> tuple[str, ...]:
    """The C names of the generated ``functions``: ``PREFIX_f`` with a
    ``prefix``, so that the C of several layouts links into one program.
    A prefix that is not a C identifier, or that makes a name the code
    uses (one of ``taken``, or one C reserves), is a :class:`CodegenError`.

    >>> c_function_names("bf16_a", ("offset", "locate"), set())
    ('bf16_a_offset', 'bf16_a_locate')
    >>> c_function_names("", ("offset", "locate"), set())
    ('offset', 'locate')
    >>> c_function_names("a", ("offset",), {"a_offset"})
    Traceback (most recent call last):
    ...
    tilespec.codegen.expressions.CodegenError: prefix 'a' makes a_offset, a name the code uses
    """
    if not prefix:
        return functions
    if not (prefix.isidentifier() and prefix.isascii()):
        raise CodegenError(f"prefix {prefix!r} is not a C identifier")
    out = tuple(f"{prefix}_{f}" for f in functions)
    for x in out:
        if x in taken or reserved(x, "c"):
            raise CodegenError(f"prefix {prefix!r} makes {x}, a name the code uses")
    return out


def c_source(shape: Shape, symbolic: bool = False, prefix: str = "") -> str:
    """C99 source defining ``int64_t offset(...)`` and ``int locate(...)``
    (``PREFIX_offset`` and ``PREFIX_locate`` with a ``prefix``, so that
    the C of several layouts links into one program).

    ``locate`` writes the index into ``e`` and returns 1, or returns 0 for
    padding (``e`` then holds the padding's position in the padded array).
    Everything is ``int64_t``, as in XLA: the code is exact while every
    subexpression fits, which ``tilespec formula --c --prove`` proves (for
    named dims, whenever the padded array has fewer than 2^63 elements).
    Indices and dims are never negative, so C's truncating ``/`` and ``%``
    are floor division here.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> print(c_source(shape("f32[3,5]{1,0:T(2,2)}")).splitlines()[6])
    int64_t offset(int64_t e0, int64_t e1) {
    >>> print(c_source(shape("f32[3,5]{1,0:T(2,2)}"), prefix="f35").splitlines()[6])
    int64_t f35_offset(int64_t e0, int64_t e1) {
    """
    named, _ = _parameters(shape, "c", symbolic)
    dims, o, out = named.parameters, named.offset, named.out
    offset, locate = c_function_names(prefix, ("offset", "locate"),
                                      {*dims, *named.indices, o, out})
    e, valid = locate_code(shape, "c", symbolic)
    dim_params = [f"int64_t {n}" for n in dims]
    locate_params = ", ".join([f"int64_t {o}"] + dim_params + [f"int64_t *{out}"])
    body = [f"    {out}[{k}] = {x};" for k, x in enumerate(e)]
    return "\n".join([
        f"/* Generated by tilespec from the stage pipeline of {format_shape(shape)}. */",
        *respelled(named, "//"),
        "#include <stdint.h>",
        "/* int64_t throughout, as in XLA: `tilespec formula --c --prove` checks that no",
        "   subexpression overflows (for named dims: if the padded size is below 2^63). */",
        "",
        c_offset_function(shape, symbolic, offset),
        "",
        f"/* The element stored at offset {o} ({_size_note(shape, symbolic, o)}) "
        f"into {out};",
        "   returns 1 for an element, 0 for padding. */",
        f"int {locate}({locate_params}) {{",
        *unused_parameters((o,) + dims + (out,), [valid, *e] + ([Code(out)] if e else [])),
        *body,
        f"    return {valid};",
        "}",
        "",
    ])


def python_offset_function(shape: Shape, symbolic: bool = False) -> str:
    """The Python function ``offset`` alone, as :func:`python_source` and
    the tile/untile code (:mod:`codegen.tile_code`) write it.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> print(python_offset_function(shape("f32[3,5]{1,0:T(2,2)}")).splitlines()[0])
    def offset(e0, e1):
    """
    named, _ = _parameters(shape, "python", symbolic)
    indices, dims = named.indices, named.parameters
    return "\n".join([
        f"def offset({', '.join(indices + dims)}):",
        f'    """The linear offset of element ({", ".join(indices)}); '
        'indices must be in range."""',
        f"    return {offset_code(shape, 'python', symbolic)}",
    ])


def c_offset_function(shape: Shape, symbolic: bool = False, name: str = "offset") -> str:
    """The C function ``offset`` alone (with its comment; called ``name``),
    as :func:`c_source` and the tile/untile code write it.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> print(c_offset_function(shape("f32[m]{0:T(4)}")))
    /* The linear offset of element (e0); indices must be in range. */
    int64_t offset(int64_t e0, int64_t m) {
        (void)m;
        return e0;
    }
    """
    named, _ = _parameters(shape, "c", symbolic)
    indices, dims = named.indices, named.parameters
    offset = offset_code(shape, "c", symbolic)
    params = ", ".join([f"int64_t {i}" for i in indices + dims]) or "void"
    return "\n".join([
        f"/* The linear offset of element ({', '.join(indices)}); indices must be in range. */",
        f"int64_t {name}({params}) {{",
        *unused_parameters(indices + dims, [offset]),
        f"    return {offset};",
        "}",
    ])


def respelled(named: Names, comment: str) -> list[str]:
    """A comment naming each dim the language made tilespec respell."""
    moved = [f"{u} as {w}" for u, w in named.spelling if u != w]
    if not moved:
        return []
    return [f"{comment} dims named as the language reserves, respelled: {', '.join(moved)}"]


def unused_parameters(params, used) -> list[str]:
    """``(void)p;`` for each parameter the code never reads (a dim the
    formula does not need, such as the most major one), so that C compilers
    stay quiet."""
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", " ".join(str(u) for u in used)))
    return [f"    (void){p};" for p in params if p not in words]


@dataclass(frozen=True)
class GeneratedPython:
    """The generated Python source and the functions it defines."""

    source: str
    offset: object
    locate: object


def python_functions(shape: Shape, symbolic: bool = False) -> GeneratedPython:
    """Execute :func:`python_source` and hand back its two functions."""
    source = python_source(shape, symbolic)
    namespace: dict = {}
    exec(compile(source, f"<tilespec {format_shape(shape)}>", "exec"), namespace)
    return GeneratedPython(source, namespace["offset"], namespace["locate"])
