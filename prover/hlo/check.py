"""Every layout claim in an HLO module, proved or refuted.

For each instruction of a parsed module (:mod:`tilespec.prover.hlo.module`):

* ``bitcast``: :func:`tilespec.prover.bitcast.is_bitcast`, with its record
  (:func:`~tilespec.prover.bitcast.decompose`);
  where its metadata ``op_name`` says which logical op it stands for (the last
  path segment ends in ``transpose`` or ``reshape``), whether that op itself
  keeps every byte: a bitcast legal only as a TRT where a transpose was meant
  is a finding.  A transpose's permutation is the user's (``meant``), else the
  one in the op_name (``transpose[permutation=(1, 0)]``), else any.
* ``copy``, ``transpose``, ``reshape``: whether the result is physically the
  operand (a copy that could be a bitcast) or moves data.
* every array value: its padded bytes (:func:`tilespec.spec.size.byte_size`)
  and the padding waste.

A pair of shapes seen again reuses its verdict (the cache is keyed by the
two shapes' texts and the question), so a module with many repeats of few
layouts costs a proof per distinct pair.

>>> from tilespec.prover.hlo.module import parse_hlo
>>> m = parse_hlo('''ENTRY %e (p: f32[4,8]) -> f32[8,4] {
...   %p = f32[4,8]{1,0} parameter(0)
...   ROOT %b = f32[8,4]{1,0} bitcast(%p), metadata={op_name="jit(f)/transpose"}
... }''')
>>> r = check_module(m)
>>> r.status, [(f.rule, f.level) for f in r.findings if f.rule.startswith("meant")]
('proved', [('meant-transpose-not-bitcast', 'warning')])

Levels: ``error`` only for what is wrong whatever the program meant (a
bitcast that moves bytes or changes the element count, byte size or type, a
``bitcast-convert`` whose layouts break XLA's rules, a layout XLA's
validator rejects, and what the user stated with ``meant``); what op_name
suggests is at most a ``warning``.  The findings, the report and what a
linter's options keep of it are :mod:`tilespec.prover.hlo.findings`.
"""

from __future__ import annotations

import re
import time

from ...spec import (
    Holds,
    Shape,
    TilespecError,
    TupleShape,
    UnknownXlaVersion,
    XlaCommit,
    byte_size,
    format_shape,
    resolve_xla,
    unpadded_bytes,
)
from ..bitcast import (
    Decomposition,
    decompose,
    is_bitcast,
    memory_space_violation,
    question,
    transposes,
)
from ..core import DEFAULT_TIMEOUT
from ..names import counted
from ..result import (
    PROVED,
    REFUTED,
    UNKNOWN,
    Counterexample,
)
from .backend import checked_backend, ignores_tiles, untiled
from .findings import Buffer, Finding, Report, status_of, violation
from .legality import bitcast_convert_mismatch, data_op_mismatch, invalid_layout
from .module import Instruction, Module
from .reader import cycles_paused


def called(inst: Instruction) -> tuple[str, ...]:
    """The computations an instruction's ``calls=`` names.

    >>> from tilespec.prover.hlo.module import parse_instruction as p
    >>> called(p('%f = f32[8]{0} fusion(%a), kind=kLoop, calls=%fused_computation.1'))
    ('fused_computation.1',)
    >>> called(p('%f = f32[8]{0} add(%a, %b)'))
    ()
    """
    text = inst.attribute("calls") or ""
    return tuple(n.strip().lstrip("%") for n in text.strip().strip("{}").split(",")
                 if n.strip())


def meant_op(inst: Instruction) -> tuple[str | None, tuple[int, ...] | None]:
    """The logical op an instruction's op_name records, with a permutation
    if it names one.

    >>> from tilespec.prover.hlo.module import parse_instruction as p
    >>> meant_op(p('%b = f32[2]{0} bitcast(%a), metadata={op_name="jit(f)/transpose[permutation=(1, 0)]"}'))
    ('transpose', (1, 0))
    >>> meant_op(p('%b = f32[2]{0} bitcast(%a), metadata={op_name="jit(f)/add"}'))
    (None, None)
    >>> meant_op(p('%b = f32[2]{0} bitcast(%a), metadata={op_name="transpose[permutation=(1 0)]"}'))
    ('transpose', None)
    """
    name = inst.op_name
    if not name:
        return None, None
    last = re.split(r"/(?![^\[]*\])", name)[-1]
    base = last.split("[", 1)[0]
    for op in ("transpose", "reshape"):
        if base.endswith(op):
            # A permutation written otherwise than Python's tuple is no hint
            # (op_name is metadata: what it does not say is not an error).
            m = re.search(r"permutation=\(\s*((?:\d{1,18}(?:\s*,\s*\d{1,18})*)?)\s*,?\s*\)",
                          last)
            return op, (tuple(int(x) for x in m.group(1).split(",") if x.strip())
                        if m else None)
    return None, None


