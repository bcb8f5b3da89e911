"""Generated code proved equal to the spec: offset and locate in Python and C
(:mod:`.generated`, compiled first by :mod:`.compile_check`, counterexamples
replayed by :mod:`.replay`), and the copy between two layouts (:mod:`.convert`)."""
