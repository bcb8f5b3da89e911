"""Every definition a proof depends on, as bytes that are the same in every
process running the same definitions.

A proof is about code, and code reads more than its own instructions: the
module-level values it looks up (a constant, a table of bit widths, an
arithmetic object), its default arguments, the cells of its closures, the
fields and methods of the classes it builds.  :class:`Definitions` writes
all of them, read from the live objects, for every module a proof's
statement reaches (:func:`reached`: the modules named, then every module of
the package whose functions, classes, instances or module objects they hold,
and so on), together with the source text of those modules:

* the live values see what runs, in this process: a module attribute
  rebound (``index.COMBINE = 2``), a table entry replaced, a default or a
  method monkeypatched;
* the source text sees every edit of a file, even one the walk of the
  values could not write (a new kind of object), in a new process.  It is
  read when the module is first walked: a file edited after its import
  gives a digest that matches neither version's, so nothing is cited for
  code that does not run.

A value the walk cannot write the same way in another process (an object
of a type it does not know) is written by its identity: the fingerprint is
then this process's own, and no proof kept by another process is cited.

What the walk saw that can change without a new entry in a namespace is
kept for the watch of :mod:`prover.core.cache`: every ``dict`` written (their
version tags), and the mutable objects that have none (lists, sets,
closure cells, objects with ``__slots__``), each with a snapshot.

>>> from tilespec.spec import dtypes
>>> a = Definitions().module(dtypes)
>>> len(a), a == Definitions().module(dtypes)
(64, True)
"""

from __future__ import annotations

import gc
import hashlib
import re
import site
import sys
import sysconfig
import types
from contextvars import ContextVar
from functools import partial

__all__ = ["Definitions", "reached", "code_bytes", "snapshot"]

#: The package whose modules are walked in full (``tilespec``).
_PACKAGE = __name__.split(".")[0]

#: Class and module entries that are not definitions: documentation,
#: annotations (text, under ``from __future__ import annotations``; the
#: source holds them), the interpreter's own slots and caches (``copyreg``
#: adds ``__slotnames__`` on first copy; ``abc`` keeps its registry in
#: ``_abc_impl``).
_NOT_DEFINITIONS = frozenset(("__doc__", "__dict__", "__weakref__", "__slotnames__",
                              "_abc_impl", "__module__", "__annotations__"))
#: A module's entries that say where it was found, not what it defines
#: (the source text is written instead), and the record ``warnings`` adds
#: to a module whose code has warned (``__warningregistry__``): which
#: warnings a process happened to see is no definition.
_NOT_MODULE_DEFINITIONS = frozenset(("__builtins__", "__spec__", "__loader__", "__file__",
                                     "__cached__", "__path__", "__warningregistry__"))


def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    try:
        roots.update(site.getsitepackages())
        roots.add(site.getusersitepackages())
    except AttributeError:      # an old virtualenv's site module
        pass
    return tuple(sorted(roots))


_LIBRARY_ROOTS = _library_roots()


def _is_library(module_name: str | None) -> bool:
    """Is ``module_name`` an installed library's (numpy, the standard
    library), written by name only?  The package's own modules, a test's,
    ``__main__`` and modules made at run time are walked in full."""
    known = _LIBRARY.get(module_name)
    if known is not None:
        return known
    if not module_name or module_name.split(".")[0] == _PACKAGE:
        return False
    module = sys.modules.get(module_name)
    if module is None:
        return False
    path = vars(module).get("__file__")
    _LIBRARY[module_name] = answer = module_name in sys.builtin_module_names or (
        isinstance(path, str) and path.startswith(_LIBRARY_ROOTS))
    return answer


_LIBRARY: dict = {}


def reached(modules, skip=()) -> list[types.ModuleType]:
    """``modules`` and every module of the package their definitions reach
    (a module object, or a function, class or instance defined there, at
    any depth), sorted by name; ``skip`` names modules left out (the proof
    store itself).

    >>> from tilespec.spec import index
    >>> names = [m.__name__ for m in reached((index,))]
    >>> "tilespec.spec.layout" in names and "tilespec.spec.arith" in names
    True
    """
    out: dict[str, types.ModuleType] = {}
    todo = list(modules)
    while todo:
        m = todo.pop()
        name = vars(m).get("__name__")
        if name in out or name in skip:
            continue
        out[name] = m
        walk = Definitions()
        walk.module(m)
        todo += [sys.modules[r] for r in sorted(walk.reaches) if r in sys.modules]
    return [out[k] for k in sorted(out)]


def _source(module) -> bytes:
    """The module's source file, as bytes (b"" for a module made at run
    time, which its values describe whole)."""
    spec = vars(module).get("__spec__")
    origin = getattr(spec, "origin", None) or vars(module).get("__file__")
    if not isinstance(origin, str) or not origin.endswith(".py"):
        return b""
    with open(origin, "rb") as f:
        return f.read()


