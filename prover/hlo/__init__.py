"""HLO modules as XLA prints them (:mod:`.module`), and every layout claim in
one checked (:mod:`.check`)."""

from .module import parse_hlo

__all__ = ["parse_hlo"]

# What other packages ask of this one (`x as x`: re-exported for mypy).
from .baseline import (
    baseline_names as baseline_names,
    read_baseline as read_baseline,
    write_baseline as write_baseline,
)
from .check import (
    check_module as check_module,
)
from .corpus import (
    Tally as Tally,
    check_files as check_files,
    corpus_status as corpus_status,
    default_jobs as default_jobs,
    module_paths as module_paths,
)
from .files import (
    STDIN as STDIN,
    read_text as read_text,
    refuse_endless as refuse_endless,
)
from .findings import (
    NONE as NONE,
    RULES as RULES,
    Buffer as Buffer,
    Finding as Finding,
    Known as Known,
    Report as Report,
    check_options as check_options,
    reported_part as reported_part,
    select_findings as select_findings,
    verdict_of as verdict_of,
    verdict_part as verdict_part,
)
