"""``tilespec pallas-order``: XLA's operand layout against Mosaic's, the
element placed apart, and its figure."""

from html import unescape

from locations import DATA

from tilespec.cli import main
from tilespec.teach.draw.contrast import marked


def test_8732_is_explained_and_drawn_as_the_docs_show_it(tmp_path, capsys):
    # docs/pallas.md shows tests/data/figures/pallas_8732.svg; the figures-fit
    # test measures its texts in a browser
    out = tmp_path / "8732.svg"
    assert main(["pallas-order", "f32[16,3072]{1,0:T(128)S(1)}", "--draw", str(out)]) == 1
    text = capsys.readouterr().out
    assert "Mosaic     f32[16,3072]{1,0:T(8,128)}" in text
    assert "element (0, 128) is at byte 512 in XLA's layout but at byte 4,096 in Mosaic's" in text
    assert out.read_text() == (DATA / "figures" / "pallas_8732.svg").read_text()
    svg = unescape(out.read_text())
    assert marked(svg) == [(0, 128), (0, 128)]
    assert "offset 128 in XLA's layout, 1024 in Mosaic's" in svg


def test_a_refuted_condition_draws_its_counterexample(tmp_path, capsys):
    out = tmp_path / "m4.svg"
    assert main(["pallas-order", "f32[m,n]{1,0:T(8,128)}", "--condition",
                 "m >= 4 or n <= 128", "--draw", str(out)]) == 1
    assert "refuted" in capsys.readouterr().out
    svg = out.read_text()
    assert "f32[4,129]{1,0:T(4,128)}" in svg and marked(svg) == [(0, 128), (0, 128)]


def test_layouts_in_one_order_exit_0_and_draw_nothing(tmp_path, capsys):
    assert main(["pallas-order", "f32[1000]{0:T(128)}"]) == 0
    assert "every element of [1000] is at one offset" in capsys.readouterr().out
    assert main(["pallas-order", "f32[1000]{0:T(128)}", "--draw", str(tmp_path / "x.svg")]) == 2
    assert "nothing to draw" in capsys.readouterr().err


def test_bad_input_is_one_line_and_exit_2(capsys):
    for argv in (["pallas-order", "--vector"], ["pallas-order", "--claims", "f32[8]{0}"],
                 ["pallas-order"], ["pallas-order", "f32[2,3,4]{2,1,0:T(8,128)}"],
                 ["pallas-order", "f32[m,n]{1,0:T(8,128)}", "--condition", "k > 1"],
                 ["pallas-order", "f32[8]{0:T(128)}", "--condition", "n > 1"],
                 ["pallas-order", "f32[16,300]{1,0:T(128)}", "--draw", "x.png"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("tilespec: error: ") and err.count("\n") == 1, err