class _Checker:
    def __init__(self, module: Module, timeout: float, meant: dict | None,
                 backend: str | None = None, strict_tiles: bool = False,
                 buffers: bool = True):
        self.m, self.timeout, self.meant = module, timeout, meant or {}
        self.backend, self.strict_tiles = backend, strict_tiles
        self.keep_buffers = buffers
        self.findings: list[Finding] = []
        self.buffers: list[Buffer] = []
        self.cache: dict = {}
        self.texts: dict = {}
        self.sizes: dict = {}
        self.leaves: dict = {}
        self.counts = {"instructions": 0, "bitcasts": 0, "proofs": 0, "reused": 0,
                       "skipped": 0}
        # every instruction, in order (Module.instructions builds the tuple anew)
        self.instructions = module.instructions
        # (computation, name) of every value a copy reads: a transpose into a
        # layout that keeps the bytes, then a copy, is how XLA writes a
        # physical transpose.
        self.copied = {(i.computation, o) for i in self.instructions
                       if i.opcode == "copy" for o in i.operands}
        # computations a fusion calls: their values have no buffers of their own
        self.fused = {name for i in self.instructions if i.opcode == "fusion"
                      for name in called(i)}

    def add(self, rule, level, inst, message, decided=True, *, about=(None, None),
            counterexample=None, **data):
        """A finding at ``inst``, about the shapes ``about`` (source, target)."""
        source, target = about
        self.findings.append(Finding(rule, level, inst.line, inst.name, message, data,
                                     decided, inst.computation, source, target,
                                     counterexample))

    def cached(self, key, compute):
        """(verdict, its JSON): decided once per key, reused after."""
        if key in self.cache:
            self.counts["reused"] += 1
            return self.cache[key]
        self.counts["proofs"] += 1
        value = compute()
        self.cache[key] = value, (value.to_json() if isinstance(value, Decomposition)
                                  else value.to_json())
        return self.cache[key]

    def text(self, shape: Shape) -> str:
        # by identity, as in leaf_sizes: a shape's hash walks all of it
        found = self.texts.get(id(shape))
        if found is not None and found[0] is shape:
            return found[1]
        self.texts[id(shape)] = shape, format_shape(shape)
        return self.texts[id(shape)][1]

    def operand(self, inst: Instruction):
        shapes = self.m.operand_shapes(inst)
        if len(shapes) != 1 or not isinstance(shapes[0], Shape):
            raise TilespecError("needs one array operand defined in the module")
        if not isinstance(inst.shape, Shape):
            raise TilespecError("its result is a tuple")
        return shapes[0], inst.shape

    def run(self) -> None:
        handlers = {"bitcast": self.bitcast, "bitcast-convert": self.bitcast_convert,
                    "copy": self.data_op, "transpose": self.data_op, "reshape": self.data_op}
        for inst in self.instructions:
            self.counts["instructions"] += 1
            self.buffer(inst)
            handler = handlers.get(inst.opcode)
            if handler is None:
                continue
            try:
                handler(inst)
            except TilespecError as e:
                self.counts["skipped"] += 1
                # a bitcast not checked is a claim not decided: unknown
                claim = inst.opcode in ("bitcast", "bitcast-convert")
                self.add("skipped", "warning" if claim else "note", inst,
                         f"{inst.opcode} {inst.name} not checked: {e}",
                         decided=not claim)

    # --- bitcasts ---------------------------------------------------------------

    def bitcast(self, inst: Instruction) -> None:
        src, dst = self.operand(inst)
        self.counts["bitcasts"] += 1
        # only a change of memory space asks whether the operand is a constant
        constant = (src.layout.memory_space != dst.layout.memory_space
                    and self.constant(inst))
        # the memory-space half of the one bitcast decision (decompose asks it
        # too); one memory space on both sides is never rejected
        rejected = memory_space_violation(src, dst, constant_operand=constant) if (
            src.layout.memory_space != dst.layout.memory_space) else None
        if rejected is not None:
            self.add("bitcast-memory-space", "error", inst,
                     f"bitcast {inst.name}: {self.text(src)} -> {self.text(dst)}: "
                     f"{rejected.what}", about=(src, dst), counterexample=rejected)
        elif self.memory_space_change(src, dst, inst, constant):
            a, b = src.layout.memory_space, dst.layout.memory_space
            self.add("bitcast-memory-space-change", "warning", inst,
                     f"bitcast {inst.name}: {self.text(src)} -> {self.text(dst)}: memory "
                     f"spaces S({a}) and S({b}) outside a fused computation; XLA's "
                     "verifier accepts it, but the result is the operand's buffer, "
                     "which lives in one memory space", about=(src, dst))
        if rejected is not None:
            # the verifier rejects the memory spaces: no reading is asked
            return
        key = ("bitcast", self.text(src), self.text(dst), constant)
        d, dj = self.cached(key, lambda: decompose(src, dst, timeout=self.timeout,
                                                   constant_operand=constant))
        what = f"bitcast {inst.name}: {d.text}"
        data = {"decomposition": dj}
        sizes = d.counterexample is not None and d.counterexample.what.startswith(
            "the byte sizes differ")
        if d.status == REFUTED and self.tiles_ignored(inst, src, dst, d, data):
            return
        if d.status == REFUTED and sizes:
            # XLA's own rule (ShapeVerifier::HandleBitcast): no reading is asked
            return self.add("bitcast-size-mismatch", "error", inst,
                            f"{what}: {_what(d.counterexample)}",
                            about=(src, dst), counterexample=d.counterexample, **data)
        if d.status == PROVED:
            how = d.kind + (" " + "; ".join(",".join(map(str, p)) for p in d.permutations)
                            if d.kind == "transpose" else "")
            if d.verdict.property.endswith(" units)"):
                how += " of " + d.verdict.property.rsplit(" of ", 1)[1].rstrip(")")
            self.add("bitcast-proved", "note", inst, f"{what} is a {how}: proved",
                     about=(src, dst), **data)
        elif d.status == REFUTED:
            self.add("bitcast-refuted", "error", inst,
                     f"{what} moves bytes: {_what(d.counterexample)}",
                     about=(src, dst), counterexample=d.counterexample, **data)
        else:
            self.add("bitcast-unknown", "warning", inst, f"{what}: unknown ({d.reason})",
                     decided=False, about=(src, dst), **data)
        self.meant_check(inst, src, dst, d)

    def tiles_ignored(self, inst: Instruction, src: Shape, dst: Shape,
                      d: Decomposition, data: dict) -> bool:
        """Whether the refuted tiled bitcast ``d`` keeps every byte on a
        backend that ignores tiles (:mod:`.backend`): then a finding of its
        own, a warning unless ``strict_tiles``."""
        if not ignores_tiles(self.backend) or not (src.layout.tiles or dst.layout.tiles):
            return False
        a, b = untiled(src), untiled(dst)
        key = ("bitcast", self.text(a), self.text(b), False)
        u, _ = self.cached(key, lambda: decompose(a, b, timeout=self.timeout))
        if u.status != PROVED:
            return False
        self.add("bitcast-tiles-ignored", "error" if self.strict_tiles else "warning", inst,
                 f"bitcast {inst.name}: {d.text} moves bytes by its tiles "
                 f"({_what(d.counterexample)}); the {self.backend} backend stores "
                 f"arrays by minor_to_major whatever the tiles say, and untiled it is "
                 f"a {u.kind}: proved", about=(src, dst), counterexample=d.counterexample,
                 **data)
        return True

    def memory_space_change(self, src: Shape, dst: Shape, inst: Instruction,
                            constant: bool = False) -> bool:
        """Whether ``inst`` joins two memory spaces where values have buffers:
        outside fused computations.  XLA's verifier accepts a bitcast between
        S(1) and S(0) (``ShapeVerifier::HandleBitcast`` rejects only host
        memory against another space), but outside a fusion its result is a
        position of its operand's buffer (``HloDataflowAnalysis``: a bitcast
        defines no value), and memory-space assignment colours every position
        of a buffer with its one memory space (``MemorySpaceAssignment::
        ExportAndColorBuffers``).  Inside a fused computation values have no
        buffers (``BufferAssigner`` skips fusion computations), so the memory
        spaces there name nothing.  A constant's bitcast may change memory
        space (the verifier's exception).  ROCm/xla 183fa00cb5d8."""
        return (src.layout.memory_space != dst.layout.memory_space and not constant
                and inst.computation not in self.fused)

    def constant(self, inst: Instruction) -> bool:
        """Whether the operand is a constant, through copies (the verifier
        lets a constant's bitcast change memory space)."""
        seen = set()
        while inst.operands and inst.name not in seen:
            seen.add(inst.name)
            o = self.m.instruction(inst.operands[0], inst.computation)
            if o is None:
                return False
            if o.opcode != "copy":
                return o.opcode == "constant"
            inst = o
        return False

    def meant_check(self, inst, src, dst, d: Decomposition) -> None:
        op, perm = meant_op(inst)
        stated = inst.name in self.meant
        if stated:
            op, perm = "transpose", tuple(self.meant[inst.name])
        if op is None:
            return
        # The user's statement is checked as a claim (error); op_name is a
        # hint XLA passes on to neighbouring ops, so it is at most a warning,
        # and a transpose can only be meant between permuted dims.
        wrong = "error" if stated else "warning"
        if op == "transpose" and not stated and (
                sorted(map(str, src.dims)) != sorted(map(str, dst.dims))):
            return
        what = f"bitcast {inst.name} (recorded as {inst.op_name or op})"
        if op == "reshape":
            r = d.result("reshape")
            if r is None or r.status == PROVED:
                return
            level = wrong if r.status == REFUTED else "warning"
            self.add("meant-reshape-not-bitcast", level, inst,
                     f"{what}: the reshape {d.text} is {r.status}"
                     + (f" ({_what(r.counterexample)})"
                        if r.counterexample else ""), decided=r.status == REFUTED,
                     about=(src, dst), counterexample=r.counterexample, result=r.to_json())
            return
        if perm is None:
            # Any transpose that lines the dims up will do.  The decomposition
            # stops at the first interpretation proved, so a bitcast proved
            # as a reshape has not tried its transposes yet: try them here.
            def ask(p):
                key = ("transpose", self.text(src), self.text(dst), p)
                return self.cached(key, lambda: is_bitcast(src, dst, p, timeout=self.timeout))[0]

            tried = []
            for p, r in transposes(src, dst, ask=ask):
                if r.status == PROVED:
                    return
                tried.append((p, r))
            if any(r.status == UNKNOWN for _, r in tried):
                return self.add("meant-transpose-not-bitcast", "warning", inst,
                                f"{what}: whether a transpose keeps the bytes is unknown",
                                decided=False, about=(src, dst))
            legal = f"legal only as a {d.kind}" if d.status == PROVED else "not legal"
            ce = next((r.counterexample for _, r in tried if r.counterexample), None)
            none = ("no transpose of {0} to {1} keeps the bytes" if tried else
                    "no transpose maps the dims of {0} to those of {1}")
            self.add("meant-transpose-not-bitcast", wrong, inst,
                     f"{what}: {none.format(self.text(src), self.text(dst))}; the bitcast is {legal}"
                     + (f" ({_what(ce)})" if ce else ""),
                     permutations_tried=[list(p) for p, _ in tried], about=(src, dst),
                     counterexample=ce if ce else violation(
                         none.format(self.text(src), self.text(dst)), src, dst))
            return
        try:
            question(src, dst, perm)
        except TilespecError as e:
            return self.add("meant-transpose-not-bitcast", wrong, inst, f"{what}: {e}",
                            about=(src, dst), counterexample=violation(str(e), src, dst))
        key = ("transpose", self.text(src), self.text(dst), perm)
        r, rj = self.cached(key, lambda: is_bitcast(
            src, dst, "reshape" if perm is None else perm, timeout=self.timeout))
        if r.status == PROVED:
            return
        level = wrong if r.status == REFUTED else "warning"
        self.add("meant-transpose-not-bitcast", level, inst,
                 f"{what}: the transpose {','.join(map(str, perm))} is {r.status}"
                 + (f" ({_what(r.counterexample)})"
                    if r.counterexample else "")
                 + (f"; the bitcast is legal only as a {d.kind}" if d.status == PROVED else ""),
                 decided=r.status == REFUTED, about=(src, dst),
                 counterexample=r.counterexample, result=rj)

    def bitcast_convert(self, inst: Instruction) -> None:
        src, dst = self.operand(inst)
        wrong = bitcast_convert_mismatch(src, dst)
        if wrong:
            self.add("bitcast-convert-layout", "error", inst,
                     f"bitcast-convert {inst.name}: {self.text(src)} -> {self.text(dst)}: "
                     f"{wrong}", about=(src, dst), counterexample=violation(wrong, src, dst))

    # --- copies, transposes, reshapes ---------------------------------------------------

    def data_op(self, inst: Instruction) -> None:
        src, dst = self.operand(inst)
        perm = None
        if inst.opcode == "copy":
            perm = tuple(range(src.rank))
        elif inst.opcode == "transpose":
            perm = inst.dimensions
            if perm is None:
                raise TilespecError("a transpose without dimensions={...}")
        wrong = data_op_mismatch(inst.opcode, src, dst, perm)
        if wrong is not None:
            # a module XLA's verifier rejects proves nothing about its bitcasts
            self.counts["skipped"] += 1
            self.add("skipped", "warning", inst, f"{inst.opcode} {inst.name} not checked: "
                     f"XLA's verifier rejects it: {wrong}", decided=False)
            return
        key = (inst.opcode, self.text(src), self.text(dst), perm)
        r, rj = self.cached(key, lambda: is_bitcast(
            src, dst, "reshape" if perm is None else perm, timeout=self.timeout))
        what = f"{inst.opcode} {inst.name}: {key[1]} -> {key[2]}"
        if r.status == PROVED and inst.opcode == "copy" and key[1] == key[2]:
            self.add("layout-change", "note", inst,
                     f"{what} copies between identical layouts (a copy for buffer "
                     "ownership): no reordering", about=(src, dst), result=rj)
        elif r.status == PROVED and self.memory_space_change(src, dst, inst):
            a, b = src.layout.memory_space, dst.layout.memory_space
            self.add("moves-data", "note", inst,
                     f"{what} keeps each byte's place in the layout but moves the data "
                     f"from memory space S({a}) to S({b}): no bitcast could stand for it",
                     about=(src, dst), result=rj)
        elif r.status == PROVED and inst.computation in self.fused:
            # BufferAssigner skips fusion computations: their values have no
            # buffers, so a bitcast here would save no copy; a change of
            # memory space is the fusion's data movement
            a, b = src.layout.memory_space, dst.layout.memory_space
            self.add("moves-data" if a != b else "layout-change", "note", inst,
                     f"{what} keeps every byte in place inside the fused computation "
                     f"{inst.computation}, whose values have no buffers of their own"
                     + (f"; the fusion moves the data from S({a}) to S({b})" if a != b
                        else ": no copy to save"), about=(src, dst), result=rj)
        elif r.status == PROVED and (inst.computation, inst.name) in self.copied:
            self.add("layout-change", "note", inst,
                     f"{what} keeps every byte in place; the copy that follows moves "
                     "the data (proved)", about=(src, dst), result=rj)
        elif r.status == PROVED:
            self.add("could-be-bitcast", "warning", inst,
                     f"{what} keeps every byte in place: it could be a bitcast (proved)",
                     about=(src, dst), result=rj)
        elif r.status == REFUTED:
            self.add("moves-data", "note", inst,
                     f"{what} moves data ({_what(r.counterexample)})",
                     about=(src, dst), counterexample=r.counterexample, result=rj)
        else:
            self.add("moves-data", "note", inst, f"{what}: whether it moves data is "
                     f"unknown ({r.reason})", about=(src, dst), result=rj)

    # --- memory -------------------------------------------------------------------------

    def buffer(self, inst: Instruction) -> None:
        for s, size, padding in self.leaf_sizes(inst):
            if self.keep_buffers:
                self.buffers.append(Buffer(inst.name, inst.computation, inst.line, *size))
            if padding:
                self.add("padding", "note", inst, inst.name + padding, about=(s, None),
                         bytes=size[1], waste=size[1] - size[2])

    def leaf_sizes(self, inst: Instruction) -> list:
        """(leaf, (its text, bytes, bytes of elements), what its padding
        finding says after the instruction's name, or "") of each array
        value ``inst`` defines with a concrete size.  The reader gives one
        object per distinct shape text, so these are found once per shape
        object (by identity: a shape's hash walks all of it, and the module
        keeps each object alive while it is checked)."""
        key = (id(inst.shape), inst.opcode == "tuple")
        found = self.leaves.get(key)
        if found is not None and found[0] is inst.shape:
            return found[1]
        shapes = [inst.shape] if isinstance(inst.shape, Shape) else []
        if isinstance(inst.shape, TupleShape) and inst.opcode not in ("tuple",):
            shapes = _leaves(inst.shape)
        out = []
        for s in shapes:
            if s.is_symbolic or any(d is None for d in s.dims) or s.element_bits == 0:
                continue
            size = self.sizes.get(s)
            if size is None:
                text, padded, needed = self.text(s), byte_size(s), unpadded_bytes(s)
                waste = padded - needed
                size = self.sizes[s] = (text, padded, needed), (
                    f": {text} takes {counted(padded, 'byte')}, {waste} of them padding "
                    f"({100 * waste / padded:.1f}%)" if waste > 0 else "")
            out.append((s, *size))
        self.leaves[key] = inst.shape, out
        return out


