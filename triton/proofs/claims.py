"""Claims about linear layouts for all inputs, decided by Z3 on bit-vectors
and replayed on ints.

A claim ranges over named variables, each below its bound (an in-dim's
values), and says a list of pairs are equal.  Its sides are computed by one
Python function over the variables with the operators ``^ & | << >> + *``,
which mean the same on ints and on Z3 bit-vectors while every value stays
below ``2**(width - 1)`` (the width keeps a spare top bit, so ``>>`` is the
logical shift): the solver decides exactly the code that runs on ints.
Only ``unsat`` of the negation proves; a model is replayed on ints and must
show the failure (else :class:`~tilespec.prover.result.ProverBug`).

>>> from tilespec.triton import LinearLayout
>>> L = LinearLayout.from_bases([("i", [[2], [1]])], ["o"])
>>> r = decide("L", "L(L(x)) == x", [Variable("x", 4)],
...            lambda v: [("L(L(x))", apply(L, {"i": apply(L, {"i": v["x"]})["o"]})["o"], v["x"])],
...            width_for(L, L))
>>> r.status
'proved'
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import z3

from ...prover.core import search
from ...prover.names import DEFAULT_TIMEOUT
from ...prover.result import PROVED, REFUTED, UNKNOWN, Counterexample, ProverBug, Result, Side
from .. import LinearLayout

#: The sides of a claim: ``(label, left, right)`` triples, equal where it holds.
Sides = list[tuple[str, Any, Any]]


@dataclass(frozen=True)
class Variable:
    """A claim's variable: ``0 <= name < bound``."""

    name: str
    bound: int


def apply(layout: LinearLayout, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """``layout`` applied to ints or bit-vectors: per out-dim the XOR of the
    bases of the inputs' set bits, written with operators both share.

    >>> apply(LinearLayout.identity_1d(4, "i", "o"), {"i": 3})
    {'o': 3}
    """
    out: dict[str, Any] = {name: 0 for name in layout.out_dim_names}
    for name, vs in layout.bases:
        x = inputs[name]
        for i, basis in enumerate(vs):
            bit = (x >> i) & 1
            for o, v in zip(layout.out_dim_names, basis):
                if v:
                    out[o] = out[o] ^ (bit * v)
    return out


def width_for(*layouts: LinearLayout) -> int:
    """Bits for a claim about these layouts: every value it computes (an
    input, an output, one stacked into the bits of all dims) is below
    ``2**`` the sum of their input and output bits; one bit more is the
    spare top bit.

    >>> width_for(LinearLayout.identity_1d(16, "i", "o"))
    9
    """
    return sum(x.total_in_bits + x.total_out_bits for x in layouts) + 1


def decide(question: str, name: str, variables: Sequence[Variable],
           sides: Callable[[dict[str, Any]], Sides], width: int,
           timeout: float = DEFAULT_TIMEOUT, scope: str = "concrete layouts, all inputs"
           ) -> Result:
    """Prove ``left == right`` for every pair ``sides`` gives, for all values
    of the variables below their bounds; refuted with the replayed values,
    or unknown with the solver's reason."""
    start = time.perf_counter()
    w = max(width, max((v.bound for v in variables), default=1).bit_length() + 1)
    ctx = z3.Context()
    xs = {v.name: z3.BitVec(f"{v.name}!{i}", w, ctx) for i, v in enumerate(variables)}
    inside = [z3.ULT(xs[v.name], z3.BitVecVal(v.bound, w, ctx)) for v in variables]
    pairs = sides(xs)
    differ = [_term(left, w, ctx) != _term(right, w, ctx) for _, left, right in pairs]
    steps = (f"Z3 on {w}-bit vectors: {'; '.join(label for label, _, _ in pairs)} for all "
             + ", ".join(f"{v.name} < {v.bound}" for v in variables),)
    if not differ:
        return Result(question, name, PROVED, time.perf_counter() - start, scope, steps=steps)
    answer, detail = search(z3.And(*inside, z3.Or(*differ)) if inside else z3.Or(*differ),
                            ctx, timeout)
    seconds = time.perf_counter() - start
    if answer == "unsat":
        return Result(question, name, PROVED, seconds, scope, steps=steps)
    if answer == "unknown":
        return Result(question, name, UNKNOWN, seconds, scope, reason=str(detail), steps=steps)
    values = {v.name: detail.eval(xs[v.name], model_completion=True).as_long()
              for v in variables}
    return Result(question, name, REFUTED, seconds, scope,
                  counterexample=replay(name, variables, sides, values), steps=steps)


def replay(name: str, variables: Sequence[Variable], sides: Callable[[dict[str, Any]], Sides],
           values: dict[str, int]) -> Counterexample:
    """The failure at these values, computed on ints; a
    :class:`~tilespec.prover.result.ProverBug` where it does not fail."""
    for v in variables:
        if not 0 <= values[v.name] < v.bound:
            raise ProverBug(f"{name}: the solver's {v.name} = {values[v.name]} is outside "
                            f"[0, {v.bound})")
    for label, left, right in sides(values):
        if int(left) != int(right):
            return Counterexample({}, (Side("left", value=int(left)),
                                       Side("right", value=int(right))),
                                  what=f"{label} fails", details={"inputs": dict(values)})
    raise ProverBug(f"{name}: the solver's counterexample {values} does not replay")


def _term(x: Any, width: int, ctx: z3.Context) -> Any:
    return x if isinstance(x, z3.ExprRef) else z3.BitVecVal(int(x), width, ctx)
