"""The text and size differential against several jaxlib releases.

Each release gets its own venv under a work directory (made on first use:
``python -m venv``, then ``pip install jax==V jaxlib==V``); the real-XLA
worker (xla/worker.py) runs in that venv.  For each release:

* text: the held-out texts of tests/xla/text_cases.py, judged as
  tests/xla/test_xla_text.py judges them (agree, allowed, or a difference);
* sizes: ArraySize measured on the device for every valid array among them
  (and a fixed set of tiled layouts), against tilespec's model of
  ``ShapeUtil::ArraySize`` on the layout the compiler kept.

Then what each release answers differently from the others, text by text.

    python tools/xla_versions.py --versions 0.4.38 0.7.2 0.10.2 --count 2500 \\
        --out xla_versions.json

Slow (minutes per release); the findings are written up in docs/xla.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "xla"))

from text_cases import held_out, verdicts  # noqa: E402

from tilespec.spec.text import parse_array_shape  # noqa: E402
from tilespec.xla import compare, real  # noqa: E402

SIZED = ["f32[3]{0:L(4)}", "bf16[3,5]{1,0:T(8,128)(2,1)}", "f32[3,5]{1,0:T(2,2)(3,3)(1)}",
         "f32[8,256]{1,0:T(8,128)SC(1:128)}", "s4[5]{0}", "f32[3]{0:E(4)S(1)}",
         "f32[2]{0:T(2)L(4611686018427387904)}", "f32[2]{0:T(2)L(9223372036854775807)}",
         "u8[1000]{0:T(32,128)(4,1)}", "f32[28,1,1]{2,1,0:T(2,128)}", "pred[]{:L(2)}"]


def interpreter(version: str, work: Path) -> str:
    """The python of a venv holding jax and jaxlib ``version``."""
    if real.available() and real.versions().get("jaxlib") == version:
        return sys.executable
    venv = work / f"jax-{version}"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"jax=={version}",
                        f"jaxlib=={version}"], check=True)
    return str(python)


def sizes(texts: list[str], python: str) -> dict[str, dict]:
    """Each measured text's ArraySize, the layout kept, and tilespec's model."""
    out = {}
    for text, a in zip(texts, real.ask(texts, python=python)):
        if a.array_size is None:
            continue
        device = compare.device_text(text, a)
        model = note = None
        if device is not None:
            try:
                model, note = compare.model_bytes(parse_array_shape(device))
            except Exception as e:  # tilespec cannot read the kept layout
                note = str(e)
        out[text] = {"xla": a.array_size, "device": device, "model": model, "note": note}
    return out


def campaign(versions: list[str], count: int, work: Path) -> dict:
    texts, leaves = held_out(1800, count)
    report: dict = {"count": len(texts), "versions": {}}
    answers: dict[str, dict] = {}
    for v in versions:
        python = interpreter(v, work)
        judged, got = verdicts(texts, leaves, python=python)
        answers[v] = {t: got[t] for t in texts}
        valid = [t for t in texts if got[t].accepted and got[t].kind == "array"]
        measured = sizes(SIZED + valid[:600], python)
        wrong_sizes = {t: m for t, m in measured.items()
                       if m["model"] is not None and m["model"] != m["xla"]}
        report["versions"][v] = {
            "text": dict(Counter(x if x in ("agree", "allowed") else "differ"
                                 for x in judged.values())),
            "text_differences": {t: x for t, x in judged.items()
                                 if x not in ("agree", "allowed")},
            "sizes_measured": len(measured),
            "size_differences": wrong_sizes,
            "sized": {t: measured.get(t) for t in SIZED},
        }
    report["between_versions"] = between(versions, answers, texts)
    return report


def between(versions, answers, texts) -> dict:
    """Texts that some releases answer differently, by what changed."""
    changes: dict[str, list] = {}
    for t in texts:
        seen = {v: _verdict(answers[v][t]) for v in versions}
        if len(set(seen.values())) > 1:
            key = " | ".join(f"{v}: {seen[v].split(':')[0]}" for v in versions)
            changes.setdefault(key, []).append({"text": t, **seen})
    return {k: {"count": len(v), "examples": v[:5]} for k, v in
            sorted(changes.items(), key=lambda kv: -len(kv[1]))}


def _verdict(a: real.Answer) -> str:
    if a.aborted:
        return "aborts: " + a.aborted[:80]
    if not a.parsed:
        return "parse error: " + (a.parse_error or "")[:80]
    if a.valid is False:
        return "invalid: " + (a.reason or "")[:80]
    return "accepted: " + (a.printed or "")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--versions", nargs="+", default=["0.4.38", "0.7.2", "0.10.2"])
    p.add_argument("--count", type=int, default=2500)
    p.add_argument("--work", type=Path, default=None,
                   help="where the venvs go (default: a new temporary directory)")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="tilespec-jax-"))
    report = campaign(args.versions, args.count, work)
    text = json.dumps(report, indent=1, default=str)
    if args.out:
        args.out.write_text(text)
    for v, r in report["versions"].items():
        print(f"jaxlib {v}: text {r['text']}, sizes measured {r['sizes_measured']}, "
              f"model differs on {len(r['size_differences'])}")
    for k, c in report["between_versions"].items():
        print(f"{c['count']:5d}  {k}   e.g. {c['examples'][0]['text']!r}")


if __name__ == "__main__":
    main()
