"""The ``tilespec`` command line, kept apart from the prover it drives.

One module per concern registers its commands: :mod:`.main` (explain,
offset, locate and the parser), :mod:`.prove`, :mod:`.rules`,
:mod:`.regress` and :mod:`.teach`.
"""

from .main import EXIT_BAD_INPUT, main

__all__ = ["EXIT_BAD_INPUT", "main"]
