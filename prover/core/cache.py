"""Proofs kept for reuse, keyed by what they are about and by the code that runs now.

A proof is only cited again when it is about the code that runs now, so
every key carries a *fingerprint* of every definition it depends on
(:mod:`prover.core.definitions`): the source text of each module the
question reaches and every value those modules define, read from the live
objects (functions with their bytecode, defaults and closures, classes with
every entry, constants, tables, instances).  Editing any of those modules,
or changing any of those values in the process (``index.COMBINE = 2``, a
table entry, a default, a method), changes the fingerprint, and the old
proof is simply not found.  The fingerprint is written once, then checked
on every use: by the version tags of the dicts it read, snapshots of the
mutable objects without one, and an audit hook's count of assignments to
``__code__``, ``__defaults__``, ``__bases__`` and ``__class__`` (a few
microseconds, the tags and cells read in one gather: :mod:`prover.core.words`);
when those show a change, it is written again (:class:`_Watch`; docs/proofs.md).

Two stores:

* in the process: a dict, looked up in microseconds;
* on disk (``$TILESPEC_CACHE_DIR``, else ``$XDG_CACHE_HOME/tilespec``, else
  ``~/.cache/tilespec``): one JSON file per tilespec version and Z3
  version, each entry keyed by the fingerprint and the question.  Only
  ``proved`` answers are stored (with the solver, its version and when).
  The file is written whole and atomically (``os.replace``), so a crash or
  two processes writing at once lose entries, never corrupt one; an
  unreadable file is ignored.  ``TILESPEC_CACHE=off`` turns the disk store
  off.  The disk store is as trusted as the installed source: whoever can
  write it could as well edit tilespec.

>>> from tilespec.spec.index import Split
>>> a = fingerprint((Split,))
>>> a == fingerprint((Split,)), len(a)
(True, 64)
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import sys
import types
from itertools import chain
from operator import attrgetter
from pathlib import Path

from . import crosscheck
from .definitions import Definitions, snapshot
from .words import Words, cell_offset

__all__ = ["fingerprint", "lookup", "store", "memo", "clear_memory", "cache_file", "key",
           "well_formed", "SHIPPED_FILE"]


class _Audit:
    """How many times a function was given other code or defaults
    (``f.__code__ = ...``), a class other bases or an object another class,
    in this process, counted by an audit hook (``sys.addaudithook``: CPython
    raises ``object.__setattr__`` for each, whatever the route).  ``epoch`` stays None when the hook could not be
    added.

    The hook runs just before the assignment, so ``pending`` keeps each
    announced assignment until it is seen made: a check that ran in between
    (another thread) must not be trusted."""

    epoch: int | None = None
    pending: dict = {}      # (id, attribute) -> (object, attribute, value)


#: The assignments CPython audits that change what some code does: a
#: function's code and defaults, a class's bases, an object's class.
_AUDITED = frozenset(("__code__", "__defaults__", "__kwdefaults__", "__bases__", "__class__"))


def _audit(event: str, args: tuple) -> None:
    if event == "object.__setattr__" and args[1] in _AUDITED:
        _Audit.pending[id(args[0]), args[1]] = args
        _Audit.epoch += 1   # type: ignore[operator]


def _settled() -> bool:
    """Has every assignment the hook announced been made?  (One that failed
    after its announcement stays pending until the attribute is assigned
    again: fast checks wait, exact ones still run.)"""
    pending = _Audit.pending
    for k, (obj, attribute, value) in list(pending.items()):
        if getattr(obj, attribute) is value:
            pending.pop(k, None)
    return not pending


def _start_audit() -> bool:
    if _Audit.epoch is None:
        try:
            _Audit.epoch = 0
            sys.addaudithook(_audit)
        except Exception:       # another hook refused it
            _Audit.epoch = None
    return _Audit.epoch is not None


def _version_offset() -> int | None:
    """Where CPython keeps a dict's version tag (PEP 509: a new, never
    reused value on every insertion, replacement or deletion), or None
    when this interpreter does not keep one there.

    The tag is read with ctypes; it is believed only after a probe dict
    showed, on this interpreter, the entry count where it belongs and a new
    tag after each kind of change."""
    if sys.implementation.name != "cpython" or not (3, 11) <= sys.version_info[:2] <= (3, 13):
        return None
    word = ctypes.sizeof(ctypes.c_ssize_t)
    used_at, tag_at = 2 * word, 3 * word     # after the object header: ma_used, ma_version_tag
    probe: dict = {}
    used = ctypes.c_ssize_t.from_address(id(probe) + used_at)
    tag = ctypes.c_uint64.from_address(id(probe) + tag_at)
    seen = [tag.value]
    changes = (lambda: probe.__setitem__("a", []), lambda: probe.__setitem__("a", []),
               lambda: probe.update(b=1), lambda: probe.pop("a"), probe.clear,
               lambda: probe.setdefault("c", 2))
    for change in changes:
        change()
        if used.value != len(probe):
            return None
        seen.append(tag.value)
    if len(set(seen)) != len(seen) or tag.value != seen[-1]:
        return None
    return tag_at


_NO_OFFSET = -1
_OFFSET: list[int | None] = [_NO_OFFSET]     # found once, on first use


def _tag_reader():
    """A function reading a dict's version tag as 8 bytes, or None when
    this interpreter keeps none (or the audit hook could not be added)."""
    if _OFFSET[0] == _NO_OFFSET:
        _OFFSET[0] = _version_offset()
    offset = _OFFSET[0]
    if offset is None or not _start_audit():
        return None
    word = ctypes.sizeof(ctypes.c_ssize_t)

    def tag(d) -> bytes | None:
        # the entry count where it belongs: a dict of the layout probed
        if type(d) is not dict or \
                ctypes.c_ssize_t.from_address(id(d) + offset - word).value != len(d):
            return None
        return ctypes.string_at(id(d) + offset, 8)
    return tag


_CONTENTS = attrgetter("cell_contents")


def _seen(epoch, walk: Definitions) -> tuple | None:
    """What the fast check compares, from one walk: the audit count before
    it, the dicts' version tags as read, the cells with what they held
    (both as words read in one gather: :class:`~prover.core.words.Words`),
    and the other mutable objects without a tag, each kind with its
    snapshots; None when the fast check is not available."""
    if walk.tag is None or epoch is None or None in walk.tags:
        return None
    offset, cell_at = _OFFSET[0], cell_offset()
    assert offset is not None and offset != _NO_OFFSET
    cells: tuple = ([], [])
    containers: tuple = ([], [])
    others: tuple = ([], [])
    for o, kept in zip(walk.mutables, walk.snapshots):
        if type(o) is types.CellType and kept and cell_at is not None:
            cells[0].append(o)
            cells[1].append(kept[0])
        else:
            part = containers if type(o) in (list, set) else others
            part[0].append(o)
            part[1].append(kept)
    try:
        tags = Words(walk.dicts, [offset] * len(walk.dicts),
                     [int.from_bytes(t, sys.byteorder) for t in walk.tags])
        held = Words(cells[0], [cell_at or 0] * len(cells[0]), list(map(id, cells[1])),
                     keep=cells[1])
    except ValueError:      # words not aligned alike: no fast check
        return None
    return (epoch, tags + held, tags, held, *containers, *others)


def _merged(seens: list) -> tuple | None:
    """One fast check for several walks made after the same audit count."""
    if not seens or any(s is None for s in seens) or len({s[0] for s in seens}) != 1:
        return None
    try:
        tags, held = (Words.joined([s[i] for s in seens]) for i in (1, 2))
    except ValueError:
        return None
    return (seens[0][0], tags + held, tags, held,
            *(sum((s[i] for s in seens), []) for i in range(4, 8)))


def _unchanged(seen: tuple | None) -> bool:
    """The fast check: nothing a walk read has changed since."""
    if seen is None or seen[0] != _Audit.epoch:
        return False
    _, both, tags, held, containers, copies, others, kept = seen
    try:
        # the tags and the cells' pointers in one gather; when a cell holds
        # another object, it is compared by value (as its snapshot is); a
        # list or set with its copy in C; other objects one by one
        return (both.unchanged() or tags.unchanged() and
                list(map(_CONTENTS, held.owners)) == list(held.keep)) and \
            containers == copies and list(map(snapshot, others)) == kept
    except Exception:     # an emptied cell, a value's own ==
        return False


_MODULES: dict = {}     # id(module) -> (module, digest, seen, reaches)


def _module(m) -> tuple:
    """One module's digest (:meth:`Definitions.module`), written again only
    when something it read may have changed; shared by every fingerprint
    that reaches the module."""
    kept = _MODULES.get(id(m))
    if kept is not None and kept[0] is m and _unchanged(kept[2]):
        return kept
    walk = Definitions(skip=frozenset(map(id, _MEMOS)), tag=_tag_reader())
    epoch = _Audit.epoch if _settled() else None
    digest = walk.module(m)
    kept = _MODULES[id(m)] = (m, digest, _seen(epoch, walk), frozenset(walk.reaches))
    return kept


class _Watch:
    """The digest of the definitions behind some objects: each module given
    and every module of tilespec they reach (:class:`~prover.core.definitions.
    Definitions`: its source text and every value it defines), and what
    the other objects define; written again only when something it read
    may have changed.

    A walk reads, before their contents, every dict's version tag
    (:func:`_version_offset`) and what each mutable object without one
    holds (:func:`~prover.core.definitions.snapshot`).  The fast check (tens
    of microseconds) compares them with the live ones, and the audit hook's
    count (:class:`_Audit`) with the one before the walk: no namespace,
    table, instance dict, cell, list or set has changed, no function was
    given other code or defaults, no class other bases, no object another
    class.  When it fails, or on an interpreter without version tags, each
    module is checked the same way and the ones changed are walked again:
    that is exact.  A change made during a walk leaves a tag or snapshot
    that differs from the one read, so the next check walks again."""

    def __init__(self, objects):
        self.objects = self.given = tuple(objects)
        self.value = ""
        self.seen: tuple | None = None

    def _walk(self) -> tuple[str, tuple | None]:
        """The digest and its fast check, from the live objects."""
        walk = Definitions(skip=frozenset(map(id, _MEMOS)), tag=_tag_reader())
        epoch = _Audit.epoch if _settled() else None
        modules = [o for o in self.objects if isinstance(o, types.ModuleType)]
        given = walk.values([o for o in self.objects if not isinstance(o, types.ModuleType)])
        todo = modules + [sys.modules[r] for r in sorted(walk.reaches) if r in sys.modules]
        kept: dict[str, tuple] = {}
        while todo:
            m = todo.pop()
            name = str(vars(m).get("__name__"))
            if name in kept or name == __name__:     # the store is not what proofs are about
                continue
            kept[name] = _module(m)
            todo += [sys.modules[r] for r in sorted(kept[name][3]) if r in sys.modules]
        text = "\n".join([f"{n}:{kept[n][1]}" for n in sorted(kept)] + [f"given:{given}"])
        seens = [_seen(epoch, walk)] + [k[2] for k in kept.values()]
        # a module checked before this walk's audit count was read: its
        # fast check holds from then on only if the count has not moved
        return hashlib.sha256(text.encode()).hexdigest(), _merged(seens)

    def digest(self) -> str:
        if _unchanged(self.seen):
            return self.value
        self.value, self.seen = self._walk()
        return self.value


_WATCHES: dict = {}    # by the ids of the objects, and by the id of a tuple given


def fingerprint(objects) -> str:
    """sha256 of the definitions behind ``objects``: for a module, its
    source and every value it defines, and the same of every module of
    tilespec it reaches (:mod:`prover.core.definitions`); for a function or
    class, what it defines."""
    watch = _WATCHES.get(id(objects))
    if watch is not None and watch.given is objects:    # the same tuple again
        return watch.digest()
    objects = tuple(objects)
    key = tuple(map(id, objects))
    watch = _WATCHES.get(key)
    if watch is None or watch.objects != objects:
        watch = _WATCHES[key] = _Watch(objects)
    watch.given = objects
    _WATCHES[id(objects)] = watch
    return watch.digest()


# --- the stores -------------------------------------------------------------

_MEMORY: dict[str, dict] = {}
_DISK: dict | None = None       # the disk file's entries, read once


_MEMOS: list[dict] = []


def memo() -> dict:
    """A dict of things derived from stored proofs, forgotten with them."""
    d: dict = {}
    _MEMOS.append(d)
    return d


def clear_memory() -> None:
    """Forget the in-process store (and the disk file as read), as a fresh
    process would."""
    global _DISK, _SHIPPED
    _MEMORY.clear()
    for d in _MEMOS:
        d.clear()
    _DISK = None
    _SHIPPED = None


def _versions() -> str:
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "0+unknown"
    # z3's version from its distribution's metadata: reading it must not
    # import z3 (a citation needs no solver)
    return f"tilespec-{version('tilespec')}-z3-{z3_version()}"


_Z3_VERSION: str | None = None


def z3_version() -> str:
    """The installed z3's version, as ``z3.get_version_string()`` gives it,
    read without importing z3 when its distribution says it."""
    global _Z3_VERSION
    if _Z3_VERSION is None:
        from importlib import metadata
        module = sys.modules.get("z3")
        # a module merely deferred (tilespec.prover) is a subclass until run
        if module is not None and type(module) is types.ModuleType:
            _Z3_VERSION = str(module.get_version_string())
        else:
            try:
                _Z3_VERSION = ".".join(metadata.version("z3-solver").split(".")[:3])
            except metadata.PackageNotFoundError:
                import z3
                _Z3_VERSION = z3.get_version_string()
    return _Z3_VERSION


def cache_file() -> Path | None:
    """Where the disk store lives, or None when it is off."""
    if os.environ.get("TILESPEC_CACHE", "").lower() in ("off", "0", "no"):
        return None
    root = os.environ.get("TILESPEC_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
            os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "tilespec")
    return Path(root) / f"proofs-{_versions()}.json"


#: The fields every kept record has, with their types.  A record read from
#: a file that lacks one, or has one of another type, is not a proof: it is
#: ignored, and the question is proved again.
RECORD_FIELDS: dict[str, type | tuple[type, ...]] = {
    "question": str, "status": str, "name": str, "seconds": (int, float)}
#: Fields some records have; when present they must have these types.
OPTIONAL_FIELDS: dict[str, type | tuple[type, ...]] = {
    "solver": str, "proved_at": str, "steps": list, "digest": str}


def well_formed(record, needs: tuple[str, ...] = ()) -> bool:
    """Is ``record`` a ``proved`` record with every field of the right type
    (and the fields ``needs`` names present)?

    >>> well_formed({"question": "q", "status": "proved", "name": "q", "seconds": 0.1})
    True
    >>> well_formed({"question": "q", "status": "proved", "name": "q", "seconds": "0.1"})
    False
    """
    if not isinstance(record, dict) or record.get("status") != "proved":
        return False
    for field, kind in chain(RECORD_FIELDS.items(), OPTIONAL_FIELDS.items()):
        value = record.get(field)
        if value is None:
            if field in RECORD_FIELDS or field in needs:
                return False
        elif isinstance(value, bool) or not isinstance(value, kind):
            return False
    steps = record.get("steps")
    return steps is None or all(isinstance(x, str) for x in steps)


def _read(path: Path | None) -> dict:
    """The records of a JSON file, by key (none when it is missing or
    unreadable).  Each is checked when it is looked up (:func:`lookup`) and
    before the file is written again (:func:`store`), not here: a process
    reads one or two of the shipped file's 1,700 records."""
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _disk() -> dict:
    global _DISK
    if _DISK is None:
        _DISK = _read(cache_file())
    return _DISK


