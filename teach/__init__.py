"""What a person reads: explanations in words, LaTeX, and figures.

Built on :mod:`tilespec.spec` (the numbers it shows are the spec's) and on
:mod:`tilespec.codegen` for closed forms; never imports a solver.
"""

# What other packages ask of this one.
from .draw.figure import picture  # noqa: F401
from .explain import explain, format_explain, text_map  # noqa: F401
from .latex import latex_of  # noqa: F401
