"""Why is a buffer bigger than its data, and which layout would not be.

:func:`tilespec.prover.padding.advice.advise` is the one function that
answers it; :mod:`~tilespec.prover.padding.report` reads XLA's out-of-memory
reports and HLO dumps; :mod:`~tilespec.prover.padding.plot` draws where the
bytes go.
"""

# What other packages ask of this one.
from .advice import advise  # noqa: F401
from .plot import plot  # noqa: F401
from .report import ReportEntry, human_bytes, largest_buffers, read_report  # noqa: F401
