"""Will a Pallas TPU kernel compile, and with which layouts: the checks of
:mod:`.blocks` and of Mosaic's lowering of the kernel's body, in the order
the compiler meets them (Pallas's block shapes; the body; Mosaic's window
check E2002), and the layout Mosaic gives each operand
(:func:`.memref.memref_tiling` as XLA text).

The kernels are the five of the recorded corpus (tools/pallas_corpus.py):
``copy``, ``add`` (two inputs), ``reduce`` (each row's max; blocks of whole
rows), ``transpose`` and ``reshape`` (a block flattened); ``blocks`` is any
kernel whose body is a plain copy of its blocks, for operands given one by
one.

>>> v = predict(Kernel("copy", (Operand((16, 3072), "f32", (8, 128)),), "v5e"))
>>> v.accepted, v.layouts
(True, ('f32[16,3072]{1,0:T(8,128)}', 'f32[16,3072]{1,0:T(8,128)}'))
>>> predict(Kernel("copy", (Operand((32, 512), "s8", (16, 128)),), "v5e")).check
'misaligned-block-E2002'
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spec import TilespecError
from .blocks import block_sizes, misaligned_block, pallas_block_failure
from .memref import GENERATIONS, SUBLANES, memref_bitwidth, memref_tiling, xla_layout_text

__all__ = ["KINDS", "Kernel", "Operand", "Verdict", "body_failure", "flatten_failure",
           "kernel_operands", "predict", "xla_failure"]

KINDS = ("copy", "add", "reduce", "transpose", "reshape")
#: The bodies written for a rank-2 operand (rows and columns), as recorded.
RANK_2_KINDS = ("reduce", "transpose", "reshape")


class KernelError(TilespecError):
    """A kernel description tilespec cannot read."""


@dataclass(frozen=True)
class Operand:
    """An array operand of a ``pallas_call``: its shape, XLA element type and
    block shape (None for a squeezed dim)."""

    shape: tuple[int, ...]
    element_type: str
    block: tuple[int | None, ...]
    #: the tiles XLA gives the operand (None: XLA's choice for a Pallas
    #: operand, which is Mosaic's rule)
    tiling: tuple[tuple[int, ...], ...] | None = None

    def __post_init__(self):
        if self.tiling is not None:
            object.__setattr__(self, "tiling", tuple(tuple(int(x) for x in t)
                                                     for t in self.tiling))
        object.__setattr__(self, "shape", tuple(int(d) for d in self.shape))
        object.__setattr__(self, "block", tuple(None if b is None else int(b)
                                                for b in self.block))
        if len(self.shape) != len(self.block):
            raise KernelError(f"block {self.block} and shape {self.shape} differ in rank")
        if any(d < 0 for d in self.shape) or any(b is not None and b < 0 for b in self.block):
            raise KernelError(f"negative size in shape {self.shape} or block {self.block}")

    @property
    def text(self) -> str:
        """The operand as XLA text without a layout: ``f32[16,3072]``."""
        return f"{self.element_type}[{','.join(map(str, self.shape))}]"


@dataclass(frozen=True)
class Kernel:
    """A kernel: its kind, its input operands, and the chip it is for."""

    kind: str
    inputs: tuple[Operand, ...]
    chip: str

    def __post_init__(self):
        object.__setattr__(self, "inputs", tuple(self.inputs))
        if self.kind not in KINDS + ("blocks",):
            raise KernelError(f"unknown kernel kind {self.kind!r}: one of "
                              f"{', '.join(KINDS + ('blocks',))}")
        if self.chip not in GENERATIONS:
            raise KernelError(f"unknown TPU chip {self.chip!r}: one of {', '.join(GENERATIONS)}")
        if not self.inputs:
            raise KernelError("a kernel takes at least one operand")
        rank = len(self.inputs[0].shape)
        if self.kind in RANK_2_KINDS and rank != 2:
            raise KernelError(f"the {self.kind} kernel modelled here takes a rank-2 operand, "
                              f"not rank {rank} (copy, add and blocks take any rank)")


def _cdiv(a: int, b: int) -> int:
    return -(-a // b) if b else 1


def kernel_operands(kernel: Kernel) -> tuple[tuple[Operand, ...], tuple[Operand, ...]]:
    """(inputs, outputs) as the ``pallas_call`` sees them."""
    x = kernel.inputs[0]
    shape, block, t = x.shape, x.block, x.element_type
    kind = kernel.kind
    if kind in ("blocks",):
        return kernel.inputs, ()
    if kind in ("copy", "add"):
        ins = (x, x) if kind == "add" else (x,)
        return ins, (x,)
    if kind == "reduce":
        return ((Operand(shape, t, (block[0], shape[1])),),
                (Operand((shape[0], 1), t, (block[0], 1)),))
    if kind == "transpose":
        return (x,), (Operand(shape[::-1], t, block[::-1]),)
    sizes = block_sizes(block)
    n = sizes[0] * sizes[1]
    grid = (_cdiv(shape[0], sizes[0]), _cdiv(shape[1], sizes[1]))
    return (x,), (Operand((*grid, n), t, (None, None, n)),)


@dataclass(frozen=True)
class Verdict:
    """What the model says of a kernel: compiles or not, the first check
    that fails (a name of :data:`.messages.CHECKS`) and why, and the layout
    Mosaic gives each operand, inputs then outputs, as XLA text."""

    accepted: bool
    check: str
    reason: str
    layouts: tuple[str, ...]
    operand: str = ""
    #: operands XLA copies into Mosaic's layout before the kernel
    copies: int = 0


#: Element types Mosaic's arithmetic takes per kernel body, by generation
#: (libtpu 0.0.42.1, read off the corpus): see :func:`body_failure`.
INT_ARITH = ("s32",)


def body_failure(kind: str, element_type: str, block, chip: str) -> tuple[str, str] | None:
    """The check Mosaic's (or Pallas's) lowering of the kernel body fails, and
    why; None when the body lowers."""
    sizes = block_sizes(block)
    if kind == "blocks":
        return None
    if 0 in sizes:
        return "zero-size", f"a block of size {tuple(block)}: Mosaic's vectors have no 0 dims"
    if kind == "reduce" and element_type in ("s8", "pred"):
        return "not-implemented", f"Pallas has no reduction over {element_type}"
    if kind == "reduce" and element_type in ("s4", "f8e4m3fn", "f8e5m2"):
        return "not-implemented", f"Mosaic has no max-reduction of {element_type} vectors"
    if kind == "add" and element_type in ("s8", "s4"):
        return "not-implemented", "Mosaic adds only vectors of 16- and 32-bit integers"
    if kind == "add" and element_type in ("f8e4m3fn", "f8e5m2"):
        return "not-implemented", f"Mosaic cannot legalize an addition of {element_type} vectors"
    if kind == "reshape" and sizes[-1] == 1:
        # a column flattens by gathering sublanes (tpu.dynamic_gather), which
        # libtpu 0.0.42.1 lowers from v5 on; one element needs no gather
        if sizes[0] > 1 and GENERATIONS[chip] < 5:
            return "not-implemented", (f"flattening a block of one column gathers sublanes; "
                                       f"{chip} has no sublane gather")
        return None
    if kind == "reshape" and sizes[-1] % 128:
        return "shape-cast", (f"flattening a block of {sizes[-1]} columns (not a multiple of "
                              f"128 lanes) is a shape cast Mosaic does not do")
    bits = memref_bitwidth(mosaic_type(element_type))
    if len(sizes) == 1 and sizes[0] % 128 and bits < 16 and (bits < 8 or GENERATIONS[chip] < 5):
        # a rank-1 block that ends inside a vreg row: its last packed word is
        # masked per element, which libtpu 0.0.42.1 does for 16 bits, and for
        # 8 bits from v5 on
        return "masking", (f"a rank-1 block of {sizes[0]} {bits}-bit elements ends inside a "
                           f"packed word; {chip} cannot mask {bits}-bit sub-elements")
    if kind == "reshape" and len(sizes) == 2 and sizes[0] > 1:
        return flatten_failure(element_type, sizes[1], chip)
    return None


#: 32-bit words in a vreg (8 sublanes x 128 lanes).
VREG_WORDS = 8 * 128


def flatten_failure(element_type: str, columns: int, chip: str) -> tuple[str, str] | None:
    """The check flattening a block of two or more rows of ``columns``
    (a multiple of 128) into one vector fails in libtpu 0.0.42.1, and why.

    This follows the compiler, not the open source: read off
    tests/data/pallas/boundary.json.gz (whole-block reshapes of 1 to 128
    rows and 128 to 4096 columns on v4, v5e and v5p; the row count past 1 does
    not matter).  A row of a bool block (an i1 vector, one element per
    32-bit word) flattens when it is whole vregs; a row that divides one
    vreg aborts (``tilesPerVreg``: ``rem == 0``), any other is a shape cast
    Mosaic does not do.  A row of a packed type flattens when it divides
    the vreg's 1,024 words; other rows are a shape cast for 4 bits, and for
    8 bits on v4 a packed word to mask in part ("Expected mask vector
    type"), unless the row is whole vregs (4,096 elements).

    >>> flatten_failure("s8", 3072, "v4")[0], flatten_failure("s8", 3072, "v5e")
    ('masking', None)
    >>> flatten_failure("pred", 512, "v5e")[0], flatten_failure("pred", 2048, "v5e")
    ('abort', None)
    """
    bits = memref_bitwidth(element_type) if element_type != "pred" else 1
    if element_type == "pred":
        if columns % VREG_WORDS == 0:
            return None
        if VREG_WORDS % columns == 0:
            return "abort", (f"flattening bool rows of {columns} (less than the vreg's "
                             f"{VREG_WORDS} words) aborts the compiler (Check failed: rem == 0)")
        return "shape-cast", (f"flattening bool rows of {columns} (not whole vregs of "
                              f"{VREG_WORDS}) is a shape cast Mosaic does not do")
    if bits >= 16 or VREG_WORDS % columns == 0:
        return None
    if bits == 4:
        return "shape-cast", (f"flattening rows of {columns} 4-bit elements (not dividing a "
                              f"vreg's {VREG_WORDS} words) is a shape cast Mosaic does not do")
    if bits == 8 and GENERATIONS[chip] < 5 and columns % (VREG_WORDS * 32 // bits):
        return "masking", (f"flattening rows of {columns} 8-bit elements ends rows inside "
                           f"packed words; {chip} cannot mask 8-bit sub-elements")
    return None


def xla_failure(kernel: Kernel) -> str | None:
    """Why XLA's TPU compiler aborts on the program around the kernel, before
    Mosaic sees it; None when it does not.

    Read off libtpu 0.0.42.1 (tests/data/pallas/boundary.json.gz): on v5p,
    the two bool -> int32 converts before an ``add`` of two bool arrays of
    32, 96 or 160 rows abort in ``fusion_emitter.cc`` ("Cannot find a valid
    window"), whatever the columns and blocks; 8 to 64, 128 and 256 rows do
    not, nor does v4, v5e or v6e, nor a copy of one bool array.  The rule
    below (an odd number of 32-row groups) fits every row count recorded,
    up to 256.

    >>> xla_failure(Kernel("add", (Operand((96, 128), "pred", (8, 128)),), "v5p"))[:21]
    "XLA's convert of bool"
    >>> xla_failure(Kernel("add", (Operand((64, 128), "pred", (8, 128)),), "v5p")) is None
    True
    """
    x = kernel.inputs[0]
    if (kernel.kind == "add" and x.element_type == "pred" and kernel.chip == "v5p"
            and len(x.shape) == 2 and x.shape[0] % 64 == 32):
        return (f"XLA's convert of bool {x.text} to int32 before the kernel aborts on v5p "
                f"(fusion_emitter.cc: Cannot find a valid window)")
    return None


def largest_rows(bitwidth: int) -> int:
    """The most rows of a tile Mosaic takes as XLA gives it for a kernel
    argument: the large second-minor tiling where libtpu enables it (8- and
    4-bit), else the sublanes (``getTilingFactor``'s ``large_tiling``)."""
    return {8: SUBLANES * 4, 4: SUBLANES * 8, 2: SUBLANES * 16}.get(bitwidth, SUBLANES)


def given_tiling(o: Operand) -> tuple[tuple[str, str] | None, tuple | None, int]:
    """What Mosaic makes of the tiling XLA gave operand ``o``: (the check it
    fails and why, or None; the tiles it reads the operand with, or None for
    its own rule's; how many copies XLA inserts).  Read off libtpu 0.0.42.1
    (tests/data/pallas/layouts.json.gz), the same on v4, v5e and v6e."""
    bits = memref_bitwidth(o.element_type)
    packing = 32 // bits
    first = o.tiling[0] if o.tiling else ()
    if len(first) == 1 and len(o.shape) >= 2:
        # libtpu reads a 1-d tile T(k) as the tile (k, 128); the open
        # inferLayout keeps the tiles XLA gave
        (k,) = first
        if bits < 32 or block_sizes(o.block) == o.shape:
            return ("abort", f"Mosaic reads XLA's tile T({k}) as ({k},128), larger than a "
                             f"vreg: Check failed: rem == 0 in tilesPerVreg"), None, 0
        return ("layout-mismatch", f"XLA's T({k}) is not Mosaic's ({k},128) for {o.text}"), \
            None, 0
    if len(first) != 2:
        return None, None, 0
    rows = first[0]
    if rows < packing:
        return ("layout-too-complicated", f"a tile of {rows} rows holds less than one packed "
                                          f"row of {packing} {bits}-bit elements"), None, 0
    if rows <= largest_rows(bits):
        return None, o.tiling, 0
    return None, None, 1


def mosaic_type(element_type: str) -> str:
    """The element type Mosaic's operand has: Pallas passes a bool array as
    int32 (``BOOL_MEMREF_TYPE`` in jax/_src/pallas/mosaic/lowering.py; XLA
    converts before and after the kernel)."""
    return "s32" if element_type == "pred" else element_type


def predict(kernel: Kernel) -> Verdict:
    """The model's verdict on ``kernel``."""
    ins, outs = kernel_operands(kernel)
    chip = kernel.chip
    tiles = {}
    copies = 0
    for i, o in enumerate(ins):
        if o.tiling is not None:
            _, taken, n = given_tiling(o)
            copies += n
            if taken is not None:
                tiles[i] = taken
    layouts = tuple(xla_layout_text(o.shape, mosaic_type(o.element_type), tiles[i] if i in tiles
                                    else memref_tiling(o.shape, memref_bitwidth(
                                        mosaic_type(o.element_type)), chip,
                                        output=i >= len(ins)))
                    if o.shape else "" for i, o in enumerate(ins + outs))
    for o in ins + outs:
        why = pallas_block_failure(o.shape, o.block, o.element_type, chip)
        if why:
            check = "pallas-block-shape" if len(o.shape) >= 2 else "pallas-block-shape-1d"
            return Verdict(False, check, why, layouts, o.text, copies)
    why = xla_failure(kernel)
    if why:
        return Verdict(False, "abort", why, layouts, kernel.inputs[0].text, copies)
    for o in ins:
        if o.tiling is not None:
            failure, _, _ = given_tiling(o)
            if failure:
                return Verdict(False, failure[0], failure[1], layouts, o.text, copies)
    x = kernel.inputs[0]
    body = body_failure(kernel.kind, x.element_type, x.block, chip)
    if body:
        return Verdict(False, body[0], body[1], layouts, x.text, copies)
    for i, o in enumerate(ins + outs):
        why = misaligned_block(o.shape, o.block, mosaic_type(o.element_type), chip,
                               tiles[i][0][0] if i in tiles else None, output=i >= len(ins))
        if why:
            return Verdict(False, "misaligned-block-E2002", why, layouts, o.text, copies)
    return Verdict(True, "", "", layouts, copies=copies)
