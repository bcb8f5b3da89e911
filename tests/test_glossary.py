"""docs/glossary.md explains every term the output of a set of commands uses.

The commands below run in this process; the terms are read off their output
by what marks a term: a count in a summary (``3 bitcast(s)``, ``0 reused``),
a label at the start of a line (``padded elements  24``), an acronym
(``TRT``) and a layout field in prose (``E(32)``).  Each must be an entry of
the glossary (``### term``, or one of ``### a, b``), and each entry names the
command whose output uses it.
"""

from __future__ import annotations

import re

import pytest
from locations import ROOT

from tilespec.cli.main import main

GLOSSARY = ROOT / "docs" / "glossary.md"

COMMANDS = [
    ["prove", "f32[m,n]{1,0:T(8,128)}", "--property", "injective"],
    ["explain", "bf16[4,8]{1,0:T(2,4)(2,1)}"],
    ["bitcast", "f32[8,128]{1,0:T(8,128)}", "f32[2,512]{1,0:T(8,128)}"],
    ["check-hlo", str(ROOT / "tests" / "data" / "hlo" / "tpu_style.hlo")],
    ["padding", "bf16[3,1000]{1,0:T(8,128)(2,1)}", "--any-tiles"],
    ["padding", "--report", str(ROOT / "tests" / "data" / "padding" /
                                "oom_report_disagrees.txt"), "--limit", "0"],
    ["cute", "f32[8,16]{1,0:T(8,128)}"],
]

#: Names, not words the output defines: the systems and formats it talks about.
NAMES = {"XLA", "JAX", "HLO", "TPU", "CPU", "GPU", "SARIF", "JSON"}
#: Units, counted in summaries.
UNITS = {"bytes", "bits", "s"}

SHAPE = re.compile(r"\w+\[[^\]]*\](\{[^}]*\})?")
COUNT = re.compile(r"(?:^|, |: |-- )\d[\d,]* ([a-z]+)(?:\(s\))?(?=[,;:]|$|\s+\[)")
LABEL = re.compile(r"^([A-Za-z][A-Za-z ]*?[a-z])\s{2,}\S")
ACRONYM = re.compile(r"\b([A-Z]{3,})\b")
FIELD = re.compile(r"\b([ELS])\(\d+\)")


def terms(text: str) -> set[str]:
    """The terms an output uses, by the marks above.

    >>> sorted(terms("module m: refuted -- 3 bitcast(s), 0 reused, 1 skipped  [0.2 s]"))
    ['bitcast', 'reused', 'skipped']
    >>> sorted(terms("padded elements  24\\n  TRT: ...\\neach element takes E(32) bits"))
    ['E(n)', 'TRT', 'padded elements']
    """
    found: set[str] = set()
    for line in text.splitlines():
        line = SHAPE.sub("SHAPE", line)
        found.update(m.group(1) for m in COUNT.finditer(line) if m.group(1) not in UNITS)
        label = LABEL.match(line)
        if label and not line.startswith("SHAPE"):
            found.add(label.group(1))
        found.update(m.group(1) for m in ACRONYM.finditer(line) if m.group(1) not in NAMES
                     and m.group(1) != "SHAPE")
        found.update(f"{m.group(1)}(n)" for m in FIELD.finditer(line))
    return found


def entries() -> dict[str, str]:
    """Each term of the glossary and its entry's text."""
    out = {}
    for block in re.split(r"^### ", GLOSSARY.read_text(), flags=re.M)[1:]:
        head, _, body = block.partition("\n")
        for term in head.split(", "):
            out[term.strip()] = body
    return out


def explained(term: str, glossary: dict[str, str]) -> bool:
    """An entry for the term, its singular, or (``XLA ArraySize``) its last words."""
    candidates = {term, term.rstrip("s"), term.removeprefix("XLA ")}
    return any(c in glossary for c in candidates)


@pytest.fixture(scope="module")
def outputs() -> dict[str, str]:
    import contextlib
    import io
    out = {}
    for argv in COMMANDS:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            main(argv)
        out[" ".join(argv[:2])] = buffer.getvalue()
    return out


def test_every_term_the_commands_print_is_in_the_glossary(outputs):
    glossary = entries()
    missing = sorted({(t, cmd) for cmd, text in outputs.items() for t in terms(text)
                      if not explained(t, glossary)})
    assert not missing, f"terms printed but not in docs/glossary.md: {missing}"


def test_the_terms_the_issue_names_are_explained():
    glossary = entries()
    for term in ["aligned elements", "TRT", "PRT", "cited", "decision", "reused", "proved",
                 "refuted", "unknown", "aborts", "combined dim", "tile", "E(n)", "L(n)", "S(n)"]:
        assert term in glossary, term


def test_every_entry_names_a_command_that_prints_it():
    for term, body in entries().items():
        assert re.search(r"Printed by: `tilespec [a-z-]+", body), term


# --- the numbers the docs state -----------------------------------------------------

def test_the_catalogue_size_the_docs_state_is_the_catalogue_s():
    # README's console block runs `tilespec prove` (tests/test_docs.py checks
    # its "238 checks"); the prose of the docs states it too
    from tilespec.prover.names import PROPERTY_NAMES
    from tilespec.prover.properties import CATALOGUE
    proofs = len(CATALOGUE) * len(PROPERTY_NAMES)
    readme = (ROOT / "README.md").read_text()
    assert f"\n{proofs} checks: {proofs} proved" in readme
    stated = re.findall(r"the built-in catalogue, ([\d,]+) proofs",
                        (ROOT / "docs" / "commands.md").read_text())
    assert stated and all(int(n.replace(",", "")) == proofs for n in stated), stated


def test_the_notebook_table_lists_every_notebook():
    readme = (ROOT / "README.md").read_text()
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert f"| `{nb.stem}` |" in readme, nb.name
    for lang in ("es", "ko"):
        for nb in sorted((ROOT / "notebooks" / lang).glob("*.ipynb")):
            assert f"`{lang}/{nb.stem[:2]}`" in readme, f"{lang}/{nb.name}"
