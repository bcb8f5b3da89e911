"""Questions about one pair asked again inside a block reuse their answer
(several entry points asking about one bitcast), through a context
variable, so nothing outlives the block."""

from __future__ import annotations

import contextvars
from contextlib import contextmanager

from ..core import crosscheck

__all__ = ["remembered", "remembered_array", "remembering"]

#: Elements of the arrays :func:`remembered_array` keeps at once in one
#: block (8 bytes each: 64 MiB), the least recently used forgotten first.
ARRAY_ELEMENTS = 1 << 23


#: The answers remembered inside :func:`remembering`, or None.
_MEMO: contextvars.ContextVar[dict | None] = contextvars.ContextVar("bitcast_memo",
                                                                    default=None)


@contextmanager
def remembering():
    """Inside the block a question asked again reuses its answer (several
    entry points asking about one pair).  Outside it every call decides
    afresh: a cache for the whole process would outlive a patched solver or
    a ``--cross-check``.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> from tilespec.prover.bitcast import is_bitcast
    >>> with remembering():
    ...     a = is_bitcast(shape("f32[4]{0}"), shape("f32[2,2]{1,0}"))
    ...     a is is_bitcast(shape("f32[4]{0}"), shape("f32[2,2]{1,0}"))
    True
    """
    token = _MEMO.set({})
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


def remembered_array(compute, shape):
    """``compute(shape)``, a numpy array, remembered inside
    :func:`remembering` while the arrays kept hold at most
    :data:`ARRAY_ELEMENTS` elements.  A dump asks about few shapes, each
    in many pairs; the array is made read-only, as every caller shares it.

    >>> import numpy as np
    >>> with remembering():
    ...     a = remembered_array(np.arange, 3)
    ...     a is remembered_array(np.arange, 3), a.flags.writeable
    (True, False)
    """
    memo = _MEMO.get()
    if memo is None or crosscheck.active() is not None:
        return compute(shape)
    arrays = memo.setdefault(remembered_array, {})
    key = (compute.__name__, shape)
    found = arrays.pop(key, None)
    if found is None:
        found = compute(shape)
        found.flags.writeable = False
    arrays[key] = found                 # the most recently used last
    while len(arrays) > 1 and sum(a.size for a in arrays.values()) > ARRAY_ELEMENTS:
        del arrays[next(iter(arrays))]
    return found
