"""The XLA version axis: the commits of openxla/xla tilespec models, and which
of them a model or a behaviour holds for.

XLA's layout code changes; each model of it (``prover/models/``) was read at
one commit and holds over a range of commits (:class:`Holds`).  The commits
are those of openxla/xla's ``main`` as the ROCm/xla mirror carries it (to
2026-08-22), read with ``git log -1 --format='%H %cs %s'``; they are ordered
by their place on ``main``'s first-parent line, which here is also their
commit-date order.

A version is named by a commit prefix, a date or a jaxlib release
(:func:`resolve`):

>>> resolve("1f375f52").label
'1f375f52d4 (2026-05-28)'
>>> resolve("2026-05-22").short, resolve("2026-05-27").short
('2c731115ef', '2c731115ef')
>>> resolve("jaxlib-0.10.2").label
'5a9e73cbd9 (2026-06-14)'
>>> resolve(None) == NEWEST_XLA
True
>>> pads = Holds(since=resolve("1f375f52d4"))
>>> pads.holds_at(resolve("2026-05-22")), pads.holds_at(resolve(None))
(False, True)

This module is on the spec's floor (it imports nothing of tilespec) because
every floor asks it: the bitcast decision (floor 4), the HLO checks and the
models (floor 5) and the renderers (floor 7) all take ``xla=``.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from .errors import TilespecError


class UnknownXlaVersion(TilespecError):
    """An XLA version tilespec does not model, or a prefix naming two."""


@dataclass(frozen=True)
class XlaCommit:
    """One commit of openxla/xla's ``main``: its full sha, commit date,
    title and, where tilespec models a change there, what changed.

    >>> NEWEST_XLA.short, NEWEST_XLA.date.isoformat()
    ('183fa00cb5', '2026-08-22')
    """

    sha: str
    date: datetime.date
    title: str
    changed: str = ""

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[0-9a-f]{40}", self.sha):
            raise UnknownXlaVersion(f"{self.sha!r} is not a full 40-hex commit sha")

    @property
    def short(self) -> str:
        """The sha's first 10 hex digits, as XLA's history is cited."""
        return self.sha[:10]

    @property
    def label(self) -> str:
        """``<sha10> (<date>)``: how every version-dependent verdict names it."""
        return f"{self.short} ({self.date.isoformat()})"

    @property
    def order(self) -> int:
        """The commit's place in :data:`XLA_HISTORY` (older is smaller)."""
        return XLA_HISTORY.index(self)

    def to_json(self) -> dict[str, str]:
        return {"sha": self.sha, "date": self.date.isoformat(), "title": self.title,
                "changed": self.changed}


def _commit(sha: str, date: str, title: str, changed: str = "") -> XlaCommit:
    return XlaCommit(sha, datetime.date.fromisoformat(date), title, changed)


PJRT_BITCAST = _commit(
    "ec6aceceadbcd9759f6bcddd75983c118428cf17", "2026-03-02",
    "[PjRt] Implement `PjRtBuffer::Bitcast()`",
    "PjRtBuffer::Bitcast: a reinterpretation checked only for equal on-device byte sizes")
PJRT_C_BITCAST = _commit(
    "6c46adfda9cbb64eb2381112f93962031ad645c2", "2026-03-03",
    "[PJRT C] Add `PJRT_Buffer_Bitcast` and implement `PjRtBuffer::Bitcast()`",
    "PJRT_Buffer_Bitcast in the C API, the same byte-size check")
NESTED_TILING_ADDED = _commit(
    "435f2535cad2652c72e2d74aff2e2136370f9cca", "2026-03-05",
    "Adds [de]linearization functionality to correctly compute linear indices for shapes "
    "with nested tiles",
    "LayoutUtil::LinearIndexForNestedTiling and DelinearizeIndexForNestedTiling added")
PREFER_TRANSPOSE = _commit(
    "5d1dc54c5fc3ef9b4bb26a2284206251ba3805ca", "2026-03-27",
    "Prefer transpose bitcasts over reshape bitcasts",
    "bitcast decomposition prefers a transpose bitcast over a reshape bitcast")
BITCAST_MEMORY_SPACE = _commit(
    "8a84ad7ef7954874745731a7e16a53cecaf24338", "2026-04-06",
    "Added an assert in hlo_verifier for bitcast on memory space consistency.",
    "HloVerifier::HandleBitcast checks the memory spaces of a bitcast agree")
