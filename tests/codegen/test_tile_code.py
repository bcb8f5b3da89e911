"""Generated tile/untile (Python and C): every element's bytes equal the
layout's memory image, computed independently, and untile inverts tile."""

import ctypes
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import assume, given, settings

from tilespec.codegen import symbolic, tile_code
from tilespec.codegen.expressions import CodegenError
from tilespec.prover.codegen.tile_code import prove_tiling
from tilespec.spec.physical import to_physical
from tilespec.spec.printer import format_shape
from tilespec.spec.shapes import give_values
from tilespec.spec.size import aligned_elements, byte_size
from tilespec.spec.text import parse_array_shape as shape
from tilespec.testing import shapes_with_layout

#: (layout, sizes of its named dims): every family the code must handle.
LAYOUTS = [
    ("f32[10,130]{1,0:T(8,128)}", {}),
    ("bf16[10,260]{1,0:T(8,128)(2,1)}", {}),
    ("s8[33,130]{1,0:T(32,128)(4,1)}", {}),
    ("s4[9,130]{1,0:T(8,128)(2,1)E(4)}", {}),
    ("u4[3,5]{1,0:T(2,2)E(4)}", {}),              # 11 nibbles: a half-used last byte
    ("u2[7]{0:T(3)E(2)}", {}),
    ("pred[5,3]{0,1:T(2,2)E(1)}", {}),
    ("s4[5]{0}", {}),                             # s4 without E(4): one byte each
    ("s4[3,5]{1,0:T(2,2)}", {}),                  # the low 4 bits of a byte each
    ("u4[7]{0:T(3)}", {}),
    ("u2[2,3]{1,0}", {}),
    ("f32[3,4,5]{2,1,0:T(*,2,3)}", {}),           # '*': dims combined
    ("bf16[3,10,20]{2,0,1:T(8,128)(2,1)}", {}),   # rank 3, not row-major
    ("f32[5]{0:T(2,8)}", {}),                     # a tile longer than the rank
    ("s8[3,2]{1,0:T(2,2,4)}", {}),
    ("f32[3,5]{1,0:T(2,2)L(32)}", {}),            # tail padding
    ("f64[2,3]{0,1:T(2,2)}", {}),
    ("s32[]{:T(128)}", {}),                       # rank 0
    ("f32[m,n]{1,0:T(8,128)}", {"m": 10, "n": 130}),
    ("s4[m,n]{1,0:T(8,128)(2,1)E(4)}", {"m": 9, "n": 3}),
    ("bf16[n,n,3]{0,1,2:T(2,4)}", {"n": 5}),      # a name used twice
]


def reference_image(text, array, pad, dims):
    """The layout's bytes from the spec's second definition (pad-reshape-
    transpose), padded to ``L(n)`` and packed here, low bits first."""
    s = give_values(shape(text), dims)
    st = tile_code.storage(s)
    if array.dtype.itemsize > 8:     # c128: each 8-byte lane on its own
        lanes = array.view(np.uint64).reshape(array.shape + (-1,))
        images = [reference_image(text, lanes[..., k], pad, dims).view(np.uint64)
                  for k in range(lanes.shape[-1])]
        return np.stack(images, axis=-1).reshape(-1).view(np.uint8)
    elements = to_physical(s, array, pad_value=pad)
    tail = aligned_elements(s) - elements.size
    elements = np.concatenate([elements, np.full(tail, pad, array.dtype)])
    if not st.packed:
        return elements.astype(elements.dtype.newbyteorder("<")).view(np.uint8)
    values = elements.astype(np.uint8) & st.mask
    slots = byte_size(s) * st.per_byte
    values = np.concatenate([values, np.full(slots - values.size, pad & st.mask, np.uint8)])
    out = np.zeros(byte_size(s), np.uint8)
    for j in range(st.per_byte):
        out |= (values[j::st.per_byte] << (j * st.bits)).astype(np.uint8)
    return out


DTYPES = {"f32": np.float32, "f64": np.float64, "bf16": np.uint16, "s8": np.int8,
          "s32": np.int32, "s4": np.int8, "u4": np.uint8, "u2": np.uint8, "pred": np.uint8}


def example(text, dims):
    """A logical array whose every element differs from its neighbours (within
    the values the type holds), and a pad value no element has."""
    s = give_values(shape(text), dims)
    if s.element_type not in DTYPES:
        return random_example(s)
    st = tile_code.storage(s)
    n = int(np.prod(s.dims, dtype=np.int64))
    dtype = DTYPES[s.element_type]
    if st.packed:
        values = np.arange(n) % (1 << st.value_bits)
        if st.signed:
            values = values - (1 << (st.value_bits - 1))
        pad = 1
    else:
        values = np.arange(1, n + 1) % 127 + 1
        pad = 0
    return np.asarray(values, dtype).reshape(s.dims), pad


