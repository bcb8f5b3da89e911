"""The law of each of Triton's operations on linear layouts, proved by Z3
for every input of the given (concrete) layouts.

:func:`prove_law` takes an operation's name, its inputs and, optionally, a
result to judge (by default :mod:`tilespec.triton.algebra`'s); so the same
proof judges another implementation's answer (the real Triton's), with a
replayed counterexample where it is wrong.

>>> from tilespec.triton import LinearLayout
>>> A = LinearLayout.from_bases([("r", [[1], [2], [0]]), ("t", [[4]])], ["x"])
>>> prove_law("pseudoinvert", A).status
'proved'
>>> r = prove_law("invert_and_compose", A, A, result=LinearLayout.zeros_1d(8, "r", "r", 8)
...               * LinearLayout.zeros_1d(2, "t", "t", 2))
>>> r.status, r.counterexample.what
('refuted', 'outer(C(x)) == A(x) at x fails')

The laws (``x`` every input of the layout's in-dims, ``y`` every output):

- compose: ``R(x) == O(A(x))``; compose_associative: ``((A o B) o C)(x) ==
  (A o (B o C))(x)``;
- product: ``R(x)[o] == A(low(x))[o] + B(high(x))[o] * size_A(o)``, ``low``
  the bits of each in-dim below A's size, ``high`` the bits above;
- divide_left: ``A == product(B, R)`` and divide_right ``A == product(R,
  B)``, both by the product law (the division undoes the product);
- invert: ``A(R(y)) == y`` and ``R(A(x)) == x`` (a two-sided inverse);
  pseudoinvert: ``A(R(y)) == y`` (a right inverse); invert_and_compose:
  ``outer(R(x)) == A(x)``;
- reshape_ins: ``R(split_R(f)) == A(split_A(f))`` for every flat input
  ``f``; reshape_outs: ``stack_R(R(x)) == stack_A(A(x))``;
  transpose_ins/outs: ``R(x)[o] == A(x)[o]`` by name;
- get_free_variable_masks: for every ``x``, ``A(x') == A(x)`` where
  ``x'`` has the free bits 0 (each replaced by the pivot bits its column
  sums), and as many free bits as the in-bits minus the rank: with the
  free bits 0 every output is reached, and the other bits fix it;
- get_num_consecutive_in_out ``V``: ``A(x)[o0] == A(x - v)[o0] + v`` and the
  other out-dims unchanged, ``v = x[i0] mod V`` (``i0``, ``o0`` the first
  dims): the law for ``V`` (that ``V`` is the largest is not claimed).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ...prover.names import DEFAULT_TIMEOUT
from ...prover.result import Result
from .. import (
    LinearLayout,
    TritonLayoutError,
    compose,
    divide_left,
    divide_right,
    get_free_variable_masks,
    get_num_consecutive_in_out,
    invert,
    invert_and_compose,
    product,
    pseudoinvert,
    reshape_ins,
    reshape_outs,
    transpose_ins,
    transpose_outs,
)
from .claims import Sides, Variable, apply, decide, width_for

OPERATIONS = ("compose", "compose_associative", "product", "divide_left", "divide_right",
              "invert", "pseudoinvert", "invert_and_compose", "reshape_ins", "reshape_outs",
              "transpose_ins", "transpose_outs", "get_free_variable_masks",
              "get_num_consecutive_in_out")


def _show(x: Any) -> str:
    if isinstance(x, LinearLayout):
        return x.to_python().replace("LinearLayout.from_bases", "L")
    return repr(x)


def question(operation: str, inputs: Sequence[Any]) -> str:
    """The operation applied to its inputs, as text.

    >>> question("invert", [LinearLayout.identity_1d(2, "i", "o")])
    'invert(L([("i", [[1]])], ["o"], [2], False))'
    """
    return f"{operation}({', '.join(_show(x) for x in inputs)})"


def _ins(layout: LinearLayout, prefix: str = "") -> list[Variable]:
    return [Variable(prefix + d, s) for d, s in layout.in_dims]


def _outs(layout: LinearLayout, prefix: str = "") -> list[Variable]:
    return [Variable(prefix + d, s) for d, s in layout.out_dims]


def _pick(v: dict[str, Any], layout_dims: Sequence[str], prefix: str = "") -> dict[str, Any]:
    return {d: v[prefix + d] for d in layout_dims}


def _equal_outs(label: str, left: dict[str, Any], right: dict[str, Any]) -> Sides:
    return [(f"{label} at {o}", left[o], right[o]) for o in left]


def _product_sides(whole: LinearLayout, inner: LinearLayout, outer: LinearLayout,
                   label: str):
    """``whole(x) == inner(low(x)) + outer(high(x)) * size_inner``, out by out."""
    if set(whole.in_dim_names) != set(inner.in_dim_names) | set(outer.in_dim_names) or \
            set(whole.out_dim_names) != set(inner.out_dim_names) | set(outer.out_dim_names):
        raise TritonLayoutError("dims", f"{label}: the dims of the product are not those "
                                "of its factors")
    inner_bits = {d: len(vs) for d, vs in inner.bases}
    inner_out = dict(inner.out_dims)

    def sides(v: dict[str, Any]) -> Sides:
        got = apply(whole, v)
        low = apply(inner, {d: v[d] & ((1 << inner_bits[d]) - 1) for d in inner.in_dim_names})
        high = apply(outer, {d: v[d] >> inner_bits.get(d, 0) for d in outer.in_dim_names})
        out: Sides = []
        for o in whole.out_dim_names:
            want = (low[o] if o in low else 0) + \
                (high[o] * inner_out.get(o, 1) if o in high else 0)
            out.append((f"{label}(x) == inner(low(x)) + outer(high(x)) * "
                        f"{inner_out.get(o, 1)} at {o}", got[o], want))
        return out
    return sides


def prove_law(operation: str, *inputs: Any, result: Any = None,
              timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Prove ``operation``'s law for these inputs, for ``result`` (by
    default tilespec's answer); a
    :class:`~tilespec.triton.layout.TritonLayoutError` where the operation
    refuses its inputs (no answer to judge)."""
    if operation not in OPERATIONS:
        raise TritonLayoutError("unknown operation", f"{operation!r}: one of "
                                f"{', '.join(OPERATIONS)}")
    text = question(operation, inputs)
    name = f"{operation} law"
    a = inputs[0]

    def run(variables, sides, *layouts) -> Result:
        return decide(text, name, variables, sides, width_for(*layouts), timeout)

    if operation == "compose":
        outer = inputs[1]
        r = result if result is not None else compose(a, outer)
        return run(_ins(a), lambda v: _equal_outs("R(x) == O(A(x))", apply(r, v),
                                                  apply(outer, apply(a, v))), a, outer, r)
    if operation == "compose_associative":
        b, c = inputs[1], inputs[2]
        left = result if result is not None else compose(compose(a, b), c)
        right = compose(a, compose(b, c))
        return run(_ins(a), lambda v: _equal_outs("((A o B) o C)(x) == (A o (B o C))(x)",
                                                  apply(left, v), apply(right, v)),
                   a, b, c, left)
    if operation == "product":
        b = inputs[1]
        r = result if result is not None else product(a, b)
        return run(_ins(r), _product_sides(r, a, b, "R"), a, b, r)
    if operation in ("divide_left", "divide_right"):
        b = inputs[1]
        r = result if result is not None else (divide_left if operation == "divide_left" else divide_right)(a, b)
        inner, outer = (b, r) if operation == "divide_left" else (r, b)
        return run(_ins(a), _product_sides(a, inner, outer, "A"), a, b, r)
    if operation in ("invert", "pseudoinvert"):
        r = result if result is not None else (invert if operation == "invert" else pseudoinvert)(a)

        def inverse(v):
            y = _pick(v, a.out_dim_names, "y.")
            out = _equal_outs("A(R(y)) == y", apply(a, apply(r, y)), y)
            if operation == "invert":
                x = _pick(v, a.in_dim_names, "x.")
                out += _equal_outs("R(A(x)) == x", apply(r, apply(a, x)), x)
            return out
        variables = _outs(a, "y.") + (_ins(a, "x.") if operation == "invert" else [])
        return run(variables, inverse, a, r)
    if operation == "invert_and_compose":
        outer = inputs[1]
        r = result if result is not None else invert_and_compose(a, outer)
        return run(_ins(a), lambda v: _equal_outs("outer(C(x)) == A(x)", apply(outer, apply(r, v)),
                                                  apply(a, v))
                   if set(r.out_dim_names) == set(outer.in_dim_names) else
                   [("C's out-dims are the outer layout's in-dims", 0, 1)], a, outer, r)
    if operation in ("reshape_ins", "reshape_outs", "transpose_ins", "transpose_outs"):
        arg = inputs[1]
        r = result if result is not None else _RESHAPES[operation](a, arg)
        if operation == "reshape_ins":
            return run([Variable("f", 1 << a.total_in_bits)],
                       lambda v: _equal_outs("R(split_R(f)) == A(split_A(f))",
                                             apply(r, _split(r, v["f"])),
                                             apply(a, _split(a, v["f"]))), a, r)
        if operation == "reshape_outs":
            return run(_ins(a), lambda v: [("stack(R(x)) == stack(A(x))",
                                            _stack(r, apply(r, v)), _stack(a, apply(a, v)))],
                       a, r)
        return run(_ins(a), lambda v: _equal_outs("R(x) == A(x)", apply(r, v), apply(a, v)),
                   a, r)
    if operation == "get_free_variable_masks":
        masks = result if result is not None else get_free_variable_masks(a)
        free = sum(bin(m).count("1") for m in masks.values())
        free_flat = sum(masks.get(d, 0) << at for (d, _), at in zip(a.in_dims, _in_shifts(a)))
        combos = _combinations(a, free_flat)
        missing = [c for c, combo in combos.items() if combo is None]

        def basic(v):
            # every output is reached with the free bits 0: x' = x with each
            # free bit replaced by the pivot bits its column is the sum of
            flat = sum((v[d] << at) if at else v[d] for d, at in zip(a.in_dim_names,
                                                                    _in_shifts(a)))
            reduced = flat & ~free_flat & ((1 << a.total_in_bits) - 1)
            for c, combo in combos.items():
                if combo is not None:
                    reduced = reduced ^ (((flat >> c) & 1) * combo)
            return [(f"free column {c} is a sum of the other columns", 0, 1)
                    for c in missing] + _equal_outs("A(x') == A(x)", apply(a, _split(a, reduced)), apply(a, v)) + [
                ("x' has its free bits 0", reduced & free_flat, 0),
                ("free bits == in-bits - rank", free, a.total_in_bits - a.rank())]
        return run(_ins(a), basic, a, a)
    v_size = result if result is not None else get_num_consecutive_in_out(a)
    if not a.bases or not a.out_dims:
        return run([], lambda v: [("V == 1", v_size, 1)], a)
    first, o0 = a.in_dim_names[0], a.out_dim_names[0]

    def consecutive(v):
        low = v[first] & (v_size - 1)
        base = dict(v, **{first: v[first] ^ low})
        got, at = apply(a, v), apply(a, base)
        return [(f"A(x) == A(x - v) + v at {o0}", got[o0], at[o0] + low)] + [
            (f"A(x) == A(x - v) at {o}", got[o], at[o]) for o in a.out_dim_names[1:]]
    return run(_ins(a), consecutive, a, a)


