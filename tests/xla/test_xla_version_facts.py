"""The installed jaxlib answers as recorded in
tests/data/xla_versions/jaxlib_0.10.2.json (tools/xla_version_facts.py
wrote it): the record that places the binary on tilespec's version axis
(tests/prover/models/test_versions.py) is the binary's own answer."""

from __future__ import annotations

import json

import pytest
from locations import ROOT

from tilespec.xla import real

pytestmark = [
    pytest.mark.integration,  # asks real XLA (jaxlib) in a subprocess
    pytest.mark.skipif(not real.available(),
                       reason="real XLA is not installed (pip install -e '.[xla]')"),
]


def test_the_binary_answers_as_recorded():
    jaxlib = pytest.importorskip("jaxlib")
    recorded = json.loads((ROOT / "tests" / "data" / "xla_versions" / "jaxlib_0.10.2.json")
                          .read_text())
    if jaxlib.__version__ != recorded["jaxlib"]:
        pytest.skip(f"jaxlib {jaxlib.__version__} installed, the record is of "
                    f"{recorded['jaxlib']}")
    answers = real.validate([f["text"] for f in recorded["facts"]])
    for fact, a in zip(recorded["facts"], answers):
        assert (a.parsed, a.valid, a.reason) == (fact["parsed"], fact["valid"],
                                                 fact["reason"]), fact["text"]
        assert (a.aborted is None) == (fact["aborted"] is None), fact["text"]
