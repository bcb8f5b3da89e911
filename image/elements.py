"""Element values as numpy arrays and as bit patterns (codes).

Each element type has a numpy dtype for its values (:func:`value_dtype`):
numpy's own where there is one, ``ml_dtypes``' for ``bf16`` and the 8-, 6-
and 4-bit floats (``ml_dtypes`` comes with jax; it is imported only when
such a type is used), ``int8``/``uint8`` for the sub-byte integers
(``s1``-``s4``, ``u1``-``u4``) and ``bool`` for ``pred``.

An element's *code* is its bit pattern as an unsigned integer of the type's
storage width (:func:`spec.dtypes.storage_bits`); for a sub-byte type only
the low :func:`~spec.dtypes.bit_width` bits are set, as ``ml_dtypes`` stores
an ``int4`` in a byte (-1 is ``0x0F``).  Codes are what :mod:`image.bytes`
places into memory.

>>> value_dtype("bf16").name, value_dtype("s4").name, value_dtype("pred").name
('bfloat16', 'int8', 'bool')
>>> c = encode("s4", [[-1, 7, -8]])
>>> c.array.dtype.name, c.array.tolist(), hex(c.mask)
('uint8', [[255, 7, 248]], '0xf')
>>> decode("s4", (c.array & c.mask)).tolist()
[[-1, 7, -8]]
>>> encode("f32", [1.0]).array.tolist()
[1065353216]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..spec import ShapeError, bit_width, storage_bits
from .blocks import each_block

#: XLA's names of the types numpy has itself.
NUMPY_TYPES = {
    "pred": "bool", "s8": "int8", "s16": "int16", "s32": "int32", "s64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "f16": "float16", "f32": "float32", "f64": "float64",
    "c64": "complex64", "c128": "complex128",
}

#: XLA's names of the types ``ml_dtypes`` provides.
ML_TYPES = {
    "bf16": "bfloat16", "f4e2m1fn": "float4_e2m1fn",
    "f6e2m3fn": "float6_e2m3fn", "f6e3m2fn": "float6_e3m2fn",
    "f8e3m4": "float8_e3m4", "f8e4m3": "float8_e4m3", "f8e4m3fn": "float8_e4m3fn",
    "f8e4m3b11fnuz": "float8_e4m3b11fnuz", "f8e4m3fnuz": "float8_e4m3fnuz",
    "f8e5m2": "float8_e5m2", "f8e5m2fnuz": "float8_e5m2fnuz",
    "f8e8m0fnu": "float8_e8m0fnu",
}

#: The sub-byte integers, held as int8/uint8 values; ``ml_dtypes``' own
#: type of each is accepted as input too.
SUB_BYTE_INTS = {"s1": "int1", "s2": "int2", "s4": "int4",
                 "u1": "uint1", "u2": "uint2", "u4": "uint4"}


def _ml_dtypes() -> Any:
    try:
        import ml_dtypes
    except ImportError:  # pragma: no cover - a core dependency
        raise ShapeError("bf16 and the small float types need the package "
                         "ml_dtypes (pip install ml_dtypes)") from None
    return ml_dtypes


def value_dtype(element_type: str) -> np.dtype:
    """The numpy dtype that holds values of ``element_type``.

    >>> value_dtype("token")
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.ShapeError: token has no values to lay out
    """
    if element_type in NUMPY_TYPES:
        return np.dtype(NUMPY_TYPES[element_type])
    if element_type in ML_TYPES:
        found: np.dtype = np.dtype(getattr(_ml_dtypes(), ML_TYPES[element_type]))
        return found
    if element_type in SUB_BYTE_INTS:
        return np.dtype("int8" if element_type.startswith("s") else "uint8")
    raise ShapeError(f"{element_type} has no values to lay out")


def raw_dtype(element_type: str) -> np.dtype:
    """The dtype of raw bits of one byte or more that hold a value, as
    ``.npy`` files keep ``ml_dtypes`` arrays (``|V2`` for bf16): the value
    dtype, but ``ml_dtypes``' own for the sub-byte integers (``-1`` is
    ``0x0F`` in an ``int4``, 15 in an int8).

    >>> raw_dtype("s4").name, raw_dtype("bf16").name
    ('int4', 'bfloat16')
    """
    if element_type in SUB_BYTE_INTS:
        own: np.dtype = np.dtype(getattr(_ml_dtypes(), SUB_BYTE_INTS[element_type]))
        return own
    return value_dtype(element_type)


def code_dtype(element_type: str) -> np.dtype:
    """The unsigned integer of the type's storage width (``c128``, wider
    than any, keeps its own dtype: its codes are only copied).

    >>> code_dtype("bf16").name, code_dtype("s4").name, code_dtype("c128").name
    ('uint16', 'uint8', 'complex128')
    """
    values = value_dtype(element_type)
    bits = storage_bits(element_type)
    return values if bits > 64 else np.dtype(f"uint{bits}")


def code_mask(element_type: str) -> int:
    """The bits of a code that carry the value.

    >>> hex(code_mask("s4")), hex(code_mask("f32"))
    ('0xf', '0xffffffff')
    """
    return (1 << bit_width(element_type)) - 1


@dataclass(frozen=True)
class Codes:
    """Codes of an array, C-contiguous; ``mask``, when not None, must still
    be applied (the array holds the values' full bytes, e.g. an int8 -1
    for ``s4``, whose code is ``0x0F``)."""

    array: np.ndarray
    mask: int | None


def _integer_range(element_type: str) -> tuple[int, int]:
    bits = bit_width(element_type)
    if element_type.startswith("s"):
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def _extremes(a: np.ndarray) -> tuple[Any, Any]:
    """The least and greatest value of ``a`` (not empty), block by block, on
    the process's cores when ``a`` is large."""
    found: list[tuple[Any, Any]] = []

    def body(index: tuple[Any, ...], _: None) -> None:
        block = a[index]
        found.append((block.min(), block.max()))  # list.append is atomic

    each_block(a.shape, 1 << 22, lambda: None, body, a.nbytes)
    return min(lo for lo, _ in found), max(hi for _, hi in found)


