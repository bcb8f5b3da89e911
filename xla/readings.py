"""The readings of a bitcast as numpy operations on the operand's logical
array: what :func:`.dumps.memory_agrees` asks the device about (used by the
worker and by the tests).  numpy only."""

from __future__ import annotations

import numpy as np


def reading_of(array, reading: str, dst_dims, src_major_to_minor, dst_major_to_minor):
    """The logical result of one reading of a bitcast applied to ``array``:
    ``reshape`` (row-major), ``transpose P`` (result dim i is operand dim
    P[i]), or ``trt`` (XLA's transpose into physical order, row-major
    reshape, transpose out of DST's physical order).

    >>> import numpy as np
    >>> a = np.arange(6).reshape(2, 3)
    >>> reading_of(a, "transpose 1,0", (3, 2), (0, 1), (0, 1)).tolist()
    [[0, 3], [1, 4], [2, 5]]
    >>> reading_of(a, "trt", (3, 2), (0, 1), (1, 0)).tolist()
    [[0, 3], [1, 4], [2, 5]]
    """
    if reading == "reshape":
        return array.reshape(tuple(dst_dims))
    if reading.startswith("transpose "):
        return array.transpose(tuple(int(x) for x in reading.split()[1].split(",")))
    if reading == "trt":
        physical = array.transpose(tuple(src_major_to_minor))
        dims = tuple(dst_dims[i] for i in dst_major_to_minor)
        return physical.reshape(dims).transpose(tuple(np.argsort(dst_major_to_minor)))
    raise ValueError(f"unknown reading {reading!r}")
