"""The tiling Mosaic gives a kernel's memrefs, per TPU generation and element
type, and the XLA layout text it is: ``getTilingFactor`` and ``inferLayout``
of ``jaxlib/mosaic/dialect/tpu/transforms/infer_memref_layout.cc`` at jax
43d14afad3^ (the pass left the open repository in 43d14afad3, 2025-11-19).

The flags (``TpuTilingFlags``) are those libtpu 0.0.42.1 sets for kernel
arguments, read off the recorded corpus (tests/data/pallas/): large second
minor tiling on for 8- and 4-bit types, off for 16-bit ones.

>>> memref_tiling((16, 3072), 32, "v5e")
((8, 128),)
>>> memref_tiling((17, 300), 16, "v5e")
((8, 128), (2, 1))
>>> memref_tiling((32, 512), 8, "v5e")            # large second minor: 4 x 8 rows
((32, 128), (4, 1))
>>> memref_tiling((1000,), 32, "v5e")
((1024,),)
>>> xla_layout_text((16, 3072), "f32", memref_tiling((16, 3072), 32, "v5e"))
'f32[16,3072]{1,0:T(8,128)}'
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spec import TilespecError, bit_width
from .vector_layout import PLAIN

__all__ = ["GENERATIONS", "TilingFlags", "KERNEL_ARGUMENT_FLAGS", "memref_bitwidth",
           "memref_tiling", "tiling_factor", "tiling_factor_in", "xla_layout_text"]

#: Chip -> TPU generation number (``hardware_generation``).
GENERATIONS = {"v2": 2, "v3": 3, "v4": 4, "v5e": 5, "v5p": 5, "v6e": 6, "tpu7x": 7}

LANES = 128
SUBLANES = 8
#: The fewest columns an 8- or 4-bit kernel input has for libtpu 0.0.42.1
#: to give it the large second-minor tiling (read off the compiler).
LARGE_TILING_MIN_COLUMNS = 16


class UnknownChip(TilespecError):
    """A chip name that is not a TPU generation tilespec knows."""


@dataclass(frozen=True)
class TilingFlags:
    """``TpuTilingFlags``: which large second-minor tilings XLA enables."""

    use_x16_large_second_minor: bool = False
    use_x8_large_second_minor: bool = False
    use_x4_large_second_minor: bool = False


#: The flags libtpu 0.0.42.1 compiles Pallas kernel arguments with (observed:
#: s8[32,512] gets T(32,128)(4,1), bf16[32,512] T(8,128)(2,1)).
KERNEL_ARGUMENT_FLAGS = TilingFlags(False, True, True)


def generation(chip: str) -> int:
    """The TPU generation of ``chip`` (``v5e`` -> 5)."""
    if chip not in GENERATIONS:
        raise UnknownChip(f"unknown TPU chip {chip!r}: one of {', '.join(GENERATIONS)}")
    return GENERATIONS[chip]


def memref_bitwidth(element_type: str) -> int:
    """Bits of one element in a Mosaic memref: XLA's ``pred`` is a byte in
    memory, which Mosaic reads as 8-bit integers."""
    return bit_width(element_type) if element_type != "pred" else 8


def tiling_factor(src_sublane: int, hardware_generation: int, bitwidth: int,
                  flags: TilingFlags = KERNEL_ARGUMENT_FLAGS, is_kernel_argument: bool = True,
                  is_1d: bool = False, sublanes: int = SUBLANES, minor: int | None = None,
                  output: bool = False) -> int:
    """``getTilingFactor``: the rows of a memref's tile (rank 1: in vregs of
    128 lanes).  ``minor``: the array's minor dim, which libtpu 0.0.42.1
    asks too where the open source asks the rows only: it gives an 8- or
    4-bit kernel input the large second-minor tiling only where the minor
    dim is at least :data:`LARGE_TILING_MIN_COLUMNS` (s8[64,15] is tiled 8
    rows, s8[64,16] 32, on v4, v5e, v5p and v6e), and an ``output`` only
    where the large tiling divides the minor dim (a transpose's s8[3072,16]
    is tiled 8 rows, s8[512,32] 32).

    >>> tiling_factor(3, 5, 32), tiling_factor(1, 5, 16), tiling_factor(64, 5, 8)
    (4, 2, 32)
    >>> tiling_factor(64, 5, 8, minor=15), tiling_factor(64, 5, 8, minor=16)
    (8, 32)
    >>> tiling_factor(64, 5, 8, minor=16, output=True)
    8
    """
    return tiling_factor_in(PLAIN, src_sublane, hardware_generation, bitwidth, flags,
                            is_kernel_argument, is_1d, sublanes, minor, output)


def tiling_factor_in(ops, src_sublane, hardware_generation: int, bitwidth: int,
                     flags: TilingFlags = KERNEL_ARGUMENT_FLAGS, is_kernel_argument: bool = True,
                     is_1d: bool = False, sublanes: int = SUBLANES, minor=None,
                     output: bool = False):
    """:func:`tiling_factor` written once over ``ops`` (:data:`PLAIN`, or
    Z3's in :mod:`.operand_order`): ``src_sublane`` and ``minor`` may be
    solver terms, the other arguments decide in Python.  The doubling loop
    of ``getTilingFactor`` is unrolled as often as it can run.

    >>> tiling_factor_in(PLAIN, 5, 5, 32)
    8
    """
    if bitwidth not in (2, 4, 8, 16, 32):
        raise TilespecError(f"Mosaic tiles memrefs of 2 to 32 bits, not {bitwidth}")
    packing = 32 // bitwidth
    min_tiling = (1 + (hardware_generation < 4)) * packing
    tiling_sublane = max(sublanes, packing)
    if is_1d:
        large = tiling_sublane
    elif bitwidth == 2:
        large = sublanes * 16
    elif bitwidth == 4 and flags.use_x4_large_second_minor:
        large = sublanes * 8
    elif bitwidth == 8 and flags.use_x8_large_second_minor:
        large = sublanes * 4
    elif bitwidth == 16 and (flags.use_x16_large_second_minor
                             or (not is_kernel_argument and hardware_generation >= 6)):
        large = sublanes * 2
    else:
        large = tiling_sublane
    misfit = src_sublane % large != 0
    if minor is not None and large > tiling_sublane:
        misfit = ops.or_(misfit, minor % large != 0 if output
                         else minor < LARGE_TILING_MIN_COLUMNS)
    chosen = ops.if_(misfit, tiling_sublane, large)
    bound = ops.if_(src_sublane < tiling_sublane, src_sublane, tiling_sublane)
    tiling, doubled = min_tiling, min_tiling
    while doubled < tiling_sublane:     # the loop runs at most this often
        tiling = ops.if_(tiling < bound, tiling * 2, tiling)
        doubled *= 2
    return ops.if_(chosen <= src_sublane, chosen, tiling)


def memref_tiling(shape, bitwidth: int, chip: str, flags: TilingFlags = KERNEL_ARGUMENT_FLAGS,
                  is_kernel_argument: bool = True,
                  output: bool = False) -> tuple[tuple[int, ...], ...]:
    """``inferLayout``: the tiles of a memref of ``shape``, outermost first;
    ``output``: the memref is a kernel's output (see :func:`tiling_factor`).

    >>> memref_tiling((64, 256), 4, "v6e")
    ((64, 128), (8, 1))
    >>> memref_tiling((64, 16), 8, "v5e"), memref_tiling((64, 16), 8, "v5e", output=True)
    (((32, 128), (4, 1)), ((8, 128), (4, 1)))
    """
    gen = generation(chip)
    if not shape:
        raise TilespecError("0-rank memref not supported")
    if len(shape) == 1:
        rows = -(-shape[0] // LANES)
        lead = tiling_factor(rows, gen, bitwidth, flags, is_kernel_argument, True) * LANES
        if bitwidth == 32:
            return ((lead,),)
        return ((lead,), (LANES,), (32 // bitwidth, 1))
    rows = tiling_factor(shape[-2], gen, bitwidth, flags, is_kernel_argument, False,
                         minor=shape[-1], output=output)
    if bitwidth == 32:
        return ((rows, LANES),)
    return ((rows, LANES), (32 // bitwidth, 1))


def xla_layout_text(shape, element_type: str, tiles, memory_space: int = 0) -> str:
    """The XLA shape text of a memref of ``shape`` with Mosaic's ``tiles``
    (row-major dims, the tiles as XLA prints them; a sub-byte type's
    element size ``E(n)`` as XLA prints it).

    >>> xla_layout_text((16, 3072), "f32", ((8, 128),), 1)
    'f32[16,3072]{1,0:T(8,128)S(1)}'
    >>> xla_layout_text((8, 128), "s4", ((8, 128), (8, 1)))
    's4[8,128]{1,0:T(8,128)(8,1)E(4)}'
    """
    order = ",".join(str(d) for d in reversed(range(len(shape))))
    t = "".join("(" + ",".join(str(x) for x in tile) + ")" for tile in tiles)
    ms = f"S({memory_space})" if memory_space else ""
    bits = bit_width(element_type)
    es = f"E({bits})" if bits < 8 else ""
    return f"{element_type}[{','.join(str(d) for d in shape)}]{{{order}:T{t}{es}{ms}}}"
