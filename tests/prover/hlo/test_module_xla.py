"""The HLO reader agrees with XLA's own parser (jaxlib's ``hlo_module_from_text``).

On every module in tests/data/hlo, on modules jax's CPU compiler emits for
six programs (MLP, attention, convolution, scan, while loop, int8 matmul),
and on mutations of them that XLA reads
alike -- a comment between every two tokens, a line break after every ``,``
and ``{``, instruction names reused across computations -- both must find
the same computations and, in each, the same instructions in the same
order: name, opcode, operands (by position in the computation) and result
shape (both printed by XLA).  XLA runs in a subprocess, so an abort in XLA fails one test, not the session.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from locations import DATA

from tilespec.prover.hlo.lexer import lex
from tilespec.prover.hlo.module import Module, parse_hlo
from tilespec.spec.printer import format_shape

pytestmark = pytest.mark.integration

MODULES = sorted((DATA / "hlo").glob("*.hlo"))
#: Modules XLA rejects, and the text this reader does not understand in them.
XLA_REJECTS = {"tpu_style": "this line is not HLO at all",
               "findings_invalid_layout": "{1,1}"}   # a layout XLA's parser rejects
#: Modules XLA reads whose syntax this reader does not (it says so: unknown).
NOT_READ = {"nested_operand": "nested instruction"}


#: The subprocess: reads requests {"text", "shapes"}, answers XLA's reading
#: of the module and XLA's print of each of ``shapes``.
WORKER = r"""
import json, sys
from jax._src.lib import xla_client as xc
hlo = xc._xla.hlo if hasattr(xc._xla, "hlo") else xc.hlo

def split(printed):
    # XLA's print 'name = SHAPE opcode(...)': the shape ends at the first
    # space outside brackets
    rest = printed.split(" = ", 1)[1]
    depth = 0
    for k, ch in enumerate(rest):
        depth += (ch in "([{") - (ch in ")]}")
        if ch == " " and depth == 0:
            return rest[:k], rest[k + 1:].split("(", 1)[0]
    raise ValueError(printed)

for line in sys.stdin:
    req = json.loads(line)
    answer = {"shapes": [str(xc.Shape(s)) for s in req["shapes"]]}
    try:
        m = hlo.hlo_module_from_text(req["text"])
    except Exception as e:  # XLA's parse error is an answer
        answer["error"] = str(e).splitlines()[0]
    else:
        answer["computations"] = {
            c.name: [dict(zip(("shape", "opcode"), split(i.to_string())), name=i.name,
                          operands=[o.name for o in i.operands()])
                     for i in c.instructions()]
            for c in m.computations()}
    print(json.dumps(answer), flush=True)
"""


#: Optimized modules jax's CPU compiler emits for a few kinds of program.
PROGRAMS = r"""
import json
import jax, jax.numpy as jnp
from jax import lax

def mlp(x, w1, w2):
    return jnp.tanh(x @ w1) @ w2

def attention(q, k, v):
    b, s, d = q.shape
    q4, k4, v4 = (t.reshape(b, s, 4, d // 4).transpose(0, 2, 1, 3) for t in (q, k, v))
    a = jax.nn.softmax(q4 @ k4.transpose(0, 1, 3, 2), axis=-1)
    return (a @ v4).transpose(0, 2, 1, 3).reshape(b, s, d)

def conv(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))

def scan(x):
    return lax.scan(lambda c, y: (c * 2 + y, c.sum()), x[0], x)[1]

def loop(x):
    return lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] @ c[1].T), (0, x))[1]

def int8(a, b):
    return jnp.matmul(a, b, preferred_element_type=jnp.int32)

f32, i8 = jnp.float32, jnp.int8
cases = [(mlp, [(16, 32), (32, 64), (64, 8)], f32),
         (attention, [(2, 8, 16)] * 3, f32),
         (conv, [(1, 8, 8, 3), (3, 3, 3, 4)], f32),
         (scan, [(6, 4, 3)], f32), (loop, [(4, 4)], f32),
         (int8, [(8, 16), (16, 4)], i8)]
texts = []
for fn, shapes, dtype in cases:
    args = [jnp.ones(s, dtype) for s in shapes]
    texts.append(jax.jit(fn).lower(*args).compile().as_text())
