"""Proofs kept for reuse, keyed by what they are about and by the code that runs now.

A proof is only cited again when it is about the code that runs now, so
every key carries a *fingerprint* of the live code it depends on: the
bytecode (the code objects' instructions, names and constants, nested
functions included) of the functions and of every method of the classes it names,
read from the live objects.  Monkeypatching a stage's method, or editing
the spec's source, changes the fingerprint, and the old proof is simply not
found.  The fingerprint is hashed once, then checked on every use: by the
watched dicts' version tags and an audit hook's count of ``__code__`` and
``__bases__`` assignments (a few microseconds), and when those show a
change, by comparing every entry hashed (:class:`_Watch`; docs/proofs.md).

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
import gc
import hashlib
import json
import os
import sys
import types
from itertools import chain
from operator import attrgetter, itemgetter
from pathlib import Path

from . import crosscheck

__all__ = ["fingerprint", "lookup", "store", "memo", "clear_memory", "cache_file", "key",
           "well_formed", "SHIPPED_FILE"]


def _codes(obj, out: list, top: bool = True, wrappers: list | None = None) -> None:
    """The live functions ``obj`` runs: itself, a class's methods
    (properties, static and class methods too), a module's functions and
    classes' methods; ``wrappers`` collects the functools wrappers passed
    through."""
    if isinstance(obj, types.FunctionType):
        out.append(obj)
    elif callable(obj) and hasattr(obj, "__wrapped__"):    # functools wrappers
        if wrappers is not None:
            wrappers.append(obj)
        _codes(obj.__wrapped__, out, False, wrappers)
    elif isinstance(obj, (staticmethod, classmethod)):
        _codes(obj.__func__, out, False, wrappers)
    elif isinstance(obj, property):
        for f in (obj.fget, obj.fset, obj.fdel):
            if f is not None:
                _codes(f, out, False, wrappers)
    elif isinstance(obj, type):
        for klass in obj.__mro__:
            if klass is object:
                continue
            for name, value in sorted(vars(klass).items()):
                if _hashed_member(name):
                    _codes(value, out, False, wrappers)
    elif top and isinstance(obj, types.ModuleType):
        for _name, value in sorted(vars(obj).items()):
            # functions whatever their origin (a monkeypatched one comes from
            # elsewhere), classes of tilespec's own
            if isinstance(value, types.FunctionType) or hasattr(value, "__wrapped__") or (
                    isinstance(value, type) and value.__module__ == obj.__name__
                    and "<locals>" not in value.__qualname__):
                # (a class made inside a function is in that function's code)
                _codes(value, out, False, wrappers)


def _hashed_member(name: str) -> bool:
    """Is a class's entry ``name`` part of the code hashed?"""
    return not name.startswith("__") or name in ("__post_init__", "__init__")


def _dicts(obj, out: list, classes: list, top: bool = True) -> None:
    """The namespaces whose entries decide which code ``obj`` runs, and
    (into ``classes``) the classes whose bases do."""
    if isinstance(obj, type):
        classes.append(obj)
        out.extend(vars(k) for k in obj.__mro__ if k is not object)
    elif top and isinstance(obj, types.ModuleType):
        out.append(vars(obj))
        for value in list(vars(obj).values()):
            if isinstance(value, type) and value.__module__ == obj.__name__ \
                    and "<locals>" not in value.__qualname__:
                _dicts(value, out, classes, False)


def _code_bytes(c) -> bytes:
    """What a code object does, as bytes, the same in every process
    (``marshal`` is not: its back-references depend on reference counts).
    Kept per code object (held, so its id is not reused): the fingerprints
    of overlapping sets of code hash each function once per process."""
    kept = _CODE_BYTES.get(id(c))
    if kept is not None:
        return kept[1]
    parts = [c.co_code, repr((c.co_name, c.co_argcount, c.co_kwonlyargcount, c.co_names,
                              c.co_varnames, c.co_freevars, c.co_cellvars)).encode()]
    for k in c.co_consts:
        parts.append(_code_bytes(k) if isinstance(k, types.CodeType)
                     else _canonical(k).encode())
    data = b"".join(parts)
    _CODE_BYTES[id(c)] = (c, data)
    return data


_CODE_BYTES: dict[int, tuple] = {}


def _canonical(k) -> str:
    # a frozenset constant (``x in {"a", "b"}``) iterates in hash order,
    # which differs between processes
    if isinstance(k, frozenset):
        return "frozenset(" + ",".join(sorted(map(_canonical, k))) + ")"
    if isinstance(k, tuple):
        return "(" + ",".join(map(_canonical, k)) + ")"
    return f"{type(k).__name__}:{k!r}"


_CODE_OF = attrgetter("__code__")
_MRO_OF = attrgetter("__mro__")
_WRAPPED_OF = attrgetter("__wrapped__")


def _none(d):
    return ()


class _Audit:
    """How many times a function was given other code (``f.__code__ = ...``)
    or a class other bases, in this process, counted by an audit hook
    (``sys.addaudithook``: CPython raises ``object.__setattr__`` for both,
    whatever the route).  ``epoch`` stays None when the hook could not be
    added.

    The hook runs just before the assignment, so ``pending`` keeps each
    announced assignment until it is seen made: a check that ran in between
    (another thread) must not be trusted."""

    epoch: int | None = None
    pending: dict = {}      # (id, attribute) -> (object, attribute, value)


def _audit(event: str, args: tuple) -> None:
    if event == "object.__setattr__" and args[1] in ("__code__", "__bases__"):
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


