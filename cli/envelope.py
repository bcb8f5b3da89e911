"""Every command's output: its text, or under ``--json`` its results in
the one envelope (docs/json.md, schema.json), written by
:mod:`tilespec.render.envelope`.

A command builds its :class:`Entry` values from the typed values it has
(``Entry.of(result, subject)``, ``Entry.answer(check, subject, data)``)
and hands them, with its text, to :func:`emit`; under ``--json`` nothing
else is printed, and :func:`run` writes the envelope as the entries come.
Text and JSON are two renderings of the same run: no command is named
here.

>>> Entry({"shape": "f32[3]{0}"}, "offset", "ok").status
'ok'
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from importlib import resources
from typing import IO, Iterable, Iterator

from ..render import (
    FORMAT_VERSION,
    Entry,
    Rendered,
    share_time,
    tool_version,
    write,
    write_error,
)
from ..spec import TilespecError

__all__ = ["FORMAT_VERSION", "Entry", "emit", "output", "run", "schema",
           "tool_version", "write_error"]


def emit(args, entries: Iterable[Entry | Rendered], text: str | None = None) -> None:
    """A command's output: its ``text`` printed, or under ``--json`` its
    ``entries`` kept for :func:`run` (nothing printed; ``entries`` may be a
    generator, written as it yields)."""
    if getattr(args, "json", False):
        args.entries = entries
    elif text is not None:
        print(text)


@contextlib.contextmanager
def output(args) -> Iterator[IO[str]]:
    """Where a report goes: stdout, or ``-o FILE`` (check-hlo)."""
    path = getattr(args, "report_output", None)
    if path is None:
        yield sys.stdout
        return
    try:
        f = open(path, "w", encoding="utf-8")
    except (OSError, ValueError) as e:
        raise TilespecError(f"cannot write {path}: "
                            f"{getattr(e, 'strerror', None) or e}") from None
    with f:
        yield f


def run(args) -> int:
    """Run a command with ``--json``: the entries it emitted become the
    envelope (an answer without a time of its own takes its share of the
    run's)."""
    args.entries = ()
    start = time.perf_counter()
    status = args.func(args)
    entries = share_time(args.entries, time.perf_counter() - start)
    with output(args) as out:
        write(out, args.command, status, entries)
    return status


def schema() -> dict:
    """The JSON Schema of the envelope (shipped with the package)."""
    return json.loads(resources.files(__package__).joinpath("schema.json")
                      .read_text(encoding="utf-8"))
