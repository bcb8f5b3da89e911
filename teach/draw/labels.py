"""The words of a picture in the reader's language: English, Korean, Spanish.

A picture's words (panel titles, the legend, the count of rows or columns
left out) are composed in English where they are drawn
(:mod:`teach.draw.geometry`, :mod:`teach.draw.svg`), as a template with
named fields, and handed to :func:`label`, which gives the template in the
picture's language.  The words are those of the source document's own
translations (XLA's "Tiled layout" page in Korean and Spanish): Korean
타일 (tile), 채우기 (padding), 바둑판식 배열 (tiling); Spanish mosaico (tile),
amortiguado (padding), arreglo (array).

>>> label("ko", "hatched = padding")
'빗금 = 채우기'
>>> label("es", "{n} per row; hatched = padding", n=4)
'4 por fila; rayado = amortiguado'
>>> label("en", "{n} per row; hatched = padding", n=4)
'4 per row; hatched = padding'
>>> font_family("ko")[:2]
('DejaVu Sans', 'Noto Sans CJK KR')

Hangul needs a font that has it: an SVG names a list of families and the
browser takes each letter from the first that has it (the text stays
text); a PNG is drawn with matplotlib and needs such a font installed
(:mod:`teach.draw.render`).
"""

from __future__ import annotations

import unicodedata

from ...spec import TilespecError

#: The languages a picture can be labelled in.
LANGUAGES = ("en", "ko", "es")

_LATIN = ("DejaVu Sans", "Verdana", "Arial", "sans-serif")

#: Font families of a picture's text, first choice first.  Digits come from
#: DejaVu Sans in every language (the label widths are measured in it); the
#: Korean list then names the Hangul fonts of Linux, Windows and macOS.
FONT_FAMILIES = {
    "en": _LATIN,
    "es": _LATIN,
    "ko": ("DejaVu Sans", "Noto Sans CJK KR", "Noto Sans KR", "Malgun Gothic",
           "Apple SD Gothic Neo", "NanumGothic", "sans-serif"),
}

#: A character of the scripts each language needs beyond DejaVu Sans (which
#: has every Latin letter): a font that lacks it cannot draw the labels.
SCRIPT_SAMPLE = {"en": "", "es": "", "ko": "가"}

