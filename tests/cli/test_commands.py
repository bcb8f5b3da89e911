"""cli.commands: the one table of commands, and a run importing only its own."""

from __future__ import annotations

import argparse
import importlib

import pytest

from tilespec.cli.commands import COMMANDS, registrations
from tilespec.cli.main import build_parser, command_named


def registered_by(module: str) -> list[str]:
    """The names ``module``'s ``register`` gives ``command``."""
    names: list[str] = []
    sub = argparse.ArgumentParser().add_subparsers()

    def command(name, help_, func):
        names.append(name)
        return sub.add_parser(name)

    importlib.import_module(f"tilespec.cli.{module}").register(command)
    return names


@pytest.mark.parametrize("module,names", COMMANDS)
def test_each_row_names_the_commands_its_module_registers(module, names):
    assert tuple(registered_by(module)) == names


def test_help_lists_every_command_of_the_table_in_its_order():
    choices = list(build_parser()._subparsers._group_actions[0].choices)
    assert choices == [n for _, names in COMMANDS for n in names]


@pytest.mark.parametrize("module,names", COMMANDS)
def test_a_run_builds_the_parser_of_its_own_command_only(module, names):
    for name in names:
        assert [m for m, _ in registrations(name)] == [module]
        assert list(build_parser(name)._subparsers._group_actions[0].choices) == list(names)


@pytest.mark.parametrize("argv,named", [
    (["prove", "f32[3]"], "prove"), (["--debug", "check-hlo", "x"], "check-hlo"),
    (["--help"], None), (["-h", "prove"], None), ([], None), (["proove", "x"], None),
    (["--version"], None)])
def test_the_command_a_run_names_is_read_before_parsing(argv, named):
    assert command_named(argv) == named