def _check_range(element_type: str, a: np.ndarray) -> None:
    low, high = _integer_range(element_type)
    if a.size == 0:
        return
    if a.dtype.kind in "iu":
        info = np.iinfo(a.dtype)
        if info.min >= low and info.max <= high:
            return
    lo, hi = _extremes(a)
    if lo < low or hi > high:
        bad = lo if lo < low else hi
        raise ShapeError(f"value {bad} does not fit {element_type} "
                         f"({low} to {high})")


def _exact(source: np.dtype, target: np.dtype) -> bool:
    """Whether every value of ``source`` casts to a finite ``target`` (so the
    overflow check, two passes over the data, can be skipped).  Only
    numpy's own types are trusted: ``ml_dtypes`` calls e.g. int8 to
    float8_e4m3b11fnuz (largest 30) safe."""
    return source == target or (target.kind in "fc" and source.kind in "biufc"
                                and np.can_cast(source, target, "safe"))


def _saturation_limit(target: np.dtype) -> float | None:
    """For a float type with neither inf nor NaN (f4e2m1fn, the f6 types),
    to which casts saturate (1000 and NaN become 6 or -0 in f4e2m1fn): the
    least magnitude that rounds past its largest value (half an ulp above
    it); None for the others.

    >>> import ml_dtypes
    >>> _saturation_limit(np.dtype(ml_dtypes.float4_e2m1fn)), _saturation_limit(np.dtype("f4"))
    (7.0, None)
    """
    if target.kind in "fc" or target.name not in ML_TYPES.values():
        return None
    with np.errstate(all="ignore"):
        if not np.isfinite(np.array([np.inf]).astype(target).astype(np.float64))[0]:
            return None
    f = _ml_dtypes().finfo(target)
    return float(f.max) + 2.0 ** (int(f.maxexp) - 2 - int(f.nmant))


def _numpy_values(a: np.ndarray) -> np.ndarray:
    """``ml_dtypes``' values in a numpy type that holds them exactly:
    float32 for its floats, int8/uint8 for its integers (numpy's casting
    rules refuse some pairs of its types, bf16 to f16, int4 to s8, and
    numpy's checks, ``isfinite``, ``iinfo``, know only numpy's types).
    Known by name: their kind is ``V``, or ``f`` for float8_e5m2.

    >>> import ml_dtypes
    >>> _numpy_values(np.array([1.5], ml_dtypes.bfloat16)).dtype.name
    'float32'
    """
    name = a.dtype.name
    if name in ML_TYPES.values():
        return a.astype(np.float32)
    if name in SUB_BYTE_INTS.values():
        return a.astype(np.uint8 if name.startswith("u") else np.int8)
    return a


