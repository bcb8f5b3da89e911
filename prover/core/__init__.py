"""The solver core: one solver call (:mod:`.solve`), the second opinion
(:mod:`.crosscheck`), the one naming scheme and the arithmetic on solver terms
(:mod:`.encode`), fact sets (:mod:`.facts`), the one search driver and its
one loop over candidate dims (:mod:`.search`), the elements a concrete scan
visits (:mod:`.sampling`), the mixed-radix lemma
(:mod:`.lemma`), the generic stage theorems (:mod:`.theorems`) and the theorems per tiling
level (:mod:`.level_theorems`), linear forms
(:mod:`.linform`), bounds of named dims (:mod:`.bounds`) and the proof cache
(:mod:`.cache`).  Imports :mod:`tilespec.spec` and :mod:`tilespec.prover.result`
only."""

# What other packages ask of this one (`x as x`: re-exported for mypy).
from .bounds import (
    dim_ranges as dim_ranges,
    within as within,
)
from .crosscheck import (
    cross_checking as cross_checking,
)
from .encode import (
    Encoding as Encoding,
    SmtEncoding as SmtEncoding,
    Z3Arithmetic as Z3Arithmetic,
    internal_ints as internal_ints,
    internal_symbol as internal_symbol,
    readable as readable,
    scope as scope,
    smt as smt,
    user_symbol as user_symbol,
)
from .facts import (
    Facts as Facts,
)
from .lemma import (
    Lemma as Lemma,
)
from .level_theorems import (
    PRT_TO_STAGE as PRT_TO_STAGE,
    cite_levels as cite_levels,
)
from .linform import (
    Form as Form,
    add_same_offset as add_same_offset,
    constant as constant,
    group as group,
    horner_for as horner_for,
    spec_form as spec_form,
)
from .sampling import (
    EXHAUSTIVE as EXHAUSTIVE,
    SAMPLES as SAMPLES,
    element_grid as element_grid,
    sample_elements as sample_elements,
)
from .search import (
    candidate_dims as candidate_dims,
    drive as drive,
    first_refutation as first_refutation,
)
from .solve import (
    DEFAULT_TIMEOUT as DEFAULT_TIMEOUT,
    all_unsat as all_unsat,
    probe_values as probe_values,
    search as search,
)
from .theorems import (
    STAGE_CLASSES as STAGE_CLASSES,
    cite as cite,
    cited_lemma as cited_lemma,
)
