"""Which backend a module was compiled for, and whether it honours tiles.

A layout's tiles are a TPU's (and a GPU's) storage order.  XLA's CPU backend
lays an array out by ``minor_to_major`` alone: its ``IrArray`` linearises an
index with the dims in minor-to-major order, and nothing in
``xla/service/llvm_ir/ir_array.cc`` reads a tile (``IrArray::Index::Linearize``,
ROCm/xla 183fa00cb5d8), so a CPU dump whose tiles were forced
through ``jax.experimental.layout.Format`` stores every array row-major
whatever its tiles say.  A tiled bitcast that moves bytes only by its tiles is
then harmless there: reported at warning level with that fact (an error when
asked, ``--strict-tiles``); on TPU and GPU, and where the backend is not
known, it is an error.

>>> backend_of("dump/module_0001.jit_f.cpu_after_optimizations.txt")
'cpu'
>>> backend_of("module_0004.jit_step.tpu_after_optimizations.txt")
'tpu'
>>> backend_of("handwritten.hlo") is None
True
"""

from __future__ import annotations

import dataclasses
import re

from ...spec import Shape, TilespecError

#: The backends a module may be compiled for.
BACKENDS = ("cpu", "gpu", "tpu")

_IN_NAME = re.compile(r"(?:^|[._-])(cpu|gpu|tpu)(?=[._-]|$)")


def backend_of(path: str) -> str | None:
    """The backend a dump's file name names (``NAME.cpu_after_optimizations.txt``),
    or None."""
    found = _IN_NAME.findall(path.replace("\\", "/").rsplit("/", 1)[-1].lower())
    return found[-1] if found else None


def checked_backend(name: str | None) -> str | None:
    """``name`` if it is a backend (or None), else bad input.

    >>> checked_backend("tpu")
    'tpu'
    >>> checked_backend("npu")
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.TilespecError: backend 'npu': expected one of cpu, gpu, tpu
    """
    if name is not None and name not in BACKENDS:
        raise TilespecError(f"backend {name!r}: expected one of {', '.join(BACKENDS)}")
    return name


def ignores_tiles(backend: str | None) -> bool:
    """Whether ``backend`` stores arrays by ``minor_to_major`` whatever the
    tiles say (the CPU backend).

    >>> ignores_tiles("cpu"), ignores_tiles("tpu"), ignores_tiles(None)
    (True, False, False)
    """
    return backend == "cpu"


def untiled(shape: Shape) -> Shape:
    """``shape`` as the CPU backend stores it: its layout without tiles.

    >>> from tilespec.spec import format_shape
    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> format_shape(untiled(shape("f32[4,4,256]{2,1,0:T(8,128)}")))
    'f32[4,4,256]{2,1,0}'
    """
    return dataclasses.replace(shape, layout=dataclasses.replace(shape.layout, tiles=()))
