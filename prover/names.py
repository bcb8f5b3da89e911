"""Names and defaults the command line needs before any solver is loaded.

``tilespec --version``, ``--help`` and a parse error must not import Z3, so
the parser reads the property names and the default time limit from here,
and so do :mod:`prover.properties.proof` and :mod:`prover.core.solve`: this
is their one definition.

>>> PROPERTY_NAMES[:2], DEFAULT_TIMEOUT
(('in_bounds', 'injective'), 5.0)

Every count the commands print is written by :func:`counted` (one byte,
two bytes), here so that every package that prints one can reach it.
"""

PROPERTY_NAMES = ("in_bounds", "injective", "bijective", "inverse",
                  "formula_equals_prt", "combine_equals_reshape", "packing")

#: Seconds per solver call, unless the caller gives a time limit.
DEFAULT_TIMEOUT = 5.0

#: The modules of an XLA dump directory that ``check-hlo DIR`` reads: the
#: text after optimisation, not the ``...after_optimizations-buffer-assignment.txt``
#: (and similar) reports beside it, which are not HLO modules.
DUMP_GLOB = "*after_optimizations.txt"


def counted(n: int | str, noun: str, plural: str | None = None, *,
            grouped: bool = False) -> str:
    """``n`` and the noun, singular for exactly one (``plural`` where the
    noun's plural is not ``noun + "s"``; ``grouped``: thousands separated
    by commas).  ``n`` may be a count already written (``"6*m"``).

    >>> counted(1, "byte"), counted(0, "byte"), counted(4096, "element", grouped=True)
    ('1 byte', '0 bytes', '4,096 elements')
    >>> counted(1, "entry", "entries"), counted("2*m", "entry", "entries")
    ('1 entry', '2*m entries')
    """
    text = str(n) if isinstance(n, str) else f"{n:,}" if grouped else f"{n}"
    return f"{text} {noun if text == '1' else plural or noun + 's'}"