def _leaves(shape) -> list[Shape]:
    if isinstance(shape, Shape):
        return [shape]
    return [x for e in shape.elements for x in _leaves(e)]


def _what(ce: Counterexample | None) -> str:
    """What a counterexample says differs, for a finding's one-line message:
    the facts themselves are the finding's ``counterexample``, which text,
    JSON and SARIF write out each in their own form."""
    return "" if ce is None else ce.what or "a counterexample"



#: The XLA versions check-hlo's verdicts model: since cbb23d1d64 XLA's
#: validator checks split configs as the spec's layouts do.
SPLIT_VALIDATION = resolve_xla("cbb23d1d64")
CHECK_HLO_HOLDS = Holds(since=SPLIT_VALIDATION)


def judged_xla(xla: XlaCommit | str | None) -> XlaCommit:
    """The XLA commit check-hlo judges by, if its verdicts model it.

    >>> judged_xla("jaxlib-0.10.2").short
    '5a9e73cbd9'
    >>> judged_xla("2026-05-22")
    Traceback (most recent call last):
    ...
    tilespec.spec.versions.UnknownXlaVersion: check-hlo at XLA 2c731115ef (2026-05-22): before cbb23d1d64 (2026-06-01) XLA's validator accepts split configs the spec rejects (and before 8a84ad7ef7 its verifier lets a bitcast join memory spaces); those versions are not modelled in check-hlo
    """
    at = resolve_xla(xla)
    if not CHECK_HLO_HOLDS.holds_at(at):
        raise UnknownXlaVersion(
            f"check-hlo at XLA {at.label}: before {SPLIT_VALIDATION.label} XLA's validator "
            "accepts split configs the spec rejects (and before 8a84ad7ef7 its verifier lets "
            "a bitcast join memory spaces); those versions are not modelled in check-hlo")
    return at


