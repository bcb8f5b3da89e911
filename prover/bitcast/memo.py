"""Questions about one pair asked again inside a block reuse their answer
(several entry points asking about one bitcast), through a context
variable, so nothing outlives the block."""

from __future__ import annotations

import contextvars
from contextlib import contextmanager

from ..core import crosscheck

__all__ = ["remembered", "remembering"]


#: Inside :func:`remembering`: the answers remembered, and where the ones
#: decided in the block are also written (or None).
_MEMO: contextvars.ContextVar[tuple[dict, dict | None] | None] = contextvars.ContextVar(
    "bitcast_memo", default=None)


@contextmanager
def remembering(answers: dict | None = None, decided: dict | None = None):
    """Inside the block a question asked again reuses its answer (several
    entry points asking about one pair).  Outside it every call decides
    afresh: a cache for the whole process would outlive a patched solver or
    a ``--cross-check``.  ``answers``: the answers of an earlier block of
    the same run, to go on from (kept by the caller, filled by the block);
    ``decided``: also receives each answer decided inside the block (what
    a worker passes on to the others of its run).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> from tilespec.prover.bitcast import is_bitcast
    >>> decided = {}
    >>> with remembering(decided=decided):
    ...     a = is_bitcast(shape("f32[4]{0}"), shape("f32[2,2]{1,0}"))
    ...     a is is_bitcast(shape("f32[4]{0}"), shape("f32[2,2]{1,0}"))
    True
    >>> with remembering(answers=dict(decided), decided={}) as new:
    ...     b = is_bitcast(shape("f32[4]{0}"), shape("f32[2,2]{1,0}"))
    >>> len(decided) > 0, b is a, new
    (True, True, {})
    """
    token = _MEMO.set(({} if answers is None else answers, decided))
    try:
        yield decided
    finally:
        _MEMO.reset(token)


def remembered(decision, *args):
    """``decision(*args)``, remembered inside :func:`remembering` (not while
    cvc5 cross-checks: each answer must then be asked of both solvers)."""
    scope = _MEMO.get()
    if scope is None or crosscheck.active() is not None:
        return decision(*args)
    memo, decided = scope
    key = (decision.__name__, *args)
    if key not in memo:
        answer = memo[key] = decision(*args)
        if decided is not None:
            decided[key] = answer
    return memo[key]
