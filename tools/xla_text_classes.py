"""Record the XLA binary's answers to a seeded sample of each class of
tests/xla/text_classes.py, for tests/xla/test_xla_text_recorded.py to replay
against tilespec in every run (no jaxlib needed there).

    python tools/xla_text_classes.py            # writes tests/data/xla_text_classes.json

Needs the xla extra (jaxlib); the file names the jaxlib that answered.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "xla"))

from text_cases import asked  # noqa: E402
from text_classes import CLASSES, draw  # noqa: E402

from tilespec.xla import real  # noqa: E402

OUT = ROOT / "tests" / "data" / "xla_text_classes.json"
SEED, COUNT = 31, 40


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--count", type=int, default=COUNT, help="texts per class")
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    classes = {name: draw(name, args.seed, args.count) for name in CLASSES}
    every = list(dict.fromkeys(t for texts in classes.values() for t in asked(texts, {})))
    answers = real.ask(every, measure=False)
    doc = {"jaxlib": real.versions().get("jaxlib"), "seed": args.seed, "count": args.count,
           "classes": classes,
           "answers": {a.text: {k: v for k, v in dataclasses.asdict(a).items()
                                if v is not None and k != "text"} for a in answers}}
    args.out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(every)} texts, jaxlib {doc['jaxlib']}: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
