"""Instances of all-shapes proofs: a layout's property proved once for every
size of its dims, then cited for each shape with that layout.

A proof about ``f32[d0,d1]{1,0:T(8,128)}`` covers every ``d0, d1 >= 1``
(:mod:`prover.core.bounds`); ``f32[3,5]{1,0:T(8,128)}``, ``f32[m,5]{...}`` with any
bounds, and ``f32[29360128,10]{...}`` are instances of it, so once it is
proved, their proofs of the same property are a citation.  This serves the
properties that are not instances of the stage theorems
(:mod:`prover.core.theorems`): ``formula_equals_prt``, ``packing``,
``combine_equals_reshape``, and ``in_bounds`` for named dims.

The *signature* of a shape is its element type and layout with every dim
renamed ``d0, d1, ...``; a shape is an instance when it has the spec's own
pipeline (no ``stages=``), every dim is a name or an integer >= 1, and no
dim is dynamic.  A dim of 0 is outside the signature's scope, so it is
proved as itself.  The signature's proof is made by :func:`prove` itself
(the same facts, all dims named), with the caller's time limit, and kept
(:mod:`prover.core.cache`) under a fingerprint of the code of the spec's
semantics and of the prover (every module a proof runs through): changed
code is proved again.  Only ``proved`` is ever cited; a signature that is
refuted or unknown (at some size the shape does not have) sends the shape
to its own proof, and that outcome is remembered for the process.

>>> from tilespec.spec.printer import format_shape
>>> from tilespec.spec.text import parse_array_shape as shape
>>> format_shape(signature(shape("f32[3,m]{1,0:T(8,128)}")))
'f32[d0,d1]{1,0:T(8,128)}'
"""

from __future__ import annotations

import importlib
import time
from datetime import datetime, timezone

from ...spec import Shape, format_shape
from ..core import cache

#: Modules whose code an all-shapes proof runs through.
_MODULES = ("spec.arith", "spec.index", "spec.layout", "spec.size",
            "spec.dtypes", "spec.prt", "prover.properties.proof", "prover.core.encode",
            "prover.core.lemma", "prover.core.solve", "prover.core.bounds",
            "prover.properties.stages_check", "prover.properties.witness",
            "prover.properties.exhaustive", "prover.properties.dim_search",
            "prover.core.theorems", "prover.core.level_theorems",
            "prover.properties.instances")

# state, not definitions: kept in the stores' memos, which the fingerprint
# does not read
_CODE: dict = cache.memo()
_PROVING: dict = cache.memo()     # signatures whose proof is being made now


def _code():
    code = _CODE.get("modules")
    if code is None:
        code = _CODE["modules"] = tuple(
            importlib.import_module(f"tilespec.{m}") for m in _MODULES)
    return code


def fingerprint() -> str:
    """The fingerprint of the live code an all-shapes proof runs through."""
    return cache.fingerprint(_code())


def signature(shape: Shape) -> Shape | None:
    """The all-dims-named shape ``shape`` is an instance of, or None."""
    if any(shape.dynamic) or any(
            not isinstance(d, str) and (not isinstance(d, int) or d < 1)
            for d in shape.dims):
        return None
    return Shape(shape.element_type, tuple(f"d{i}" for i in range(shape.rank)),
                 shape.layout)


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def cite(shape: Shape, prop: str, timeout: float, prove) -> tuple | None:
    """The steps citing the signature's proof of ``prop``, proving it first
    (with ``prove``, :func:`prover.properties.proof.prove`) if it is not kept; None
    when the shape is not an instance or the signature is not proved."""
    generic = signature(shape)
    if generic is None:
        return None     # not an instance: proved as such
    text = format_shape(generic)
    question = f"{prop} of {text} for all dims >= 1"
    if question in _PROVING:
        return None     # the signature itself, being proved: by Z3
    digest = cache.fingerprint(_code())
    record = cache.lookup(question, digest, needs=("solver", "proved_at"))
    if record is None:
        start = time.perf_counter()
        _PROVING[question] = True
        try:
            r = prove(generic, prop, timeout=timeout)
        finally:
            _PROVING.pop(question, None)
        record = {"name": question, "status": r.status, "proved_at": _now(),
                  "seconds": round(time.perf_counter() - start, 4),
                  "solver": _solver(), "steps": list(r.steps)}
        cache.store(question, digest, record)
        record = cache.lookup(question, digest) or record
    if record["status"] != "proved":
        return None
    if generic == shape:    # the signature itself: its own kept proof
        return (f"the all-shapes proof of {prop} for {text} (every d_i >= 1): "
                f"proved by {record['solver']} in {record['seconds']} s at "
                f"{record['proved_at']} ({record['where']})", *record.get("steps", ()))
    return (f"instance of the all-shapes proof of {prop} for {text} "
            f"(every d_i >= 1): proved by {record['solver']} in {record['seconds']} s "
            f"at {record['proved_at']} ({record['where']})",
            *record.get("steps", ()))


def _solver() -> str:
    import z3
    return f"z3 {z3.get_version_string()}"
