"""The public Python API: names, text accepted for every shape, ``dims=``,
shape-first argument order, and a light ``import tilespec``."""

import inspect
import subprocess
import sys

import numpy as np
import pytest
from locations import ROOT

import tilespec
from tilespec import ShapeError, SymbolicShapeError, TilespecError

FIG1 = "f32[3,5]{1,0:T(2,2)}"


def test_every_name_in_all_is_importable():
    missing = [n for n in tilespec.__all__ if not hasattr(tilespec, n)]
    assert not missing
    assert len(set(tilespec.__all__)) == len(tilespec.__all__)


def test_the_readme_import_line():
    from tilespec import locate, offset, parse_shape, prove, to_physical  # noqa: F401
    assert offset(FIG1, (2, 3)) == 17


def test_all_lists_every_public_callable():
    # A public function added to tilespec but not to __all__ is caught here.
    public = {n for n, v in vars(tilespec).items()
              if not n.startswith("_") and callable(v) and not inspect.ismodule(v)}
    assert public <= set(tilespec.__all__), public - set(tilespec.__all__)


#: Each public function of a shape, with its other arguments.
SHAPE_FUNCTIONS = [
    ("offset", ((2, 3),)), ("locate", (17,)), ("offsets", ([[2, 3], [0, 0]],)),
    ("locate_many", ([17, 9],)), ("all_offsets", ()), ("padded_elements", ()),
    ("tiled_dims", ()), ("physical_size", ()), ("aligned_elements", ()),
    ("bit_range", (3,)), ("byte_size", ()), ("num_elements", ()),
    ("padding_fraction", ()), ("unpadded_bytes", ()), ("format_shape", ()), ("offset_expr", ()),
    ("to_physical", (np.arange(15).reshape(3, 5),)),
    ("from_physical", (np.arange(24),)), ("cute_layout", ()),
    ("to_bytes", (np.arange(15).reshape(3, 5),)), ("from_bytes", (bytes(range(96)),)),
    ("explain", ()), ("formula", ()),
]


def _same(a, b):
    if isinstance(a, tuple) and a and isinstance(a[0], np.ndarray):
        return all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == b


@pytest.mark.parametrize("name,args", SHAPE_FUNCTIONS, ids=[n for n, _ in SHAPE_FUNCTIONS])
def test_every_shape_function_takes_text_and_dims(name, args):
    fn = getattr(tilespec, name)
    parsed = tilespec.parse_shape(FIG1)
    assert _same(fn(FIG1, *args), fn(parsed, *args))
    if name != "offset_expr":   # a formula of named dims stays symbolic
        named = "f32[m,n]{1,0:T(2,2)}"
        assert _same(fn(named, *args, dims={"m": 3, "n": 5}), fn(parsed, *args))
    params = list(inspect.signature(fn).parameters.values())
    assert str(params[0].annotation) in ("Shape | str", "ShapeLike")
    assert "dims" in [p.name for p in params]


def test_prove_bitcast_and_equivalent_take_text():
    assert tilespec.prove("f32[m,n]{1,0:T(8,128)}", "injective").status == "proved"
    assert tilespec.bitcast("f32[16,256]{1,0:T(8,128)}", "f32[4096]{0}").status == "refuted"
    r = tilespec.equivalent("f32[8]{0:T(4)}", "f32[8]{0}")
    assert r.status == "proved"
    r = tilespec.prove("f32[m,5]{1,0:T(2,2)}", "bijective", dims={"m": 3})
    assert r.scope == "concrete" and r.shape == FIG1


def test_parse_shape_takes_dims():
    s = tilespec.parse_shape("bf16[m,n]{1,0:T(8,128)(2,1)}", dims={"m": 16, "n": 300})
    assert s.dims == (16, 300)
    assert tilespec.parse_shape("bf16[m,n]{1,0}", dims={"m": 2}).dims == (2, "n")


@pytest.mark.parametrize("dims,error,words", [
    ({"k": 2}, SymbolicShapeError, "'k' is not a dim name"),
    ({"m": -1}, ShapeError, "non-negative"),
    ({"m": 2.5}, ShapeError, "non-negative"),
    ({"m": True}, ShapeError, "non-negative"),
])
def test_bad_dims_are_one_line_errors(dims, error, words):
    with pytest.raises(error, match=words) as info:
        tilespec.offset("f32[m,5]{1,0}", (0, 0), dims=dims)
    assert "\n" not in str(info.value) and isinstance(info.value, ValueError)


