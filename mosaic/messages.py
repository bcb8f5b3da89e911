"""Mosaic's, Pallas's and XLA's error texts about a Pallas TPU kernel, read
into what they say: which check failed, on which operand, with which
layouts.  The texts are libtpu 0.0.42.1's and jax 0.10.2's (the recorded
corpus, tests/data/pallas/, holds one of each), and pytorch/xla#8732's older
wording ``XLA layout does not match MLIR layout ... expected X, got Y``.

>>> m = read_message("Failed to verify layout for Mosaic kernel operand 2: XLA layout "
...     "({1,0:T(128)}) does not match Mosaic layout ({1,0:T(128,128)}) for an operand of "
...     "shape f32[16,3072].\\nTry changing your kernel block shape to (128) to align with "
...     "the XLA layout.")
>>> m.check, m.operand, m.xla_layout, m.mosaic_layout, m.suggested_block
('layout-mismatch', 2, 'f32[16,3072]{1,0:T(128)}', 'f32[16,3072]{1,0:T(128,128)}', (128,))
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .vector_layout import ImplicitDim, MosaicCheckFailure, VectorLayout

__all__ = ["BODY_CHECKS", "CHECKS", "Message", "check_of", "layout_note", "operand_layouts",
           "operation_of", "read_message"]

#: Each check a kernel can fail, in the order the compiler meets them, and
#: how its message begins (a regular expression over the text).
CHECKS: dict[str, str] = {
    "pallas-block-shape": r"requires that the last two dimensions of your block shape",
    "pallas-block-shape-1d": r"requires that rank 1 block\s+shapes",
    "zero-size": r"vector types must have positive constant sizes|Invalid type:",
    "not-implemented": r"Not implemented: Only vector<|Reductions over \w+ not implemented"
                       r"|Not implemented: Unsupported|not implemented|failed to legalize operation"
                       r"|Unsupported element type for the selected reduction"
                       r"|not supported by this TPU generation",
    "shape-cast": r"unsupported shape cast",
    "layout-too-complicated": r"layout too complicated",
    "masking": r"subelement masking|Expected mask vector type",
    "invalid-input-layout": r"Invalid input layout",
    "misaligned-block-E2002": r"E2002|MisalignedBlockAndTiling",
    "layout-mismatch": r"does not match (?:Mosaic|MLIR) layout",
    "abort": r"Check failed|CHECK failed|^F\d{4} ",
}

#: What each check means, in one sentence.
MEANING = {
    "pallas-block-shape": "Pallas needs each block's last two dims divisible by 8 and 128, "
                          "or equal to the array's",
    "pallas-block-shape-1d": "Pallas needs a rank-1 block equal to the array, a multiple of "
                             "1024, or a power of 2 of at least 128 x (32 / bits)",
    "zero-size": "Mosaic's vectors must have a positive size in every dim",
    "not-implemented": "Mosaic has no lowering of this operation for this element type "
                       "or TPU generation",
    "shape-cast": "Mosaic cannot reshape this vector in its registers",
    "layout-too-complicated": "Mosaic cannot work with the tiling XLA gave this operand",
    "invalid-input-layout": "a vector layout's offset lies outside its vreg slice "
                            "(VectorLayout::isValid)",
    "misaligned-block-E2002": "the block is not a whole number of the operand's memory tiles",
    "layout-mismatch": "XLA laid the operand out with a tiling other than the one Mosaic "
                       "infers for it",
    "abort": "a CHECK of the compiler failed: it aborts the process",
    "masking": "Mosaic cannot mask part of a packed 32-bit word for this type on this "
               "generation",
}


#: The checks a message reports about lowering the kernel's body (its
#: operations), not about its block shapes or its operands' memory layouts;
#: "" is a message tilespec does not know.
BODY_CHECKS = ("not-implemented", "shape-cast", "masking", "invalid-input-layout", "abort", "")


def operation_of(text: str) -> str | None:
    """The MLIR operation a Mosaic message names ("The MLIR operation
    involved"), None when it names none.

    >>> operation_of('The MLIR operation involved:\\n  %5 = "tpu.dynamic_gather"(%4, %9)')
    'tpu.dynamic_gather'
    """
    m = re.search(r'operation involved:\s*(?:%[\w#]+ = )?"([\w.]+)"', text)
    return m.group(1) if m else None


def check_of(text: str) -> str:
    """The check a compiler message reports ("" when none is recognised).

    >>> check_of("INVALID_ARGUMENT: ... E2002: CompileTimeMosaicMisalignedBlockAndTiling")
    'misaligned-block-E2002'
    """
    for check in ("abort", "layout-mismatch", "misaligned-block-E2002", "pallas-block-shape",
                  "pallas-block-shape-1d", "zero-size", "shape-cast",
                  "layout-too-complicated", "invalid-input-layout", "masking",
                  "not-implemented"):
        if re.search(CHECKS[check], text, re.MULTILINE):
            return check
    return ""


@dataclass(frozen=True)
class Message:
    """One message read: the check, and what it names (None where it names
    nothing of the kind)."""

    check: str
    text: str
    operand: int | None = None
    shape: str | None = None
    xla_layout: str | None = None
    mosaic_layout: str | None = None
    suggested_block: tuple[int, ...] | None = None
    tiling: tuple[int, ...] | None = None
    block: tuple[int, ...] | None = None
    #: the MLIR operation the message names (:func:`operation_of`)
    operation: str | None = None

    @property
    def meaning(self) -> str:
        """The check in one sentence."""
        return MEANING.get(self.check, "a message tilespec does not know")


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text))


_MISMATCH = re.compile(
    r"operand (\d+)\s*:\s*XLA layout \(?(\{[^}]*\})\)? does not match Mosaic layout "
    r"\(?(\{[^}]*\})\)? for an operand of shape (\w+\[[\d,]*\])")
#: pytorch/xla#8732's wording (libtpu of early 2025).
_MISMATCH_OLD = re.compile(
    r"operand (\d+)\s*:\s*XLA layout does not match MLIR layout for an operand of shape "
    r"(\w+\[[\d,]*\]): expected (\{[^}]*\}), got (\{[^}]*\})")
_E2002 = re.compile(r"Operand of shape \(([^)]*)\) has tiling \(([^)]*)\), but its block "
                    r"shape \(([^)]*)\)")


def read_message(text: str) -> Message:
    """What a compiler message says (the first check it reports)."""
    check = check_of(text)
    m = _MISMATCH.search(text)
    if m:
        sug = re.search(r"block shape to \(([^)]*)\)", text)
        shape = m.group(4)
        return Message("layout-mismatch", text, int(m.group(1)), shape, shape + m.group(2),
                       shape + m.group(3), _ints(sug.group(1)) if sug else None)
    m = _MISMATCH_OLD.search(text)
    if m:
        # "expected" is the layout XLA gave the operand, "got" the one Mosaic
        # inferred (pytorch/xla#8732: XLA's T(128) against Mosaic's T(8,128))
        shape = m.group(2)
        return Message("layout-mismatch", text, int(m.group(1)), shape, shape + m.group(3),
                       shape + m.group(4))
    m = _E2002.search(text)
    if m:
        op = re.search(r"window params for (?:input|output) (\d+)", text)
        return Message("misaligned-block-E2002", text, int(op.group(1)) if op else None,
                       tiling=_ints(m.group(2)), block=_ints(m.group(3)))
    return Message(check, text, operation=operation_of(text))


_VPAD = re.compile(r'#tpu\.vpad<"(\d+),\{([\d*]+),([\d*]+)\},\((\d+),(\d+)\)(?:,(-\d(?:,-\d)?))?">')
_OPERANDS = re.compile(r" : \(([^)]*)\)\s*->")
_VECTOR = re.compile(r"vector<((?:\d+x)*)\w+>")


def operand_layouts(text: str) -> list[tuple[VectorLayout, tuple[int, ...]]]:
    """The ``in_layout`` of the MLIR operation a Mosaic message shows, each
    with the shape of the vector operand it lays out.

    >>> op = ('"vector.broadcast"(%76) {in_layout = [#tpu.vpad<"32,{*,128},(8,128)">]} : '
    ...       '(vector<1x128xi32>) -> vector<8x128xi32>')
    >>> [(str(v), s) for v, s in operand_layouts(op)]
    [('32,{*,128},(8,128)', (1, 128))]
    """
    ins = re.search(r"in_layout = \[([^\]]*)\]", text)
    ops = _OPERANDS.search(text)
    if not ins or not ops:
        return []
    shapes = [tuple(int(d) for d in m.group(1).split("x") if d)
              for m in _VECTOR.finditer(ops.group(1))]
    layouts = []
    for m in _VPAD.finditer(ins.group(1)):
        bits, o0, o1, t0, t1, implicit = m.groups()
        offsets = tuple(None if o == "*" else int(o) for o in (o0, o1))
        layouts.append(VectorLayout(int(bits), (offsets[0], offsets[1]), (int(t0), int(t1)),
                                    ImplicitDim(implicit) if implicit else ImplicitDim.NONE))
    return list(zip(layouts, shapes))


def layout_note(text: str) -> str | None:
    """Why Mosaic's message is what it is, from the layouts it names: an
    "Invalid input layout" names the operand layout ``VectorLayout::isValid``
    refuses and why; the CHECK of ``getImplicitTiledVals`` is a rank-1 value
    under a layout that covers two dims (jax-ml/jax#39366, reproduced with
    libtpu 0.0.42.1: tests/data/pallas/issues.json.gz).

    >>> layout_note('Invalid input layout ... in_layout = [#tpu.vpad<"32,{*,128},(8,128)">] '
    ...             '} : (vector<1x128xi32>) -> vector<8x128xi32>')
    'operand 0 (vector<1x128>) has layout 32,{*,128},(8,128): its lane offset 128 is not below the vreg slice of 128 lanes'
    """
    if check_of(text) == "invalid-input-layout":
        for i, (layout, shape) in enumerate(operand_layouts(text)):
            if layout.is_valid(shape=shape):
                continue
            what = f"operand {i} (vector<{'x'.join(map(str, shape))}>) has layout {layout}: "
            if len(shape) < layout.layout_rank:
                return what + (f"it covers {layout.layout_rank} dims of a rank-{len(shape)} "
                               f"value (no implicit dim)")
            try:
                rows, lanes = layout.vreg_slice()
            except MosaicCheckFailure:
                return what + "its tiling does not fit a vreg"
            for name, o, n in (("sublane", layout.offsets[0], rows),
                               ("lane", layout.offsets[1], lanes)):
                if o is not None and not 0 <= o < n:
                    return what + (f"its {name} offset {o} is not below the vreg slice of "
                                   f"{n} {name}s")
            return what + "its tiling is not a whole number of sublanes dividing the vreg's"
    m = re.search(r"arr\.size\(\) >= layout_rank\(implicit_dim\) \((\d+) vs\. (\d+)\)",
                  text)
    if m:
        return (f"a rank-{m.group(1)} value under a vector layout that covers {m.group(2)} dims "
                f"(no implicit dim): getImplicitTiledVals's CHECK aborts the compiler (reached "
                f"from inferReshape in libtpu 0.0.42.1, from VectorLayout::join in "
                f"jax-ml/jax#39366); keep the value rank 2, e.g. (1, n)")
    return None
