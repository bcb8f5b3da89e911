"""The C kernel (tilespec.image.kernel) and the numpy code it replaces give
the same bytes, and numpy runs when the kernel is off or cannot be built.

Each layout family of tests/image/test_bytes.py, and the ones of
benchmarks/bench_bytes.py at a small size, is laid out and read back by
both paths; the bytes must be equal to each other and to the brute force.
The kernel runs wherever a C compiler is installed (CI has one); without
one, the tests that need it skip.
"""

import platform
import shutil

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from test_bytes import FAMILIES, SHAPES, brute_bytes, holding_values, same_bits, values

import tilespec
from tilespec.image import kernel, packing, strided

#: benchmarks/bench_bytes.py's layouts, small, whole tiles and padded ones.
BENCH = [
    ("f32[16,256]{1,0:T(8,128)}", np.float32),
    ("bf16[16,256]{1,0:T(8,128)(2,1)}", ml_dtypes.bfloat16),
    ("bf16[18,260]{1,0:T(8,128)(2,1)}", ml_dtypes.bfloat16),
    ("s8[64,256]{1,0:T(32,128)(4,1)}", np.int8),
    ("s8[33,130]{1,0:T(32,128)(4,1)}", np.int8),
    ("s4[16,256]{1,0:T(8,128)(2,1)E(4)}", ml_dtypes.int4),
    ("s4[9,130]{1,0:T(8,128)(2,1)E(4)}", ml_dtypes.int4),
]


def _available() -> bool:
    return kernel.library() is not None


needs_kernel = pytest.mark.skipif(not _available(), reason="no C compiler: numpy runs")


def both_paths(monkeypatch, fn):
    """``fn()`` with the kernel, then with numpy; and how often the kernel ran."""
    calls = []
    real_store, real_load = kernel.store, kernel.load
    monkeypatch.setattr(kernel, "store", lambda *a: (calls.append(1), real_store(*a))[1])
    monkeypatch.setattr(kernel, "load", lambda *a: (calls.append(1), real_load(*a))[1])
    monkeypatch.delenv("TILESPEC_KERNEL", raising=False)
    with_kernel = fn()
    ran = len(calls)
    monkeypatch.setenv("TILESPEC_KERNEL", "off")
    with_numpy = fn()
    assert len(calls) == ran, "the kernel ran while off"
    return with_kernel, with_numpy, ran


def _round_trip(text, a, pad, dims=None):
    image = tilespec.to_bytes(text, a, pad=pad, dims=dims)
    return image.tobytes(), tilespec.from_bytes(text, image, dims=dims)


@needs_kernel
@pytest.mark.parametrize("text,dims", [(f[0], f[1]) for f in FAMILIES])
def test_kernel_and_numpy_give_the_same_bytes_for_every_family(text, dims, monkeypatch):
    s = tilespec.parse_array_shape(text, dims=dims)
    rng = np.random.default_rng(len(text) + 7)
    a = values(s.element_type, s.dims, rng)
    pad = values(s.element_type, (), rng)
    (kb, ka), (nb, na), _ = both_paths(monkeypatch, lambda: _round_trip(text, a, pad, dims))
    assert kb == nb == brute_bytes(s, a, pad)
    assert same_bits(ka, na) and same_bits(ka, a)


@needs_kernel
@pytest.mark.parametrize("text,dtype", BENCH)
def test_the_kernel_runs_and_equals_numpy_on_the_benchmarked_layouts(text, dtype, monkeypatch):
    s = tilespec.parse_array_shape(text)
    a = np.random.default_rng(3).integers(-8, 8, s.dims, dtype=np.int8).astype(dtype)
    (kb, ka), (nb, na), ran = both_paths(monkeypatch, lambda: _round_trip(text, a, None))
    assert kb == nb
    assert same_bits(ka, na)
    expect = a.astype(np.int8) if dtype is ml_dtypes.int4 else a
    assert same_bits(ka, expect)
    # f32 T(8,128) is a strided copy, not a word interleave: no kernel there
    assert (ran >= 2) == ("(2,1)" in text or "(4,1)" in text)


