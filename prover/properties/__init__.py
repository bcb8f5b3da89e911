"""Properties of one layout (in_bounds, injective, bijective, inverse,
formula_equals_prt, combine_equals_reshape, packing), proved for one shape or
for all shapes: :func:`tilespec.prover.properties.proof.prove`."""
