"""C++'s ``int64_t`` as XLA's functions compute with it: division and
remainder truncate toward zero, ``tsl::MathUtil::CeilOfRatio`` adjusts only a
non-negative quotient, and a signed result outside 64 bits is undefined
behaviour (the binaries wrap it, two's complement).

:class:`Int64` runs one evaluation: each operation returns the wrapped value
and the first overflow is kept (:attr:`Int64.overflow`), so a model can say
both that the behaviour is undefined and what XLA then returns.  A failing
``CHECK`` raises :class:`XlaGivesNoValue`.

>>> c = Int64()
>>> c.mul(2**62, 4, "num_of_elements * 4"), c.overflow
(0, 'num_of_elements * 4 = 18446744073709551616 overflows int64')
>>> Int64().div(5, INT64_MIN), Int64().rem(5, INT64_MIN), Int64().ceil_of_ratio(5, INT64_MIN)
(0, 5, 0)
"""

from __future__ import annotations

from ...spec import TilespecError
from ..result import ABORTS, UNDEFINED, XlaBehaviour
from .versions import EVERY_VERSION, NEWEST_READ, XlaModel

#: The C++ transcribed here, and the XLA versions it holds for: the
#: functions' text is the same at every modelled commit (tools/xla_model_history.py).
XLA_MODELS = (
    XlaModel("tsl::MathUtil::CeilOrFloorOfRatio (CeilOfRatio)",
             "xla/tsl/lib/math/math_util.h", NEWEST_READ, EVERY_VERSION),
)

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def wrap64(v: int) -> int:
    """``v`` as two's-complement int64.

    >>> wrap64(2**63), wrap64(-1)
    (-9223372036854775808, -1)
    """
    return (v + 2**63) % 2**64 - 2**63


def wrap32(v: int) -> int:
    """``v`` converted to a C++ ``int`` (32 bits, modular since C++20).

    >>> wrap32(2**31)
    -2147483648
    """
    return (v + 2**31) % 2**32 - 2**31


class XlaGivesNoValue(TilespecError):
    """XLA's function returns no value to compare on this input: it fails a
    CHECK (the process aborts) or does something undefined with no
    predictable result (a division by zero, a read out of bounds).
    ``behaviour`` is the typed verdict."""

    def __init__(self, behaviour: XlaBehaviour):
        super().__init__(behaviour.describe())
        self.behaviour = behaviour


class Int64:
    """One evaluation in C++ ``int64_t`` arithmetic: operations wrap and the
    first overflow (undefined behaviour) is recorded with the operation's
    name."""

    def __init__(self, function: str = "", source: str = "") -> None:
        self.function, self.source = function, source
        self.overflow: str | None = None

    def _fit(self, v: int, what: str) -> int:
        if not INT64_MIN <= v <= INT64_MAX:
            if self.overflow is None:
                self.overflow = f"{what} = {v} overflows int64"
            return wrap64(v)
        return v

    def add(self, a: int, b: int, what: str = "+") -> int:
        return self._fit(a + b, what)

    def mul(self, a: int, b: int, what: str = "*") -> int:
        return self._fit(a * b, what)

    def div(self, a: int, b: int, what: str = "/") -> int:
        """``a / b``, truncated toward zero (``INT64_MIN / -1`` overflows)."""
        if b == 0:
            raise XlaGivesNoValue(XlaBehaviour(UNDEFINED, self.function,
                                               f"division by zero in {what}", None,
                                               self.source))
        q = abs(a) // abs(b)
        return self._fit(q if (a >= 0) == (b > 0) else -q, what)

    def rem(self, a: int, b: int, what: str = "%") -> int:
        """``a % b``: the sign of ``a``."""
        if b == 0:
            raise XlaGivesNoValue(XlaBehaviour(UNDEFINED, self.function,
                                               f"division by zero in {what}", None,
                                               self.source))
        r = abs(a) % abs(b)
        return r if a >= 0 else -r

    def ceil_of_ratio(self, a: int, b: int, what: str = "CeilOfRatio") -> int:
        """``tsl::MathUtil::CeilOfRatio``: the truncated quotient, plus one
        only when it is non-negative and the division was inexact in the
        direction of the divisor's sign (so ``CeilOfRatio(d, INT64_MIN)`` is
        0 for ``0 <= d``)."""
        q = self.div(a, b, what)
        p = wrap64(q * b)
        up = q >= 0 and ((b > 0 and a > p) or (b < 0 and a < p))
        return self._fit(q + int(up), what)

    def undefined(self, value: int | None) -> XlaBehaviour | None:
        """The overflow seen (None if none), as undefined behaviour after
        which XLA returns ``value``."""
        if self.overflow is None:
            return None
        return XlaBehaviour(UNDEFINED, self.function, f"signed overflow: {self.overflow}",
                            value, self.source)


def check(ok: bool, function: str, condition: str, source: str, detail: str = "") -> None:
    """``CHECK(condition)`` in ``function``: raises :class:`XlaGivesNoValue` when it fails.

    >>> check(True, "f", "CHECK_LE(1, 2)", "")
    >>> try:
    ...     check(False, "f", "CHECK_LE(2, 1)", "x.cc", "the tile is longer")
    ... except XlaGivesNoValue as e:
    ...     print(e.behaviour.what)
    CHECK_LE(2, 1) (the tile is longer)
    """
    if not ok:
        what = condition + (f" ({detail})" if detail else "")
        raise XlaGivesNoValue(XlaBehaviour(ABORTS, function, what, None, source))