#: Each English template in the other languages.  Fields in braces are
#: filled in by :func:`label`; colour names are the plural adjectives that
#: qualify "lines".
TEXTS: dict[str, dict[str, str]] = {
    "ko": {
        "memory: each cell's offset": "메모리: 각 칸의 오프셋",
        "{n} per row; hatched = padding": "한 줄에 {n}칸; 빗금 = 채우기",
        "array: offset of each element": "배열: 각 요소의 오프셋",
        "hatched = padding": "빗금 = 채우기",
        "slice {where}": "슬라이스 {where}",
        "offset of each element": "각 요소의 오프셋",
        "no tiling: row-major in the physical dim order":
            "바둑판식 배열 없음: 물리적 차원을 메이저-마이너 순서로 배치",
        "colour + black lines = tile {tile}: {reach}": "색 + 검은 선 = 타일 {tile}: {reach}",
        "{t} along an added unit dim": "추가된 크기 1 차원 방향 {t}",
        "{t} along dims {dims} merged (*)": "합친 차원 {dims} (*) 방향 {t}",
        "{t} along dim {dim} (rows)": "차원 {dim} (행) 방향 {t}",
        "{t} along dim {dim} (columns)": "차원 {dim} (열) 방향 {t}",
        "{t} along dim {dim}": "차원 {dim} 방향 {t}",
        "… {count} more columns, all padding …": "… 열 {count}개 생략, 모두 채우기 …",
        "+{count} columns of padding": "+채우기 {count}열",
        "… {count} more rows, all padding …": "… 행 {count}개 생략, 모두 채우기 …",
        "+{count} rows of padding": "+채우기 {count}행",
        "+{count} pad": "+채우기 {count}",
        "… {data} more columns + {padding} of padding …":
            "… 열 {data}개 + 채우기 {padding}개 생략 …",
        "+{data} columns +{padding} padding": "+{data}열 +채우기 {padding}",
        "… {data} more rows + {padding} of padding …":
            "… 행 {data}개 + 채우기 {padding}개 생략 …",
        "+{data} rows +{padding} padding": "+{data}행 +채우기 {padding}",
        "+{data} +{padding} pad": "+{data} +채우기 {padding}",
        "{colour} lines = tile {tile}": "{colour} 선 = 타일 {tile}",
        "vermillion": "주홍색", "blue": "파란색", "green": "초록색", "purple": "보라색",
        "{bits}-bit elements, {per} to a 32-bit word: long blue mark = word boundary, "
        "short blue mark = byte boundary":
            "{bits}비트 요소, 32비트 워드 하나에 {per}개: 긴 파란 표시 = 워드 경계, "
            "짧은 파란 표시 = 바이트 경계",
        "{shown} of {total} slices shown ({more} more not drawn)":
            "슬라이스 {total}개 중 {shown}개 표시 (나머지 {more}개 생략)",
        "… {count} more columns …": "… 열 {count}개 생략 …",
        "+{count} columns": "+{count}열",
        "… {count} more rows …": "… 행 {count}개 생략 …",
        "+{count} rows": "+{count}행",
        "Hover an element to see where it sits in memory, or a memory cell to see "
        "which element it holds. Drawn by tilespec from XLA's {link} rules.":
            "요소 위에 마우스를 올리면 메모리의 어느 칸에 있는지, 메모리 칸 위에 올리면 "
            "어떤 요소가 들어 있는지 보입니다. XLA의 {link} 규칙에 따라 tilespec이 "
            "그렸습니다.",
        "Tiled layout": "바둑판식 레이아웃",
        "offset {offset}: ": "오프셋 {offset}: ",
        "padding": "채우기",
        "element ({index})": "요소 ({index})",
    },
    "es": {
        "memory: each cell's offset": "memoria: desplazamiento de cada celda",
        "{n} per row; hatched = padding": "{n} por fila; rayado = amortiguado",
        "array: offset of each element": "arreglo: desplazamiento de cada elemento",
        "hatched = padding": "rayado = amortiguado",
        "slice {where}": "corte {where}",
        "offset of each element": "desplazamiento de cada elemento",
        "no tiling: row-major in the physical dim order":
            "sin mosaico: dimensiones físicas en orden de mayor a menor",
        "colour + black lines = tile {tile}: {reach}":
            "color + líneas negras = mosaico {tile}: {reach}",
        "{t} along an added unit dim": "{t} a lo largo de una dim unitaria añadida",
        "{t} along dims {dims} merged (*)": "{t} a lo largo de las dims {dims} unidas (*)",
        "{t} along dim {dim} (rows)": "{t} a lo largo de la dim {dim} (filas)",
        "{t} along dim {dim} (columns)": "{t} a lo largo de la dim {dim} (columnas)",
        "{t} along dim {dim}": "{t} a lo largo de la dim {dim}",
        "… {count} more columns, all padding …": "… {count} columnas más, solo amortiguado …",
        "+{count} columns of padding": "+{count} columnas de amortiguado",
        "… {count} more rows, all padding …": "… {count} filas más, solo amortiguado …",
        "+{count} rows of padding": "+{count} filas de amortiguado",
        "+{count} pad": "+{count} amort.",
        "… {data} more columns + {padding} of padding …":
            "… {data} columnas más + {padding} de amortiguado …",
        "+{data} columns +{padding} padding": "+{data} columnas +{padding} de amortiguado",
        "… {data} more rows + {padding} of padding …":
            "… {data} filas más + {padding} de amortiguado …",
        "+{data} rows +{padding} padding": "+{data} filas +{padding} de amortiguado",
        "+{data} +{padding} pad": "+{data} +{padding} amort.",
        "{colour} lines = tile {tile}": "líneas {colour} = mosaico {tile}",
        "vermillion": "bermellón", "blue": "azules", "green": "verdes", "purple": "moradas",
        "{bits}-bit elements, {per} to a 32-bit word: long blue mark = word boundary, "
        "short blue mark = byte boundary":
            "elementos de {bits} bits, {per} por palabra de 32 bits: marca azul larga = "
            "límite de palabra, marca azul corta = límite de byte",
        "{shown} of {total} slices shown ({more} more not drawn)":
            "se muestran {shown} de {total} cortes ({more} sin dibujar)",
        "… {count} more columns …": "… {count} columnas más …",
        "+{count} columns": "+{count} columnas",
        "… {count} more rows …": "… {count} filas más …",
        "+{count} rows": "+{count} filas",
        "Hover an element to see where it sits in memory, or a memory cell to see "
        "which element it holds. Drawn by tilespec from XLA's {link} rules.":
            "Pase el puntero sobre un elemento para ver dónde está en la memoria, o sobre "
            "una celda de memoria para ver qué elemento contiene. Dibujado por tilespec "
            "según las reglas del {link} de XLA.",
        "Tiled layout": "Diseño en mosaico",
        "offset {offset}: ": "desplazamiento {offset}: ",
        "padding": "amortiguado",
        "element ({index})": "elemento ({index})",
    },
}


class LanguageError(TilespecError):
    """A picture was asked for in a language it has no words for."""


def check_language(lang: str) -> str:
    """``lang`` if pictures can be labelled in it; else a one-line error.

    >>> check_language("fr")
    Traceback (most recent call last):
    ...
    tilespec.teach.draw.labels.LanguageError: no labels in 'fr'; choose one of en, ko, es
    """
    if lang not in LANGUAGES:
        raise LanguageError(f"no labels in {lang!r}; choose one of {', '.join(LANGUAGES)}")
    return lang


def label(lang: str, english: str, **values: object) -> str:
    """The template ``english`` in language ``lang``, its fields filled in.

    A template with no translation yet is given in English (the tests list
    any such template).
    """
    words = english if lang == "en" else TEXTS[check_language(lang)].get(english, english)
    return words.format(**values) if values else words


def font_family(lang: str) -> tuple[str, ...]:
    """The font families, first choice first, for text in ``lang``."""
    return FONT_FAMILIES[check_language(lang)]


def css_font_family(lang: str) -> str:
    """:func:`font_family` as a CSS/SVG ``font-family`` value.

    >>> css_font_family("en")
    'DejaVu Sans, Verdana, Arial, sans-serif'
    """
    # Names of several words need no quotes in CSS, so the value fits in
    # any attribute or style.
    return ", ".join(font_family(lang))


def display_chars(text: str) -> float:
    """How many average Latin characters ``text`` is as wide as: a Hangul
    syllable (East Asian wide) takes about one em, 1.6 average letters.

    >>> display_chars("+12 rows"), display_chars("+12행")
    (8, 4.6)
    """
    wide = sum(unicodedata.east_asian_width(ch) in "WF" for ch in text)
    return len(text) + 0.6 * wide if wide else len(text)
