"""Why is a buffer bigger than its data, and which layout would not be.

:func:`tilespec.prover.padding.advice.advise` is the one function that
answers it; :mod:`~tilespec.prover.padding.report` reads XLA's out-of-memory
reports and HLO dumps; :mod:`~tilespec.prover.padding.plot` draws where the
bytes go.
"""

# What other packages ask of this one (`x as x`: re-exported for mypy).
from .advice import (
    advise as advise,
    sizes_differ as sizes_differ,
)
from .frameworks import (
    JAX as JAX,
)
from .plot import (
    plot as plot,
)
from .report import (
    ReportEntry as ReportEntry,
    disagreements as disagreements,
    human_bytes as human_bytes,
    largest_buffers as largest_buffers,
    read_report as read_report,
)
