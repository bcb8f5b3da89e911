"""What XLA's verifier and layout validator accept, without a solver.

A bitcast keeps the element type and count (``HloVerifier::HandleBitcast``
compares sizes; a reading exists only between equal counts); a
``bitcast-convert`` has the shape ``ShapeInference::InferBitcastConvertShape``
infers and the layout layout assignment gives it; a layout is one
:func:`tilespec.spec.text.parse_shape` accepts.
"""

from __future__ import annotations

import dataclasses

from ...spec import (
    LayoutError,
    Shape,
    TilespecError,
    bit_width,
    byte_size,
    format_shape,
    num_elements,
    parse_shape,
)
from .module import shape_prefix


def size_mismatch(src: Shape, dst: Shape) -> str | None:
    """Why a bitcast from ``src`` to ``dst`` is wrong whatever its bytes
    (element types or element counts differ), or None.

    Byte sizes that differ at equal counts are decided by
    :func:`~tilespec.prover.bitcast.decompose`, which refutes the
    bitcast with a replayed counterexample.

    >>> from tilespec.spec.text import parse_shape as p
    >>> size_mismatch(p("f32[8,16]{1,0}"), p("f32[2,32]{1,0}"))
    'element counts differ: 128 against 64'
    >>> size_mismatch(p("f32[8,16]{1,0}"), p("f16[8,32]{1,0}"))
    'element types differ: f32 against f16'
    >>> size_mismatch(p("f32[8,16]{1,0}"), p("f32[128]{0}")) is None
    True
    >>> size_mismatch(p("f32[2,2,2,3]{3,2,1,0}"), p("f32[5,5]{1,0}"))
    'element counts differ: 24 against 25'
    """
    if src.is_symbolic or dst.is_symbolic:
        return None
    if src.element_type != dst.element_type:
        return f"element types differ: {src.element_type} against {dst.element_type}"
    a, b = num_elements(src), num_elements(dst)
    if a != b:
        return f"element counts differ: {a} against {b}"
    return None


def data_op_mismatch(opcode: str, src: Shape, dst: Shape,
                     perm: tuple[int, ...] | None) -> str | None:
    """Why XLA's verifier rejects a ``copy``, ``transpose`` (``perm``) or
    ``reshape`` (``perm`` None) from ``src`` to ``dst`` whatever their
    layouts and element types, or None: a copy keeps the dims and a
    transpose permutes them (``ShapeVerifier::HandleCopy`` and
    ``HandleTranspose`` compare the result with the shape inferred from the
    operand); a reshape keeps the element count (``HandleReshape``).  The
    element type is not asked: a compiler verifying with
    ``allow_mixed_precision`` (the TPU compiler's copy f32 -> bf16) accepts
    another floating-point type.

    >>> from tilespec.spec.text import parse_shape as p
    >>> data_op_mismatch("copy", p("f32[8,128]{1,0}"), p("f32[2,512]{1,0}"), (0, 1))
    'copy keeps the dims: [8,128] against [2,512]'
    >>> data_op_mismatch("transpose", p("f32[8,4]{1,0}"), p("f32[4,8]{0,1}"), (1, 0)) is None
    True
    >>> data_op_mismatch("transpose", p("f32[8,4]{1,0}"), p("f32[4,8]{1,0}"), (0, 0))
    'dimensions={0,0} is not a permutation of the 2 dims'
    >>> data_op_mismatch("reshape", p("f32[8,4]{1,0}"), p("f32[30]{0}"), None)
    'element counts differ: 32 against 30'
    """
    if src.is_symbolic or dst.is_symbolic:
        return None
    if perm is None:
        a, b = num_elements(src), num_elements(dst)
        return None if a == b else f"element counts differ: {a} against {b}"
    if sorted(perm) != list(range(src.rank)):
        return (f"dimensions={{{','.join(map(str, perm))}}} is not a permutation of "
                f"the {src.rank} dims")
    want = [src.dims[i] for i in perm]
    if want != list(dst.dims):
        shown = (f"[{','.join(map(str, want))}] against "
                 f"[{','.join(map(str, dst.dims))}]")
        if opcode == "copy":
            return f"copy keeps the dims: {shown}"
        return f"transpose gives the operand's dims permuted: {shown}"
    return None


def _order(shape: Shape) -> str:
    return "{" + ",".join(map(str, shape.layout.minor_to_major)) + "}"


def _layout(shape: Shape) -> str:
    """The layout as XLA prints it, without the memory space."""
    text = format_shape(dataclasses.replace(
        shape, layout=dataclasses.replace(shape.layout, memory_space=0)))
    return text[text.index("{"):] if "{" in text else "{}"