UNPINNED_HOST = _commit(
    "c56c6be6b852500409efd605a3495a76e26638b8", "2026-05-15",
    "[XLA:CPU] Implement StripMemoryPlacementAnnotations pass and make layout source of "
    "truth for output memory kinds",
    "S(6): unpinned host memory")
ABSL_MACROS = _commit(
    "22eee29e01c8d20240567cee7d039c6b4d0c88f2", "2026-05-20",
    "[XLA] NFC: Use ABSL macros.",
    "no change of behaviour: where layout_util.cc and shape_util.cc were read")
ABSL_MACROS_SIMPLIFIER = _commit(
    "b09bf132e847da998c591fd50344c27d4d170b54", "2026-05-21",
    "[XLA] NFC: Use ABSL macros.",
    "no change of behaviour: where algebraic_simplifier.cc was read")
FORK_END = _commit(
    "2c731115ef3bbd9457cfbc46cd5fba5a35ee74bb", "2026-05-22",
    "Add bounds and null checks when accessing default allocators in MultiDeviceAdapter.",
    "no change of layouts: the newest commit of the mridul-sahu/xla fork")
NESTED_PADDING = _commit(
    "1f375f52d4f1cb5e5e8ef021300ea0634374ae3b", "2026-05-28",
    "Fix layout tile validation and support vector padding in nested tiling.",
    "nested tiling pads leading unit dims for a tile longer than the dims (it CHECK-failed); "
    "the validator rejects tile dims <= 0 unless '*' (it rejected 0 only)")
SPLIT_VALIDATION = _commit(
    "cbb23d1d6402fef3e277c05449173ff98f099e59", "2026-06-01",
    "Fix Out-Of-Bounds Read and Integer Overflow in XLA Layouts",
    "split configs validated (physical dim in range, not repeated; indices strictly "
    "increasing, positive, below the dim); Layout::DeleteDimension renumbers or drops them")
F6_TYPES = _commit(
    "1e42a8527caa67e59827034e2d6371d965e9a1e8", "2026-06-03",
    "Add F6E3M2FN and F6E2M3FN to xla::PrimitiveType.",
    "f6e2m3fn and f6e3m2fn: 6-bit types XLA stores in 8 bits")
RESULT_TILINGS = _commit(
    "1f1d2e87690038c4fb757ad02bb78293996ca92c", "2026-06-09",
    "Plumb tiling info from jax through stable hlo for xla's LayoutConstraint custom-call.",
    "StableHLO custom_call result_tilings carried into XLA's layout constraints")
JAXLIB_0_10_2 = _commit(
    "5a9e73cbd92530cac2ac36f4736a774b2412afe2", "2026-06-14",
    "Automated Code Change",
    "no change of layouts: the XLA jaxlib 0.10.2 was built from")
IFRT_F6 = _commit(
    "70fe66213b73c5953d92eb25d2606bd6004d47c3", "2026-07-15",
    "Add end-to-end support for FP6 formats (float6_e2m3fn and float6_e3m2fn) across CPU "
    "and GPU.",
    "IFRT counts f6 types in 6 bits (XLA stores 8)")
STAR_UNHANDLED = _commit(
    "33fa87f1cf1c47787b1cea926adf268697f0943e", "2026-08-17",
    "Represent sparse arguments as variadic convolution arguments",
    "no change of layouts: '*' still unhandled by nested tiling (CeilOfRatio(d, INT64_MIN))")
NEWEST_READ = _commit(
    "183fa00cb5d82384463a1a7aed1ab06bc9026974", "2026-08-22",
    "Automated Code Change",
    "no change of layouts: the newest commit read (the ROCm/xla mirror's main)")

#: Every commit modelled, oldest first (their order on openxla/xla's main).
XLA_HISTORY: tuple[XlaCommit, ...] = (
    PJRT_BITCAST, PJRT_C_BITCAST, NESTED_TILING_ADDED, PREFER_TRANSPOSE, BITCAST_MEMORY_SPACE, UNPINNED_HOST,
    ABSL_MACROS, ABSL_MACROS_SIMPLIFIER, FORK_END, NESTED_PADDING, SPLIT_VALIDATION, F6_TYPES,
    RESULT_TILINGS, JAXLIB_0_10_2, IFRT_F6, STAR_UNHANDLED, NEWEST_READ)

#: The newest XLA modelled: the default of every ``xla=`` and ``--xla``.
NEWEST_XLA = XLA_HISTORY[-1]

#: The XLA commit each jaxlib release was built from: ``XLA_COMMIT`` in
#: jax's ``third_party/xla/revision.bzl`` at the tag ``jax-v0.10.2``
#: (jax-ml/jax 990e6a0b84, the ``_git_hash`` of the installed
#: ``jaxlib/version.py``).
JAXLIB_XLA: dict[str, XlaCommit] = {"0.10.2": JAXLIB_0_10_2}


