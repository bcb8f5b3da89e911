"""HLO modules as XLA prints them (:mod:`.module`), and every layout claim in
one checked (:mod:`.check`)."""

from .module import parse_hlo

__all__ = ["parse_hlo"]

# What other packages ask of this one.
from .check import check_module  # noqa: F401
from .corpus import (  # noqa: F401
    STDIN,
    check_files,
    corpus_status,
    default_jobs,
    module_paths,
    read_text,
    refuse_endless,
)
from .findings import NONE, RULES, Buffer, Finding, Report, select_findings, verdict_of  # noqa: F401
