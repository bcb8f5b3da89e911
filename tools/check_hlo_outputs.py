"""Record what ``check-hlo`` writes for a few real TPU modules of the
recorded corpus (tests/data/tpu/corpus.json.gz): the text (also with
``--verbose --tables``), ``--json`` and ``--format sarif`` of one run over
all of them, into tests/data/tpu/check_hlo_outputs.json.gz.
tests/prover/hlo/test_outputs_recorded.py checks that today's check-hlo
writes the same bytes (times aside): a change made for speed must not change
a verdict or a rendering.  Rerun only when a change of output is meant.

    python tools/check_hlo_outputs.py
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import sys
import tempfile
from pathlib import Path

from tilespec.cli.main import main as cli

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "tpu"
OUT = DATA / "check_hlo_outputs.json.gz"
#: (program, chip) of the modules recorded: the largest programs, sharded
#: and not, and the narrow element types.
MODULES = (("transformer_block", "v5e"), ("sharded_train", "v4"),
           ("sharded_attention", "v5p"), ("attention_heads", "tpu7x"),
           ("int4_matmul", "v6e"), ("conv_nhwc", "v5p"), ("fp8_matmul", "v6e"))
#: The runs recorded: a name and check-hlo's options.
RUNS = {"text": [], "verbose": ["--verbose", "--tables"], "json": ["--json"],
        "sarif": ["--format", "sarif"]}


def module_files(directory: Path) -> list[str]:
    """The recorded modules written into ``directory``, as relative file
    names (the outputs name them)."""
    with gzip.open(DATA / "corpus.json.gz", "rt") as f:
        corpus = json.load(f)
    names = []
    for program, chip in MODULES:
        (e,) = [e for e in corpus["modules"] if (e["program"], e["chip"]) == (program, chip)]
        name = f"module.{program}_{chip}.tpu_after_optimizations.txt"
        (directory / name).write_text(e["hlo"])
        names.append(name)
    return names


def outputs(directory: Path) -> dict[str, str]:
    """check-hlo's output of each run over the modules in ``directory``
    (run there, so that the file names are relative)."""
    here = os.getcwd()
    os.chdir(directory)
    try:
        files = sorted(str(p) for p in Path(".").glob("*.txt"))
        out = {}
        for run, options in RUNS.items():
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                cli(["check-hlo", *files, *options])
            out[run] = buffer.getvalue()
        return out
    finally:
        os.chdir(here)


def main() -> int:
    with tempfile.TemporaryDirectory() as d:
        module_files(Path(d))
        recorded = outputs(Path(d))
    # mtime 0: the same outputs give the same file
    with gzip.GzipFile(OUT, "wb", mtime=0) as f:
        f.write(json.dumps(recorded, indent=0, sort_keys=True).encode())
    print(f"{OUT}: {', '.join(f'{k} {len(v):,} characters' for k, v in recorded.items())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