@needs_kernel
@pytest.mark.parametrize("text", ["s8[64,256]{1,0:T(32,128)(4,1)}",
                                  "s4[9,130]{1,0:T(8,128)(2,1)E(4)}",
                                  "bf16[20,300]{1,0:T(8,128)(2,1)}"])
def test_the_kernel_on_small_blocks_and_threads_equals_numpy(text, monkeypatch):
    monkeypatch.setattr("tilespec.image.packing.BLOCK_ELEMENTS", 8)
    monkeypatch.setattr("tilespec.image.blocks.PARALLEL_BYTES", 0)
    monkeypatch.setenv("TILESPEC_THREADS", "3")
    s = tilespec.parse_array_shape(text)
    rng = np.random.default_rng(11)
    a = values(s.element_type, s.dims, rng)
    (kb, ka), (nb, na), ran = both_paths(monkeypatch, lambda: _round_trip(text, a, None))
    assert ran > 2 and kb == nb and same_bits(ka, na) and same_bits(ka, a)


@needs_kernel
@settings(max_examples=40, deadline=None)
@given(SHAPES, st.integers(0, 2**32 - 1))
def test_kernel_and_numpy_give_the_same_bytes_for_random_layouts(shape, seed):
    s = holding_values(shape)
    rng = np.random.default_rng(seed)
    a = values(s.element_type, s.dims, rng)
    pad = values(s.element_type, (), rng)
    with pytest.MonkeyPatch.context() as mp:
        (kb, ka), (nb, na), _ = both_paths(mp, lambda: _round_trip(s, a, pad))
    assert kb == nb and same_bits(ka, na) and same_bits(ka, a)


def test_numpy_runs_when_the_kernel_is_off(monkeypatch):
    monkeypatch.setenv("TILESPEC_KERNEL", "off")
    assert kernel.library() is None
    assert kernel.kernel_status() == "numpy (TILESPEC_KERNEL=off)"

    def refuse(*_):
        raise AssertionError("the kernel ran while off")

    monkeypatch.setattr(kernel, "store", refuse)
    monkeypatch.setattr(kernel, "load", refuse)
    text = "s8[64,256]{1,0:T(32,128)(4,1)}"
    a = np.arange(64 * 256, dtype=np.int64).reshape(64, 256).astype(np.int8)
    s = tilespec.parse_array_shape(text)
    image = tilespec.to_bytes(text, a)
    assert image.tobytes() == brute_bytes(s, a, np.int8(0))
    assert same_bits(tilespec.from_bytes(text, image), a)


@pytest.fixture
def fresh_kernel(monkeypatch, tmp_path):
    """The kernel looked up again, built into an empty cache directory."""
    monkeypatch.setenv("TILESPEC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TILESPEC_KERNEL", raising=False)
    kernel._library.cache_clear()
    yield tmp_path
    kernel._library.cache_clear()


@pytest.mark.parametrize("cc", ["/nonexistent/cc", "false"])
def test_numpy_runs_without_a_c_compiler(cc, fresh_kernel, monkeypatch):
    monkeypatch.setenv("CC", cc)
    assert kernel.library() is None
    assert kernel.kernel_status().startswith("numpy (")
    assert list(fresh_kernel.iterdir()) == []   # no half-written library left behind
    text = "s4[9,130]{1,0:T(8,128)(2,1)E(4)}"
    s = tilespec.parse_array_shape(text)
    a = values("s4", s.dims, np.random.default_rng(5))
    image = tilespec.to_bytes(text, a)
    assert image.tobytes() == brute_bytes(s, a, np.int8(0))
    assert same_bits(tilespec.from_bytes(text, image), a)


def test_numpy_runs_without_the_kernel_source(fresh_kernel, monkeypatch):
    monkeypatch.setattr(kernel, "SOURCE", fresh_kernel / "missing.c")
    assert kernel.library() is None
    assert kernel.kernel_status().startswith("numpy (no kernel source")


