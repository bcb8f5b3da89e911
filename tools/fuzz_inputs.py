"""Inputs for the command-line fuzzer (tools/fuzz_cli.py): shape strings
(the catalogue, hand-made edges, Hypothesis examples, and mutations of
them), values for each kind of argument, and whole command lines read off
the parser's own arguments.
"""

from __future__ import annotations

import argparse
import os
import random
import re

INT64_MAX = 2**63 - 1
INT_EDGES = [0, 1, 2, 3, 5, 7, 8, 127, 128, 129, 255, 256, 1023, 1024, 2**16,
             2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**53 + 1, 2**62, INT64_MAX - 1,
             INT64_MAX, 2**63, 2**64 - 1, 2**64, 10**30, -1, -2, -(2**31), -(2**63),
             -(2**63) - 1]
NAMES = ["m", "n", "k", "x", "_", "e0", "e1", "d0", "r0", "q0", "k0", "i", "j",
         "tmp", "Int", "None", "True", "and", "mod", "div", "abs", "m_1", "é", "x" * 40]
UNICODE = ["é", "ß", "∗", "⌊", "×", "\u200b", "\u00a0", "🙂", "١", "²", "\x00",
           "\t", "\n", "'", '"', "\\", "$", "%s", "{}", "..", "—"]
CHARS = "0123456789[](){},:*?<=#-+_ TEDLSCPMabcfmnsu" + "".join(UNICODE[:8])
HANDMADE = [
    "f32[]", "f32[]{}", "s32[]{:T(128)}", "f32[0]{0}", "f32[0,5]{1,0:T(2,2)}",
    "f32[3,5]{1,0:T(2,2)}", "f32[4,8]{1,0:T(2,4)(2,1)}", "bf16[1024,1024]{1,0:T(8,128)(2,1)}",
    "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", "s4[16,256]{1,0:T(8,128)(2,1)E(4)}",
    "f32[m,n]{1,0:T(8,128)}", "bf16[m,n]{1,0:T(8,128)(2,1)}", "f32[n]{0:T(128)}",
    "f32[m,3]{1,0:T(2,2)}", "f32[m,m]{1,0}", "s8[m,n]{1,0:T(32,128)(4,1)}",
    "f32[?,4]{1,0}", "f32[<=4,5]{1,0}", "f32[<=8]{0:T(4)}", "pred[3,5]{1,0:T(2,2)}",
    "f32[9223372036854775807]{0}", "f32[9223372036854775808]{0}",
    "f32[4611686018427387904,2]{1,0:T(2,2)}", "f32[3037000500,3037000500]{1,0}",
    "f64[1048576,1048576]{1,0:T(8,128)(2,1)}", "c128[3,5]{0,1:T(2,2)}",
    "s4[7]{0:T(8)(2,1)E(4)}", "u2[9]{0:E(2)}", "f32[3,5]{1,0:T(2,2)L(8)}",
    "f32[3,5]{1,0:T(2,2)S(1)}", "f32[3,5]{1,0:T(2,2)P(s32[2]{0})}",
    "f32[3,5]{1,0:D(D,C)T(2,2)}", "f32[3,5]{1,0:T(2,2)#(s32)}", "f32[3,5]{1,0:T(2,2)*(s32)}",
    "f32[3,5]{1,0:T(2,2)M(2)}", "f32[8,8]{1,0:T(2,2)SC(0:2,4)}", "(f32[3], s32[])",
    "token[]", "opaque[]", "f32[3,5]{0,1}", "f32[1,1,1,1,1,1,1,1]{7,6,5,4,3,2,1,0}",
    "f32[3,5]{1,0:T(1,1)}", "f32[3,5]{1,0:T(3037000500,3037000500)}",
    "f32[e0,e1]{1,0:T(8,128)}", "f32[x,x,x]{2,1,0:T(2,2)}", "u8[m]{0:T(1024)(128)(4,1)}",
]


# --- shapes ------------------------------------------------------------------------

def shape_pool(examples: int = 400) -> list[str]:
    """Valid shape strings: the catalogue, the hand-made edges, and examples
    of the Hypothesis strategies (derandomized: the same pool every run)."""
    from hypothesis import HealthCheck, given, settings, strategies as st

    import tilespec.testing as ts
    from tilespec.prover.properties.catalogue import CATALOGUE
    from tilespec.spec.printer import format_shape

    pool = [s for s, _ in CATALOGUE] + HANDMADE
    quiet = settings(max_examples=examples, database=None, derandomize=True,
                     deadline=None, suppress_health_check=list(HealthCheck))
    strategy = st.one_of(ts.shapes_with_layout(), ts.shapes_with_layout(max_dim=300),
                         ts.xla_shapes(allow_names=True, max_leaves=3),
                         ts.xla_shapes(allow_tuples=False, allow_names=True))

    @quiet
    @given(strategy)
    def collect(shape):
        pool.append(format_shape(shape))
    collect()
    return list(dict.fromkeys(pool))