def test_a_name_left_without_a_value_says_so():
    with pytest.raises(SymbolicShapeError, match="'n'"):
        tilespec.offset("f32[m,n]{1,0}", (0, 0), dims={"m": 3})


def test_a_non_shape_is_a_one_line_error():
    with pytest.raises(ShapeError, match="not int"):
        tilespec.byte_size(42)
    with pytest.raises(TilespecError, match="column"):
        tilespec.offset("f32[3,5", (0, 0))


def test_to_physical_takes_the_shape_first_and_the_old_order_too():
    a = np.arange(15).reshape(3, 5)
    new = tilespec.to_physical(FIG1, a, pad_value=-1)
    old = tilespec.to_physical(a, FIG1, pad_value=-1)
    assert np.array_equal(new, old)
    assert new.tolist()[:8] == [0, 1, 5, 6, 2, 3, 7, 8]
    assert np.array_equal(tilespec.from_physical(FIG1, new), a)
    assert np.array_equal(tilespec.from_physical(new, FIG1), a)
    assert np.array_equal(tilespec.to_physical(a.tolist(), tilespec.parse_shape(FIG1)), 
                          tilespec.to_physical(FIG1, a))


def test_to_physical_needs_a_shape():
    with pytest.raises(ShapeError, match="neither argument is a shape"):
        tilespec.to_physical(np.zeros(3), np.zeros(3))


