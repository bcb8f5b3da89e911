"""A fresh ``tilespec prove`` whose answers are all citations loads no
solver: it parses, looks the citations up and prints."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

SHAPE = "bf16[m,n]{1,0:T(8,128)(2,1)}"


def _imported(stderr: str) -> list[str]:
    """The modules ``python -X importtime`` reports."""
    return [line.rsplit("|", 1)[1].strip() for line in stderr.splitlines()
            if line.startswith("import time:") and "|" in line]


@pytest.mark.integration
@pytest.mark.parametrize("json_output", [False, True])
def test_a_cited_prove_in_a_fresh_process_imports_neither_z3_nor_sympy(tmp_path, json_output):
    # an empty user cache: every answer cites the proofs shipped with tilespec
    env = {k: v for k, v in os.environ.items()
           if k not in ("TILESPEC_SHIPPED", "TILESPEC_CACHE")}
    env["TILESPEC_CACHE_DIR"] = str(tmp_path)
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tilespec", "prove", "--quiet",
         *(["--json"] if json_output else []), SHAPE],
        capture_output=True, text=True, env=env, check=False)
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    if json_output:
        results = json.loads(out.stdout)["results"]
        assert len(results) == 7 and all(r["status"] == "proved" for r in results)
    else:
        assert "7 checks: 7 proved" in out.stdout
    modules = _imported(out.stderr)
    assert "tilespec.prover.properties.proof" in modules     # the prover answered
    assert [m for m in modules if m.split(".")[0] in ("z3", "sympy")] == []
    # only the prove command's module: not the HLO reader, Mosaic's or
    # Triton's models, the byte images (cli.commands, render's door)
    assert [m for m in modules if m.startswith(("tilespec.prover.hlo", "tilespec.mosaic",
                                                "tilespec.triton", "tilespec.image",
                                                "tilespec.cli.hlo", "tilespec.teach"))] == []