@dataclass(frozen=True)
class Holds:
    """The half-open range of commits ``[since, until)`` a model or a
    behaviour holds for; ``None`` is open-ended (before the oldest commit
    read, or through the newest).

    >>> Holds(since=resolve("1f375f52d4"))
    Holds(since=1f375f52d4, until=None)
    >>> str(Holds(until=resolve("1f375f52d4")))
    'before 1f375f52d4 (2026-05-28)'
    """

    since: XlaCommit | None = None
    until: XlaCommit | None = None

    def __post_init__(self) -> None:
        if self.since is not None and self.until is not None \
                and self.since.order >= self.until.order:
            raise UnknownXlaVersion(f"empty range: {self.since.short} is not before "
                                    f"{self.until.short}")

    def holds_at(self, commit: XlaCommit) -> bool:
        """True when ``commit`` lies in ``[since, until)``."""
        n = commit.order
        return ((self.since is None or self.since.order <= n)
                and (self.until is None or n < self.until.order))

    def __str__(self) -> str:
        parts = ([] if self.since is None else [f"since {self.since.label}"]) + (
            [] if self.until is None else [f"before {self.until.label}"])
        return ", ".join(parts) or "every version modelled"

    def __repr__(self) -> str:
        def show(c: XlaCommit | None) -> str:
            return "None" if c is None else c.short
        return f"Holds(since={show(self.since)}, until={show(self.until)})"

    def to_json(self) -> dict[str, str | None]:
        return {"since": None if self.since is None else self.since.sha,
                "until": None if self.until is None else self.until.sha}


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_HEX = re.compile(r"[0-9a-fA-F]{4,40}\Z")


def resolve(version: str | XlaCommit | None) -> XlaCommit:
    """The XLA commit a version names: ``None`` is the newest modelled
    (:data:`NEWEST_XLA`); a hex prefix of 4 to 40 digits names the one
    modelled commit it begins; a date ``YYYY-MM-DD`` names XLA's state at
    the end of that day (UTC), which is that of the newest modelled commit
    committed on or before it (the models change only at modelled commits);
    ``jaxlib-X.Y.Z`` names the commit that jaxlib release was built from.

    >>> resolve("2026-06-01").short
    'cbb23d1d64'
    >>> resolve("2025-01-01")
    Traceback (most recent call last):
    ...
    tilespec.spec.versions.UnknownXlaVersion: XLA at 2025-01-01 is before the oldest commit modelled, ec6acecead (2026-03-02)
    >>> resolve("beef")
    Traceback (most recent call last):
    ...
    tilespec.spec.versions.UnknownXlaVersion: no modelled XLA commit begins 'beef' (tilespec xla-versions lists them)
    """
    if version is None:
        return NEWEST_XLA
    if isinstance(version, XlaCommit):
        if version not in XLA_HISTORY:
            raise UnknownXlaVersion(f"XLA {version.short} is not a modelled commit")
        return version
    text = version.strip()
    if text.startswith("jaxlib-"):
        release = text[len("jaxlib-"):]
        if release not in JAXLIB_XLA:
            known = ", ".join(f"jaxlib-{r}" for r in sorted(JAXLIB_XLA))
            raise UnknownXlaVersion(f"unknown jaxlib release {release!r} (known: {known})")
        return JAXLIB_XLA[release]
    if _DATE.match(text):
        try:
            day = datetime.date.fromisoformat(text)
        except ValueError:
            raise UnknownXlaVersion(f"{text!r} is not a date") from None
        before = [c for c in XLA_HISTORY if c.date <= day]
        if not before:
            raise UnknownXlaVersion(f"XLA at {text} is before the oldest commit modelled, "
                                    f"{XLA_HISTORY[0].label}")
        return before[-1]
    if _HEX.match(text):
        found = [c for c in XLA_HISTORY if c.sha.startswith(text.lower())]
        if len(found) > 1:
            raise UnknownXlaVersion(f"{text!r} begins {len(found)} modelled commits: "
                                    + ", ".join(c.short for c in found))
        if found:
            return found[0]
        raise UnknownXlaVersion(f"no modelled XLA commit begins {text!r} "
                                "(tilespec xla-versions lists them)")
    raise UnknownXlaVersion(f"{text!r} is not an XLA version: give a commit prefix, a date "
                            "YYYY-MM-DD or jaxlib-X.Y.Z")
