"""``tilespec draw --html`` in a real browser: hovering links element and memory.

The page is opened by headless Chromium as ``page.html#selftest``; its own
script then hovers every cell in turn (a ``mouseenter`` event, as a pointer
sends) and writes what lit up into the page, which ``--dump-dom`` prints.
The test compares that with the spec: hovering element ``e`` lights exactly
the cells of offset ``offset(e)`` (its memory cell among them), and hovering
a memory cell lights the element ``locate`` finds there.

Needs Debian's ``chromium`` (``apt-get install -y chromium``); skipped, with
that reason, where /usr/bin/chromium is absent.
"""

from __future__ import annotations

import json
import re
import subprocess
from html import unescape
from pathlib import Path

import pytest

from tilespec.cli import main
from tilespec.spec.index import locate, offset
from tilespec.spec.text import parse_array_shape

# Drives a headless browser.
pytestmark = pytest.mark.integration

CHROMIUM = Path("/usr/bin/chromium")

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="the browser test needs Debian's chromium at /usr/bin/chromium "
           "(apt-get install -y chromium)")


def self_test(page: Path, profile: Path, report: str = "selftest",
              window: tuple[int, int] = (1280, 800)):
    """Open ``page`` in headless Chromium (a window of ``window`` pixels)
    with the self-test on; the self-test's ``report`` (the ``pre`` of that id)."""
    result = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-extensions",
         f"--window-size={window[0]},{window[1]}",
         f"--user-data-dir={profile}", "--virtual-time-budget=5000", "--dump-dom",
         page.resolve().as_uri() + "#selftest"],
        capture_output=True, text=True, timeout=120)
    found = re.search(rf'<pre id="{report}"[^>]*>(.*?)</pre>', result.stdout, re.S)
    assert found, f"no self-test report in the page; chromium said: {result.stderr[-2000:]}"
    return json.loads(unescape(found.group(1)))


def hover_everything(page: Path, profile: Path) -> list[dict]:
    """Open ``page`` in headless Chromium with the self-test on; its report."""
    return self_test(page, profile)


@needs_chromium
def test_the_page_fits_a_narrow_window(tmp_path, capsys):
    # a projector at 800 pixels: the TPU layout's picture scales down, no scrolling
    page = tmp_path / "view.html"
    assert main(["draw", "bf16[16,256]{1,0:T(8,128)(2,1)}", "--html", "-o", str(page)]) == 0
    capsys.readouterr()
    fit = self_test(page, tmp_path / "profile", "fit", window=(800, 600))
    assert fit["page"] <= fit["window"] and 0 < fit["picture"] <= fit["window"], fit


def _index(text: str):
    return tuple(int(x) for x in text.split(",")) if text else ()


@needs_chromium
@pytest.mark.parametrize("text", [
    "f32[3,5]{1,0:T(2,2)}",                 # Figure 1: padding in both views
    "bf16[16,256]{1,0:T(8,128)(2,1)}",      # elided, packed
])
def test_hovering_links_each_element_and_its_memory_cell(tmp_path, capsys, text):
    shape = parse_array_shape(text)
    page = tmp_path / "view.html"
    assert main(["draw", text, "--html", "-o", str(page)]) == 0
    capsys.readouterr()
    report = hover_everything(page, tmp_path / "profile")
    assert report, "the page has no cells"
    kinds = {r["panel"] for r in report}
    assert kinds == {"array0", "memory"}
    drawn = {(r["panel"], int(r["offset"])) for r in report}
    linked = 0
    for r in report:
        o = int(r["offset"])
        lit = {(panel, int(off), idx) for panel, off, idx in r["lit"]}
        # Everything lit shows this offset, and the hovered cell is lit.
        assert {off for _, off, _ in lit} == {o}, r
        assert (r["panel"], o, r["index"]) in lit
        where = locate(shape, o)
        if r["panel"] == "array0":
            e = _index(r["index"])
            if where is None:
                # A padding cell of the array view: the padding it shows is
                # padding in memory too.
                assert any(d >= n for d, n in zip(e, shape.dims)), r
            else:
                assert offset(shape, e) == o
        else:
            assert (where is None) == (r["index"] == ""), r
            if where is not None:
                assert _index(r["index"]) == where
        panels = {panel for panel, _, _ in lit}
        # Hovering one view lights the other wherever the other draws it.
        assert panels == {p for p, off in drawn if off == o}, r
        if panels == {"array0", "memory"}:
            linked += 1
            memory_index = next(idx for p, _, idx in lit if p == "memory")
            array_index = next(idx for p, _, idx in lit if p == "array0")
            if memory_index:
                assert memory_index == array_index
        assert r["info"].startswith(f"offset {o}:")
    assert linked >= 0.25 * len(report)


def test_the_page_is_self_contained(tmp_path, capsys):
    assert main(["draw", "f32[3,5]{1,0:T(2,2)}", "--html"]) == 0
    page = capsys.readouterr().out
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "<script>" in page
    # Nothing is fetched: no external scripts, styles, images or fonts.
    assert not re.search(r"<(script|img|link|iframe)[^>]*\s(src|href)=", page)
    assert "@import" not in page and "url(http" not in page
    assert "https://openxla.org/xla/tiled_layout" in page


def test_html_needs_an_html_file(tmp_path, capsys):
    assert main(["draw", "f32[3,5]{1,0:T(2,2)}", "--html", "-o",
                 str(tmp_path / "x.png")]) == 2
    assert "--html writes an HTML page" in capsys.readouterr().err
