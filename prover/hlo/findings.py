"""What checking an HLO module finds, and which of it a linter's options keep.

A :class:`Finding` is one rule (:data:`RULES`, each code declared once
with its levels and what it means for the verdict) at one instruction, at a
level (:data:`LEVELS`); a :class:`Buffer` is an array value's padded bytes;
a :class:`Report` gathers them for a module, with its verdict
(:func:`status_of`).  :func:`select_findings` filters a report as a
linter's options do (``--select``, ``--ignore``, ``--min-level``,
``--baseline``): the status stays the verdict of every finding, and the
exit status follows the verdict of what remains.  :func:`violation` is the
counterexample of a rule broken by the text itself.  The checker that makes
the findings is :mod:`tilespec.prover.hlo.check`.

>>> from tilespec.spec.text import parse_array_shape as p
>>> f = Finding("bitcast-refuted", "error", 3, "b", "bitcast b: f32[4]{0} -> f32[2,2]{0,1}",
...             source=p("f32[4]{0}"), target=p("f32[2,2]{0,1}"))
>>> status_of([f]), f.known_as("m.hlo").key
('refuted', ('m.hlo', '', 'b', 'bitcast-refuted', ('f32[4]{0}', 'f32[2,2]{0,1}')))
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field, replace
from typing import Mapping

from ...spec import Shape, TilespecError, XlaCommit, format_shape
from ..result import PROVED, REFUTED, UNKNOWN, Counterexample, Side

#: What a finding means for its module's verdict (:func:`verdict_of`): it
#: proves a claim, refutes one, leaves one undecided, or says nothing of any
#: (a note about data movement or padding; the JSON envelope calls it "ok").
NONE = "none"

#: The levels a finding takes, most severe last.
LEVELS = ("note", "warning", "error")


@dataclass(frozen=True)
class Rule:
    """One rule code, declared once: its ``id``, the ``levels`` its findings
    take, the ``verdict`` a decided finding of it gives at ``error`` level,
    and one line saying what it ``means``.

    A rule whose verdict is refuted refutes only at ``error`` level: what
    is inferred from metadata (an op_name's transpose or reshape) is a
    hint, not an accusation, so at ``warning`` it says nothing of the
    verdict; only the user's own statement (``--meant``) is an error.

    >>> RULES["meant-transpose-not-bitcast"].levels
    ('warning', 'error')
    """

    id: str
    levels: tuple[str, ...]
    verdict: str
    means: str

    def __post_init__(self):
        if not set(self.levels) <= set(LEVELS) or self.verdict not in (
                PROVED, REFUTED, UNKNOWN, NONE):
            raise ValueError(f"rule {self.id}: levels {self.levels}, verdict {self.verdict}")


#: Every rule code, id -> :class:`Rule` (SARIF's rules list is this table).
RULES = {r.id: r for r in (
    Rule("bitcast-proved", ("note",), PROVED,
         "a bitcast proved to keep every byte in place"),
    Rule("bitcast-refuted", ("error",), REFUTED,
         "a bitcast that no reshape, transpose or TRT makes a physical no-op"),
    Rule("bitcast-unknown", ("warning",), UNKNOWN, "a bitcast neither proved nor refuted"),
    Rule("bitcast-size-mismatch", ("error",), REFUTED,
         "a bitcast whose operand and result take different bytes (XLA's verifier "
         "rejects it)"),
    Rule("bitcast-tiles-ignored", ("warning", "error"), REFUTED,
         "a bitcast that moves bytes only by tiles the module's backend (CPU) "
         "ignores: harmless there"),
    Rule("bitcast-convert-layout", ("error",), REFUTED,
         "a bitcast-convert whose shapes or layouts break XLA's rules for it"),
    Rule("bitcast-memory-space", ("error",), REFUTED,
         "a bitcast between host memory (S(5)) and another memory space"),
    Rule("bitcast-memory-space-change", ("warning",), NONE,
         "a bitcast outside fused computations between two memory spaces XLA's "
         "verifier lets a bitcast join (S(1) and S(0)): one buffer named in two "
         "memory spaces"),
    Rule("invalid-layout", ("error",), REFUTED, "a layout XLA's layout validator rejects"),
    Rule("meant-transpose-not-bitcast", ("warning", "error"), REFUTED,
         "a bitcast recorded as a transpose, but that transpose moves bytes"),
    Rule("meant-reshape-not-bitcast", ("warning", "error"), REFUTED,
         "a bitcast recorded as a reshape, but that reshape moves bytes"),
    Rule("could-be-bitcast", ("warning",), NONE,
         "a copy, transpose or reshape whose result is physically its operand: it "
         "could be a bitcast"),
    Rule("layout-change", ("note",), NONE,
         "a copy between identical layouts, or a transpose or reshape whose result a "
         "copy moves: no data moves here"),
    Rule("moves-data", ("note",), NONE, "a copy, transpose or reshape that moves data"),
    Rule("padding", ("note",), NONE, "an array value whose layout pads it"),
    Rule("skipped", ("note", "warning"), NONE, "an instruction not checked, and why"),
    Rule("pre-layout-module", ("warning",), NONE,
         "the module before optimizations (XLA's dump before layout assignment): its "
         "layouts are not the ones that run; check its after_optimizations file"),
)}


@dataclass(frozen=True)
class Finding:
    """One rule at one instruction: its subject (the ``instruction``, its
    ``computation`` and HLO ``line``; the ``source`` and ``target`` shapes
    it is about, or the ``text`` not read), its ``level`` (SARIF's), the
    ``message``, the ``counterexample`` where it refutes, whether it is
    ``decided`` (False: a question left unknown), and the decision's own
    JSON (``data``: rendered once per question, shared by its repeats).

    >>> from tilespec.spec.text import parse_array_shape as p
    >>> f = Finding("bitcast-refuted", "error", 7, "b", "...", source=p("f32[4]{0}"))
    >>> f.known_as("m.hlo").key, verdict_of(f)
    (('m.hlo', '', 'b', 'bitcast-refuted', ('f32[4]{0}',)), 'refuted')
    """

    rule: str
    level: str
    line: int
    instruction: str
    message: str
    data: dict = field(default_factory=dict)
    #: False when the finding reports a question not decided (unknown).
    decided: bool = True
    computation: str = ""
    source: Shape | None = None
    target: Shape | None = None
    counterexample: Counterexample | None = None
    #: the HLO text of an instruction not read (skipped, invalid-layout)
    text: str = ""

    def __post_init__(self):
        rule = RULES.get(self.rule)
        if rule is None or self.level not in rule.levels:
            raise ValueError(f"no rule {self.rule!r} at level {self.level!r}")

    @property
    def verdict(self) -> str:
        return verdict_of(self)

    def known_as(self, file: str) -> Known:
        """The finding as a baseline holds it (:class:`Known`), in ``file``
        (its name in the baseline: :func:`~tilespec.prover.hlo.baseline.baseline_names`).

        >>> Finding("skipped", "note", 7, "", "text not read", text="%x = ?").known_as("m").key
        ('m', '', '', 'skipped', ('%x = ?',))
        """
        about = [format_shape(s) for s in (self.source, self.target) if s is not None]
        return Known(file, self.computation, self.instruction, self.rule,
                     tuple(about + ([self.text] if self.text else [])),
                     self.level, self.line, self.message)


@dataclass(frozen=True)
class Known:
    """A finding a baseline holds.  Its :attr:`key`, what identifies it
    across runs, is what a recompile or an edit elsewhere in the dump
    keeps: the ``file`` (its path relative to the path checked), the
    ``computation``, the ``instruction``, the ``rule``, and what it is
    ``about`` (its two shapes, or the text not read).  Instruction names
    are unique within a module only, so the file and the computation are
    part of the key: a same-named bitcast in another computation or file
    is another finding.  The ``level``, ``line`` and ``message`` are not
    part of it: they say what the finding was, for a result that is gone
    (SARIF's ``absent``) and for a level that rose (``updated``).

    >>> Known("d/m.txt", "main", "b", "bitcast-refuted", ("f32[4]{0}",)).key
    ('d/m.txt', 'main', 'b', 'bitcast-refuted', ('f32[4]{0}',))
    """

    file: str
    computation: str
    instruction: str
    rule: str
    about: tuple[str, ...] = ()
    level: str = "error"
    line: int = 0
    message: str = ""

    def __post_init__(self):
        rule = RULES.get(self.rule)
        if rule is None or self.level not in rule.levels:
            raise ValueError(f"no rule {self.rule!r} at level {self.level!r}")

    @property
    def key(self) -> tuple:
        return (self.file, self.computation, self.instruction, self.rule, self.about)


def verdict_of(finding: Finding) -> str:
    """What one finding says of its module: unknown for a question not
    decided, the rule's verdict otherwise, except that a refuting rule
    below ``error`` level (a hint) says nothing.

    >>> verdict_of(Finding("meant-transpose-not-bitcast", "warning", 3, "b", "..."))
    'none'
    >>> verdict_of(Finding("meant-transpose-not-bitcast", "error", 3, "b", "..."))
    'refuted'
    """
    if not finding.decided:
        return UNKNOWN
    verdict = RULES[finding.rule].verdict
    if verdict == REFUTED and finding.level != "error":
        return NONE
    return verdict


@dataclass(frozen=True)
class Buffer:
    """An array value's memory: padded bytes and the bytes its elements need."""

    instruction: str
    computation: str
    line: int
    shape: str
    bytes: int
    element_bytes: int

    @property
    def waste(self) -> int:
        return self.bytes - self.element_bytes


@dataclass(frozen=True)
class Report:
    """What checking a module found.  ``status`` is the verdict of every
    finding, whatever the options report: a refutation silenced by
    ``--ignore`` or a baseline is still a refutation.  ``findings`` are the
    ones the options keep; ``filtered`` the ones ``--select``, ``--ignore``
    and ``--min-level`` drop; ``baselined`` the ones a baseline knows.
    Against a baseline (``against_baseline``), ``updated`` are the findings
    kept whose key the baseline holds at a lower level (reported, as new
    ones are), and ``absent`` what the baseline holds for this file that
    the module no longer has.  :attr:`reported_status` (what the exit
    status follows) is the verdict of the findings kept."""

    module: str
    status: str
    findings: tuple[Finding, ...]
    buffers: tuple[Buffer, ...]
    counts: dict
    seconds: float
    filtered: tuple[Finding, ...] = ()
    baselined: tuple[Finding, ...] = ()
    against_baseline: bool = False
    updated: tuple[Finding, ...] = ()
    absent: tuple[Known, ...] = ()
    #: the XLA the module was judged by (``--xla``; default the newest modelled)
    xla_version: XlaCommit | None = None

    @property
    def reported_status(self) -> str:
        """The verdict of the findings the options keep.  Options silence
        findings, never a question left undecided: a finding not decided
        keeps the module unknown even when it is dropped or baselined."""
        undecided = tuple(f for f in self.filtered + self.baselined
                          if verdict_of(f) == UNKNOWN)
        return status_of(self.findings + undecided)

    @property
    def suppressed_errors(self) -> dict:
        """How many error-level findings the options drop and the baseline knows."""
        return {"options": sum(verdict_of(f) == REFUTED for f in self.filtered),
                "baseline": sum(verdict_of(f) == REFUTED for f in self.baselined)}

    def verdict(self) -> str:
        """The module's verdict in words: its status, and when the options
        hide errors, how many (never "proved" for a refuted module).

        >>> f = Finding("bitcast-refuted", "error", 3, "b", "bitcast b: ...")
        >>> r = Report("m", "refuted", (), (), {}, 0.0, baselined=(f,))
        >>> r.verdict()
        'refuted (1 error suppressed: 1 in the baseline; 0 new)'
        """
        hidden = self.suppressed_errors
        total = hidden["options"] + hidden["baseline"]
        if not total:
            return self.status
        why = [f"{n} {what}" for n, what in ((hidden["baseline"], "in the baseline"),
                                           (hidden["options"], "by the options")) if n]
        new = sum(verdict_of(f) == REFUTED for f in self.findings)
        return (f"{self.status} ({total} error{'s' * (total != 1)} suppressed: "
                f"{', '.join(why)}; {new} new)")

    def worst(self, n: int = 5) -> list[Buffer]:
        """The ``n`` values with the most padding bytes."""
        # nsmallest is sorted(...)[:n], ties in the buffers' order, without
        # sorting a module's every buffer
        return heapq.nsmallest(n, (b for b in self.buffers if b.waste > 0),
                               key=lambda b: (-b.waste, b.line))

    def largest(self, n: int = 3) -> list[Buffer]:
        """The ``n`` values that take the most bytes (padding included)."""
        return heapq.nsmallest(n, self.buffers, key=lambda b: (-b.bytes, b.line))


def with_finding(report: Report, finding: Finding) -> Report:
    """``report`` with one more finding, in line order, and the status of
    them all."""
    every = tuple(sorted(report.findings + (finding,), key=lambda f: (f.line, f.rule)))
    return replace(report, findings=every,
                   status=status_of(every + report.filtered + report.baselined))


def status_of(findings) -> str:
    """A module's verdict from its findings, the one place it is decided:
    refuted if a finding refutes, else unknown if one is undecided, else
    proved (:func:`verdict_of` says what each finding means)."""
    verdicts = {verdict_of(f) for f in findings}
    if REFUTED in verdicts:
        return REFUTED
    if UNKNOWN in verdicts:
        return UNKNOWN
    return PROVED


def select_findings(report: Report, *, select=None, ignore=None,
                    min_level: str = "note", baseline: Mapping[tuple, Known] | None = None,
                    file: str = "") -> Report:
    """The report with only the findings a linter's options keep: rules in
    ``select`` (all when None), none in ``ignore``, at ``min_level`` or
    above, and none that ``baseline`` (:attr:`Known.key` -> :class:`Known`;
    None: no baseline) knows in ``file`` (the module's name in it) at the
    finding's level or above.  A finding the baseline knows at a lower
    level (a hint that became an error) is kept, as ``updated``.  The
    status stays the verdict of every finding;
    :attr:`Report.reported_status`, what the exit status follows, is the
    verdict of what remains.

    >>> from tilespec.prover.hlo.check import check_module
    >>> from tilespec.prover.hlo.module import parse_hlo
    >>> r = check_module(parse_hlo('''ENTRY %e (p: f32[8,16]) -> f32[2,32] {
    ...   %p = f32[8,16]{1,0} parameter(0)
    ...   ROOT %b = f32[2,32]{1,0} bitcast(%p)
    ... }'''))
    >>> quiet = select_findings(r, ignore={"bitcast-size-mismatch"})
    >>> r.status, quiet.status, quiet.reported_status, quiet.verdict()
    ('refuted', 'refuted', 'proved', 'refuted (1 error suppressed: 1 by the options; 0 new)')
    >>> other = Known("n.hlo", "e", "b", "bitcast-size-mismatch", ("f32[8,16]{1,0}",
    ...                                                          "f32[2,32]{1,0}"))
    >>> select_findings(r, baseline={other.key: other}, file="m.hlo").reported_status
    'refuted'
    """
    check_options(select, ignore, min_level)
    floor = LEVELS.index(min_level)
    every = report.findings + report.filtered + report.baselined
    shown = tuple(f for f in every
                  if (select is None or f.rule in select) and f.rule not in (ignore or ())
                  and LEVELS.index(f.level) >= floor)
    shown_ids = {id(f) for f in shown}
    known: tuple[Finding, ...] = ()
    updated: tuple[Finding, ...] = ()
    absent: tuple[Known, ...] = ()
    if baseline is not None:
        held = {id(f): baseline.get(f.known_as(file).key) for f in shown}
        known = tuple(f for f in shown if (b := held[id(f)]) is not None
                      and LEVELS.index(b.level) >= LEVELS.index(f.level))
        updated = tuple(f for f in shown if (b := held[id(f)]) is not None
                        and LEVELS.index(b.level) < LEVELS.index(f.level))
        found = {f.known_as(file).key for f in every}
        absent = tuple(b for b in baseline.values() if b.file == file and b.key not in found)
    known_ids = {id(f) for f in known}
    kept = sorted((f for f in shown if id(f) not in known_ids), key=lambda f: (f.line, f.rule))
    return replace(report, findings=tuple(kept),
                   filtered=tuple(f for f in every if id(f) not in shown_ids),
                   baselined=known, status=status_of(every),
                   against_baseline=baseline is not None, updated=updated, absent=absent)


def check_options(select=None, ignore=None, min_level: str = "note") -> None:
    """Bad input (one line) unless every rule ``select`` and ``ignore``
    name is one of :data:`RULES` and ``min_level`` one of the levels.

    >>> check_options(ignore={"padding"}, min_level="warning")
    >>> check_options(select={"no-such-rule"})
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.TilespecError: unknown rule 'no-such-rule'; the rules are ...
    """
    for name in (*(select or ()), *(ignore or ())):
        if name not in RULES:
            raise TilespecError(f"unknown rule {name!r}; the rules are "
                                + ", ".join(RULES))
    if min_level not in LEVELS:
        raise TilespecError(f"unknown level {min_level!r}; the levels are "
                            + ", ".join(LEVELS))


def decisive(findings: tuple[Finding, ...]) -> tuple[Finding, ...]:
    """The findings that can change a verdict: the refuted and the undecided."""
    return tuple(f for f in findings if verdict_of(f) in (REFUTED, UNKNOWN))


def reported_part(report: Report, *, select=None, ignore=None, min_level: str = "note",
                  tables: bool = False) -> Report:
    """What text and SARIF read of ``report`` under the options (no
    baseline): :func:`select_findings`' report, less the findings the
    options drop that decide nothing (only a refuted or undecided one
    changes the verdict, :attr:`Report.reported_status` or
    :attr:`Report.suppressed_errors`) and, of the buffers, only those
    :meth:`Report.worst` and :meth:`Report.largest` name (``tables``; none
    without).  A worker sends this instead of every note and buffer of a
    large module; :func:`select_findings` of it, with the same options
    and any baseline, reports what it reports of the whole report.

    >>> from tilespec.prover.hlo.check import check_module
    >>> from tilespec.prover.hlo.module import parse_hlo
    >>> r = check_module(parse_hlo('''ENTRY %e (p: f32[3,5]) -> f32[15] {
    ...   %p = f32[3,5]{1,0:T(2,2)} parameter(0)
    ...   ROOT %b = f32[15]{0} bitcast(%p)
    ... }'''))
    >>> part = reported_part(r, min_level="warning")
    >>> [f.rule for f in r.findings], [f.rule for f in part.findings], part.filtered
    (['padding', 'bitcast-refuted'], ['bitcast-refuted'], ())
    >>> part.status, part.verdict(), len(r.buffers), part.buffers
    ('refuted', 'refuted', 2, ())
    """
    kept = select_findings(report, select=select, ignore=ignore, min_level=min_level)
    shown = ({id(b) for b in (*report.worst(), *report.largest())} if tables else set())
    return replace(kept, filtered=decisive(kept.filtered),
                   buffers=tuple(b for b in report.buffers if id(b) in shown))


def verdict_part(report: Report) -> Report:
    """What decides ``report``'s verdicts (:attr:`Report.status`,
    :attr:`Report.reported_status`, :attr:`Report.suppressed_errors`, and
    so a run's tally and exit status): its refuted and undecided findings,
    kept, dropped or baselined, and no buffer.  A worker that has written
    its module's JSON sends this beside it.

    >>> wrong = Finding("bitcast-refuted", "error", 3, "b", "bitcast b: ...")
    >>> note = Finding("padding", "note", 2, "p", "p: 4 bytes of padding")
    >>> part = verdict_part(Report("m", "refuted", (note, wrong), (), {}, 0.0, filtered=(note,)))
    >>> [f.rule for f in part.findings], part.filtered, part.reported_status
    (['bitcast-refuted'], (), 'refuted')
    """
    return replace(report, findings=decisive(report.findings),
                   filtered=decisive(report.filtered), baselined=decisive(report.baselined),
                   buffers=())


def violation(what: str, src: Shape | None = None, dst: Shape | None = None,
              values: tuple = (None, None)) -> Counterexample:
    """A rule broken by the text itself (element counts or types, memory
    spaces, a layout XLA rejects) as a counterexample: the two shapes,
    the numbers that differ, and what breaks the rule.  The shapes are the
    witness: there is no element to replay.

    >>> from tilespec.spec.text import parse_array_shape as p
    >>> ce = violation("element counts differ: 4 against 6", p("f32[4]{0}"), p("f32[6]{0}"),
    ...                (4, 6))
    >>> [(s.name, s.shape, s.value) for s in ce.sides], ce.what
    ([('source', 'f32[4]{0}', 4), ('target', 'f32[6]{0}', 6)], 'element counts differ: 4 against 6')
    """
    sides = () if src is None or dst is None else (
        Side("source", shape=format_shape(src), value=values[0]),
        Side("target", shape=format_shape(dst), value=values[1]))
    return Counterexample({}, sides, what=what)