def bitcast_convert_mismatch(src: Shape, dst: Shape) -> str | None:
    """Why XLA rejects a ``bitcast-convert`` from ``src`` to ``dst``, or None.

    Shapes as ``ShapeInference::InferBitcastConvertShape`` infers them (a
    wider type gains a minor dim of the width ratio, a narrower one loses it);
    layouts as layout assignment constrains them (bitcast-convert cannot
    change layout: equal ranks share the layout; otherwise the extra dim is
    the most minor and the other dims keep their order); and equal byte
    sizes, so sub-byte packing (``E(n)``) must agree.  Memory spaces are
    free: ``ShapeVerifier::HandleBitcastConvert`` compares the result with the
    inferred shape by ``ShapeUtil::Compatible`` (``CheckShape``'s default
    case, no layout), and a bitcast-convert writes a buffer of its own
    (xla/service/hlo_verifier.cc, ROCm/xla 183fa00cb5d8).

    >>> from tilespec.spec.text import parse_shape as p
    >>> bitcast_convert_mismatch(p("f32[8]{0}"), p("u8[8,4]{1,0}")) is None
    True
    >>> bitcast_convert_mismatch(p("f32[8]{0}"), p("u8[8,4]{0,1}"))
    'the new dim 1 must be the most minor: layout {0,1}'
    >>> bitcast_convert_mismatch(p("s8[8]{0}"), p("s4[8,2]{1,0}"))
    'byte sizes differ: 8 against 16'
    >>> bitcast_convert_mismatch(p("s8[8]{0}"), p("s4[8,2]{1,0:E(4)}")) is None
    True
    >>> bitcast_convert_mismatch(p("f32[16,128]{1,0:T(8,128)}"),
    ...                          p("u32[16,128]{1,0:T(8,128)S(1)}")) is None
    True
    >>> bitcast_convert_mismatch(p("f32[16,128]{1,0:T(8,128)}"), p("u32[16,128]{1,0}"))
    'layouts differ: {1,0:T(8,128)} against {1,0}'
    """
    if src.is_symbolic or dst.is_symbolic:
        return None
    complex_ = ("c64", "c128")
    if (src.element_type in complex_) != (dst.element_type in complex_):
        return "a conversion between complex and real types"
    # primitive_util::StorageBitWidth: the bit width, a byte for pred
    a, b = (8 if t == "pred" else bit_width(t) for t in (src.element_type, dst.element_type))
    if max(a, b) % min(a, b):
        return f"bit widths {a} and {b} do not divide"
    ratio = max(a, b) // min(a, b)
    wide, narrow = (src, dst) if a > b else (dst, src)
    if a == b:
        if src.dims != dst.dims:
            return "dims differ"
        if src.layout != dataclasses.replace(dst.layout,
                                             memory_space=src.layout.memory_space):
            return f"layouts differ: {_layout(src)} against {_layout(dst)}"
    else:
        if narrow.rank != wide.rank + 1 or narrow.dims[:-1] != wide.dims:
            return (f"dims must be the wider type's dims and {ratio}: "
                    f"{list(wide.dims)} against {list(narrow.dims)}")
        if narrow.dims[-1] != ratio:
            return f"the last dim {narrow.dims[-1]} is not the bit-width ratio {ratio}"
        order = narrow.layout.minor_to_major
        if order[0] != narrow.rank - 1:
            return (f"the new dim {narrow.rank - 1} must be the most minor: "
                    f"layout {_order(narrow)}")
        if order[1:] != wide.layout.minor_to_major:
            return (f"the other dims must keep their order: {_order(narrow)} against "
                    f"{_order(wide)}")
    x, y = byte_size(src), byte_size(dst)
    if x != y:
        return f"byte sizes differ: {x} against {y}"
    return None


def invalid_layout(text: str) -> str | None:
    """The validator's reason when ``text``, an instruction line, has a
    result layout it rejects; None when the line fails for another reason.

    >>> invalid_layout("%q = f32[4,8]{1,1} parameter(1)")
    'minor_to_major {1,1} is not a permutation of 0..1 (layout at column 9)'
    >>> invalid_layout("%q = f32[4,8]{1,0} frobnicate[") is None
    True
    """
    _, eq, rest = text.partition("=")
    if not eq:
        return None
    try:
        parse_shape(shape_prefix(rest)[0])
    except LayoutError as e:
        return str(e)
    except TilespecError:
        return None
    return None
