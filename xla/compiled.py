"""The compiler's own bitcast decisions: real XLA (jaxlib, CPU) compiles a
reshape or transpose between two layouts, and its HLO says whether it moved
any data.

For each case, ``jax.jit(f, in_shardings=Format(Layout(...)),
out_shardings=Format(Layout(...)), donate_argnums=0)`` is lowered and
compiled on the CPU; ``compiled.as_text()`` is XLA's optimised HLO.  The
verdict is ``bitcast`` when the entry computation is the parameter and
``bitcast`` instructions only (XLA reinterprets the buffer: it judged the
two layouts physically equal, by ``ShapeUtil::ReshapeIsBitcast`` /
``TransposeIsBitcast`` in openxla/xla ``xla/shape_util.cc``, applied by its
algebraic simplifier), else ``copy`` (a ``copy``, ``transpose`` or fusion moves
the data).  Each case records the instructions it saw.

Everything runs in one subprocess per batch (an XLA abort is an answer,
``aborted``, and the batch goes on without the case that killed it).  The
worker also reads a tiled array's raw device buffer to say whether the CPU
client stores tiles at all (``memory`` ``"row-major"``: element (0,..,0,1)
of the most minor dim sits right after element 0 although the tile would
put it elsewhere; this is why a bitcast the spec refutes computes the right
numbers on the CPU).

>>> from tilespec.xla import compiled
>>> if compiled.available():
...     (d,) = compiled.decide([("f32[8,256]{1,0}", "f32[2048]{0}", None)])
...     print(d.verdict)
... else:
...     print("bitcast")
bitcast
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field

from ..spec import TilespecError
from .real import INSTALL_HINT

#: jax dtype names for the element types the family uses.
DTYPES = {"f32": "float32", "bf16": "bfloat16", "s8": "int8", "s32": "int32",
          "f16": "float16", "u8": "uint8", "s16": "int16", "f64": "float64"}


class XlaUnavailable(TilespecError):
    """jax/jaxlib are not installed."""


@dataclass(frozen=True)
class Decision:
    """What XLA compiled for SRC -> DST (a reshape, or ``transpose``)."""

    src: str
    dst: str
    transpose: tuple | None
    verdict: str                       # 'bitcast', 'copy', 'rejected' or 'aborted'
    ops: tuple = ()                    # the entry computation's instructions
    memory: str | None = None          # 'row-major' or 'tiled': SRC's device buffer
    detail: str | None = None          # XLA's message when rejected or aborted
    hlo: tuple = field(default=(), compare=False)

    def to_json(self) -> dict:
        return {"src": self.src, "dst": self.dst,
                "transpose": list(self.transpose) if self.transpose else None,
                "verdict": self.verdict, "ops": list(self.ops), "memory": self.memory,
                "detail": self.detail}


def available() -> bool:
    """jax and jaxlib importable (neither is imported here)."""
    return all(importlib.util.find_spec(m) is not None for m in ("jax", "jaxlib"))


def versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version
    out = {}
    for name in ("jax", "jaxlib"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "unknown"
    return out


def _request(src: str, dst: str, transpose) -> dict:
    """What the worker needs, from tilespec's reading of the texts."""
    from ..spec import format_shape, parse_array_shape
    out: dict[str, object] = {}
    for key, text in (("src", src), ("dst", dst)):
        s = parse_array_shape(text)
        if s.is_symbolic or any(d is None for d in s.dims):
            raise TilespecError(f"{text}: XLA compiles concrete shapes only")
        if s.element_type not in DTYPES:
            raise TilespecError(f"{text}: element type {s.element_type} is not in "
                                f"this family ({', '.join(DTYPES)})")
        lay = s.layout
        if any(t.combines for t in lay.tiles) or lay.split_configs or (
                lay.tail_padding_alignment_in_elements != 1) or lay.memory_space:
            raise TilespecError(f"{text}: jax's Layout carries tiles and E(n) only")
        out[key] = {"text": format_shape(s), "dims": list(s.dims),
                    "dtype": DTYPES[s.element_type],
                    "major_to_minor": list(reversed(lay.minor_to_major)),
                    "tiling": [list(t.sizes) for t in lay.tiles] or None}
    out["transpose"] = list(transpose) if transpose is not None else None
    return out