def _refuse_big_integers(element_type: str, a: np.ndarray) -> None:
    """Python integers past 64 bits, which numpy keeps as objects: the one
    the type cannot hold is named (any such array has one)."""
    low, high = _integer_range(element_type)
    for x in a.flat:
        if isinstance(x, int) and not isinstance(x, bool) and not low <= x <= high:
            raise ShapeError(f"value {x} does not fit {element_type} ({low} to {high})")


def encode(element_type: str, array: Any) -> Codes:
    """The codes of ``array``'s values as ``element_type``.

    Integers are taken if they fit the type (else one line says which value
    does not), floats and integers for the float types, bools for ``pred``.

    >>> encode("s8", [300])
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.ShapeError: value 300 does not fit s8 (-128 to 127)
    >>> encode("f8e4m3fn", [1, 1000.0])
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.ShapeError: value 1000.0 does not fit f8e4m3fn (it would become inf or NaN)
    >>> encode("s32", [1.5])
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.ShapeError: an array of float64 cannot hold s32 values (give integers)
    """
    try:
        a = np.asarray(array)
    except ValueError as e:   # numpy's ragged nesting, e.g. [[1, 2], [3]]
        raise ShapeError(f"the values are not a rectangular array: "
                         f"{str(e).splitlines()[0]}") from None
    target = value_dtype(element_type)
    given = a.dtype
    if given == object and target.kind in "iu":
        _refuse_big_integers(element_type, a)
    # A narrow float's own array may hold bits above its width, which
    # ml_dtypes reads (0x11 is -0.5 as f4e2m1fn, whose code is 0x9): its
    # values are taken as any others.
    narrow = element_type not in SUB_BYTE_INTS and bit_width(element_type) < target.itemsize * 8
    if (a.dtype != target or narrow) and a.dtype.name != SUB_BYTE_INTS.get(element_type):
        a = _numpy_values(a)
    kind = "integers" if target.kind in "iu" else "bools" if target.kind == "b" else "numbers"
    if element_type in SUB_BYTE_INTS:
        own = np.dtype(getattr(_ml_dtypes(), SUB_BYTE_INTS[element_type])) \
            if a.dtype.kind == "V" else None
        # (own is None otherwise: numpy reads a dtype == None as float64.)
        if own is not None and a.dtype == own:
            # ml_dtypes keeps the code in the low bits and ignores the others,
            # which a view of other data may have set (int8 -1 seen as int4).
            return Codes(np.asarray(a, order="C").view(np.uint8), code_mask(element_type))
        if a.dtype.kind not in "biu":
            raise ShapeError(f"an array of {given} cannot hold {element_type} "
                             f"values (give {kind})")
        _check_range(element_type, a)
        v = np.asarray(a.astype(target, copy=False), order="C")
        return Codes(v.view(np.uint8), code_mask(element_type))
    if target.kind in "iub":
        if a.dtype.kind not in ("b" if target.kind == "b" else "biu"):
            raise ShapeError(f"an array of {given} cannot hold {element_type} "
                             f"values (give {kind})")
        if target.kind != "b":
            _check_range(element_type, a)
        else:
            # numpy takes any byte but 0 for True (a view of other data); a
            # pred's code is 0 or 1.
            codes = np.empty(a.shape, np.uint8)
            np.minimum(a.view(np.uint8), 1, out=codes)
            return Codes(codes, None)
    elif not (a.dtype == target or a.dtype.kind in "biuf" or a.dtype.kind == target.kind == "c"):
        raise ShapeError(f"an array of {given} cannot hold {element_type} "
                         f"values (give {kind})")
    with np.errstate(all="ignore"):   # overflow is refused below, in one line
        v = np.asarray(a.astype(target, copy=False), order="C")
    if target.kind not in "iub" and a.dtype.kind in "biufc" and not _exact(a.dtype, target):
        overflow = ~np.isfinite(v) & np.isfinite(a)
        if overflow.any():
            bad = a.reshape(-1)[np.flatnonzero(overflow)[0]]
            raise ShapeError(f"value {bad} does not fit {element_type} "
                             "(it would become inf or NaN)")
        lost = np.isinf(a) & np.isnan(v) if a.dtype.kind in "f" else None
        if lost is not None and lost.any():
            # a type without infinities (f8e4m3fn, the fnuz types) casts it to NaN
            bad = a.reshape(-1)[np.flatnonzero(lost)[0]]
            raise ShapeError(f"value {bad} does not fit {element_type} "
                             "(it has no infinity: it would become NaN)")
        limit = _saturation_limit(target)
        if limit is not None:
            # Not finite in the type is impossible: the cast saturates.
            outside = ~(np.abs(a.astype(np.float64)) < limit)
            if outside.any():
                bad = a.reshape(-1)[np.flatnonzero(outside)[0]]
                raise ShapeError(f"value {bad} does not fit {element_type} (largest "
                                 f"{float(_ml_dtypes().finfo(target).max)}, no inf or NaN)")
    return Codes(v.view(code_dtype(element_type)), None)


