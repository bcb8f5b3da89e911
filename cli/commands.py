"""Every command of ``tilespec``, in one table: the modules that add them,
in the order ``tilespec --help`` lists them, with the commands each adds.
Each module defines ``register(command)``, where ``command(name, help,
func)`` (from :func:`tilespec.cli.main.build_parser`) returns an argparse
sub-parser to fill in; a new command is a new row here, and no branch
anywhere else.

A run of one command imports only the module that adds it (the others
import what their commands need: the HLO reader, Mosaic's model, Triton's,
...), so ``tilespec prove`` starts as fast as the prover allows; ``--help``
and an unknown command import every one.  A test checks each row's names
against what its module registers.

>>> [name for name, _ in registrations("prove")]
['prove']
>>> len(list(registrations(None))) == len(COMMANDS)
True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator

#: (module of :mod:`tilespec.cli`, the commands its ``register`` adds).
COMMANDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("query", ("explain", "offset", "locate")),
    ("prove", ("prove",)),
    ("rules", ("bitcast", "check-rule", "normalize", "equivalent")),
    ("regress", ("regress",)),
    ("teach", ("draw", "formula")),                 # figures, and the formula as text
    ("codegen", ("codegen",)),                      # tile and untile code
    ("xla", ("xla",)),                              # real XLA beside tilespec
    ("tpu", ("tpu-layout",)),                       # the TPU compiler's layout of a parameter
    ("hlo", ("check-hlo", "convert")),
    ("padding", ("padding",)),                      # why a buffer is bigger, smaller layouts
    ("cute", ("cute",)),                            # CuTe layouts both ways
    ("tile", ("tile", "untile")),                   # an array as a layout's exact bytes, and back
    ("versions", ("xla-versions",)),                # the XLA commits modelled
    ("triton", ("triton",)),                        # Triton's linear layouts both ways
    ("pallas", ("pallas",)),                        # will a Pallas TPU kernel compile
    ("pallas_order", ("pallas-order",)),            # XLA's operand layout in Mosaic's order
    ("stablehlo", ("stablehlo-tiling",)),           # a custom_call's result_tilings as shapes
)


def registrations(command: str | None) -> Iterator[tuple[str, Callable]]:
    """(module, its ``register``) for the module that adds ``command``, or
    for every module when ``command`` is None or no module adds it."""
    rows = [row for row in COMMANDS if command in row[1]] or COMMANDS
    for module, _ in rows:
        yield module, importlib.import_module(f".{module}", __package__).register
