"""Which XLA each model of ``prover/models/`` describes: the version axis
(:mod:`tilespec.spec.versions`: :class:`XlaCommit`, :data:`XLA_HISTORY`,
:class:`Holds`, :func:`resolve`) and the record each model module declares,
:class:`XlaModel`: the C++ function it transcribes, the file, the commit it
was read at and the range of commits it holds for.

>>> from tilespec.prover.models import nested_tiling
>>> [str(m.holds) for m in nested_tiling.XLA_MODELS][:2]
['since 435f2535ca (2026-03-05), before 1f375f52d4 (2026-05-28)', 'since 1f375f52d4 (2026-05-28)']
>>> model_at(nested_tiling.XLA_MODELS, resolve("2026-05-22")).read_at.short
'22eee29e01'
"""

from __future__ import annotations

from dataclasses import dataclass

from ...spec import (
    NEWEST_XLA,
    XLA_HISTORY,
    Holds,
    UnknownXlaVersion,
    XlaCommit,
    resolve_xla as resolve,
)

__all__ = ["NEWEST_XLA", "XLA_HISTORY", "Holds", "UnknownXlaVersion", "XlaCommit",
           "XlaModel", "model_at", "resolve"]

#: The commits the models were read at or changed at (``tilespec xla-versions``
#: says what each changed).
NESTED_TILING_ADDED = resolve("435f2535ca")
ABSL_MACROS = resolve("22eee29e01")             # layout_util.cc, shape_util.cc read
ABSL_MACROS_SIMPLIFIER = resolve("b09bf132e8")  # algebraic_simplifier.cc read
NESTED_PADDING = resolve("1f375f52d4")
SPLIT_VALIDATION = resolve("cbb23d1d64")
NEWEST_READ = NEWEST_XLA

#: Every version modelled (a model read once, unchanged since, as far as the
#: history read shows).
EVERY_VERSION = Holds()
#: Nested tiling: a tile longer than the dims CHECK-fails, then unit dims pad it.
ABORTS_ON_LONG_TILES = Holds(since=NESTED_TILING_ADDED, until=NESTED_PADDING)
PADS_NESTED_TILES = Holds(since=NESTED_PADDING)
#: ValidateLayoutForShape: tile dims < 0 other than '*' pass, then are rejected.
NEGATIVE_TILES_PASS = Holds(until=NESTED_PADDING)
NEGATIVE_TILES_REJECTED = Holds(since=NESTED_PADDING)
#: ValidateLayoutForShape: split configs unchecked, then checked.
SPLIT_CONFIGS_UNCHECKED = Holds(until=SPLIT_VALIDATION)
SPLIT_CONFIGS_CHECKED = Holds(since=SPLIT_VALIDATION)


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
    """The one model of ``models`` that holds at ``commit``; a commit none
    holds at (the function is not in that XLA) is an
    :class:`UnknownXlaVersion`.

    >>> from tilespec.prover.models.nested_tiling import XLA_MODELS
    >>> model_at(XLA_MODELS, resolve("2026-03-03"))
    Traceback (most recent call last):
    ...
    tilespec.spec.versions.UnknownXlaVersion: XLA 6c46adfda9 (2026-03-03) has no LayoutUtil::LinearIndexForNestedTiling and LayoutUtil::DelinearizeIndexForNestedTiling: tilespec models it since 435f2535ca (2026-03-05)
    """
    found = [m for m in models if m.holds.holds_at(commit)]
    if len(found) == 1:
        return found[0]
    if not found:
        starts = [m.holds.since for m in models if m.holds.since is not None]
        first = min(starts, key=lambda c: c.order) if starts else None
        since = f"since {first.label}" if first else "at other versions"
        raise UnknownXlaVersion(f"XLA {commit.label} has no {models[0].function}: tilespec "
                                f"models it {since}")
    raise UnknownXlaVersion(f"{len(found)} models of {models[0].function} hold at "
                            f"{commit.label}")
