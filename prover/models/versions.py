"""Which XLA each model of ``prover/models/`` describes: the version axis
(:mod:`tilespec.spec.versions`: :class:`XlaCommit`, :data:`XLA_HISTORY`,
:class:`Holds`, :func:`resolve`) and the record each model module declares,
:class:`XlaModel`: the C++ function it transcribes, the file, the commit it
was read at and the range of commits it holds for.

>>> from tilespec.prover.models import nested_tiling
>>> [str(m.holds) for m in nested_tiling.XLA_MODELS][:2]
['before 1f375f52d4 (2026-05-28)', 'since 1f375f52d4 (2026-05-28)']
>>> model_at(nested_tiling.XLA_MODELS, resolve("2026-05-22")).read_at.short
'22eee29e01'
"""

from __future__ import annotations

from dataclasses import dataclass

from ...spec import NEWEST_XLA, XLA_HISTORY, Holds, UnknownXlaVersion, XlaCommit
from ...spec import resolve_xla as resolve

__all__ = ["NEWEST_XLA", "XLA_HISTORY", "Holds", "UnknownXlaVersion", "XlaCommit",
           "XlaModel", "model_at", "resolve"]


@dataclass(frozen=True)
class XlaModel:
    """One transcription of XLA's C++: ``function`` in ``file`` of
    openxla/xla, read at ``read_at``, holding for ``holds`` (the read commit
    lies in it)."""

    function: str
    file: str
    read_at: XlaCommit
    holds: Holds

    def __post_init__(self) -> None:
        if not self.holds.holds_at(self.read_at):
            raise UnknownXlaVersion(f"{self.function} read at {self.read_at.short} "
                                    f"cannot hold {self.holds}")

    @property
    def cites(self) -> str:
        """``file function, commit sha10 (date)``: the citation."""
        return f"openxla/xla {self.file} {self.function}, commit {self.read_at.label}"


def model_at(models: tuple[XlaModel, ...], commit: XlaCommit) -> XlaModel:
    """The one model of ``models`` that holds at ``commit``."""
    found = [m for m in models if m.holds.holds_at(commit)]
    if len(found) != 1:
        raise UnknownXlaVersion(f"{len(found)} models of "
                                f"{models[0].function if models else '?'} hold at "
                                f"{commit.label}")
    return found[0]