def code_bytes(c) -> bytes:
    """What a code object does, as bytes, the same in every process
    (``marshal`` is not: its back-references depend on reference counts).
    Kept per code object (held, so its id is not reused): the fingerprints
    of overlapping sets of code write each function once per process."""
    kept = _CODE_BYTES.get(id(c))
    if kept is not None:
        return kept[1]
    parts = [c.co_code, repr((c.co_name, c.co_argcount, c.co_posonlyargcount,
                              c.co_kwonlyargcount, c.co_flags, c.co_names,
                              c.co_varnames, c.co_freevars, c.co_cellvars)).encode()]
    for k in c.co_consts:
        parts.append(code_bytes(k) if isinstance(k, types.CodeType)
                     else _constant(k).encode())
    data = b"".join(parts)
    _CODE_BYTES[id(c)] = (c, data)
    return data


_CODE_BYTES: dict[int, tuple] = {}


def _constant(k) -> str:
    # a frozenset constant (``x in {"a", "b"}``) iterates in hash order,
    # which differs between processes
    if isinstance(k, frozenset):
        return "frozenset(" + ",".join(sorted(map(_constant, k))) + ")"
    if isinstance(k, tuple):
        return "(" + ",".join(map(_constant, k)) + ")"
    return f"{type(k).__name__}:{k!r}"


def _global_names(c, out: set) -> set:
    out.update(c.co_names)
    for k in c.co_consts:
        if isinstance(k, types.CodeType):
            _global_names(k, out)
    return out


_PLAIN = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis),
          type(NotImplemented))
_DESCRIPTORS = (types.BuiltinFunctionType, types.MethodDescriptorType,
                types.WrapperDescriptorType, types.MethodWrapperType,
                types.GetSetDescriptorType, types.MemberDescriptorType,
                types.ClassMethodDescriptorType)


