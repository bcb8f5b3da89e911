"""Code written from the spec: closed forms (sympy), Python and C source for
``offset`` and ``locate``, and the copy between two layouts.

Nothing here is trusted for being generated: :mod:`tilespec.prover.codegen`
proves each piece equal to the spec.  Imports :mod:`tilespec.spec` only.
"""

# What other packages ask of this one.
from .convert import check_pair, closed_form, numpy_source  # noqa: F401
from .expressions import Code, CodeArithmetic, CodegenError  # noqa: F401
from .symbolic import c_source, formula, python_source, simplified  # noqa: F401
