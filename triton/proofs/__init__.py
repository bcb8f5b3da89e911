"""Triton's linear layouts proved with Z3 on bit-vectors, answers replayed
on ints: each operation's law (:mod:`.laws`) and the linear layout of an
XLA layout equal to the spec's offsets (:mod:`.xla_equality`)."""