def dim_args(text, dims):
    """The values of the generated functions' dim parameters, in order."""
    s = shape(text)
    return [dims[d] for d in dict.fromkeys(x for x in s.dims if isinstance(x, str))]


@pytest.mark.parametrize("text, dims", LAYOUTS, ids=[t for t, _ in LAYOUTS])
def test_generated_python_writes_the_layouts_bytes_and_reads_them_back(text, dims):
    g = tile_code.python_functions(shape(text))
    array, pad = example(text, dims)
    image = g.tile(array, pad=pad)
    want = reference_image(text, array, pad, dims)
    assert image.dtype == np.uint8 and image.tolist() == want.tolist()
    assert g.tile_bytes(*dim_args(text, dims)) == image.size
    back = g.untile(image, *dim_args(text, dims))
    assert back.shape == array.shape
    assert back.tobytes() == array.tobytes()


def test_packed_elements_start_in_the_low_bits():
    g = tile_code.python_functions(shape("s4[3]{0:E(4)}"))
    # element 0 in the low nibble of byte 0; the unused nibble holds the pad
    assert g.tile(np.array([1, -2, 3], np.int8), pad=5).tolist() == [0xE1, 0x53]
    assert g.untile(bytes([0xE1, 0x53])).tolist() == [1, -2, 3]


def test_generated_python_refuses_an_array_of_the_wrong_shape_or_width():
    g = tile_code.python_functions(shape("f32[m,5]{1,0:T(2,2)}"))
    with pytest.raises(ValueError, match="dim 1 is 4"):
        g.tile(np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError, match="take 4 bytes"):
        g.tile(np.zeros((3, 5), np.float64))
    with pytest.raises(ValueError, match="bytes given"):
        g.untile(np.zeros(10, np.uint8), 3)
    same = tile_code.python_functions(shape("f32[n,n]{1,0}"))
    with pytest.raises(ValueError, match="dim 1 is 3"):
        same.tile(np.zeros((2, 3), np.float32))


def test_the_index_map_is_formula_s_own_code():
    """One definition: the files hold ``formula --c``/``--python``'s offset."""
    for text, _ in LAYOUTS:
        s = shape(text)
        for language, formula, ours in (
                ("c", symbolic.c_source, tile_code.c_source),
                ("python", symbolic.python_source, tile_code.python_source)):
            offset = (symbolic.c_offset_function if language == "c"
                      else symbolic.python_offset_function)(s)
            assert "def offset" in offset or "int64_t offset(" in offset
            assert offset in formula(s) and offset in ours(s)


@pytest.mark.parametrize("text, why", [
    ("c128[2]{0}", "no C integer type"), ("f32[0,3]{1,0}", "no elements"),
    ("f6e2m3fn[4]{0:E(6)}", "neither the type's own bytes"),
    ("f16[4]{0:E(48)}", "neither the type's own bytes"), ("f32[?]{0}", "unbounded")])
def test_layouts_without_c_code_are_refused_in_one_line(text, why):
    with pytest.raises(CodegenError, match=why):
        tile_code.c_source(shape(text))


def test_names_of_dims_never_clash_with_the_codes_own():
    text = "f32[src,pad,i,numpy,len,ValueError]{5,4,3,2,1,0:T(2,2)}"
    dims = {"src": 2, "pad": 3, "i": 2, "numpy": 3, "len": 1, "ValueError": 1}
    g = tile_code.python_functions(shape(text))
    array, pad = example(text, dims)
    assert g.tile(array).tolist() == reference_image(text, array, 0, dims).tolist()
    assert g.untile(g.tile(array), *dims.values()).tobytes() == array.tobytes()
    with pytest.raises(ValueError, match="bytes given"):
        g.untile(b"", *dims.values())
    assert "const uint32_t *src_," in tile_code.c_source(shape(text))


# --- C ---------------------------------------------------------------------------

C_TYPES = {8: ctypes.c_uint8, 16: ctypes.c_uint16, 32: ctypes.c_uint32, 64: ctypes.c_uint64}


