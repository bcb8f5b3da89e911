"""Codes of ``E(n)`` bits each, packed into bytes as XLA packs them.

Element ``p`` of an image occupies bits ``[p*E, (p+1)*E)`` of the buffer,
bit ``i`` being bit ``i % 8`` of byte ``i // 8`` (:func:`spec.size.bit_range`):
element 0 in the low bits of byte 0.  Bits after the last element, up to
the end of the last byte, are written 0 and ignored when read (XLA's
device leaves them unspecified).  ``tests/xla/test_bytes_on_device.py``
checks this order against the raw bytes of int4 and int2 arrays on XLA's
CPU device.

Fast by construction: the elements that share a machine word (two ``s4``
in a byte, or the two ``bf16`` rows of a ``(2,1)`` tile in 32 bits) are
read as strided views, one per position in the word.  Fields of whole
bytes go into place by numpy's casts, which run in SIMD: widening ones,
onto the word shifted by the field's bytes, then or-ed (to bytes);
narrowing ones, from the words seen a few bytes on (back).  Narrower fields
are shifted and or-ed.  The work runs block by block (:mod:`image.blocks`),
so that a block's passes stay in the cache and the data crosses memory
once, on several threads for large arrays.

>>> import numpy as np
>>> pack(np.array([1, 2, 3], np.uint8), 4).tolist()          # 0x21, 0x03
[33, 3]
>>> unpack(np.array([0x21, 0x03], np.uint8), 3, 4, np.dtype(np.uint8)).tolist()
[1, 2, 3]
>>> pack(np.array([1, 0, 1, 1, 0, 0, 0, 0, 1], np.uint8), 1).tolist()
[13, 1]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import kernel
from .blocks import BLOCK_ELEMENTS, each_block

#: The unsigned integer sizes numpy computes with.
WORD_BITS = (8, 16, 32, 64)


def group(inner: int, bits: int, storage: int, strided: bool) -> int | None:
    """Elements per word when storing rows of ``inner`` elements of ``bits``
    bits (codes of ``storage`` bits); None when a plain copy does it
    (``bits == storage``) or no word fits (the caller packs the image flat).

    >>> group(2, 16, 16, True), group(128, 16, 16, True), group(128, 4, 8, False)
    (2, None, 2)
    """
    if bits == storage:
        return inner if strided and inner >= 2 and inner * bits in WORD_BITS else None
    if inner * bits in WORD_BITS:
        return inner
    if bits in WORD_BITS:
        return 1
    if 8 % bits == 0 and inner % (8 // bits) == 0:
        return 8 // bits
    return None


def _rows(x: np.ndarray) -> np.ndarray:
    """``x`` without trailing unit dims, at least 1-D (a view)."""
    dims = list(x.shape)
    while len(dims) > 1 and dims[-1] == 1:
        dims.pop()
    return x.reshape(dims or [1])


def word_group(x: np.ndarray, bits: int) -> int | None:
    """The group :func:`store` and :func:`load` would use for ``x``."""
    rows = _rows(x)
    strided = rows.strides[-1] != rows.itemsize
    return group(rows.shape[-1], bits, rows.itemsize * 8, strided)


def _words(buf: np.ndarray, rows: np.ndarray, g: int,
           bits: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """The words of ``buf`` and, for each position in a word, the codes of
    ``rows`` that go there, with the same dims (a whole row in one word:
    without the row's axis)."""
    word = np.dtype(f"<u{g * bits // 8}")
    if g == rows.shape[-1] and rows.ndim > 1:
        return (buf.view(word).reshape(rows.shape[:-1]),
                [rows[..., s] for s in range(g)])
    dims = rows.shape[:-1] + (rows.shape[-1] // g,)
    return buf.view(word).reshape(dims), [rows[..., s::g] for s in range(g)]


def _field_dtype(bits: int) -> np.dtype:
    """The narrowest unsigned integer that holds ``bits`` bits."""
    return np.dtype(f"<u{max(1, -(-bits // 8))}")


def _join(dst: np.ndarray, low: np.ndarray, high: np.ndarray, width: int) -> None:
    """``dst = high << width | low``, modulo ``dst``'s size.  The shift is a
    multiplication: numpy shifts bytes left one at a time but multiplies
    them in SIMD; and bits shifted past ``dst``'s top are dropped, never
    carried into a neighbour (see :func:`store`'s masks)."""
    np.multiply(high, dst.dtype.type(1 << width), out=dst, dtype=dst.dtype)
    np.bitwise_or(dst, low, out=dst)


class _Scratch:
    """A thread's buffers: ``bytes`` holds a block of words and one word
    more (room for views a few bytes on), :meth:`temporary` arrays of a
    block's size, one per key."""

    def __init__(self, word: np.dtype) -> None:
        self.word = word
        self.bytes = np.empty((BLOCK_ELEMENTS + 1) * word.itemsize, np.uint8)
        self.pool: dict[tuple[int, int], np.ndarray] = {}

    def words(self, shape: tuple[int, ...], offset: int = 0) -> np.ndarray:
        """A contiguous block of words ``offset`` bytes into the buffer."""
        block: np.ndarray = np.ndarray(shape, self.word, buffer=self.bytes, offset=offset)
        return block

    def temporary(self, key: tuple[int, int], dtype: np.dtype,
                  shape: tuple[int, ...]) -> np.ndarray:
        """An array of ``shape`` (a block's at most), the same for the same key."""
        if key not in self.pool:
            self.pool[key] = np.empty(BLOCK_ELEMENTS, dtype)
        return self.pool[key][:int(np.prod(shape))].reshape(shape)


def _store_fields(words: np.ndarray, parts: list[np.ndarray], bits: int,
                  mask: int | None) -> None:
    """Whole-byte fields (``bits % 8 == 0``): each part is cast, widened, to
    words placed ``s * bits / 8`` bytes on in a scratch buffer whose first
    bytes are zero (a cast's zero high bytes fall on the next word, which
    the next element then overwrites), and or-ed into the words: a cast and
    an or per field, both along contiguous blocks."""
    size, step = words.itemsize, bits // 8
    word_mask = None if mask is None else \
        words.dtype.type(sum(mask << (s * bits) for s in range(len(parts))))

    def body(index: tuple[Any, ...], scratch: _Scratch) -> None:
        out = words[index]
        np.copyto(out, parts[0][index], casting="unsafe")
        aligned = scratch.words(out.shape)
        for s in range(1, len(parts)):
            scratch.bytes[:size] = 0
            np.copyto(scratch.words(out.shape, s * step), parts[s][index], casting="unsafe")
            np.bitwise_or(out, aligned, out=out)
        if word_mask is not None:
            np.bitwise_and(out, word_mask, out=out)

    each_block(words.shape, BLOCK_ELEMENTS, lambda: _Scratch(words.dtype), body, words.nbytes)


def store(buf: np.ndarray, x: np.ndarray, bits: int, mask: int | None, g: int) -> None:
    """Pack the codes ``x`` (any strides), in row-major order, into the
    bytes ``buf`` (exactly ``x.size * bits / 8`` of them), ``g`` to a word
    (from :func:`word_group`); ``mask`` clears bits above the code.

    Fields of whole bytes are placed by casts (:func:`_store_fields`);
    narrower ones are joined pairwise, as a tree: neighbours into fields of
    twice the width, then those, so each pass works on the narrowest
    integers that hold its fields.
    """
    rows = _rows(x)
    words, parts = _words(buf, rows, g, bits)
    lib = kernel.library()
    if lib is not None and kernel.fits(words, parts, bits):
        field = (1 << bits) - 1 if mask is None else mask
        each_block(words.shape, BLOCK_ELEMENTS, lambda: None,
                   lambda index, _: kernel.store(lib, words[index + (...,)],
                                                 [p[index + (...,)] for p in parts], bits, field),
                   words.nbytes)
        return
    if g > 1 and bits % 8 == 0:
        _store_fields(words, parts, bits, mask)
        return

    # Bits above a code are cleared, except the top field's when the fields
    # fill the word and the code fills its field: joined as the high side at
    # every level, they end up past the word's top.  A code narrower than
    # its field (s2 in E(4)) would leave them inside the word.
    fills = mask is None or mask >= (1 << bits) - 1
    masked = g - 1 if g > 1 and g * bits == words.itemsize * 8 and fills else g

    def body(index: tuple[Any, ...], scratch: _Scratch) -> None:
        out = words[index]
        level = [p[index] for p in parts]
        if mask is not None:
            level = [np.bitwise_and(p, mask, out=scratch.temporary((0, i), rows.dtype, out.shape))
                     for i, p in enumerate(level[:masked])] + level[masked:]
        width = bits
        while len(level) > 1:
            joined = []
            for i in range(0, len(level), 2):
                dst = out if len(level) == 2 else \
                    scratch.temporary((2 * width, i), _field_dtype(2 * width), out.shape)
                _join(dst, level[i], level[i + 1], width)
                joined.append(dst)
            level, width = joined, 2 * width
        if g == 1:
            np.copyto(out, level[0], casting="unsafe")

    each_block(words.shape, BLOCK_ELEMENTS, lambda: _Scratch(words.dtype), body, words.nbytes)


def load(buf: np.ndarray, x: np.ndarray, bits: int, g: int, width: int,
         signed: bool = False) -> None:
    """The inverse of :func:`store`: fill the codes ``x`` (a writable view)
    from ``buf``, keeping the low ``width`` bits of each field; ``signed``
    sign-extends them (the codes are then the values' two's complement).

    Fields of whole bytes that are exactly the codes are cast, narrowed,
    from the words seen ``s * bits / 8`` bytes on (which keeps their low
    bytes): one cast per field.  Other fields take a shift and a mask.
    """
    rows = _rows(x)
    words, parts = _words(buf, rows, g, bits)
    lib = kernel.library()
    if lib is not None and kernel.fits(words, parts, bits) and 1 <= width <= bits:
        each_block(words.shape, BLOCK_ELEMENTS, lambda: None,
                   lambda index, _: kernel.load(lib, words[index + (...,)],
                                                [p[index + (...,)] for p in parts], bits,
                                                width, signed),
                   words.nbytes)
        return
    truncates = rows.itemsize * 8 == width  # the cast to the code drops the rest
    fields = g > 1 and bits % 8 == 0 and truncates
    word_bits = words.dtype.itemsize * 8
    as_signed = np.dtype(f"<i{words.dtype.itemsize}")
    code_signed = np.dtype(f"<i{rows.itemsize}")
    mask = (1 << width) - 1
    word = words.dtype.type

    def body(index: tuple[Any, ...], scratch: _Scratch) -> None:
        w = scratch.words(words[index].shape)
        np.copyto(w, words[index])
        tmp = scratch.temporary((0, 0), words.dtype, w.shape)
        for s, part in enumerate(parts):
            dst = part[index]
            if fields:
                np.copyto(dst, scratch.words(w.shape, s * bits // 8), casting="unsafe")
            elif signed:
                up = word_bits - s * bits - width
                # Multiplying shifts left: numpy shifts bytes left one at a
                # time, but multiplies them in SIMD.
                src = np.multiply(w, word(1 << up), out=tmp) if up else w
                np.right_shift(src.view(as_signed), word_bits - width,
                               out=dst.view(code_signed), casting="unsafe")
            elif truncates or s * bits + width >= word_bits:
                if s:
                    np.right_shift(w, s * bits, out=dst, casting="unsafe")
                else:
                    np.copyto(dst, w, casting="unsafe")
            elif s:
                np.right_shift(w, s * bits, out=tmp)
                np.bitwise_and(tmp, mask, out=dst, casting="unsafe")
            else:
                np.bitwise_and(w, mask, out=dst, casting="unsafe")

    each_block(words.shape, BLOCK_ELEMENTS, lambda: _Scratch(words.dtype), body, words.nbytes)


def _generic_pack(codes: np.ndarray, bits: int) -> np.ndarray:
    per = codes.dtype.itemsize * 8
    b = np.unpackbits(codes.view(np.uint8).reshape(-1, per // 8), axis=1, bitorder="little")
    b = b[:, :bits] if bits <= per else np.pad(b, ((0, 0), (0, bits - per)))
    return np.packbits(b.reshape(-1), bitorder="little")


def pack(codes: np.ndarray, bits: int, mask: int | None = None) -> np.ndarray:
    """Bytes of the 1-D contiguous ``codes`` at ``bits`` bits each."""
    n = codes.size
    out = np.zeros(-(-n * bits // 8), np.uint8)
    if bits == codes.itemsize * 8:
        out.view(codes.dtype)[...] = codes
        if mask is not None:
            np.bitwise_and(out.view(codes.dtype), mask, out=out.view(codes.dtype))
        return out
    step = 8 // bits if bits < 8 and 8 % bits == 0 else 1 if bits in WORD_BITS else 0
    main = n - n % step if step else 0
    if main:
        store(out[:main * bits // 8], codes[:main], bits, mask,
              group(main, bits, codes.itemsize * 8, False) or 1)
    if main < n:
        tail = codes[main:] & mask if mask is not None else codes[main:]
        out[main * bits // 8:] = _generic_pack(np.ascontiguousarray(tail), bits)
    return out


def unpack(buf: np.ndarray, n: int, bits: int, code: np.dtype) -> np.ndarray:
    """The first ``n`` codes (of dtype ``code``) held in ``buf``; bits of
    a field beyond the code's width are dropped."""
    per = code.itemsize * 8
    if bits == per:
        return np.array(buf[:n * per // 8].view(code))
    step = 8 // bits if bits < 8 and 8 % bits == 0 else 1 if bits in WORD_BITS else 0
    main = n - n % step if step else 0
    out = np.empty(n, code)
    if main:
        load(buf[:main * bits // 8], out[:main], bits,
             group(main, bits, per, False) or 1, min(bits, per))
    if main < n:
        start = main * bits // 8
        b = np.unpackbits(buf[start:], bitorder="little")[:(n - main) * bits]
        b = b.reshape(-1, bits)
        b = b[:, :per] if bits >= per else np.pad(b, ((0, 0), (0, per - bits)))
        out[main:] = np.packbits(b, axis=1, bitorder="little").reshape(-1).view(code)
    return out
