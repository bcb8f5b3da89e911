"""What a command found, written out: text, the JSON envelope
(docs/json.md) and SARIF 2.1.0, each rendered from the typed values the
prover returns and written as they come (:mod:`.envelope`, :mod:`.hlo`)."""

# What other packages ask of this one.
from .envelope import (  # noqa: F401
    FORMAT_VERSION,
    Entry,
    error_document,
    share_time,
    tool_version,
    write,
)
from .hlo import entries, write_sarif, write_text  # noqa: F401
