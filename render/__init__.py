"""What a command found, written out: text, the JSON envelope
(docs/json.md) and SARIF 2.1.0, each rendered from the typed values the
prover returns and written as they come (:mod:`.envelope`, :mod:`.hlo`)."""

# What other packages ask of this one (`x as x`: re-exported for mypy).
from typing import TYPE_CHECKING

from .envelope import (
    FORMAT_VERSION as FORMAT_VERSION,
    Entry as Entry,
    Rendered as Rendered,
    rendered as rendered,
    share_time as share_time,
    tool_version as tool_version,
    write as write,
    write_error as write_error,
)

# check-hlo's renderings need the HLO reader's types (prover.hlo): imported
# when first asked for, so that every other command starts without them.
_HLO = ("entries", "write_sarif", "write_text", "written_entries")

if TYPE_CHECKING:
    from .hlo import (
        entries as entries,
        write_sarif as write_sarif,
        write_text as write_text,
        written_entries as written_entries,
    )


def __getattr__(name: str):
    if name in _HLO:
        import importlib
        return getattr(importlib.import_module(".hlo", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