class Definitions:
    """One walk over some live objects, writing what they define.

    ``skip`` holds ids of objects that are state, not definitions (the
    stores' own memos): written as a mark, never walked.  ``tag`` reads a
    dict's version tag.  After :meth:`module` or :meth:`values`: ``dicts``
    lists every dict written, with ``tags`` as read before its entries;
    ``mutables`` every mutable object without a tag, with ``snapshots``
    taken before its contents; ``reaches`` the package's modules reached;
    ``foreign`` the types written by identity (empty when the digest is the
    same in every process running these definitions)."""

    def __init__(self, skip=frozenset(), tag=None):
        self.skip = skip
        self.tag = tag
        self.quiet = 0      # > 0 inside a library's object: written, not watched
        self.tags: list = []
        self.snapshots: list = []
        self.seen: dict[int, int] = {}
        self.held: list = []
        self.dicts: list = []
        self.mutables: list = []
        self.foreign: list[str] = []
        self.reaches: set[str] = set()
        self.current: str | None = None     # the module being walked
        self.parts: list[bytes] = []

    def module(self, m) -> str:
        """sha256 of one module's definitions: its source text and every
        value it defines.  The modules of the package they reach are
        gathered in ``reaches``, to be written by their own walks."""
        self.current = vars(m).get("__name__")
        try:
            source = _source(m)
        except OSError:     # gone or unreadable: this process's own
            source = b""
            self._foreign(m)
        self._put(b"M" + str(self.current).encode() + b"\0" + source)
        self._namespace(vars(m), _NOT_MODULE_DEFINITIONS)
        return self.digest()

    def values(self, objects) -> str:
        """sha256 of what some objects (functions, classes) define."""
        for o in objects:
            self._text("given")
            self.write(o)
        return self.digest()

    def digest(self) -> str:
        return hashlib.sha256(b"\0".join(self.parts)).hexdigest()

    def _elsewhere(self, v) -> bool:
        """Is ``v`` (a function or class) the one another module of the
        package defines under its name?  Then that module's walk writes
        it, and here it is named only."""
        module, qualname = v.__module__, v.__qualname__
        if module == self.current or not isinstance(module, str) \
                or module.split(".")[0] != _PACKAGE or "<" in qualname:
            return False
        found: object = sys.modules.get(module)
        for part in qualname.split("."):
            found = vars(found).get(part) if hasattr(found, "__dict__") else None
        if found is not v:
            return False
        self._reach(module)
        self._text(f"defined in {module}:{qualname}")
        return True

    def _reach(self, module_name) -> None:
        if isinstance(module_name, str) and module_name.split(".")[0] == _PACKAGE:
            self.reaches.add(module_name)

    def _put(self, data: bytes) -> None:
        # binary data (source, bytecode) with its length; text never holds
        # a NUL (names and reprs), so NUL separates the parts
        self.parts.append(b"%d:" % len(data) + data)

    def _text(self, text: str) -> None:
        self.parts.append(text.encode("utf-8", "backslashreplace"))

    def _namespace(self, d, skip=frozenset()) -> None:
        self._watch_dict(d)
        for name, value in list(d.items()):
            if name in _NOT_DEFINITIONS or name in skip:
                continue
            self._text(repr(name))
            self.write(value)

    def _watch_dict(self, d) -> None:
        """Keep ``d`` and, read before its entries, its version tag."""
        if self.quiet:
            return
        self.dicts.append(d)
        if self.tag is not None:
            self.tags.append(self.tag(d))

    def _watch_mutable(self, o) -> None:
        """Keep ``o`` and, read before its contents, what it holds."""
        if self.quiet:
            return
        self.mutables.append(o)
        self.snapshots.append(snapshot(o))

    def write(self, v) -> None:
        """Write one value: its kind, then what it holds."""
        t = type(v)
        if t in _PLAIN:
            self.parts.append(f"{t.__name__}:{v!r}".encode("utf-8", "backslashreplace"))
            return
        i = id(v)
        if i in self.skip:
            self.parts.append(b"state")
            return
        ref = self.seen.get(i)
        if ref is not None:
            self.parts.append(b"@%d" % ref)
            return
        self.seen[i] = len(self.seen)
        self.held.append(v)
        if (t is types.FunctionType or isinstance(v, type)) and self._elsewhere(v):
            return
        writer = _WRITERS.get(t)
        if writer is not None:
            writer(self, v)
        elif isinstance(v, types.ModuleType):
            name = vars(v).get("__name__")
            self._reach(name)
            self._text(f"module:{name}")
        elif isinstance(v, type):
            self._class(v)
        else:
            self._other(v)

    def _sequence(self, v) -> None:
        self._text(f"{type(v).__name__}:{len(v)}")
        if type(v) is list:
            self._watch_mutable(v)
        for x in v:
            self.write(x)

    def _dict(self, v) -> None:
        self._text(f"dict:{len(v)}")
        self._watch_dict(v)
        for k, x in list(v.items()):
            self.write(k)
            self.write(x)

    def _set(self, v) -> None:
        if type(v) is set:
            self._watch_mutable(v)
        self._text(f"{type(v).__name__}:{len(v)}")
        for part in sorted(self._apart(x) for x in v):
            self._put(part)

    def _method(self, v) -> None:
        self._text(type(v).__name__)
        self.write(v.__func__)
        if type(v) is types.MethodType:
            self.write(v.__self__)

    def _property(self, v) -> None:
        self._text("property")
        for f in (v.fget, v.fset, v.fdel):
            self.write(f)

    def _partial(self, v) -> None:
        self._text("partial")
        for x in (v.func, v.args, v.keywords):
            self.write(x)

    def _code(self, v) -> None:
        self._put(b"code:" + code_bytes(v))

    def _proxy(self, v) -> None:
        self._text("mappingproxy")
        self.write(_behind(v))

    def _pattern(self, v) -> None:
        self._text(f"pattern:{v.flags}:{v.pattern!r}")

    def _other(self, v) -> None:
        t = type(v)
        if isinstance(v, _DESCRIPTORS):
            owner = getattr(v, "__objclass__", None) or getattr(v, "__self__", None)
            owner_name = owner.__name__ if isinstance(owner, (type, types.ModuleType)) \
                else type(owner).__qualname__
            self._text(f"builtin:{owner_name}.{getattr(v, '__qualname__', v.__name__)}")
        elif hasattr(t, "tobytes") and hasattr(v, "dtype") and hasattr(v, "shape"):
            self._text(f"array:{v.dtype}:{v.shape}")     # numpy
            self._put(v.tobytes())
        elif hasattr(v, "__wrapped__") and callable(v):     # functools wrappers
            self._text(f"wrapper:{t.__module__}.{t.__qualname__}")
            params = getattr(v, "cache_parameters", None)
            self._text(repr(sorted(params().items())) if callable(params) else "")
            self.write(v.__wrapped__)
            if hasattr(v, "__dict__"):
                self.write(vars(v))
        elif type(v) is ContextVar:     # its value is state
            self._text(f"contextvar:{v.name}")
        elif _has_state(v):
            # a plain Python object: its class and its state; an installed
            # library's (a typing alias, a dataclass field) is written but
            # not watched: its library's state is not tilespec's definition
            library = _is_library(t.__module__)
            self.quiet += library
            self._text("instance")
            self.write(t)
            if hasattr(v, "__dict__"):
                self.write(vars(v))
            slots = _slots(t)
            if slots:
                self._watch_mutable(v)
                for name in slots:
                    self._text(repr(name))
                    self.write(getattr(v, name, _MISSING))
            self.quiet -= library
        elif _is_library(t.__module__) and not _ADDRESS.search(text := _repr(v)):
            # a library's object without Python state (a dtype): by its text
            self._text(f"object:{t.__module__}.{t.__qualname__}:{text}")
        else:
            self._foreign(v)

    def _apart(self, x) -> bytes:
        """``x`` written on its own, with references of its own (a set's
        elements, whose order differs between processes, are sorted by
        this)."""
        other = Definitions(self.skip, self.tag)
        other.reaches, other.held, other.current = self.reaches, self.held, self.current
        other.dicts, other.mutables = self.dicts, self.mutables
        other.tags, other.snapshots = self.tags, self.snapshots
        other.foreign = self.foreign
        other.write(x)
        return b"\0".join(other.parts)

    def _foreign(self, v) -> None:
        t = type(v)
        self.foreign.append(f"{t.__module__}.{t.__qualname__}")
        self._text(f"identity:{t.__module__}.{t.__qualname__}:{id(v)}")

    def _cell(self, cell) -> None:
        self._watch_mutable(cell)
        self._text("cell")
        try:
            self.write(cell.cell_contents)
        except ValueError:      # an empty cell
            self._text("empty")

    def _function(self, f) -> None:
        module = f.__module__
        self._reach(module)
        self._text(f"function:{module}.{f.__qualname__}")
        if _is_library(module):
            return
        self._put(b"code:" + code_bytes(f.__code__))
        self.write(f.__defaults__)
        self.write(f.__kwdefaults__)
        for cell in f.__closure__ or ():
            self._cell(cell)
        if vars(f):
            self.write(vars(f))
        home = sys.modules.get(module) if isinstance(module, str) else None
        if not (module.split(".")[0] == _PACKAGE and home is not None
                and f.__globals__ is vars(home)):
            # not tilespec's (a monkeypatch): the globals it reads; a
            # tilespec module's globals are written by that module's walk
            g = f.__globals__
            self._watch_dict(g)
            for name in sorted(_global_names(f.__code__, set())):
                if name in g:
                    self._text(repr(name))
                    self.write(g[name])

    def _class(self, k: type) -> None:
        name = f"{k.__module__}.{k.__qualname__}"
        if _is_library(k.__module__):
            self._text(f"class:{name}")
            return
        self._reach(k.__module__)
        self._text(f"class:{name}:{len(k.__bases__)}")
        for base in k.__bases__:
            self.write(base)
        self._namespace(_real_dict(k))


