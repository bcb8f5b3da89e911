"""Linear algebra over GF(2) on bit-packed vectors: a matrix is given by
its columns (an int per column, bit ``j`` its row ``j``) or by its rows (an
int per row, bit ``c`` its column ``c``).

Triton reduces its matrices with ``f2reduce::inplace_rref_strided``; the
reduced row echelon form is unique, so :func:`rref` here gives the rows
Triton's gives, whatever the elimination order.

>>> rows = transpose([0b011, 0b110, 0b101], 3)
>>> matrix_rank([0b011, 0b110, 0b101])
2
>>> [bin(r) for r in rref(rows, 3)]
['0b101', '0b110', '0b0']
"""

from __future__ import annotations

from typing import Sequence


def transpose(vectors: Sequence[int], length: int) -> list[int]:
    """The other packing: columns to rows (or rows to columns); ``length``
    is how many bits each given vector has.

    >>> transpose([0b01, 0b11], 2)
    [3, 2]
    """
    return [sum((v >> j & 1) << c for c, v in enumerate(vectors)) for j in range(length)]


def rref(rows: Sequence[int], columns: int) -> list[int]:
    """The reduced row echelon form of the matrix with these rows: a pivot
    is a row's lowest set bit, pivots increase down the rows, each pivot
    column is zero elsewhere, zero rows last.

    >>> rref([0b11, 0b01], 2)
    [1, 2]
    """
    m = list(rows)
    r = 0
    for c in range(columns):
        pivot = next((i for i in range(r, len(m)) if m[i] >> c & 1), None)
        if pivot is None:
            continue
        m[r], m[pivot] = m[pivot], m[r]
        for i in range(len(m)):
            if i != r and m[i] >> c & 1:
                m[i] ^= m[r]
        r += 1
    return m


def pivot(row: int) -> int:
    """A nonzero row's pivot column (its lowest set bit)."""
    return (row & -row).bit_length() - 1


def matrix_rank(columns: Sequence[int]) -> int:
    """The rank of the matrix with these columns.

    >>> matrix_rank([1, 2, 3]), matrix_rank([0, 0])
    (2, 0)
    """
    basis: list[int] = []          # reduced vectors, distinct leading bits
    for v in columns:
        for b in basis:
            v = min(v, v ^ b)
        if v:
            basis.append(v)
    return len(basis)