def decide(cases, timeout: float = 600.0, batch: int = 1) -> list[Decision]:
    """XLA's decision for each (src, dst, transpose) case, in order.

    Each case is compiled as its own jitted function (``batch`` > 1 compiles
    that many as one function with one argument and result per case: faster,
    but copy insertion then sees all the donated buffers at once and adds
    copies a lone case would not get, so the tests keep 1).  One subprocess
    answers everything; if XLA aborts, the case it was compiling is answered
    ``aborted`` and a new subprocess takes the rest."""
    if not available():
        raise XlaUnavailable(INSTALL_HINT)
    cases = [(s, d, tuple(t) if t is not None else None) for s, d, t in cases]
    requests = [_request(*c) for c in cases]
    answers: dict[int, Decision] = {}
    alone: set[int] = set()
    todo = list(range(len(cases)))
    while todo:
        groups, chunk = [], []
        for i in todo:
            if i in alone:
                groups.append([i])
                continue
            chunk.append(i)
            if len(chunk) == batch:
                groups.append(chunk)
                chunk = []
        if chunk:
            groups.append(chunk)
        payload = [[{"i": i, **requests[i]} for i in g] for g in groups]
        lines, err = _run(payload, timeout)
        current = None
        for line in lines:
            msg = json.loads(line)
            if "at" in msg:
                current = msg["at"]
                continue
            i = msg["i"]
            answers[i] = Decision(cases[i][0], cases[i][1], cases[i][2], msg["verdict"],
                                  tuple(msg.get("ops", ())), msg.get("memory"),
                                  msg.get("detail"), tuple(msg.get("hlo", ())))
        todo = [i for i in todo if i not in answers]
        if todo:
            # The process died while compiling ``current``: alone, it is an
            # abort; in a batch, its cases are asked one by one.
            group = [i for i in (current or todo[:1]) if i in todo] or todo[:1]
            if len(group) == 1:
                (dead,) = group
                last = [ln for ln in err.splitlines() if ln.strip()][-3:]
                answers[dead] = Decision(cases[dead][0], cases[dead][1], cases[dead][2],
                                         "aborted", detail=" | ".join(last)[:500])
                todo.remove(dead)
            else:
                alone.update(group)
    return [answers[i] for i in range(len(cases))]


def _run(groups, timeout):
    p = subprocess.run([sys.executable, "-m", "tilespec.xla.compiled"],
                       input=json.dumps(groups), capture_output=True, text=True,
                       timeout=timeout)
    return [ln for ln in p.stdout.splitlines() if ln.startswith("{")], p.stderr


# --- the worker (runs in the subprocess) -----------------------------------------------

_TYPE = re.compile(r"[a-z0-9]+\[[^\]]*\](?:\{[^}]*\})?")
_OPCODE = re.compile(r"\s+([a-z][\w-]*)\(")


def _balanced(text: str, start: int) -> int:
    """The index just past the ')' matching the '(' at ``start``."""
    depth = 0
    for k in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[k], 0)
        if depth == 0:
            return k + 1
    return len(text)


def _instruction(rhs: str):
    """(opcode, operand text) of ' TYPE opcode(operands), attrs', or None.
    The type may be a tuple, and layouts hold parentheses: T(8,128)."""
    text = rhs.lstrip()
    if text.startswith("("):
        end = _balanced(text, 0)
    else:
        m = _TYPE.match(text)
        if not m:
            return None
        end = m.end()
    m = _OPCODE.match(text, end)
    if not m:
        return None
    close = _balanced(text, m.end() - 1)
    return m.group(1), text[m.end():close - 1]


def _entry_ops(hlo: str) -> list[tuple[str, str]]:
    """(name, opcode) of each instruction of the ENTRY computation."""
    return [(name, op) for name, op, _, _ in _entry(hlo)]


def _entry(hlo: str) -> list[tuple[str, str, list, bool]]:
    """(name, opcode, operand names, is root) of each ENTRY instruction."""
    out: list[tuple[str, str, list, bool]] = []
    inside = False
    for line in hlo.splitlines():
        if line.startswith("ENTRY"):
            inside = True
            continue
        if not inside:
            continue
        if line.startswith("}"):
            break
        if "=" not in line:
            continue
        lhs, rhs = line.split("=", 1)
        # ' f32[16,256]{1,0:T(8,128)} bitcast(%x.1), ...': the opcode follows
        # the type, whose layout may hold parentheses
        parsed = _instruction(rhs)
        name = lhs.replace("ROOT", "").strip()
        if parsed is None:
            out.append((name, "?", [], "ROOT" in lhs))
            continue
        op, args = parsed
        operands = [o.strip() for o in args.split(",") if o.strip().startswith("%")]
        if op == "parameter":
            operands = [args.strip()]                  # the parameter number
        out.append((name, op, operands, "ROOT" in lhs))
    return out


