"""Questions about one pair asked again inside a block reuse their answer
(several entry points asking about one bitcast), through a context
variable, so nothing outlives the block."""

from __future__ import annotations

import contextvars
from contextlib import contextmanager

from ..core import crosscheck

__all__ = ["remembered", "remembering"]


#: The answers remembered inside :func:`remembering`, or None.
_MEMO: contextvars.ContextVar[dict | None] = contextvars.ContextVar("bitcast_memo",
                                                                    default=None)


@contextmanager
def remembering(answers: dict | None = None):
    """Inside the block a question asked again reuses its answer (several
    entry points asking about one pair).  Outside it every call decides
    afresh: a cache for the whole process would outlive a patched solver or
    a ``--cross-check``.  ``answers``: the answers of an earlier block of
    the same run, to go on from (kept by the caller, filled by the block).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> from tilespec.prover.bitcast import is_bitcast
    >>> with remembering():
    ...     a = is_bitcast(shape("f32[4]{0}"), shape("f32[2,2]{1,0}"))
    ...     a is is_bitcast(shape("f32[4]{0}"), shape("f32[2,2]{1,0}"))
    True
    """
    token = _MEMO.set({} if answers is None else answers)
    try:
        yield
    finally:
        _MEMO.reset(token)


def remembered(decision, *args):
    """``decision(*args)``, remembered inside :func:`remembering` (not while
    cvc5 cross-checks: each answer must then be asked of both solvers)."""
    memo = _MEMO.get()
    if memo is None or crosscheck.active() is not None:
        return decision(*args)
    key = (decision.__name__, *args)
    if key not in memo:
        memo[key] = decision(*args)
    return memo[key]
