"""One naming scheme: the names tilespec writes can never be a user's name.

A formula or generated code names things of its own: the logical index
(e0, e1, ...), dims the user left unnamed (d0, d1, ... with ``--symbolic``),
the fresh integers of the simplified form (k0, k1_2, ...), locate's offset
(o) and C's output array (e).  A user may name a dim any identifier,
including one of those, or one the target language reserves (``int``,
``return``, ``INT64_MAX``).  So, for one shape and one language:

- a user's name is written as given, unless the language reserves it; then
  it gains trailing underscores (``int_``) until it is no name in use;
- each family of internal names takes the first stem (``e``, then ``i``,
  ``x``, then ``e_``, ``e__``, ...) none of whose names is taken.

Every name is chosen against all the names chosen before it, so no two
things share a name, by construction.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> names(shape("f32[m,n]{1,0}")).indices
('e0', 'e1')
>>> n = names(shape("f32[e1,3]{1,0}"), symbolic=True)
>>> n.indices, n.dims
(('i0', 'i1'), ('e1', 'd1'))
>>> names(shape("f32[d1,3]{1,0}"), symbolic=True).dims
('d1', 'n1')
>>> c = names(shape("f32[int,INT64_MAX,o]{2,1,0}"), "c")
>>> c.dims, c.offset
(('int_', 'INT64_MAX_', 'o'), 'off')
>>> c.user("int_")
'int'
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from .layout import Shape

# C keywords (C89 to C23), the names <stdint.h> declares, the generated
# functions, macros GCC predefines in its default GNU modes, <iso646.h>'s
# spellings of operators, and Python's keywords (the proof of generated C
# reads its expressions with Python's parser).
_C_WORDS = frozenset("""auto break case char const continue default do double
    else enum extern float for goto if inline int long register restrict return
    short signed sizeof static struct switch typedef union unsigned void volatile
    while bool true false alignas alignof static_assert thread_local typeof
    typeof_unqual nullptr constexpr asm offset locate main NULL linux unix i386
    i686 x86_64 and and_eq bitand bitor compl not not_eq or or_eq xor
    xor_eq""".split()) | frozenset(keyword.kwlist)
# Reserved by the C standard (leading underscore + capital or two
# underscores), <stdint.h>'s macros (INT64_MAX, UINT8_C, SIZE_MAX, ...) and
# typedefs (int64_t, ...), and POSIX's *_t.
# Each pattern but the first ends in a letter or digit, so that a trailing
# underscore always escapes it.
_C_PATTERN = re.compile(r"_\w*|\w*_t|U?INT\w*[A-Za-z0-9]|(?:SIZE|PTRDIFF|SIG_ATOMIC|"
                        r"WCHAR|WINT)_\w*[A-Za-z0-9]|\w*_(?:MAX|MIN|C|WIDTH)")
_PYTHON_WORDS = frozenset(keyword.kwlist) | {"offset", "locate"}


def reserved(name: str, language: str) -> bool:
    """Whether ``language`` ("sympy", "python" or "c") cannot take ``name``
    as a parameter meaning a dim.

    >>> [reserved(x, "c") for x in ("n", "int", "INT64_MAX", "int64_t", "_X", "and")]
    [False, True, True, True, True, True]
    >>> reserved("return", "python"), reserved("int", "python")
    (True, False)
    """
    if language == "c":
        return name in _C_WORDS or bool(_C_PATTERN.fullmatch(name))
    if language == "python":
        return name in _PYTHON_WORDS
    return False


@dataclass(frozen=True)
class Names:
    """How one shape's formula or code in one language names everything.

    ``dims`` holds, per dim, its written name (the user's, possibly
    respelled, or a generated one) or None for a size written as a number;
    ``spelling`` maps each user name to its written name.
    """

    language: str
    indices: tuple[str, ...]
    dims: tuple[str | None, ...]
    spelling: tuple[tuple[str, str], ...]
    offset: str
    out: str
    fresh: str

    @property
    def parameters(self) -> tuple[str, ...]:
        """The dim names a function takes, each once, in dim order."""
        out: list[str] = []
        for d in self.dims:
            if d is not None and d not in out:
                out.append(d)
        return tuple(out)

    def user(self, written: str) -> str:
        """The user's name that ``written`` spells (itself if none)."""
        return {w: u for u, w in self.spelling}.get(written, written)


def _respell(user: str, language: str, taken: set[str]) -> str:
    """``user`` as written in ``language``: itself unless reserved, else
    with trailing underscores (after a ``d`` if it starts with one, which
    no underscore could make free)."""
    if not reserved(user, language):
        return user
    written = "d" + user if user.startswith("_") else user
    while reserved(written, language) or written in taken:
        written += "_"
    return written


def _family(stems: Sequence[str], make: Callable[[str], Iterable[str]],
            taken: set[str]) -> str:
    """The first stem (then the first stem with more and more underscores)
    whose names ``make(stem)`` are all free."""
    k = 0
    while True:
        for stem in stems if k == 0 else (stems[0] + "_" * k,):
            if not set(make(stem)) & taken:
                return stem
        k += 1


def names(shape: Shape, language: str = "sympy", symbolic: bool = False) -> Names:
    """The names for ``shape`` in ``language``; with ``symbolic`` every dim
    not named by the user gets a generated name."""
    users = list(dict.fromkeys(d for d in shape.dims if isinstance(d, str)))
    taken = set(users)
    spelling = {}
    for u in users:
        spelling[u] = _respell(u, language, taken)
        taken.add(spelling[u])
    levels = len(shape.layout.tiles) if shape.layout is not None else 0
    rank = shape.rank
    e = _family(("e", "i", "x"), lambda s: [f"{s}{i}" for i in range(rank)], taken)
    indices = tuple(f"{e}{i}" for i in range(rank))
    taken |= set(indices)
    unnamed = [i for i, d in enumerate(shape.dims) if not isinstance(d, str)]
    d = _family(("d", "n", "s"), lambda s: [f"{s}{i}" for i in unnamed], taken)
    dims = tuple(spelling[x] if isinstance(x, str) else f"{d}{i}" if symbolic else None
                 for i, x in enumerate(shape.dims))
    taken |= {x for x in dims if x is not None}
    k = _family(("k", "q", "r"), lambda s: [f"{s}{i}" for i in range(rank)] + [
        f"{s}{i}_{lv}" for i in range(rank) for lv in range(2, levels + 2)], taken)
    taken |= {f"{k}{i}" for i in range(rank)}
    o = _family(("o", "off", "pos"), lambda s: [s], taken)
    taken.add(o)
    out = _family(("e", "out", "idx"), lambda s: [s], taken)
    return Names(language, indices, dims, tuple(spelling.items()), o, out, k)