def encode_value(element_type: str, value: Any, name: str | None = None) -> Any:
    """The code of one value (e.g. the padding), masked.  With ``name``, a
    value the type cannot hold is refused in one line that names it.

    >>> int(encode_value("s4", -1)), int(encode_value("bf16", 1.0)), int(encode_value("pred", 1))
    (15, 16256, 1)
    >>> encode_value("s4", 8, name="pad")
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.ShapeError: pad 8 is not a value of s4 (-8 to 7)
    >>> encode_value("u8", 1.5, name="--pad")
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.ShapeError: --pad 1.5 is not a value of u8 (give integers)
    """
    try:
        v = np.asarray(value)
    except ValueError:  # ragged nesting
        v = np.empty(0)
    if v.size != 1:
        named = f"{name} is " if name else ""
        raise ShapeError(f"{named}one value of {element_type}, not an array of {v.size}")
    v = v.reshape(1)
    if element_type == "pred" and v.dtype.kind in "iu" and v[0] in (0, 1):
        v = v.astype(bool)  # the default pad, 0, and 1 are a pred's values too
    try:
        c = encode(element_type, v)
    except ShapeError as e:
        if name is None:
            raise
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        # encode's reason is its message's last parenthesis: "(0 to 255)", "(give integers)"
        reason = re.search(r"\(([^()]*)\)$", str(e))
        raise ShapeError(f"{name} {shown} is not a value of {element_type} "
                         f"({reason.group(1) if reason else e})") from None
    code = c.array[0]
    return code if c.mask is None else code & c.mask


def decode(element_type: str, codes: np.ndarray, *, extended: bool = False) -> np.ndarray:
    """Values from codes (the array is reused where the dtype allows);
    bits above the type's width are ignored, sub-byte signed codes are
    sign-extended (``extended``: they already are), a ``pred`` is true when
    its code is not 0.

    >>> decode("s2", np.array([0, 1, 2, 3, 7], np.uint8)).tolist()
    [0, 1, -2, -1, -1]
    >>> decode("pred", np.array([0, 1, 2], np.uint8)).tolist()
    [False, True, True]
    """
    if element_type == "pred":
        out = np.empty(codes.shape, bool)
        np.not_equal(codes, 0, out=out)
        return out
    if element_type in SUB_BYTE_INTS:
        bits = bit_width(element_type)
        if element_type.startswith("s") and extended:
            return codes.view(np.int8)
        if element_type.startswith("s"):
            np.left_shift(codes, 8 - bits, out=codes)
            signed = codes.view(np.int8)
            np.right_shift(signed, 8 - bits, out=signed)
            return signed
        np.bitwise_and(codes, code_mask(element_type), out=codes)
        return codes
    if bit_width(element_type) < codes.dtype.itemsize * 8:  # f4e2m1fn, the f6 types
        # ml_dtypes reads bits above the width (0x11 is -0.5 as f4e2m1fn)
        np.bitwise_and(codes, code_mask(element_type), out=codes)
    return codes.view(value_dtype(element_type))
