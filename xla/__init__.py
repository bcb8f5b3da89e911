"""Real XLA as the judge: tilespec's answers next to XLA's own.

:mod:`tilespec.xla.real` asks the XLA inside jaxlib (installed with the
``xla`` extra, ``pip install -e '.[xla]'`` in a clone) to parse, print, validate and
size shapes, in a subprocess so that an XLA abort is an answer, not a crash.
:mod:`tilespec.xla.compare` sets those answers beside tilespec's and names
each difference (``tilespec xla SHAPE...``).  :mod:`tilespec.xla.compiled`
(with the compiler-rule work) asks XLA's compiler for its bitcast-or-copy
decisions.  Nothing here imports jax until a question is asked.
"""
