"""Golden byte images for kernel tests: a ``.bin`` per shape, with a sidecar.

``tilespec regress SHAPE... --golden DIR`` writes, for each shape, the exact
bytes of a known array laid out by it (:func:`tilespec.image.to_bytes`,
padding zero bits) to ``DIR/NAME.bin`` and what a test needs to rebuild and check
them to ``DIR/NAME.json``: the shape, the element type and numpy dtype, the
dims, the length and SHA-256 of the image, and how the values are made.

The values are deterministic, no seed: element ``i`` (its row-major index
in the logical array) holds

* integer types: ``i mod 2**w`` read as a ``w``-bit integer (two's
  complement for the signed ones: ``s4`` runs 0..7, -8..-1, 0, ...);
* ``pred``: ``i`` odd;
* float types: ``i mod m``, ``m`` the largest power of two (at most 2**16)
  below which every integer is exact in the type (``bf16``: 256, ``f32``:
  65536, ``f8e4m3fn``: 16, ``f4e2m1fn``: 4);
* ``f8e8m0fnu`` (powers of two only): ``2 ** (i mod 16)``;
* complex types: ``i mod 65536`` as the real part, 0 as the imaginary.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> golden_values(shape("s4[2,10]{1,0}"))[0].tolist()[1]
[-6, -5, -4, -3, -2, -1, 0, 1, 2, 3]
>>> golden_values(shape("bf16[300]{0}"))[1]
'element i (row-major) holds i mod 256'
>>> name(3, "bf16[16,256]{1,0:T(8,128)(2,1)}")
'003_bf16_16_256_1_0_T_8_128_2_1'
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...image import SUB_BYTE_INTS, to_bytes, value_dtype
from ...spec import Shape, TilespecError, bit_width, byte_size, concrete_dims, format_shape

#: The largest modulus of the float values.
MAX_MODULUS = 1 << 16

#: The largest golden image (and logical array) written, in bytes: golden
#: images are for kernel tests, and the image and its values are held in memory.
MAX_IMAGE_BYTES = 1 << 30


def _exact_modulus(dtype: np.dtype) -> int:
    """The largest power of two m <= MAX_MODULUS with 0..m-1 exact in ``dtype``."""
    m = MAX_MODULUS
    while m > 1:
        probe = np.arange(m, dtype=np.float64)
        with np.errstate(all="ignore"):
            if (probe.astype(dtype).astype(np.float64) == probe).all():
                return m
        m //= 2
    return 1


def golden_values(shape: Shape) -> tuple[np.ndarray, str]:
    """The logical array of a golden image, and how it is made (one line).

    The values repeat with a short period (at most 2**16 elements), so one
    period is computed and repeated in the target dtype: no temporary wider
    than the output, whatever the array's size."""
    dims = concrete_dims(shape)
    t = shape.element_type
    dtype = value_dtype(t)
    n = int(np.prod(dims, dtype=object))
    if t == "pred":
        block, how = np.arange(2) == 1, "element i (row-major) holds i odd"
    elif dtype.kind in "iu" or t in SUB_BYTE_INTS:
        w = bit_width(t)
        signed = t.startswith("s")
        how = (f"element i (row-major) holds i mod 2**{w}"
               + (" as a signed integer" if signed else ""))
        if w > 16:
            # The period 2**w exceeds any array within MAX_IMAGE_BYTES: i itself.
            return np.arange(n, dtype=dtype).reshape(dims), how
        codes = np.arange(1 << w, dtype=np.int64)
        if signed:
            codes = np.where(codes >= 1 << (w - 1), codes - (1 << w), codes)
        block = codes.astype(dtype)
    elif t == "f8e8m0fnu":
        block = (2.0 ** np.arange(16)).astype(dtype)
        how = "element i (row-major) holds 2 ** (i mod 16)"
    else:
        m = _exact_modulus(np.dtype(np.float64) if dtype.kind == "c" else dtype)
        block, how = np.arange(m).astype(dtype), f"element i (row-major) holds i mod {m}"
    return np.resize(block, n).reshape(dims), how


def check_size(shape: Shape) -> None:
    """Refuse, with one line naming the size, a golden image larger than
    MAX_IMAGE_BYTES (its image or its logical values).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> check_size(shape("u8[4294967296]{0}"))
    Traceback (most recent call last):
    tilespec.spec.errors.TilespecError: u8[4294967296]{0}: a golden image of 4294967296 bytes is more than the limit of 1073741824 bytes (1 GiB)
    """
    values = int(np.prod(concrete_dims(shape), dtype=object)) \
        * value_dtype(shape.element_type).itemsize
    size = max(byte_size(shape), values)
    if size > MAX_IMAGE_BYTES:
        raise TilespecError(f"{format_shape(shape)}: a golden image of {size} bytes is "
                            f"more than the limit of {MAX_IMAGE_BYTES} bytes (1 GiB)")


def name(k: int, text: str) -> str:
    """A file name for the k-th shape: its text with every run of other
    characters than letters and digits as one ``_``."""
    return f"{k:03d}_" + re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")[:100]


@dataclass(frozen=True)
class Golden:
    """One golden image written: where, and its sidecar's content."""

    path: str
    sidecar: dict


def write_golden(shapes: list[Shape], directory: str) -> list[Golden]:
    """Write ``NAME.bin`` and ``NAME.json`` for each shape into ``directory``
    (made if missing, only once every shape has been checked)."""
    for s in shapes:
        check_size(s)
    out = Path(directory)
    written = []
    for k, s in enumerate(shapes):
        text = format_shape(s)
        values, how = golden_values(s)
        try:
            image = to_bytes(s, values).tobytes()
        except MemoryError:
            raise TilespecError(f"{text}: not enough memory for a golden image of "
                                f"{byte_size(s)} bytes") from None
        assert len(image) == byte_size(s)
        base = name(k, text)
        sidecar = {"shape": text, "element_type": s.element_type,
                   "dtype": str(values.dtype), "dims": list(values.shape),
                   "bytes": len(image), "sha256": hashlib.sha256(image).hexdigest(),
                   "file": base + ".bin", "values": how, "padding": "zero bits",
                   "made_by": "tilespec.to_bytes(shape, values)"}
        if out.exists() and not out.is_dir():
            raise TilespecError(f"{directory!r} is a file, not a directory for the images")
        try:
            # Made at the first image, so a refused run leaves no empty directory.
            out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise TilespecError(f"cannot make {directory!r}: {e.strerror or e}") from None
        try:
            (out / (base + ".bin")).write_bytes(image)
            (out / (base + ".json")).write_text(json.dumps(sidecar, indent=2) + "\n")
        except OSError as e:
            raise TilespecError(f"cannot write into {directory!r}: "
                                f"{e.strerror or e}") from None
        written.append(Golden(str(out / (base + ".bin")), sidecar))
    return written
