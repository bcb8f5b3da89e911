"""Worker processes: a library that may end the process it runs in (XLA,
Triton) is asked in a child that answers JSON lines, so that its abort is
an answer (:class:`Ended`) and not the caller's end.

Imports nothing of tilespec: every floor that asks a real system
(``triton.real``, ``xla.client``) may use it.

>>> Ended("LLVM ERROR: no\\n", -6).last_lines(1)
('LLVM ERROR: no',)
"""

from .jsonlines import Ended, JsonLinesWorker

__all__ = ["Ended", "JsonLinesWorker"]
