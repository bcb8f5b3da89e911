"""Sub-byte packing as XLA's CPU device stores it, beside ``tilespec.to_bytes``.

A subprocess puts int4, uint4, int2 and uint2 arrays on jax's CPU device,
row-major and column-major (``jax.experimental.layout.Format``; XLA then
gives them ``E(4)``/``E(2)``), also as the result of a computation on the
device, and reads the device buffer's raw bytes through its address
(``addressable_data(0).unsafe_buffer_pointer()``, read with ctypes): the
first ``ceil(n * bits / 8)`` bytes, the packed image.  Those must equal
``to_bytes`` of the same values, and ``from_bytes`` must read them back.
What it shows: element 0 in the low bits of byte 0.  The bits after the last
element are not specified on the device (seen 0 and not 0): to_bytes writes
them 0, from_bytes ignores them, and the comparison leaves them out.

Skipped, with the reason, when jax is not installed.
"""

import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest

import tilespec

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(importlib.util.find_spec("jax") is None,
                       reason="jax is not installed: pip install -e '.[xla]'"),
]

PROBE = r"""
import ctypes, json, math
import jax, jax.numpy as jnp, numpy as np
from jax.experimental.layout import Format, Layout

dev = jax.devices("cpu")[0]
sharding = jax.sharding.SingleDeviceSharding(dev)
out = []
for name, bits in (("int4", 4), ("uint4", 4), ("int2", 2), ("uint2", 2)):
    dtype = getattr(jnp, name)
    low = -(1 << (bits - 1)) if name.startswith("int") else 0
    values = (np.arange(15) % (1 << bits) + low).reshape(3, 5)
    for major_to_minor in ((0, 1), (1, 0)):
        fmt = Format(Layout(major_to_minor=major_to_minor), sharding)
        for how in ("device_put", "computed"):
            if how == "device_put":
                a = jax.device_put(values.astype(dtype), fmt)
            else:  # made by an XLA computation on the device
                f = jax.jit(lambda x: (x - 1).astype(dtype), out_shardings=fmt)
                a = f(jnp.asarray(values + 1, jnp.int32))
            buf = a.addressable_data(0)
            size = math.ceil(a.size * bits / 8)
            raw = bytes((ctypes.c_uint8 * size).from_address(buf.unsafe_buffer_pointer()))
            out.append({"type": name, "major_to_minor": major_to_minor, "how": how,
                        "layout": str(a.format.layout), "values": values.tolist(),
                        "bytes": raw.hex()})
print(json.dumps(out))
"""

XLA_TYPES = {"int4": "s4", "uint4": "u4", "int2": "s2", "uint2": "u2"}


@pytest.fixture(scope="module")
def device_bytes():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_device_packs_sub_byte_arrays_as_to_bytes_does(device_bytes):
    assert len(device_bytes) == 16
    for case in device_bytes:
        t = XLA_TYPES[case["type"]]
        bits = int(t[1:])
        m2m = ",".join(str(d) for d in reversed(case["major_to_minor"]))
        shape = f"{t}[3,5]{{{m2m}:E({bits})}}"
        values = np.array(case["values"])
        got = bytes.fromhex(case["bytes"])
        want = tilespec.to_bytes(shape, values).tobytes()
        # The device writes whole bytes: the bits after the last element may
        # hold anything (seen: int4's last nibble 0xF, uint2's last two bits
        # set); to_bytes writes them 0.
        used = 15 * bits % 8
        last = got[-1] & ((1 << used) - 1) if used else got[-1]
        assert want == got[:-1] + bytes([last]), (case, shape)
        assert (tilespec.from_bytes(shape, bytes.fromhex(case["bytes"])) == values).all()


def test_element_zero_is_in_the_low_bits_on_the_device(device_bytes):
    first = next(c for c in device_bytes if c["type"] == "uint4"
                 and c["major_to_minor"] == [0, 1] and c["how"] == "device_put")
    # values 0, 1, 2, ... row-major: byte 0 holds 0 (low) and 1 (high)
    assert bytes.fromhex(first["bytes"])[:2] == bytes([0x10, 0x32])
