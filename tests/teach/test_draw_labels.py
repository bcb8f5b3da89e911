"""A picture's words in Korean and Spanish (teach/draw/labels.py).

Every English template a figure draws has a translation in each language
(a template added or reworded without one fails here, naming it); the words
stay SVG text, in a font list with Hangul; a notebook shows a Korean picture
as SVG (the reader's browser has the fonts), and a Korean PNG on a machine
without a Hangul font is a one-line error, never boxes in place of letters.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping

import pytest
from test_figures_html import hover_everything, needs_chromium

import tilespec
from tilespec.spec.errors import TilespecError
from tilespec.spec.text import parse_array_shape
from tilespec.teach.draw import labels, render
from tilespec.teach.draw.figure import picture

#: Between them these draw every kind of word: titles of an array, a memory
#: panel and 2-D slices, elided rows and columns, the untiled and the packed
#: legends, a second and a third tiling level, slices left out.
SHAPES = [
    "f32[3,5]{1,0:T(2,2)}",
    "f32[3,5]{1,0}",
    "bf16[16,300]{1,0:T(8,128)(2,1)}",
    "f32[1024,1024]{1,0:T(8,128)}",
    "f32[5,20,300]{2,1,0:T(8,128)}",
    "s4[16,256]{1,0:T(8,128)(2,1)(4,1)E(4)}",
    "f32[8,8]{1,0:T(8,8)(4,4)(2,2)(2,1)(1,1)}",
    "f32[2,3]{1,0:T(2,1024)}",          # a gap that is all padding
    "f32[3,2]{1,0:T(1024,2)}",          # rows of padding only
    "f32[4,6,8]{0,1,2:T(2,2,4)}",       # a tile entry along a dim drawn as slices
    "f32[4,6]{1,0:T(*,4)}",             # dims merged by '*'
    "f32[300]{0:T(8,128)}",             # a tile longer than the rank
]
SVG_NS = "{http://www.w3.org/2000/svg}"
HANGUL = re.compile("[\uac00-\ud7a3]")


class Recording(Mapping):
    """A language's table that notes each template looked up."""

    def __init__(self, table: dict[str, str]):
        self.table, self.asked = table, set()

    def __getitem__(self, key):
        return self.table[key]

    def get(self, key, default=None):
        self.asked.add(key)
        return self.table.get(key, default)

    def __iter__(self):
        return iter(self.table)

    def __len__(self):
        return len(self.table)


@pytest.mark.parametrize("lang", ["ko", "es"])
def test_every_word_a_figure_draws_is_translated(monkeypatch, lang):
    recording = Recording(labels.TEXTS[lang])
    monkeypatch.setitem(labels.TEXTS, lang, recording)
    for text in SHAPES:
        picture(parse_array_shape(text), lang).html()   # the page's words and the SVG's
    missing = sorted(recording.asked - set(recording.table))
    assert not missing, f"no {lang} words for {missing}"
    unused = sorted(set(recording.table) - recording.asked)
    assert not unused, f"{lang} words no figure draws: {unused}"


def _texts(svg_text: str) -> list[str]:
    root = ET.fromstring(svg_text)
    return ["".join(t.itertext()) for t in root.iter(f"{SVG_NS}text")]


def test_korean_words_stay_svg_text_in_a_font_with_hangul():
    text = picture(parse_array_shape("bf16[16,300]{1,0:T(8,128)(2,1)}"), "ko").svg()
    words = _texts(text)
    assert "배열: 각 요소의 오프셋빗금 = 채우기" in words                 # the two title lines
    assert "… 열 169개 + 채우기 84개 생략 …" in words
    assert any(w.startswith("색 + 검은 선 = 타일 (8,128)") for w in words)
    assert not any(re.search("[A-Za-z]{3,}", w) for w in words[1:]
                   if not w.startswith("bf16[")), "an English word left in the Korean figure"
    family = ET.fromstring(text).get("font-family")
    assert "Noto Sans CJK KR" in family and "Malgun Gothic" in family
    assert "Apple SD Gothic Neo" in family and family.endswith("sans-serif")


def test_english_words_are_unchanged_by_the_table():
    words = _texts(picture(parse_array_shape("f32[1024,1024]{1,0:T(8,128)}")).svg())
    assert "array: offset of each element" + "hatched = padding" in words
    assert any(w.startswith("… ") and w.endswith(" more rows …") for w in words)
    assert not any(HANGUL.search(w) for w in words)


