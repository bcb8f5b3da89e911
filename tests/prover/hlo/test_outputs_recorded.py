"""check-hlo writes the same bytes as when tools/check_hlo_outputs.py
recorded it, on real TPU modules (the recorded corpus's largest programs,
sharded and not): text, ``--verbose --tables``, ``--json`` and SARIF, times
aside.  The reader's and the checker's fast paths (text read once per
distinct shape, sizes once per distinct shape, the JSON written from cached
pieces) must not change a verdict or a rendering."""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[3] / "tools"
sys.path.insert(0, str(TOOLS))
import check_hlo_outputs  # noqa: E402

#: Times differ from run to run: the text's ``[1.47 s]`` and JSON's ``"seconds"``.
TIMES = re.compile(r'\[\d+\.\d\d s( of checking)?\]|"seconds": [-+0-9.e]+')


def timeless(text: str) -> str:
    """``text`` with its times replaced by ``T``.

    >>> timeless('x [1.47 s] "seconds": 0.001, [2.00 s of checking]')
    'x T T, T'
    """
    return TIMES.sub("T", text)


@pytest.fixture(scope="module")
def recorded() -> dict:
    with gzip.open(check_hlo_outputs.OUT, "rt") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def today(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("tpu_modules")
    check_hlo_outputs.module_files(d)
    return check_hlo_outputs.outputs(d)


@pytest.mark.parametrize("run", list(check_hlo_outputs.RUNS))
def test_check_hlo_writes_the_recorded_bytes(recorded, today, run):
    assert timeless(today[run]) == timeless(recorded[run])
    assert len(today[run]) > 1000


def test_the_recorded_outputs_hold_decisions(recorded):
    # the comparison means something only if the modules decide bitcasts
    # and report padding
    document = json.loads(recorded["json"])
    rules = {r["check"] for r in document["results"]}
    assert {"check-hlo", "bitcast-proved", "padding"} <= rules
