"""Every command builds its own typed entries: the envelope and the
renderers name no command, so a new command adds no branch there."""

import ast
import json

import pytest
from locations import ROOT

from tilespec.cli import main
from tilespec.cli.main import build_parser
from tilespec.prover.hlo import RULES

#: The modules every command's output passes through.
SHARED = sorted([ROOT / "cli" / "envelope.py", *(ROOT / "render").glob("*.py")])


def commands() -> set:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return set(sub.choices)


def literals(tree: ast.AST) -> set:
    """The strings a module's code holds, docstrings (examples) left out."""
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
            and node.body and isinstance(node.body[0], ast.Expr)}
    return {node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs}


@pytest.mark.parametrize("path", SHARED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_command_is_named_where_every_output_passes(path):
    # A command's name in these modules is a branch on that command.  An HLO
    # finding's rule code ("padding") is a finding's, not a command's.
    named = literals(ast.parse(path.read_text())) & (commands() - set(RULES))
    assert sorted(named) == []


def test_a_plot_that_cannot_be_written_is_bad_input(tmp_path, capsys):
    status = main(["padding", "f32[8,8]{1,0:T(8,128)}", "--plot",
                   str(tmp_path / "no" / "such" / "where.svg")])
    assert status == 2
    assert capsys.readouterr().err.startswith("tilespec: error: cannot write ")


def test_a_one_shape_rule_names_the_shape_of_each_result(capsys):
    a, b = "f32[3,5]{1,0}", "f32[3,5]{0,1}"
    main(["check-rule", "linear_index", a, b, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert [r["subject"] for r in doc["results"]] == [{"shape": a}, {"shape": b}]