_NUMBER = re.compile(r"\d+")


def mutate(rng: random.Random, text: str) -> str:
    """One to three random edits of a shape string."""
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        kind = rng.randrange(12)
        numbers = list(_NUMBER.finditer(text))
        if kind <= 2 and numbers:  # a number at an edge
            m = rng.choice(numbers)
            text = text[:m.start()] + str(rng.choice(INT_EDGES)) + text[m.end():]
        elif kind == 3 and numbers:  # a number becomes a name, '?' or '<=N'
            m = rng.choice(numbers)
            new = rng.choice(NAMES + ["?", f"<={rng.choice(INT_EDGES)}", "*", ""])
            text = text[:m.start()] + new + text[m.end():]
        elif kind == 4 and text:  # delete a slice
            i = rng.randrange(len(text))
            text = text[:i] + text[i + rng.randint(1, 3):]
        elif kind == 5:  # insert a character
            i = rng.randint(0, len(text))
            text = text[:i] + rng.choice(CHARS) + text[i:]
        elif kind == 6 and text:  # duplicate a slice
            i = rng.randrange(len(text))
            j = min(len(text), i + rng.randint(1, 8))
            text = text[:j] + text[i:j] + text[j:]
        elif kind == 7 and len(text) > 1:  # swap two characters
            i, j = sorted(rng.sample(range(len(text)), 2))
            text = text[:i] + text[j] + text[i + 1:j] + text[i] + text[j + 1:]
        elif kind == 8:  # truncate
            text = text[:rng.randint(0, len(text))]
        elif kind == 9:  # unicode or a comment
            i = rng.randint(0, len(text))
            text = text[:i] + rng.choice(UNICODE + ["/*x*/", "//c\n", " "]) + text[i:]
        elif kind == 10:  # a layout field appended
            field = rng.choice(["T(2,2)", "T(*)", "T()", "E(4)", "E(0)", "S(1)", "L(0)",
                                "T(8,128)(2,1)", "SC(0:2)", "D(C)", "M(-1)", "P(f32[])"])
            text = text.replace("}", field + "}", 1) if "}" in text else text + "{0:" + field + "}"
        else:  # a different element type
            dtype = rng.choice(["f32", "bf16", "s4", "u1", "pred", "f8e4m3fn", "c64", "f17",
                                "token", "F32", "s64", "u2", ""])
            text = re.sub(r"^[a-z0-9]*", dtype, text, count=1)
    return text


#: Element types of one width: a bitcast between them is a question of layout.
SAME_WIDTH = [["f32", "s32", "u32"], ["bf16", "f16", "s16", "u16"], ["s8", "u8", "pred"],
              ["s4", "u4"], ["f64", "s64", "u64", "c64"]]
_DIMS = re.compile(r"\[([^\]]*)\]")


def namify(rng: random.Random, text: str) -> str:
    """Some dims of the (first) array become names: mixed named and numeric."""
    m = _DIMS.search(text)
    if not m or not m.group(1).strip():
        return text
    dims = m.group(1).split(",")
    for i in range(len(dims)):
        if rng.random() < 0.5:
            dims[i] = rng.choice(NAMES[:12])
    return text[:m.start(1)] + ",".join(dims) + text[m.end(1):]


def relative(rng: random.Random, text: str) -> str:
    """A shape related to ``text`` (one or two steps): another element type
    of the same width, another tiling, the dims reversed or reshaped (same
    element count), or names for the dims."""
    for _ in range(rng.choice((1, 1, 2))):
        text = _step(rng, text)
    return text