def build(tmp_path, texts):
    """One shared library holding every layout's functions, each renamed
    with a suffix by the preprocessor (one compiler run)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    parts = []
    for k, text in enumerate(texts):
        (tmp_path / f"layout{k}.c").write_text(tile_code.c_source(shape(text)))
        names = ("offset", "locate", "tile_bytes", "tile", "untile")
        parts += [f"#define {n} {n}_{k}" for n in names]
        parts += [f'#include "layout{k}.c"'] + [f"#undef {n}" for n in names]
    (tmp_path / "all.c").write_text("\n".join(parts) + "\n")
    lib = tmp_path / "libtiling.so"
    done = subprocess.run([cc, "-std=c99", "-O1", "-Wall", "-Wextra", "-Werror",
                           "-pedantic-errors", "-shared", "-fPIC", str(tmp_path / "all.c"),
                           "-o", str(lib)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return ctypes.CDLL(str(lib))


def run_c(lib, k, text, dims, array, pad):
    """tile then untile through the C functions of layout ``k``."""
    st = tile_code.storage(shape(text))
    args = [ctypes.c_int64(v) for v in dim_args(text, dims)]
    size_fn = getattr(lib, f"tile_bytes_{k}")
    size_fn.restype = ctypes.c_int64
    size = size_fn(*args)
    unit = np.uint8 if st.packed else np.dtype(f"<u{st.bits // 8}")
    src = np.ascontiguousarray(array).view(unit) if not st.packed else \
        np.ascontiguousarray(array).astype(np.uint8)
    image = np.zeros(size, np.uint8)
    pad_c = ctypes.c_uint8 if st.packed else C_TYPES[st.bits]
    pad_bits = int(np.asarray(pad, array.dtype).view(unit)) if not st.packed else pad
    getattr(lib, f"tile_{k}")(src.ctypes.data_as(ctypes.c_void_p),
                              image.ctypes.data_as(ctypes.c_void_p), pad_c(pad_bits), *args)
    back = np.zeros(array.shape, array.dtype if not st.packed else
                    (np.int8 if st.signed else np.uint8))
    getattr(lib, f"untile_{k}")(image.ctypes.data_as(ctypes.c_void_p),
                                back.ctypes.data_as(ctypes.c_void_p), *args)
    return image, back


C_LAYOUTS = [(t, d) for t, d in LAYOUTS]
#: The default run compiles these few; the integration run all of them.
QUICK = ["bf16[10,260]{1,0:T(8,128)(2,1)}", "s4[m,n]{1,0:T(8,128)(2,1)E(4)}",
         "s4[3,5]{1,0:T(2,2)}"]


def check_c(tmp_path, layouts):
    lib = build(tmp_path, [t for t, _ in layouts])
    for k, (text, dims) in enumerate(layouts):
        array, pad = example(text, dims)
        image, back = run_c(lib, k, text, dims, array, pad)
        assert image.tolist() == reference_image(text, array, pad, dims).tolist(), text
        assert back.tobytes() == array.tobytes(), text
        if shape(text).element_type not in DTYPES:
            continue        # random raw bits: to_bytes would convert them as values
        if pad == 0:
            assert image.tobytes() == to_bytes_of(text, dims, array), text
        else:       # to_bytes pads with zero bits
            zero_pad, _ = run_c(lib, k, text, dims, array, 0)
            assert zero_pad.tobytes() == to_bytes_of(text, dims, array), text


def test_generated_c_writes_the_layouts_bytes_and_reads_them_back(tmp_path):
    check_c(tmp_path, [(t, d) for t, d in LAYOUTS if t in QUICK])


@pytest.mark.integration
def test_generated_c_of_every_layout_family_matches_the_image(tmp_path):
    check_c(tmp_path, LAYOUTS)


# --- proofs ----------------------------------------------------------------------

SLOW = pytest.mark.slow      # a few seconds each
PROVED = [("f32[m,n]{1,0:T(8,128)}", "c"), ("u2[k]{0:T(3)L(5)E(2)}", "c"),
          ("u2[k]{0:T(3)L(5)E(2)}", "python"), ("f32[3,5]{1,0:T(2,2)}", "c"),
          pytest.param("f32[m,n]{1,0:T(8,128)}", "python", marks=SLOW),
          pytest.param("s4[m,n]{1,0:T(8,128)(2,1)E(4)}", "c", marks=SLOW),
          pytest.param("s4[m,n]{1,0:T(8,128)(2,1)E(4)}", "python", marks=SLOW),
          pytest.param("bf16[m,n,3]{0,1,2:T(8,128)(2,1)}", "c", marks=SLOW)]


@pytest.mark.parametrize("text, language", PROVED)
def test_the_tile_code_is_proved_exact_with_its_int64_scope(text, language):
    results = prove_tiling(shape(text), language, timeout=60)
    assert [r.property.split(" ", 2)[2] for r in results] == \
        ["offset", "image elements", "tile_bytes"]
    assert all(r.status == "proved" for r in results), results
    if shape(text).is_symbolic:
        assert results[-1].scope.endswith("< 2^63, bytes < 2^63")


def test_the_packed_byte_count_does_not_round_up_past_int64(monkeypatch):
    """ceil(k/4) written as (k + 3) / 4 overflows for k near 2^63, though
    the image's bytes fit: the proof finds it and the witness replays."""
    from tilespec.codegen.expressions import Code, CodeArithmetic
    real = tile_code.image_sizes

    def naive(s, language):
        aligned, _ = real(s, language)
        return aligned, str(CodeArithmetic(language).ceildiv(Code(aligned), 4))
    monkeypatch.setattr(tile_code, "image_sizes", naive)
    size = prove_tiling(shape("u2[k]{0:E(2)}"), "c")[-1]
    assert size.status == "refuted"
    assert size.counterexample.details["overflow"] == "k + 3"
    assert size.counterexample.dim_values["k"] > 2**63 - 4


