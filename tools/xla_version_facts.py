"""Record what the installed XLA binary (jaxlib) answers on texts whose
answer changed at a modelled commit, so the tests can place that binary on
tilespec's version axis without jaxlib.

Each text is asked through tilespec.xla.real (parse, print, validate); the
record keeps whether XLA accepted it, its reason, and whether it aborted.
The texts discriminate the versions around the binary's build: tile
validation and nested-tiling padding (1f375f52d4) and split-config
validation (cbb23d1d64).

    python tools/xla_version_facts.py > tests/data/xla_versions/jaxlib_0.10.2.json
"""

from __future__ import annotations

import json
import sys

from tilespec.xla import real

#: (text, the modelled change it discriminates)
TEXTS = [
    ("f32[8,8]{1,0:SC(5:2)}", "cbb23d1d64: split config physical dim out of range"),
    ("f32[8,8]{1,0:SC(0:2)(0:4)}", "cbb23d1d64: split config physical dim repeated"),
    ("f32[8,8]{1,0:SC(0:2)(1:4)}", "cbb23d1d64: two valid split configs"),
    ("f32[8,8]{1,0:SC(0:3,2)}", "cbb23d1d64: split indices not increasing"),
    ("f32[8,8]{1,0:SC(0:0)}", "cbb23d1d64: split index not positive"),
    ("f32[8,8]{1,0:SC(0:9)}", "cbb23d1d64: split index past the dim"),
    ("f32[8,4]{1,0:SC(1:3)}", "cbb23d1d64: a valid split config"),
    ("f32[8,8]{1,0:T(2,0)}", "1f375f52d4: tile dim 0 (the message names it since)"),
    ("f32[8,8]{1,0:T(2,-2)}", "every version: MakeLayout stops on a negative tile dim"),
    ("f32[8,8]{1,0:T(2,2)(2,2,2,2,2)}", "1f375f52d4: a later tile longer than the dims"),
    ("f32[200]{0:T(8,128)}", "1f375f52d4: a tile longer than the dims"),
    ("u32[]{:T(128)}", "1f375f52d4: a scalar tiled"),
    ("f32[8,8]{1,0:T(2,*)}", "every version: '*' as the most minor tile entry"),
]


def main() -> int:
    import jaxlib

    answers = real.validate([t for t, _ in TEXTS])
    out = {"jaxlib": jaxlib.__version__, "facts": [
        {"text": t, "discriminates": why, "parsed": a.parsed, "valid": a.valid,
         "reason": a.reason, "aborted": a.aborted}
        for (t, why), a in zip(TEXTS, answers)]}
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