def test_the_kernel_takes_only_unsigned_codes_no_narrower_than_a_field():
    words = np.zeros(4, np.uint32)
    u8 = [np.zeros(4, np.uint8)] * 4
    assert kernel.fits(words, u8, 8)
    assert not kernel.fits(words, [np.zeros(4, np.int8)] * 4, 8)   # signed: numpy's casts
    assert not kernel.fits(words, u8[:2], 16)                      # field wider than a code
    assert not kernel.fits(words, u8 * 2, 8)                       # fields past the word
    assert packing.kernel is kernel


#: The interleaves the kernel runs 16 bytes a step (kernel.c's fast_block):
#: code dtype, fields per word, bits per field, and the widths read back.
FAST_ROWS = [(np.uint8, 4, 8, (8,)), (np.uint16, 2, 16, (16,)), (np.uint8, 2, 4, (4, 3))]


@needs_kernel
@pytest.mark.parametrize("code,g,bits,widths", FAST_ROWS)
@pytest.mark.parametrize("n", [2, 15, 16, 17, 40, 130])
def test_the_kernels_vector_rows_equal_numpy_at_every_row_length(code, g, bits, widths, n,
                                                                  monkeypatch):
    # Rows of n words from g contiguous rows of codes, as a (2,1) or (4,1)
    # tile gives them; n not a multiple of the vector's 16 bytes leaves a
    # tail, and codes with bits above the field test the masks.
    rng = np.random.default_rng(n * g + bits)
    info = np.iinfo(code)
    base = rng.integers(0, info.max + 1, (3, g, n), dtype=code)
    x = base.transpose(0, 2, 1)
    mask = (1 << bits) - 1 if bits < 8 else None
    nbytes = x.size * bits // 8

    def stored() -> bytes:
        buf = np.zeros(nbytes, np.uint8)
        packing.store(buf, x, bits, mask, packing.word_group(x, bits))
        return buf.tobytes()

    (kb, nb, ran) = both_paths(monkeypatch, stored)
    assert ran == 1 and kb == nb
    image = np.frombuffer(kb, np.uint8)
    for width in widths:
        for signed in (False, True):
            def loaded(width: int = width, signed: bool = signed) -> bytes:
                out = np.zeros((3, g, n), code)
                view = out.transpose(0, 2, 1)
                packing.load(image, view, bits, packing.word_group(view, bits), width, signed)
                return out.tobytes()

            (ka, na, ran) = both_paths(monkeypatch, loaded)
            assert ran == 1 and ka == na, (width, signed)


@needs_kernel
@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="an x86-64 flag")
def test_the_kernel_built_without_sse2_equals_numpy(fresh_kernel, monkeypatch):
    # The loops other machines run (kernel.c without __SSE2__), here.
    cc = shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("-mno-sse2 is a flag of gcc and clang")
    monkeypatch.setenv("CC", f"{cc} -mno-sse2")
    assert kernel.library() is not None
    for code, g, bits, widths in FAST_ROWS:
        test_the_kernels_vector_rows_equal_numpy_at_every_row_length(code, g, bits, widths, 40,
                                                                     monkeypatch)


@needs_kernel
@pytest.mark.parametrize("text", ["s8[33,130]{1,0:T(32,128)(4,1)}",
                                  "bf16[20,300]{1,0:T(8,128)(2,1)}",
                                  "s4[9,130]{1,0:T(8,128)(2,1)E(4)}",
                                  "s16[2,3,4,5]{3,1,2,0:T(2,3)(2,1)}"])
def test_an_array_padded_first_gives_the_bytes_of_the_padding_level(text, monkeypatch):
    # With the kernel, these pad the array to whole tiles and lay that out
    # in one pass (strided.pad_first); numpy pads level by level.
    s = tilespec.parse_array_shape(text)
    assert strided.pad_first(s) is not None
    rng = np.random.default_rng(len(text))
    a = values(s.element_type, s.dims, rng)
    pad = values(s.element_type, (), rng)
    (kb, ka), (nb, na), ran = both_paths(monkeypatch, lambda: _round_trip(text, a, pad))
    assert ran >= 2 and kb == nb == brute_bytes(s, a, pad)
    assert same_bits(ka, na) and same_bits(ka, a)