#: Proofs shipped in the package (``prover/core/shipped_proofs.json``, made
#: by ``python -m tilespec.prover.properties.ship``): the generic theorems
#: and the catalogue's all-shapes proofs, each keyed by the fingerprint of
#: the code it is about.  One is cited only when the code that runs now has
#: that fingerprint, and when its key is the hash of its own question and
#: fingerprint (an edited question or fingerprint is not found).
SHIPPED_FILE = Path(__file__).with_name("shipped_proofs.json")
_SHIPPED: dict | None = None


def shipped_enabled() -> bool:
    """``TILESPEC_SHIPPED=off`` stops the shipped proofs from being cited."""
    return os.environ.get("TILESPEC_SHIPPED", "").lower() not in ("off", "0", "no")


def _shipped() -> dict:
    global _SHIPPED
    if _SHIPPED is None:
        _SHIPPED = _read(SHIPPED_FILE)
    return _SHIPPED if shipped_enabled() else {}


def key(question: str, digest: str) -> str:
    """Where a record for ``question`` about the code ``digest`` is kept."""
    return hashlib.sha256(f"{digest}\n{question}".encode()).hexdigest()


def lookup(question: str, digest: str, needs: tuple[str, ...] = ()) -> dict | None:
    """A stored ``proved`` record for ``question`` about the code ``digest``
    (memory first, then the proofs shipped with tilespec, then disk: the
    shipped file needs no package metadata to be found, so a question they
    answer is answered without reading the disk store's versioned name), with
    ``"where"`` saying which; ``needs`` names fields the caller reads."""
    if crosscheck.active() is not None:
        # Inside --cross-check every answer behind a verdict is Z3's of this
        # block, re-checked by cvc5: nothing proved before it is cited.
        return None
    k = key(question, digest)
    rec = _MEMORY.get(k)
    if rec is not None:
        return rec
    for where, store, needed in (("the proofs shipped with tilespec", _shipped,
                                  ("digest",) + needs), ("disk cache", _disk, needs)):
        rec = store().get(k)
        # a shipped record is found under the hash of its own question and
        # fingerprint: its digest is the one asked for
        if rec is not None and well_formed(rec, needed) and rec["question"] == question \
                and (store is _disk or rec["digest"] == digest):
            rec = dict(rec, where=where)
            _MEMORY[k] = rec
            return rec
    return None


def store(question: str, digest: str, record: dict) -> None:
    """Keep ``record`` (in memory always; on disk when it is ``proved``)."""
    k = key(question, digest)
    _MEMORY[k] = dict(record, where="this process")
    if record.get("status") != "proved":
        return
    path = cache_file()
    if path is None:
        return
    disk = _disk()
    disk[k] = dict(record, question=question, digest=digest)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        # the file is written with its well-formed records only
        tmp.write_text(json.dumps({k: v for k, v in disk.items()
                                   if isinstance(k, str) and well_formed(v)}))
        os.replace(tmp, path)
    except OSError:
        pass    # a read-only home: the proof is kept in memory only
