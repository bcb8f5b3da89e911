"""locate and locate_many cover the whole buffer, L(n) tail padding included:
the valid offsets are [0, aligned elements)."""

import numpy as np
import pytest

from tilespec.spec.errors import OutOfRangeError
from tilespec.spec.index import locate, locate_many, offset, padded_elements
from tilespec.spec.size import aligned_elements
from tilespec.spec.text import parse_array_shape as shape


@pytest.mark.parametrize("text", ["f32[3]{0:T(2)L(8)}", "f32[3,5]{1,0:T(2,2)L(1024)}",
                                  "s4[5,7]{0,1:L(4)E(4)}", "f32[]{:T(1)(3)L(8)}"])
def test_every_offset_of_the_buffer_is_an_element_or_padding(text):
    s = shape(text)
    total = aligned_elements(s)
    idx, ok = locate_many(s, np.arange(total))
    for o in range(total):
        e = locate(s, o)
        assert ok[o] == (e is not None)
        if e is not None:
            assert tuple(idx[o]) == e and offset(s, e) == o
    assert all(locate(s, o) is None for o in range(padded_elements(s), total))
    assert int(ok.sum()) == int(np.prod(s.dims, dtype=np.int64))
    for bad in (-1, total):
        with pytest.raises(OutOfRangeError):
            locate(s, bad)
        with pytest.raises(OutOfRangeError):
            locate_many(s, [bad])