_RESHAPES: dict[str, Callable[[LinearLayout, Any], LinearLayout]] = {
    "reshape_ins": reshape_ins, "reshape_outs": reshape_outs,
    "transpose_ins": transpose_ins, "transpose_outs": transpose_outs}


def _in_shifts(layout: LinearLayout) -> list[int]:
    """Where each in-dim's bits start in the stacked input."""
    out, at = [], 0
    for _, vs in layout.bases:
        out.append(at)
        at += len(vs)
    return out


def _combinations(layout: LinearLayout, free: int) -> dict[int, int | None]:
    """For each free column (a bit of ``free``), the non-free input bits
    whose columns sum to it, as a mask; None where no such sum exists."""
    columns = layout.columns()
    basis: list[tuple[int, int]] = []       # (reduced column, input bits summed)
    for c, col in enumerate(columns):
        if not free >> c & 1:
            bits = 1 << c
            for v, b in basis:
                if col ^ v < col:
                    col, bits = col ^ v, bits ^ b
            if col:
                basis.append((col, bits))
    out: dict[int, int | None] = {}
    for c, col in enumerate(columns):
        if free >> c & 1:
            bits = 0
            for v, b in sorted(basis, reverse=True):
                if col ^ v < col:
                    col, bits = col ^ v, bits ^ b
            out[c] = None if col else bits
    return out


def _split(layout: LinearLayout, flat: Any) -> dict[str, Any]:
    """A flat input cut into ``layout``'s in-dims, minor first."""
    out, at = {}, 0
    for d, vs in layout.bases:
        out[d] = (flat >> at) & ((1 << len(vs)) - 1)
        at += len(vs)
    return out


def _stack(layout: LinearLayout, outputs: dict[str, Any]) -> Any:
    """Outputs stacked into one value, ``layout``'s out-dims minor first."""
    total: Any = 0
    for (d, _), shift in zip(layout.out_dims, layout.out_shifts()):
        total = total + (outputs[d] << shift if shift else outputs[d])
    return total
