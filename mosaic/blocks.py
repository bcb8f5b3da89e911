"""The checks a Pallas TPU kernel's block shapes pass before it runs, as
predicates: Pallas's own (``_check_block_mappings`` in
``jax/_src/pallas/mosaic/lowering.py``, jax 0.10.2) and Mosaic's window
check E2002 (``CompileTimeMosaicMisalignedBlockAndTiling``, libtpu 0.0.42.1:
not in the open source; its rule read off the recorded corpus).

A block dim of None is squeezed: Pallas counts it as 1.

>>> pallas_block_failure((16, 3072), (4, 128), "f32", "v5e")
'block (4, 128): its last two dims must be divisible by 8 and 128, or equal the array (16, 3072)'
>>> pallas_block_failure((16, 3072), (8, 128), "f32", "v5e") is None
True
>>> misaligned_block((32, 512), (16, 128), "s8", "v5e")
'block (16, 128) of s8[32,512] is not a whole number of its (32, 128) tiles'
"""

from __future__ import annotations

from .memref import LANES, SUBLANES, memref_bitwidth, memref_tiling

__all__ = ["block_sizes", "misaligned_block", "pallas_block_failure"]


def block_sizes(block) -> tuple[int, ...]:
    """The block's dims with a squeezed (None) dim counted as 1."""
    return tuple(1 if b is None else int(b) for b in block)


def _bits_for_pallas(element_type: str) -> int:
    # Pallas keeps a bool block in memory as int32 (BOOL_MEMREF_TYPE)
    return 32 if element_type == "pred" else memref_bitwidth(element_type)


def pallas_block_failure(shape, block, element_type: str, chip: str) -> str | None:
    """Why Pallas refuses ``block`` for an array of ``shape`` (None: it
    does not): rank >= 2, the last two block dims divisible by 8 and 128 or
    equal to the array's; rank 1, equal to the array, a multiple of
    8 x 128, or a power of 2 of at least 128 x (32 / bits)."""
    bs = block_sizes(block)
    shape = tuple(shape)
    if not bs:
        return "a block of rank 0: Pallas needs rank >= 1"
    if len(bs) >= 2:
        ok = ((bs[-1] == shape[-1] or bs[-1] % LANES == 0)
              and (bs[-2] == shape[-2] or bs[-2] % SUBLANES == 0))
        if ok:
            return None
        return (f"block {tuple(block)}: its last two dims must be divisible by {SUBLANES} "
                f"and {LANES}, or equal the array {shape}")
    b, n = bs[0], shape[0]
    packing = 32 // _bits_for_pallas(element_type)
    chunk, least = SUBLANES * LANES, LANES * packing
    if b == n or b % chunk == 0 or (b >= least and b & (b - 1) == 0):
        return None
    return (f"rank-1 block ({b},): must equal the array ({n}), be a multiple of {chunk}, "
            f"or a power of 2 of at least {least}")


def misaligned_block(shape, block, element_type: str, chip: str,
                     rows: int | None = None, output: bool = False) -> str | None:
    """Mosaic's E2002: the block's last two dims must each be a multiple of
    the operand's memory tile (``rows``, or :func:`.memref.memref_tiling` of
    the whole array, an ``output``'s or an input's) or equal the array's
    dim.  None when they are.

    >>> misaligned_block((64, 16), (16, 16), "s8", "v5e")
    'block (16, 16) of s8[64,16] is not a whole number of its (32, 128) tiles'
    """
    bs = block_sizes(block)
    shape = tuple(shape)
    if len(shape) == 1:
        return None
    if rows is None:
        rows = memref_tiling(shape, memref_bitwidth(element_type), chip, output=output)[0][0]
    if (bs[-2] == shape[-2] or bs[-2] % rows == 0) and (bs[-1] == shape[-1]
                                                       or bs[-1] % LANES == 0):
        return None
    text = f"{element_type}[{','.join(map(str, shape))}]"
    return (f"block {tuple(bs[-2:])} of {text} is not a whole number of its "
            f"({rows}, {LANES}) tiles")
