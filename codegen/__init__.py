"""Code written from the spec: closed forms (sympy), Python and C source for
``offset`` and ``locate``, and the copy between two layouts.

Nothing here is trusted for being generated: :mod:`tilespec.prover.codegen`
proves each piece equal to the spec.  Imports :mod:`tilespec.spec` only.
"""
