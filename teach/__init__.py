"""What a person reads: explanations in words, LaTeX, and figures.

Built on :mod:`tilespec.spec` (the numbers it shows are the spec's) and on
:mod:`tilespec.codegen` for closed forms; never imports a solver.
"""

# What other packages ask of this one (`x as x`: re-exported for mypy).
from .draw.contrast import (
    contrast as contrast,
)
from .draw.figure import (
    picture as picture,
)
from .explain import (
    explain as explain,
    format_explain as format_explain,
    text_map as text_map,
)
from .latex import (
    latex_of as latex_of,
)
