"""The prover: Z3 proofs about the spec.

Z3 is imported when it is first used, not when a module that uses it is
imported: a question answered by citing a kept proof (most of them, see
:mod:`tilespec.prover.core.cache`) is answered without loading the solver,
which costs more than the rest of a ``tilespec prove`` process.  Importing
this package puts a deferred module under the name ``z3`` in
``sys.modules``: ``import z3`` binds it, and the first attribute read
(``z3.Context``) runs z3's own code into that same module object, which from
then on is z3's module like any other.

>>> import sys
>>> loaded("z3") == ("z3" in sys.modules and type(sys.modules["z3"]) is type(sys))
True
"""

from __future__ import annotations

import importlib.util
import sys
import threading
import types

__all__ = ["loaded", "defer"]

_LOCK = threading.RLock()


class _Deferred(types.ModuleType):
    """A module found but not yet run; reading a name it lacks runs it."""

    def __getattr__(self, name: str):
        # dunders are introspection (``hasattr(m, "__wrapped__")``), not a
        # use of the module, except ``__all__`` (``from z3 import *``)
        if name.startswith("__") and name.endswith("__") and name != "__all__":
            raise AttributeError(name)
        with _LOCK:
            if type(self) is _Deferred:
                loader = self.__spec__.loader   # type: ignore[union-attr]
                self.__class__ = types.ModuleType  # type: ignore[assignment]
                try:
                    loader.exec_module(self)    # type: ignore[union-attr]
                except BaseException:
                    self.__class__ = _Deferred
                    raise
        return getattr(self, name)


def defer(name: str) -> None:
    """Put ``name`` in ``sys.modules`` without running it (nothing when it
    is imported already or not installed)."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
        return
    module = importlib.util.module_from_spec(spec)
    module.__class__ = _Deferred
    sys.modules[name] = module


def loaded(name: str) -> bool:
    """Has the module ``name`` been run (imported, and not merely deferred)?"""
    module = sys.modules.get(name)
    return module is not None and type(module) is not _Deferred


defer("z3")