def _step(rng: random.Random, text: str) -> str:
    k = rng.randrange(6)
    m = _DIMS.search(text)
    dtype = re.match(r"[a-z0-9]*", text).group(0)
    if k == 0:
        for group in SAME_WIDTH:
            if dtype in group:
                return rng.choice(group) + text[len(dtype):]
        return text
    if k == 1:
        tile = rng.choice(["T(2,2)", "T(8,128)", "T(1)", "T(*,2)", "T(2,1)(1,1)", "T(4)"])
        if "T(" in text:
            return re.sub(r"T\([^)]*\)", tile, text, count=1)
        return text.replace("}", ":" + tile + "}", 1) if ":" not in text else text
    if k in (2, 3) and m:
        dims = [d.strip() for d in m.group(1).split(",") if d.strip()]
        if k == 2 or not all(d.isascii() and d.isdigit() for d in dims):
            dims = dims[::-1]
            order = ",".join(str(i) for i in range(len(dims)))
        else:  # a reshape: the same elements, in 1 or 2 dims
            total = 1
            for d in dims:
                total *= int(d)
            split = [d for d in (2, 3, 4, 5, 8) if total % d == 0]
            if split and rng.random() < 0.5:
                a = rng.choice(split)
                dims = [str(a), str(total // a)]
            else:
                dims = [str(total)]
            order = ",".join(str(i) for i in reversed(range(len(dims))))
        return f"{dtype}[{','.join(dims)}]{{{order}}}"
    if k == 4:
        return namify(rng, text)
    return mutate(rng, text)


# --- argument values ---------------------------------------------------------------

class Inputs:
    """Random values for each kind of argument."""

    def __init__(self, rng: random.Random, shapes: list[str], tmp: str):
        self.rng = rng
        self.shapes = shapes
        self.tmp = tmp
        self.last = None  # the previous shape, for two-shape commands

    def junk(self) -> str:
        r = self.rng
        return r.choice(["", " ", "-", "--", "-x", "--json", "x", "0", "-0", "1e9",
                         "nan", "inf", "-inf", "0x10", "1_000", "١٢", "None", "[]", "()",
                         ",", "1,", ",1", "1,,2", "\x00", "🙂", "a" * 300, "9" * 400,
                         "9" * 5000, "(" * 3000 + "f32[]" + ")" * 3000, "f32[" + "1," * 2000 + "1]",
                         str(r.choice(INT_EDGES)), r.choice(UNICODE), r.choice(NAMES)])

    def shape(self) -> str:
        r = self.rng
        k = r.random()
        if self.last is not None and k < 0.5:
            self.last = relative(r, self.last)  # a partner for the previous shape
        elif k < 0.35:
            self.last = r.choice(self.shapes)
        elif k < 0.45:
            self.last = namify(r, r.choice(self.shapes))
        elif k < 0.93:
            self.last = mutate(r, r.choice(self.shapes))
        else:
            self.last = self.junk()
        return self.last

    def number(self, small=True) -> str:
        r = self.rng
        if r.random() < 0.75:
            return str(r.randint(-3, 40) if small else r.choice(INT_EDGES))
        return r.choice([str(r.choice(INT_EDGES)), self.junk(), "1.5", "-0", " 3 ", "+3"])

    def element(self) -> str:
        r = self.rng
        if r.random() < 0.1:
            return self.junk()
        n = r.choice((0, 1, 2, 2, 2, 3, 4, 5))
        parts = [str(r.randint(-2, 12) if r.random() < 0.8 else r.choice(INT_EDGES))
                 for _ in range(n)]
        text = r.choice([",", ", ", " ,"]).join(parts)
        return r.choice(["{}", "({})", "[{}]", "{}", "{}"]).format(text)

    def seconds(self) -> str:
        r = self.rng
        # mostly tiny, so that a solver command stays fast
        if r.random() < 0.85:
            return r.choice(["1e-9", "0.000001", "0.001", "0.001", "0.01", "0.05"])
        return r.choice(["0", "-1", "-0.0", "nan", "inf", "1e308", "4000001", "x", "",
                         "1e-300", "5e-324", "0x1p-3"])

    def count(self) -> str:
        r = self.rng
        if r.random() < 0.8:
            return str(r.choice([0, 1, 2, 3, 5, 10, 50]))
        return r.choice(["-1", "1000001", str(10**12), str(2**63), "x", "", "1e3", "١",
                         str(-(2**63))])

    def seed(self) -> str:
        return str(self.rng.choice(INT_EDGES + [2**128, 2**128 - 1])) \
            if self.rng.random() < 0.7 else self.junk()

    def perm(self) -> str:
        r = self.rng
        if r.random() < 0.7:
            n = r.randint(0, 4)
            p = list(range(n))
            r.shuffle(p)
            if r.random() < 0.2 and p:
                p[r.randrange(n)] = r.choice([-1, n, 2**63, 1])
            return ",".join(map(str, p))
        return self.junk()

    def bound(self) -> str:
        r = self.rng
        if r.random() < 0.7:
            return f"{r.choice(NAMES)}={r.choice([0, 1, 2, 5, 9, 64, INT64_MAX, 2**63, -1])}"
        return r.choice(["m", "=3", "m=", "m=x", "m==3", "m=3=4", "3=m", "m =5", "é=2",
                         "m=١", self.junk()])

    def path(self, suffixes=(".png", ".svg", ".jsonl", ".py", ".cc", "")) -> str:
        r = self.rng
        k = r.random()
        name = f"f{r.randrange(4)}{r.choice(suffixes)}"
        if k < 0.6:
            return os.path.join(self.tmp, name)
        return r.choice([self.tmp, os.path.join(self.tmp, "no", "such", name),
                         "/dev/full", "/dev/null", "", os.path.join(self.tmp, " "),
                         os.path.join(self.tmp, "ü" + name), name + "\0",
                         "/proc/self/nonexistent/" + name, self.tmp + "/"])

    def choice_of(self, choices) -> str:
        if self.rng.random() < 0.85:
            return str(self.rng.choice(list(choices)))
        return self.junk()


def _value(inputs: Inputs, dest: str, action) -> str:
    """A value for one argument, chosen by its name."""
    if action.choices is not None and not isinstance(action.choices, dict):
        return inputs.choice_of(action.choices)
    table = {
        "shape": inputs.shape, "shapes": inputs.shape, "src": inputs.shape,
        "dst": inputs.shape, "a": inputs.shape, "b": inputs.shape,
        "element": inputs.element, "offset": inputs.number,
        "timeout": inputs.seconds, "count": inputs.count, "seed": inputs.seed,
        "transpose": inputs.perm, "bound": inputs.bound, "output": inputs.path,
    }
    if dest in table:
        return table[dest]()
    if action.metavar == "FILE":  # a file the command may write: in the fuzzer's directory
        return inputs.path()
    if dest == "name":
        from tilespec.prover.models.rules import RULES
        return inputs.choice_of(RULES)
    if dest == "property":
        from tilespec.prover.properties.proof import PROPERTIES
        return inputs.choice_of(PROPERTIES)
    return inputs.rng.choice([inputs.shape(), inputs.junk(), inputs.number()])


#: Options that make a command slow whatever the input (a whole catalogue or
#: family of layouts): used now and then only.
RARE_FLAGS = {"conditions": 0.003, "from_counterexamples": 0.02, "prove": 0.3}
#: How often a list of shapes is empty (prove: the whole catalogue, ~20 s).
NO_SHAPES = 0.0003
#: Relative weights of the commands; a command not listed weighs 1.
WEIGHTS = {"explain": 3, "offset": 3, "locate": 3, "formula": 2, "draw": 0.3,
           "prove": 0.6, "normalize": 0.7}


def subcommands(parser) -> dict:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def argv_for(inputs: Inputs, name: str, sub) -> list[str]:
    """One generated command line for the sub-command ``name``."""
    r = inputs.rng
    argv = [name]
    inputs.last = None
    for action in sub._actions:
        if isinstance(action, argparse._HelpAction) or action.dest in ("debug",):
            continue
        if not action.option_strings:  # positional
            nargs = action.nargs
            if nargs == "*":
                k = r.choice((1, 1, 1, 2, 2, 3)) if r.random() > NO_SHAPES else 0
            elif nargs == "?":
                k = r.choice((0, 1, 1, 1))
            else:
                k = 1
            argv += [_value(inputs, action.dest, action) for _ in range(k)]
            continue
        flag = r.choice(action.option_strings)
        if action.nargs == 0:  # store_true
            if r.random() < RARE_FLAGS.get(action.dest, 0.3):
                argv.append(flag)
        elif action.dest == "timeout":
            if r.random() < 0.95:  # keep solver calls short
                argv += [flag, _value(inputs, action.dest, action)]
        elif action.required or r.random() < 0.3:
            argv += [flag, _value(inputs, action.dest, action)]
            if action.dest in ("bound", "property") and r.random() < 0.3:
                argv += [flag, _value(inputs, action.dest, action)]
    return noise(r, argv, inputs)


def noise(r: random.Random, argv: list[str], inputs: Inputs) -> list[str]:
    """Now and then, break the command line itself."""
    k = r.random()
    if k < 0.04 and len(argv) > 1:
        del argv[r.randrange(1, len(argv))]
    elif k < 0.07:
        argv.insert(r.randint(1, len(argv)), r.choice(["--frobnicate", "-x", "--", "-",
                                                        "--json", "--json=1", "-h"]))
    elif k < 0.09:
        argv.insert(r.randint(1, len(argv)), inputs.junk())
    elif k < 0.10:
        argv = [inputs.junk()] + argv[1:]
    return argv
