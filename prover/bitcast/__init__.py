"""Is SRC -> DST a bitcast?  One reading (a reshape or a transpose,
:mod:`.reading`), the readings in XLA's ``DecomposeBitcast`` order
(:mod:`.decompose`), and a reshape as groups of dims (:mod:`.reshape_groups`)."""
