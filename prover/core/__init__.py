"""The solver core: one solver call (:mod:`.solve`), the second opinion
(:mod:`.crosscheck`), the one naming scheme and the arithmetic on solver terms
(:mod:`.encode`), fact sets (:mod:`.facts`), the one search driver and its
one loop over candidate dims (:mod:`.search`), the elements a concrete scan
visits (:mod:`.sampling`), the mixed-radix lemma
(:mod:`.lemma`), the generic stage theorems (:mod:`.theorems`), linear forms
(:mod:`.linform`), bounds of named dims (:mod:`.bounds`) and the proof cache
(:mod:`.cache`).  Imports :mod:`tilespec.spec` and :mod:`tilespec.prover.result`
only."""
