"""Every command of ``tilespec``, in one table: the modules that add them,
in the order ``tilespec --help`` lists them.  Each defines
``register(command)``, where ``command(name, help, func)`` (from
:func:`tilespec.cli.main.build_parser`) returns an argparse sub-parser to
fill in; a new command is a new row here, and no branch anywhere else.
"""

from __future__ import annotations

from . import (
    codegen,
    cute,
    hlo,
    padding,
    pallas,
    pallas_order,
    prove,
    query,
    regress,
    rules,
    stablehlo,
    teach,
    tile,
    tpu,
    triton,
    versions,
    xla,
)

REGISTER = (
    query.register,     # explain, offset, locate
    prove.register,     # prove
    rules.register,     # bitcast, normalize, equivalent, check-rule
    regress.register,   # regress
    teach.register,     # draw, formula
    codegen.register,   # codegen: tile and untile code
    xla.register,       # xla: real XLA beside tilespec
    tpu.register,       # tpu-layout: the TPU compiler's layout of a parameter
    hlo.register,       # check-hlo, convert
    padding.register,   # padding: why a buffer is bigger, and smaller layouts
    cute.register,      # cute: CuTe layouts both ways
    tile.register,      # tile, untile: an array as a layout's exact bytes, and back
    versions.register,  # xla-versions: the XLA commits modelled
    triton.register,    # triton: Triton's linear layouts both ways
    pallas.register,    # pallas: will a Pallas TPU kernel compile, and Mosaic's layouts
    pallas_order.register,  # pallas-order: XLA's operand layout in Mosaic's order, all shapes
    stablehlo.register,  # stablehlo-tiling: a custom_call's result_tilings as XLA shapes
)
