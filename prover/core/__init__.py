"""The solver core: one solver call (:mod:`.solve`), the second opinion
(:mod:`.crosscheck`), the one naming scheme and the arithmetic on solver terms
(:mod:`.encode`), fact sets (:mod:`.facts`), the one search driver and its
one loop over candidate dims (:mod:`.search`), the elements a concrete scan
visits (:mod:`.sampling`), the mixed-radix lemma
(:mod:`.lemma`), the generic stage theorems (:mod:`.theorems`), linear forms
(:mod:`.linform`), bounds of named dims (:mod:`.bounds`) and the proof cache
(:mod:`.cache`).  Imports :mod:`tilespec.spec` and :mod:`tilespec.prover.result`
only."""

# What other packages ask of this one.
from .bounds import dim_ranges, within  # noqa: F401
from .crosscheck import cross_checking  # noqa: F401
from .encode import (  # noqa: F401
    Encoding,
    SmtEncoding,
    Z3Arithmetic,
    internal_ints,
    internal_symbol,
    readable,
    scope,
    smt,
    user_symbol,
)
from .facts import Facts  # noqa: F401
from .lemma import Lemma  # noqa: F401
from .linform import Form, add_same_offset, constant, group, horner_for, spec_form  # noqa: F401
from .sampling import EXHAUSTIVE, SAMPLES, element_grid, sample_elements  # noqa: F401
from .search import drive, first_refutation  # noqa: F401
from .solve import DEFAULT_TIMEOUT, all_unsat, probe_values, search  # noqa: F401
from .theorems import STAGE_CLASSES, cite, cited_lemma  # noqa: F401
