"""What a person reads: explanations in words, LaTeX, and figures.

Built on :mod:`tilespec.spec` (the numbers it shows are the spec's) and on
:mod:`tilespec.codegen` for closed forms; never imports a solver.
"""
