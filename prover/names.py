"""Names and defaults the command line needs before any solver is loaded.

``tilespec --version``, ``--help`` and a parse error must not import Z3, so
the parser reads the property names and the default time limit from here;
:mod:`prover.properties.proof` and :mod:`prover.core.solve` hold the same values (a test
checks that they agree).

>>> PROPERTY_NAMES[:2], DEFAULT_TIMEOUT
(('in_bounds', 'injective'), 5.0)
"""

PROPERTY_NAMES = ("in_bounds", "injective", "bijective", "inverse",
                  "formula_equals_prt", "combine_equals_reshape", "packing")

#: Seconds per solver call (= ``prover.core.solve.DEFAULT_TIMEOUT``).
DEFAULT_TIMEOUT = 5.0
