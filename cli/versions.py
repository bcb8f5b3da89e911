"""``tilespec xla-versions``: the XLA commits tilespec models, oldest first,
each with its date and what changed there; ``--xla VERSION`` on the commands
whose verdict depends on it takes any of them (a commit prefix, a date, or
``jaxlib-X.Y.Z``)."""

from __future__ import annotations

from ..spec import JAXLIB_XLA, NEWEST_XLA, XLA_HISTORY
from .envelope import Entry, emit


def cmd_xla_versions(args) -> int:
    built = {c.sha: f"jaxlib-{r}" for r, c in JAXLIB_XLA.items()}
    entries = [Entry.answer("xla_version", {}, {
        **c.to_json(), "newest": c == NEWEST_XLA, "jaxlib": built.get(c.sha)})
        for c in XLA_HISTORY]
    lines = [f"XLA as tilespec models it ({len(XLA_HISTORY)} commits of openxla/xla main, "
             f"oldest first; --xla takes a commit prefix, a date or jaxlib-X.Y.Z):"]
    for c in XLA_HISTORY:
        tags = [t for t in (built.get(c.sha), "newest, the default" if c == NEWEST_XLA
                            else None) if t]
        lines.append(f"  {c.label}  {c.changed}" + (f"  [{', '.join(tags)}]" if tags else ""))
    emit(args, entries, "\n".join(lines))
    return 0


def register(command) -> None:
    command("xla-versions", "the XLA commits tilespec models, and what changed at each",
            cmd_xla_versions)