def _version_tags(dicts: list) -> list | None:
    """Byte views of the version tags of ``dicts`` (of the dict behind a
    class's mapping proxy), each once, or None when this interpreter has
    none to read.  (A list of memoryviews compares with a list of bytes in
    one C loop: the cheapest read of many scattered words.)"""
    if _OFFSET[0] == _NO_OFFSET:
        _OFFSET[0] = _version_offset()
    offset = _OFFSET[0]
    if offset is None or not _start_audit():
        return None
    word = ctypes.sizeof(ctypes.c_ssize_t)
    real = {}
    for d in dicts:
        if isinstance(d, types.MappingProxyType):
            (d,) = gc.get_referents(d)
        real[id(d)] = d
    views = []
    for d in real.values():
        if type(d) is not dict or \
                ctypes.c_ssize_t.from_address(id(d) + offset - word).value != len(d):
            return None
        views.append(memoryview((ctypes.c_char * 8).from_address(id(d) + offset)).cast("B"))
    return views


class _Watch:
    """The digest of some objects' code, recomputed only when a namespace
    they live in gains or loses an entry, an entry is replaced (a
    monkeypatch, a reload), a function hashed is given other code
    (``f.__code__ = ...``) or a class other bases.

    Two checks, the second exact and the first sufficient:

    * fast (a few microseconds): no namespace watched has changed since the
      last check, by the dicts' version tags (:func:`_version_offset`), and
      no function in the process was given other code nor class other
      bases, by the audit hook (:class:`_Audit`);
    * when the fast check fails, or on an interpreter without version tags:
      the namespaces' sizes and their entries (gathered by ``itemgetter``),
      the hashed functions' code objects, the classes' bases and the
      wrappers' wrapped functions, compared in C with the ones kept from
      the last hash.  The kept ones are held, so they are never freed and
      the comparison's identity test settles every unchanged entry; a
      replaced entry is compared with ``==``, which for functions, classes
      and code is identity or content (any other value's code is not
      hashed, and an error in its ``==`` counts as a change).  When it finds
      nothing changed, the tags are read again for the next fast check."""

    def __init__(self, objects):
        self.objects = self.given = tuple(objects)
        self.snap: tuple | None = None
        self.value = ""
        self.tags: list | None = None           # views of the dicts' version tags
        self.seen: tuple | None = None          # (epoch, tags) at the last exact check

    def _state(self) -> tuple:
        return (list(map(len, self.dicts)),
                [g(d) for g, d in zip(self.getters, self.dicts)],
                list(map(_CODE_OF, self.functions)),
                list(map(_MRO_OF, self.classes)),
                list(map(_WRAPPED_OF, self.wrappers)))

    def _stamp(self) -> tuple | None:
        """What the fast check compares, read before an exact check; None
        when the fast check is not available, or not to be trusted yet."""
        tags = self.tags
        if tags is None:
            return None
        epoch = _Audit.epoch
        if not _settled():
            return None
        return epoch, list(map(bytes, tags))

    def unchanged(self) -> bool:
        if self.snap is None:
            return False
        seen = self.seen
        if seen is not None and seen[0] == _Audit.epoch and self.tags == seen[1]:
            return True
        stamp = self._stamp()      # before the comparison: a change after it is seen next time
        try:
            same = self._state() == self.snap
        except Exception:     # a key gone (KeyError), or a value's own ==
            return False
        if same:
            self.seen = stamp
        return same

    def digest(self) -> str:
        if self.unchanged():
            return self.value
        dicts: list = []
        classes: list = []
        for obj in self.objects:
            _dicts(obj, dicts, classes)
        functions: list = []
        wrappers: list = []
        for obj in self.objects:
            _codes(obj, functions, wrappers=wrappers)
        dicts += [vars(w) for w in wrappers if hasattr(w, "__dict__")]
        self.dicts, self.classes, self.wrappers = dicts, classes, wrappers
        self.getters = []
        for d in dicts:
            # a module's every entry (a None replaced by code counts too); a
            # class's entries whose code is hashed (an added one changes
            # the size)
            keys = list(d) if not isinstance(d, types.MappingProxyType) else [
                k for k in d if _hashed_member(k)]
            # itemgetter of one key returns the value itself, of two a tuple
            self.getters.append(itemgetter(*keys, *keys[:1]) if keys else _none)
        # each function's code is watched once (a module lists the ones it imports)
        self.functions = list({id(f): f for f in functions}.values())
        self.tags = _version_tags(dicts)
        self.seen = None
        stamp = self._stamp()
        self.snap = self._state()
        self.value = hashlib.sha256(b"".join(
            _code_bytes(f.__code__) for f in functions)).hexdigest()
        self.seen = stamp
        return self.value


_WATCHES: dict = {}    # by the ids of the objects, and by the id of a tuple given


def fingerprint(objects) -> str:
    """sha256 of the bytecode of the live code behind ``objects`` (functions,
    classes with their bases, modules with their functions and classes)."""
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
    """The well-formed ``proved`` records of a JSON file (none when it is
    missing or unreadable)."""
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and well_formed(v)}


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
        _SHIPPED = {k: v for k, v in _read(SHIPPED_FILE).items()
                    if "digest" in v and key(v["question"], v["digest"]) == k}
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
    for where, store in (("the proofs shipped with tilespec", _shipped),
                         ("disk cache", _disk)):
        rec = store().get(k)
        if rec is not None and rec["question"] == question and well_formed(rec, needs):
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
        tmp.write_text(json.dumps(disk))
        os.replace(tmp, path)
    except OSError:
        pass    # a read-only home: the proof is kept in memory only