print(json.dumps(texts))
"""


def jax_dumps() -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROGRAMS], text=True, capture_output=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def ask_xla(texts: list[str], modules: list[Module | None]) -> list[dict]:
    shapes = [[format_shape(i.shape) for i in m.instructions] if m else [] for m in modules]
    requests = "".join(json.dumps({"text": t, "shapes": s}) + "\n"
                       for t, s in zip(texts, shapes))
    out = subprocess.run([sys.executable, "-c", WORKER], input=requests, text=True,
                         capture_output=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return [json.loads(x) for x in out.stdout.splitlines()]


def _base(name: str) -> str:
    return re.sub(r"\.\d+$", "", name)


def assert_same_reading(ours: Module, xla: dict) -> None:
    assert "error" not in xla, xla.get("error")
    assert sorted(c.name for c in ours.computations) == sorted(xla["computations"])
    unique = len({i.name for i in ours.instructions}) == len(ours.instructions)
    printed = iter(xla["shapes"])
    for c in ours.computations:
        theirs = xla["computations"][c.name]
        assert len(c.instructions) == len(theirs), c.name
        our_pos = {i.name: k for k, i in enumerate(c.instructions)}
        their_pos = {i["name"]: k for k, i in enumerate(theirs)}
        for i, t in zip(c.instructions, theirs):
            # XLA makes names unique in the module (p -> p.1): exact when they are
            assert i.name == t["name"] if unique else _base(i.name) == _base(t["name"])
            assert i.opcode == t["opcode"], (c.name, i.name)
            assert [our_pos[o] for o in i.operands] == \
                [their_pos[o] for o in t["operands"]], (c.name, i.name)
            assert next(printed) == t["shape"], (c.name, i.name)


# --- mutations XLA reads alike ----------------------------------------------------------

def with_comments(text: str) -> str:
    """A ``/*c*/`` after every ``(``, ``,``, ``=`` and whitespace run outside
    strings and comments (XLA's lexer skips a comment between any tokens)."""
    skeleton, out = lex(text).skeleton, []
    for k, ch in enumerate(text):
        out.append(ch)
        if skeleton[k] in "(,=" and not skeleton.startswith("<=", k - 1):
            out.append("/*c*/")
        elif skeleton[k].isspace() and not skeleton[k + 1:k + 2].isspace():
            out.append("/*c*/ ")
    return "".join(out)


def with_line_breaks(text: str) -> str:
    """A line break after every ``,`` and ``{`` outside strings and comments."""
    skeleton = lex(text).skeleton
    return "".join(ch + ("\n" if skeleton[k] in ",{" else "") for k, ch in enumerate(text))


def with_names_reused(text: str, module: Module) -> str:
    """Every computation's instructions renamed v0, v1, ... (the same names
    in every computation), where they are written with ``%``."""
    lines = text.split("\n")
    starts = [c.line - 1 for c in module.computations] + [len(lines)]
    for c, a, b in zip(module.computations, starts, starts[1:]):
        names = {i.name: f"v{k}" for k, i in enumerate(c.instructions)}
        pattern = re.compile(r"%(" + "|".join(map(re.escape, sorted(names, key=len,
                                                                    reverse=True)))
                             + r")(?![\w.\-])")
        for n in range(a, b):
            lines[n] = pattern.sub(lambda m, names=names: "%" + names[m.group(1)], lines[n])
    return "\n".join(lines)


def _cases():
    for path in MODULES:
        yield path.stem, path.read_text()
    for k, text in enumerate(jax_dumps()):
        yield f"jax_program_{k}", text


@pytest.fixture(scope="module")
def answers():
    texts, modules, ids = [], [], []
    for name, text in _cases():
        m = parse_hlo(text)
        variants = [("", text), ("comments", with_comments(text)),
                    ("breaks", with_line_breaks(text))]
        if len(m.computations) > 1:
            variants.append(("reused", with_names_reused(text, m)))
        for kind, t in variants:
            texts.append(t)
            modules.append(parse_hlo(t))
            ids.append((name, kind))
    return dict(zip(ids, zip(texts, modules, ask_xla(texts, modules))))


@pytest.mark.parametrize("kind", ["", "comments", "breaks", "reused"])
@pytest.mark.parametrize("name", [p.stem for p in MODULES]
                         + [f"jax_program_{k}" for k in range(6)])
def test_reader_agrees_with_xla_parser(answers, name, kind):
    if (name, kind) not in answers:
        pytest.skip("one computation: no name to reuse")
    text, ours, xla = answers[name, kind]
    if name in XLA_REJECTS:
        assert "error" in xla
        assert ours.skipped              # so the module is at most unknown
        assert kind or any(XLA_REJECTS[name] in s.text for s in ours.skipped)
    elif name in NOT_READ:
        assert "error" not in xla
        assert any(NOT_READ[name] in s.reason for s in ours.skipped)
    else:
        assert not ours.skipped, ours.skipped
        assert_same_reading(ours, xla)


def test_mutations_change_the_text(answers):
    # the mutated texts differ from the originals where they should
    for name, text in [(n, answers[n, ""][0]) for n, kind in answers if kind == ""]:
        assert answers[name, "comments"][0].count("/*c*/") > 10
        assert answers[name, "breaks"][0].count("\n") > text.count("\n")
        if (name, "reused") in answers and name not in XLA_REJECTS:
            module = answers[name, "reused"][1]
            names = [i.name for i in module.instructions]
            assert len(set(names)) < len(names)