def _verdicts(hlo: str, count: int) -> list[tuple[str, list]]:
    """For result k: 'bitcast' when it is parameter k through bitcasts only,
    else 'copy'; with the opcodes met on the way back."""
    entry = _entry(hlo)
    by_name = {name: (op, operands) for name, op, operands, _ in entry}
    root = next(name for name, _, _, is_root in entry if is_root)
    results = by_name[root][1] if by_name[root][0] == "tuple" and count > 1 else [root]
    out = []
    for k, name in enumerate(results):
        seen = []
        while name in by_name:
            op, operands = by_name[name]
            seen.append(op)
            if op != "bitcast" or not operands:
                break
            name = operands[0]
        ok = seen[-1:] == ["parameter"] and all(o == "bitcast" for o in seen[:-1]) and \
            by_name[name][1] == [str(k)]
        out.append(("bitcast" if ok else "copy", list(reversed(seen))))
    return out


def _worker() -> None:  # pragma: no cover - exercised through decide()
    import ctypes

    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.experimental.layout import Format, Layout
    from jax.sharding import SingleDeviceSharding

    sharding = SingleDeviceSharding(jax.devices("cpu")[0])
    say = lambda **kw: (sys.stdout.write(json.dumps(kw) + "\n"), sys.stdout.flush())
    memory_seen: dict[str, str] = {}

    def fmt(side):
        tiling = tuple(tuple(t) for t in side["tiling"]) if side["tiling"] else None
        return Format(Layout(tuple(side["major_to_minor"]), tiling=tiling), sharding)

    def memory(side):
        # Row-major storage puts element (0,...,0,1) of the most minor dim
        # right after element 0 even where a tile would put it elsewhere.
        if not side["tiling"]:
            return "row-major"
        side = {**side, "dtype": "int32"}
        key = json.dumps(side, sort_keys=True)
        if key not in memory_seen:
            dims = side["dims"]
            n = int(np.prod(dims))
            x = jax.device_put(np.arange(n, dtype=np.int32).reshape(dims), fmt(side))
            raw = np.ctypeslib.as_array((ctypes.c_int32 * n).from_address(
                x.unsafe_buffer_pointer()))
            order = np.arange(n, dtype=np.int32).reshape(dims)
            m2m = list(reversed(side["major_to_minor"]))
            phys = np.transpose(order, list(reversed(m2m))).reshape(-1)
            memory_seen[key] = "row-major" if np.array_equal(raw, phys) else "tiled"
        return memory_seen[key]

    def compile_group(items):
        def f(*xs):
            out = []
            for x, it in zip(xs, items):
                perm = it["transpose"]
                out.append(jnp.reshape(x, tuple(it["dst"]["dims"])) if perm is None
                           else jnp.transpose(x, tuple(perm)))
            return tuple(out) if len(out) > 1 else out[0]
        ins = tuple(fmt(it["src"]) for it in items)
        outs = tuple(fmt(it["dst"]) for it in items)
        fn = jax.jit(f, in_shardings=ins, out_shardings=outs if len(items) > 1 else outs[0],
                     donate_argnums=tuple(range(len(items))))
        args = [jax.ShapeDtypeStruct(tuple(it["src"]["dims"]),
                                     getattr(jnp, it["src"]["dtype"]), sharding=fs)
                for it, fs in zip(items, ins)]
        return fn.lower(*args).compile().as_text()

    for group in json.loads(sys.stdin.read()):
        say(at=[it["i"] for it in group])
        try:
            hlo = compile_group(group)
        except Exception as e:  # XLA's status: these layouts are rejected
            print(f"batch rejected: {str(e).splitlines()[0][:200]}", file=sys.stderr)
            if len(group) > 1:
                for it in group:        # find which: ask each alone
                    try:
                        single = compile_group([it])
                    except Exception as e1:
                        say(i=it["i"], verdict="rejected",
                            detail=str(e1).splitlines()[0][:300])
                        continue
                    (v, ops), = _verdicts(single, 1)
                    say(i=it["i"], verdict=v, ops=ops,
                        memory=memory(it["src"]) if v == "bitcast" else None)
                continue
            say(i=group[0]["i"], verdict="rejected", detail=str(e).splitlines()[0][:300])
            continue
        for it, (v, ops) in zip(group, _verdicts(hlo, len(group))):
            # the raw buffer is read only where it explains something: a bitcast
            say(i=it["i"], verdict=v, ops=ops,
                memory=memory(it["src"]) if v == "bitcast" else None)


if __name__ == "__main__":  # pragma: no cover
    _worker()
