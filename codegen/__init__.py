"""Code written from the spec: closed forms (sympy), Python and C source for
``offset`` and ``locate``, and the copy between two layouts.

Nothing here is trusted for being generated: :mod:`tilespec.prover.codegen`
proves each piece equal to the spec.  Imports :mod:`tilespec.spec` only.
"""

# What other packages ask of this one (`x as x`: re-exported for mypy).
from .convert import (
    check_pair as check_pair,
    closed_form as closed_form,
    numpy_source as numpy_source,
)
from .expressions import (
    Code as Code,
    CodeArithmetic as CodeArithmetic,
    CodegenError as CodegenError,
)
from .symbolic import (
    c_source as c_source,
    formula as formula,
    python_source as python_source,
    simplified as simplified,
)
