"""Every text of every figure fits inside the drawing, measured by a real
browser: headless Chromium lays out each SVG (``tilespec draw``, the
committed Figures 1 and 2, the words in English, Korean and Spanish) inline
in a page 800 and 1,300 pixels wide, and the ``tilespec draw --html`` page in
windows of those widths, and reports each ``<text>``'s bounding box
on screen against the picture's (its ``viewBox``, scaled), and on the HTML
page against the picture and the window.
A caption wider than the ``viewBox`` is cut off where the picture ends.
The PNG (matplotlib) is measured by matplotlib's own text extents.

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
from locations import DATA

from tilespec.cli import main

CHROMIUM = Path("/usr/bin/chromium")

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="the browser test needs Debian's chromium at /usr/bin/chromium "
           "(apt-get install -y chromium)")

#: The figures drawn: the document's two, the TPU tilings, ranks 0 and 3,
#: packed 4-bit elements, a combined dim, and the translated words.
DRAWN = [("f32[3,5]{1,0:T(2,2)}", "en"), ("bf16[4,8]{1,0:T(2,4)(2,1)}", "en"),
         ("bf16[16,256]{1,0:T(8,128)(2,1)}", "en"), ("f32[4,20,300]{2,1,0:T(8,128)}", "en"),
         ("s4[16,256]{1,0:T(8,128)(2,1)E(4)}", "en"), ("f32[4,6]{1,0:T(*,4)}", "en"),
         ("s32[]{:T(128)}", "en"), ("f32[3,2,2]{2,1,0}", "en"), ("f32[8]{0}", "en"),
         ("f32[3,5]{1,0:T(2,2)}", "ko"), ("bf16[4,8]{1,0:T(2,4)(2,1)}", "es"),
         ("bf16[16,256]{1,0:T(8,128)(2,1)}", "ko")]
COMMITTED = sorted((DATA / "figures").glob("*.svg"))
WIDTHS = (800, 1300)

#: Measures every <text> of every inline <svg>: its box on screen (rotated
#: texts included) against the svg's, which is its viewBox scaled; one pixel
#: of slack for anti-aliasing.
_MEASURE = """
<script>
var out = [];
document.querySelectorAll('div.figure').forEach(function (div) {
  var svg = div.querySelector('svg');
  var s = svg.getBoundingClientRect();
  svg.querySelectorAll('text').forEach(function (t) {
    var b = t.getBoundingClientRect();
    if (b.left < s.left - 1 || b.right > s.right + 1 || b.top < s.top - 1
        || b.bottom > s.bottom + 1) {
      out.push({figure: div.dataset.name, text: t.textContent,
                box: [b.left, b.top, b.right, b.bottom],
                picture: [s.left, s.top, s.right, s.bottom]});
    }
  });
});
var pre = document.createElement('pre');
pre.id = 'clipped';
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>
"""

#: On the --html page: every text's box on screen inside the picture and the window.
_MEASURE_PAGE = """
<script>
var out = [];
var svg = document.querySelector('svg');
var s = svg.getBoundingClientRect();
var w = document.documentElement.clientWidth;
svg.querySelectorAll('text').forEach(function (t) {
  var b = t.getBoundingClientRect();
  if (b.left < s.left - 1 || b.right > s.right + 1 || b.top < s.top - 1
      || b.bottom > s.bottom + 1 || b.right > w) {
    out.push({text: t.textContent, box: [b.left, b.top, b.right, b.bottom],
              picture: [s.left, s.top, s.right, s.bottom], window: w});
  }
});
var pre = document.createElement('pre');
pre.id = 'clipped';
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>
"""


def open_in_chromium(page: Path, profile: Path, width: int) -> list[dict]:
    """What the measuring script of ``page`` reports, in a window ``width`` wide."""
    result = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-extensions",
         f"--window-size={width},900", f"--user-data-dir={profile}",
         "--virtual-time-budget=5000", "--dump-dom", page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120)
    found = re.search(r'<pre id="clipped"[^>]*>(.*?)</pre>', result.stdout, re.S)
    assert found, f"no measurement in the page; chromium said: {result.stderr[-2000:]}"
    return json.loads(unescape(found.group(1)))


def figures_page(svgs: dict[str, str]) -> str:
    """Each figure twice, in a box 800 and one 1,300 pixels wide (a page
    that wide), its proportions kept: one browser start measures both."""
    body = "".join(f'<div class="figure" data-name="{name} at {width}px" '
                   f'style="width:{width - 40}px">'
                   + re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1 width="100%"',
                            re.sub(r"<[?]xml[^>]*>", "", text), count=1)
                   + "</div>" for width in WIDTHS for name, text in svgs.items())
    return f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>{body}{_MEASURE}" \
           "</body></html>"


@pytest.fixture(scope="module")
def drawn(tmp_path_factory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("drawn")
    svgs = {}
    for n, (text, lang) in enumerate(DRAWN):
        out = d / f"figure{n}.svg"
        assert main(["draw", text, "--lang", lang, "-o", str(out)]) == 0
        svgs[f"{text} ({lang})"] = out.read_text(encoding="utf-8")
    for path in COMMITTED:
        svgs[f"committed {path.name}"] = path.read_text(encoding="utf-8")
    return svgs


@pytest.mark.integration   # drives a headless browser
@needs_chromium
def test_every_text_of_every_svg_fits_its_viewbox(tmp_path, drawn):
    page = tmp_path / "figures.html"
    page.write_text(figures_page(drawn), encoding="utf-8")
    clipped = open_in_chromium(page, tmp_path / "profile", max(WIDTHS))
    assert clipped == [], "\n".join(f"{c['figure']}: {c['text']!r} {c['box']} outside "
                                    f"{c['picture']}" for c in clipped)


@pytest.mark.integration   # drives a headless browser
@needs_chromium
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("text,lang", [("f32[3,5]{1,0:T(2,2)}", "en")])
def test_every_text_of_the_html_page_fits_the_picture_and_the_window(tmp_path, capsys, text,
                                                                       lang, width):
    page = tmp_path / "view.html"
    assert main(["draw", text, "--html", "--lang", lang, "-o", str(page)]) == 0
    capsys.readouterr()
    html = page.read_text(encoding="utf-8").replace("</body>", _MEASURE_PAGE + "</body>")
    page.write_text(html, encoding="utf-8")
    clipped = open_in_chromium(page, tmp_path / "profile", width)
    assert clipped == [], clipped


@pytest.mark.parametrize("text,lang", [("f32[3,5]{1,0:T(2,2)}", "en"),
                                       ("bf16[4,8]{1,0:T(2,4)(2,1)}", "es"),
                                       ("s32[]{:T(128)}", "en")])
def test_every_text_of_the_png_fits_the_figure(text, lang):
    from tilespec.spec.text import parse_array_shape
    from tilespec.teach.draw.render import figure
    from tilespec.teach.draw.scene import scene
    fig = figure(scene(parse_array_shape(text)), lang)
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    texts = [t for t in fig.findobj(lambda o: hasattr(o, "get_text") and o.get_text())]
    assert texts
    outside = [t.get_text() for t in texts
               if not (box.x0 - 1 <= t.get_window_extent(renderer).x0
                       and t.get_window_extent(renderer).x1 <= box.x1 + 1
                       and box.y0 - 1 <= t.get_window_extent(renderer).y0
                       and t.get_window_extent(renderer).y1 <= box.y1 + 1)]
    assert outside == []
