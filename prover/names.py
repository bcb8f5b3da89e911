"""Names and defaults the command line needs before any solver is loaded.

``tilespec --version``, ``--help`` and a parse error must not import Z3, so
the parser reads the property names and the default time limit from here,
and so do :mod:`prover.properties.proof` and :mod:`prover.core.solve`: this
is their one definition.

>>> PROPERTY_NAMES[:2], DEFAULT_TIMEOUT
(('in_bounds', 'injective'), 5.0)
"""

PROPERTY_NAMES = ("in_bounds", "injective", "bijective", "inverse",
                  "formula_equals_prt", "combine_equals_reshape", "packing")

#: Seconds per solver call, unless the caller gives a time limit.
DEFAULT_TIMEOUT = 5.0

#: The modules of an XLA dump directory that ``check-hlo DIR`` reads: the
#: text after optimisation, not the ``...after_optimizations-buffer-assignment.txt``
#: (and similar) reports beside it, which are not HLO modules.
DUMP_GLOB = "*after_optimizations.txt"