def test_a_wrong_size_is_refuted_with_both_values(monkeypatch):
    monkeypatch.setattr(tile_code, "image_sizes",
                        lambda s, language: ("(m + 7) / 8 * 8", "(m + 7) / 8 * 8 * 4 + 4"))
    results = prove_tiling(shape("f32[m]{0:T(8)}"), "c")
    elements, size = results[1:]
    assert elements.status == "proved"
    assert size.status == "refuted"
    ce = size.counterexample
    m = ce.dim_values["m"]
    assert ce.side("generated").value == (m + 7) // 8 * 32 + 4
    assert ce.side("spec").value == (m + 7) // 8 * 32


# --- random layouts ----------------------------------------------------------------

def random_example(s):
    """An array for shape ``s`` (numpy dtype of the storage width) and a pad."""
    st = tile_code.storage(s)
    n = int(np.prod(s.dims, dtype=np.int64))
    if st.packed:
        values = np.arange(n) % (1 << st.value_bits)
        if st.signed:
            values = values - (1 << (st.value_bits - 1))
        return np.asarray(values, np.int8 if st.signed else np.uint8).reshape(s.dims), 1
    dtype = np.dtype(f"<u{st.bits // 8}") if st.bits <= 64 else np.dtype(np.complex128)
    raw = (np.arange(n * (st.bits // 8)) % 251 + 1).astype(np.uint8)
    return raw.view(dtype).reshape(s.dims), 0


def drawable(s) -> bool:
    try:
        tile_code.storage(s)
    except CodegenError:
        return False
    return True


@settings(max_examples=60)
@given(shapes_with_layout(max_rank=4, max_elements=512, allow_zero=False))
def test_generated_python_matches_the_image_on_random_layouts(s):
    assume(drawable(s))
    g = tile_code.python_functions(s)
    array, pad = random_example(s)
    image = g.tile(array, pad=pad)
    assert image.tobytes() == reference_image(format_shape(s), array, pad, {}).tobytes()
    assert g.untile(image).tobytes() == array.tobytes()


@pytest.mark.integration
def test_generated_c_matches_the_image_on_random_layouts(tmp_path):
    """Thirty layouts drawn at random (a fixed seed), compiled together."""
    strategy = shapes_with_layout(max_rank=4, max_elements=512, allow_zero=False)
    found = []

    @settings(max_examples=200, derandomize=True, database=None)
    @given(strategy)
    def collect(s):
        st = tile_code.storage(s) if drawable(s) else None
        if st is not None and (st.packed or st.bits in C_TYPES) and len(found) < 30:
            found.append(format_shape(s))
    collect()
    assert len(found) == 30
    check_c(tmp_path, [(t, {}) for t in found])


def test_the_joint_scope_names_the_tail_once():
    from tilespec.prover.codegen.tile_code import joint_scope
    results = prove_tiling(shape("u4[m]{0:T(8)L(1024)E(4)}"), "c")
    assert all(r.status == "proved" for r in results)
    assert joint_scope(results) == \
        "all shapes: m >= 1, padded elements with L(n)'s < 2^63, bytes < 2^63"


@pytest.mark.parametrize("text, dims", LAYOUTS, ids=[t for t, _ in LAYOUTS])
def test_generated_python_writes_what_to_bytes_writes(text, dims):
    """Two implementations of one image: the generated code (formula's
    offset per element) and ``tilespec.to_bytes`` (strided views), with
    padding as zero bits in both."""
    array, _ = example(text, dims)
    if shape(text).element_type == "pred":
        array = array.astype(bool).astype(np.uint8)
    image = tile_code.python_functions(shape(text)).tile(array, pad=0)
    assert image.tobytes() == to_bytes_of(text, dims, array)


def to_bytes_of(text, dims, array):
    """``tilespec.to_bytes`` of the example ``array`` (bf16 and pred seen as
    their own numpy types), padding as zero bits."""
    import tilespec
    s = give_values(shape(text), dims)
    values = array
    if s.element_type == "bf16":
        import ml_dtypes
        values = array.view(ml_dtypes.bfloat16)
    elif s.element_type == "pred":
        values = array.astype(bool)
    return tilespec.to_bytes(s, values).tobytes()


@pytest.mark.parametrize("text", ["s4[3,5]{1,0:T(2,2)}", "s4[3,5]{1,0:T(2,2)E(4)}"])
def test_generated_python_untile_reads_sub_byte_values_as_the_dtype_asked(text):
    """Sub-byte elements, packed or a byte each: tile keeps the low 4 bits
    of int8 -8..7 and untile gives them back sign-extended, as int8 by
    default or as ml_dtypes.int4."""
    import ml_dtypes
    g = tile_code.python_functions(shape(text))
    array = (np.arange(15).reshape(3, 5) % 16 - 8).astype(np.int8)
    image = g.tile(array)
    assert image.tobytes() == to_bytes_of(text, {}, array)
    back = g.untile(image)
    assert back.dtype == np.int8 and back.tolist() == array.tolist()
    as_int4 = g.untile(image, dtype=ml_dtypes.int4)
    assert as_int4.dtype == ml_dtypes.int4 and as_int4.astype(np.int8).tolist() == array.tolist()


@pytest.mark.integration
def test_the_c_of_two_layouts_links_into_one_library_with_distinct_prefixes(tmp_path):
    """Each file compiled on its own (cc -c), both linked into one shared
    object: only the prefixes keep tile_bytes, tile and untile apart."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    layouts = [("f32[10,130]{1,0:T(8,128)}", "a"), ("s4[3,5]{1,0:T(2,2)}", "b")]
    objects = []
    for text, prefix in layouts:
        (tmp_path / f"{prefix}.c").write_text(tile_code.c_source(shape(text), prefix))
        objects.append(str(tmp_path / f"{prefix}.o"))
        done = subprocess.run([cc, "-std=c99", "-O1", "-Wall", "-Werror", "-fPIC", "-c",
                               str(tmp_path / f"{prefix}.c"), "-o", objects[-1]],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
    lib = tmp_path / "libboth.so"
    done = subprocess.run([cc, "-shared", *objects, "-o", str(lib)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    both = ctypes.CDLL(str(lib))
    for text, prefix in layouts:
        want = byte_size(shape(text))
        size = getattr(both, f"{prefix}_tile_bytes")
        size.restype = ctypes.c_int64
        assert size() == want
        assert hasattr(both, f"{prefix}_tile") and hasattr(both, f"{prefix}_untile")


@pytest.mark.parametrize("prefix", ["1a", "a-b", "", "x"])
def test_a_prefix_names_the_c_functions_or_is_refused_in_one_line(prefix):
    text = "f32[m]{0:T(8)}"
    if prefix in ("1a", "a-b"):
        with pytest.raises(CodegenError, match="not a C identifier"):
            tile_code.c_source(shape(text), prefix)
        return
    source = tile_code.c_source(shape(text), prefix)
    named = [f"{prefix}_{x}" if prefix else x for x in ("tile_bytes", "tile", "untile")]
    assert [x.split("(")[0].split()[-1] for x in source.splitlines()
            if x.startswith(("void", "int64_t")) and "offset(" not in x] == named


def test_a_prefix_is_refused_where_it_makes_a_name_the_code_uses():
    with pytest.raises(CodegenError, match="a name the code uses"):
        tile_code.c_source(shape("f32[a_tile]{0}"), "a")


def test_the_cli_prefix_names_c_functions_and_is_refused_for_python(capsys):
    from tilespec.cli import main
    assert main(["codegen", "f32[3]{0}", "--c", "--prefix", "f3"]) == 0
    assert "void f3_untile(" in capsys.readouterr().out
    assert main(["codegen", "f32[3]{0}", "--python", "--prefix", "f3"]) == 2
    assert "--prefix names C functions" in capsys.readouterr().err