def check_module(module: Module, *, timeout: float = DEFAULT_TIMEOUT,
                 meant: dict | None = None, backend: str | None = None,
                 strict_tiles: bool = False, xla: XlaCommit | str | None = None,
                 buffers: bool = True) -> Report:
    """Check every claim in ``module``; ``meant`` maps a bitcast's name to the
    transpose permutation it stands for (the user's word over op_name);
    ``backend`` (``cpu``, ``gpu``, ``tpu`` or None, unknown) decides whether
    tiles are honoured (:mod:`.backend`); ``strict_tiles`` keeps a bitcast
    that moves bytes only by tiles the CPU backend ignores an error.
    ``xla`` is the XLA judged by (a commit prefix, a date, ``jaxlib-X.Y.Z``;
    default the newest modelled), named in the report.  ``buffers`` False
    leaves the report's :class:`~.findings.Buffer` s out (a value per
    instruction, which text and SARIF read only for ``--tables``); the
    findings, padding notes included, are the same."""
    at = judged_xla(xla)
    start = time.perf_counter()
    with cycles_paused():
        c = _Checker(module, timeout, meant, checked_backend(backend), strict_tiles, buffers)
        for s in module.skipped:
            c.counts["skipped"] += 1
            bad = invalid_layout(s.text)
            if bad is not None:
                name = s.text.partition("=")[0].replace("ROOT", "").strip().lstrip("%")
                c.findings.append(Finding("invalid-layout", "error", s.line, name,
                                          f"{name}: {bad}", text=s.text,
                                          counterexample=violation(bad)))
                continue
            # text not read may hide a bitcast that moves data: never proved
            c.findings.append(Finding("skipped", "warning", s.line, "", f"text not read: "
                                      f"{s.reason}", decided=False, text=s.text))
        for name in (meant or {}):
            named = module.instruction(name)
            if named is None or named.opcode != "bitcast":
                raise TilespecError(f"--meant names {name!r}, which is not a bitcast in "
                                    "the module")
        c.run()
        findings = sorted(c.findings, key=lambda f: (f.line, f.rule))
        return Report(module.name, status_of(findings), tuple(findings), tuple(c.buffers),
                      c.counts, time.perf_counter() - start, xla_version=at)
