"""Memory spaces as XLA names them: ``S(n)`` of a layout
(``Layout::memory_space_``, xla/layout.h).

``S(5)`` is ``Layout::kHostMemorySpace`` (pinned host memory); ``S(6)`` is
``Layout::kUnpinnedHostMemorySpace``, named since c56c6be6b8 (2026-05-15);
before it, ``S(6)`` was a number without a name.  The text is the same at
every version: XLA's parser and printer read and write any ``S(n)`` of
``int8_t``.

>>> memory_space_name(6)
'unpinned host memory (Layout::kUnpinnedHostMemorySpace, since c56c6be6b8 (2026-05-15))'
>>> memory_space_name(6, xla="2026-05-01")
'memory space 6 (no name in XLA before c56c6be6b8 (2026-05-15))'
"""

from __future__ import annotations

from .versions import Holds, XlaCommit, resolve

#: ``Layout::kDefaultMemorySpace``, ``kGenericFastMemorySpace``,
#: ``kHostMemorySpace`` and ``kUnpinnedHostMemorySpace`` (xla/layout.h).
DEFAULT_MEMORY_SPACE = 0
FAST_MEMORY_SPACE = 1
HOST_MEMORY_SPACE = 5
UNPINNED_HOST_MEMORY_SPACE = 6

UNPINNED_HOST = resolve("c56c6be6b8")
UNPINNED_HOST_NAMED = Holds(since=UNPINNED_HOST)


def memory_space_name(space: int, xla: str | XlaCommit | None = None) -> str:
    """What XLA's ``xla/layout.h`` calls memory space ``S(space)`` at ``xla``
    (default the newest modelled).

    >>> memory_space_name(0), memory_space_name(5)
    ('device memory (Layout::kDefaultMemorySpace)', 'host memory (Layout::kHostMemorySpace, pinned)')
    >>> memory_space_name(3)
    "memory space 3 (a backend's own; no name in xla/layout.h)"
    """
    if space == DEFAULT_MEMORY_SPACE:
        return "device memory (Layout::kDefaultMemorySpace)"
    if space == FAST_MEMORY_SPACE:
        return "fast memory (Layout::kGenericFastMemorySpace)"
    if space == HOST_MEMORY_SPACE:
        return "host memory (Layout::kHostMemorySpace, pinned)"
    if space == UNPINNED_HOST_MEMORY_SPACE:
        if UNPINNED_HOST_NAMED.holds_at(resolve(xla)):
            return ("unpinned host memory (Layout::kUnpinnedHostMemorySpace, "
                    f"since {UNPINNED_HOST.label})")
        return f"memory space 6 (no name in XLA before {UNPINNED_HOST.label})"
    return f"memory space {space} (a backend's own; no name in xla/layout.h)"
