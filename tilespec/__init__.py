"""tilespec: an executable specification and a verifier for XLA's tiled layouts.

Everything a user needs is importable from here; the solver is imported only
when a proving function is first used, so ``import tilespec`` stays light.

>>> import tilespec
>>> s = tilespec.parse_shape("bf16[1024,1024]{1,0:T(8,128)(2,1)}")
>>> tilespec.offset(s, (1, 0)), tilespec.offset(s, (0, 1)), tilespec.offset(s, (8, 0))
(1, 2, 8192)
>>> tilespec.locate(s, 2), tilespec.byte_size(s)
((0, 1), 2097152)

The package is three parts: :mod:`tilespec.spec` (the semantics; never
imports a solver), :mod:`tilespec.prover` (Z3 proofs about the spec) and
:mod:`tilespec.cli` (the ``tilespec`` command).
"""

from __future__ import annotations

from importlib import metadata as _metadata

from .spec import *  # noqa: F401,F403  (the semantics: light, no solver)
from .spec import __all__ as _spec_all

try:
    __version__ = _metadata.version("tilespec")
except _metadata.PackageNotFoundError:  # running from a source tree
    __version__ = "0+unknown"

#: Names that need the solver: resolved on first use (PEP 562), so that
#: ``import tilespec`` and ``tilespec --version`` never import z3.
_LAZY = {
    "prove": ".prover.properties",
    "PROPERTIES": ".prover.properties",
    "Result": ".prover.result",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'tilespec' has no attribute {name!r}")


__all__ = sorted(set(_spec_all) | set(_LAZY) | {"__version__"})