def test_spanish_uses_the_documents_words():
    words = _texts(picture(parse_array_shape("f32[3,5]{1,0:T(2,2)}"), "es").svg())
    assert "memoria: desplazamiento de cada celda" + "4 por fila; rayado = amortiguado" in words
    # the caption, wrapped to the picture's width, read as one
    assert ("color + líneas negras = mosaico (2,2): 2 a lo largo de la dim 0 (filas)"
            " x 2 a lo largo de la dim 1 (columnas)") in " ".join(words)


def test_spanish_padding_words_agree_with_their_noun():
    es = labels.TEXTS["es"]
    assert es["… {count} more columns, all padding …"] == "… {count} columnas más, solo amortiguado …"
    assert es["… {count} more rows, all padding …"] == "… {count} filas más, solo amortiguado …"
    assert not any("todas amortiguado" in w or "todos amortiguado" in w for w in es.values())


def test_the_matplotlib_picture_draws_the_same_words():
    # Titles, elided columns and the legend: the words the SVG has.
    p = picture(parse_array_shape("f32[5,20,300]{2,1,0:T(8,128)}"), "es")
    drawn = {t.get_text() for t in p.figure().axes[0].texts}
    assert "corte [0, :, :]\ndesplazamiento de cada elemento" in drawn
    assert "… 113 columnas más …" in drawn
    assert any("se muestran 3 de 5 cortes (2 sin dibujar)" in t for t in drawn)


def test_a_notebook_shows_a_korean_picture_as_svg_and_an_english_one_as_png():
    shape = "f32[3,5]{1,0:T(2,2)}"
    ko = tilespec.draw(shape, lang="ko")
    assert ko._repr_png_() is None and HANGUL.search(ko._repr_svg_())
    en = tilespec.draw(shape)
    assert en._repr_svg_() is None and en._repr_png_()[:4] == b"\x89PNG"
    es = tilespec.draw(shape, lang="es")
    assert es._repr_png_()[:4] == b"\x89PNG"


def test_a_korean_png_without_a_hangul_font_is_a_one_line_error(monkeypatch, tmp_path):
    monkeypatch.setattr(render, "installed_fonts", lambda lang: ["DejaVu Sans"])
    with pytest.raises(render.MissingFontError) as error:
        tilespec.draw("f32[3,5]{1,0:T(2,2)}", tmp_path / "ko.png", lang="ko")
    assert isinstance(error.value, ValueError) and "\n" not in str(error.value)
    assert ".svg" in str(error.value)
    assert not (tmp_path / "ko.png").exists()


def test_an_unknown_language_is_a_one_line_error():
    with pytest.raises(labels.LanguageError, match="choose one of en, ko, es") as error:
        tilespec.draw("f32[3,5]{1,0:T(2,2)}", lang="fr")
    assert isinstance(error.value, TilespecError) and isinstance(error.value, ValueError)


def test_the_korean_page_is_korean():
    page = picture(parse_array_shape("f32[3,5]{1,0:T(2,2)}"), "ko").html()
    assert '<html lang="ko">' in page
    assert 'data-offset="오프셋 {offset}: " data-padding="채우기" data-element="요소 ({index})"' in page
    assert ">바둑판식 레이아웃</a>" in page


@pytest.mark.integration
@needs_chromium
def test_hovering_the_korean_page_speaks_korean(tmp_path):
    page = tmp_path / "ko.html"
    tilespec.draw("f32[3,5]{1,0:T(2,2)}", page, lang="ko")
    report = hover_everything(page, tmp_path / "profile")
    infos = {r["info"] for r in report if r["panel"] == "memory"}
    assert "오프셋 17: 요소 (2,3)" in infos and "오프셋 9: 채우기" in infos


def test_the_command_draws_in_korean(tmp_path, capsys):
    from tilespec.cli import main
    out = tmp_path / "figure1.svg"
    assert main(["draw", "f32[3,5]{1,0:T(2,2)}", "--lang", "ko", "-o", str(out)]) == 0
    assert "빗금 = 채우기" in out.read_text(encoding="utf-8")
    capsys.readouterr()
    # Without a Hangul font a Korean PNG is bad input for this machine: exit 2, one line.
    if not any(render.draws(f, "가") for f in render.installed_fonts("ko")):
        assert main(["draw", "f32[3,5]{1,0:T(2,2)}", "--lang", "ko",
                     "-o", str(tmp_path / "f.png")]) == 2
        err = capsys.readouterr().err
        assert "write .svg or .html instead" in err and "Traceback" not in err