def _run_and_list_modules(code):
    """Run ``code`` in a fresh interpreter: (its output lines, the heavy
    modules it imported).  A module merely deferred (tilespec.prover puts z3
    in ``sys.modules`` without running it) is not imported."""
    probe = ("\ntry:\n" + "".join(f"    {line}\n" for line in code.splitlines())
             + "except SystemExit:\n    pass\nimport sys\n"
             "print('MODULES=' + ','.join(m for m in ('z3', 'sympy', 'matplotlib', 'jax')"
             " if type(sys.modules.get(m)) is type(sys)))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[-1].startswith("MODULES="), out
    return out[:-1], [m for m in out[-1][len("MODULES="):].split(",") if m]


def test_import_tilespec_loads_no_solver():
    assert _run_and_list_modules("import tilespec") == ([], [])


def test_tilespec_xla_loads_on_first_use_without_jax():
    # real XLA's subpackage is reached as an attribute; asking it nothing imports no jax
    lines, modules = _run_and_list_modules(
        "import tilespec\nprint(tilespec.xla.real.available() in (True, False),"
        " 'untiled-L' in tilespec.xla.compare.DIVERGENCES,"
        " callable(tilespec.xla.compiled.compiled_bitcasts))")
    assert lines == ["True True True"] and "jax" not in modules


def test_the_rules_hlo_and_convert_take_text():
    r = tilespec.check_rule("reshape_is_bitcast", "f32[16,256]{1,0:T(8,128)}", "f32[4096]{0}")
    assert r.status == "refuted" and r.counterexample.details["xla_says_bitcast"]
    r = tilespec.check_rule("transpose_is_bitcast", "f32[m,n]{1,0:T(8,128)}",
                            "f32[n,m]{0,1:T(8,128)}", transpose=(1, 0))
    assert r.status == "proved" and r.scope == "all shapes: m >= 1, n >= 1"
    with pytest.raises(TilespecError, match="unknown rule"):
        tilespec.check_rule("no_such_rule", FIG1)
    report = tilespec.check_hlo("HloModule m\nENTRY e {\n  p = f32[16,256]{1,0:T(8,128)} "
                                "parameter(0)\n  ROOT b = f32[4096]{0} bitcast(p)\n}\n")
    assert report.status == "refuted"
    assert [f.line for f in report.findings if f.rule == "bitcast-refuted"] == [4]
    a, b = "f32[3,5]{1,0:T(2,2)}", "f32[3,5]{0,1}"
    expr, holds = tilespec.convert_formula(a, b)
    assert int(expr.subs({o: 17 for o in expr.free_symbols})) == 11 and tilespec.prove_convert(a, b).status == "proved"
    ns: dict = {}
    exec(tilespec.convert_source(a, b), ns)
    assert ns["convert"](np.arange(24)).tolist()[11] == 17


def test_an_out_of_memory_report_is_read():
    (entry,) = tilespec.read_oom_report("  Size: 32.00G\n  Shape: s32[8388608,8,4]{2,1,0:T(8,128)}\n")
    assert entry.shape == "s32[8388608,8,4]{2,1,0:T(8,128)}"
    assert tilespec.human_bytes(tilespec.byte_size(entry.shape)) == entry.size


def test_version_from_the_metadata_without_z3_or_sympy():
    # `tilespec --version` reads the package metadata and answers before
    # the command parser (which registers the prover's commands) is built.
    lines, modules = _run_and_list_modules("from tilespec.cli import main\nmain(['--version'])")
    assert lines == [f"tilespec {tilespec.__version__}"] and tilespec.__version__ != "0+unknown"
    assert modules == []


def test_dims_on_the_command_line(capsys):
    from tilespec.cli import main
    for argv, want in [(["offset", "f32[m,n]{1,0:T(2,2)}", "2,3", "--dims", "m=3,n=5"], "17"),
                       (["locate", "f32[m,5]{1,0:T(2,2)}", "9", "--dims", "m=3"], "padding")]:
        assert main(argv) == 0
        assert capsys.readouterr().out.strip() == want
    assert main(["explain", "f32[m,5]{1,0:T(2,2)}", "--dims", "m=3"]) == 0
    assert "(0,0)" in capsys.readouterr().out


@pytest.mark.parametrize("dims,words", [("m", "not NAME=SIZE"), ("m=x", "not NAME=SIZE"),
                                        ("k=3", "no shape given has a dim named 'k'")])
def test_bad_dims_on_the_command_line(dims, words, capsys):
    from tilespec.cli import main
    assert main(["offset", "f32[m,5]{1,0}", "0,0", "--dims", dims]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_draw_and_regress_take_dims(tmp_path, capsys):
    import argparse

    from tilespec.cli import main
    from tilespec.cli.main import apply_dims
    assert main(["draw", "f32[m,5]{1,0:T(2,2)}", "--dims", "m=3",
                 "-o", str(tmp_path / "f.svg")]) == 0
    assert ": 15 elements in 24 memory cells" in capsys.readouterr().out
    # regress takes a list of shapes: each gets the values
    args = argparse.Namespace(shapes=["f32[m,5]{1,0:T(2,2)}", "bf16[m,n]{1,0}"],
                              dims="m=3,n=7")
    apply_dims(args)
    assert args.shapes == ["f32[3,5]{1,0:T(2,2)}", "bf16[3,7]{1,0}"]
    parser = __import__("tilespec.cli.main", fromlist=["build_parser"]).build_parser()
    assert parser.parse_args(["regress", "f32[m]{0}", "--dims", "m=2"]).dims == "m=2"


def test_the_python_guide_runs():
    import doctest
    guide = ROOT / "docs" / "python.md"
    result = doctest.testfile(str(guide), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 10 and result.failed == 0


def test_compare_cute_and_from_cute_take_text():
    cute = "((8,3),(128,2)):((128,2048),(1,1024))"
    assert tilespec.compare_cute("f32[24,256]{1,0:T(8,128)}", cute).status == "proved"
    assert tilespec.compare_cute("f32[m,256]{1,0:T(8,128)}", cute,
                                 dims={"m": 24}).status == "proved"
    assert tilespec.format_shape(tilespec.from_cute(cute, like="f32[24,256]")) == \
        "f32[24,256]{1,0:T(8,128)}"


def test_cutes_algebra_and_its_proofs_are_public():
    A = tilespec.cute.parse_cute("((8,3),(128,2)):((128,2048),(1,1024))")
    assert str(tilespec.cute.zipped_divide(A, (8, 128))) == "((8, 128), (3, 2)):((128, 1), (2048, 1024))"
    assert tilespec.prove_cute_law("logical_divide", A, (8, 128)).proved
    assert tilespec.prove_swizzle(tilespec.cute.Swizzle(3, 4, 3)).proved
    d = tilespec.tile_division("f32[m,256]{1,0:T(8,128)}", (8, 128), dims={"m": 24})
    assert d.xla == "f32[24,256]{1,0:T(8,128)}" and d.result.proved
    assert "dims" in inspect.signature(tilespec.tile_division).parameters