class _Missing:
    """An unset slot."""


_MISSING = _Missing()


def _real_dict(k: type) -> dict:
    """The dict behind a class's mapping proxy (its version tag is the one
    that changes)."""
    return _behind(vars(k))


def _behind(proxy) -> dict:
    """The mapping behind a mapping proxy."""
    (d,) = gc.get_referents(proxy)
    return d


def _slots(t: type) -> tuple[str, ...]:
    out: list[str] = []
    for klass in t.__mro__:
        s = vars(klass).get("__slots__", ())
        out += [s] if isinstance(s, str) else [x for x in s if x not in ("__dict__",
                                                                          "__weakref__")]
    return tuple(out)


def _has_state(v) -> bool:
    """Is ``v`` a plain Python object, whose state is its ``__dict__`` and
    slots?"""
    return hasattr(v, "__dict__") or bool(_slots(type(v)))


def snapshot(o):
    """What a mutable object without a version tag holds now (a cell's
    value, a list's or set's elements, an object's slots)."""
    if type(o) is types.CellType:
        try:
            return (o.cell_contents,)
        except ValueError:
            return ()
    if type(o) is list:
        return list(o)
    if type(o) is set:
        return set(o)
    return [getattr(o, name, _MISSING) for name in _slots(type(o))]


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _repr(v) -> str:
    """``repr(v)``, or a text with an address when it fails (so the
    object is written by its identity)."""
    try:
        return repr(v)
    except Exception:
        return " at 0x0"


_WRITERS = {
    tuple: Definitions._sequence, list: Definitions._sequence, dict: Definitions._dict,
    set: Definitions._set, frozenset: Definitions._set,
    types.FunctionType: Definitions._function,
    staticmethod: Definitions._method, classmethod: Definitions._method,
    types.MethodType: Definitions._method, property: Definitions._property,
    partial: Definitions._partial, types.CellType: Definitions._cell,
    types.CodeType: Definitions._code, types.MappingProxyType: Definitions._proxy,
    re.Pattern: Definitions._pattern, type: Definitions._class,
}
