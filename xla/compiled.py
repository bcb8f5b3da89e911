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

Everything runs in one worker (:mod:`.worker`; an XLA abort is an answer,
``aborted``, and the batch goes on without the case that killed it).  The
worker also reads a tiled array's raw device buffer to say whether the CPU
client stores tiles at all (``memory`` ``"row-major"``: element (0,..,0,1)
of the most minor dim sits right after element 0 although the tile would
put it elsewhere; this is why a bitcast the spec refutes computes the right
numbers on the CPU).

>>> from tilespec.xla import compiled
>>> if compiled.available():
...     (d,) = compiled.compiled_bitcasts([("f32[8,256]{1,0}", "f32[2048]{0}", None)])
...     print(d.verdict)
... else:
...     print("bitcast")
bitcast
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..spec import TilespecError, concrete_dims, parse_array_shape
from .client import Worker, WorkerSetup, available, require, versions
from .protocol import (
    Aborted,
    ArrayLayout,
    BufferOrderRequest,
    BufferOrderResponse,
    CompileRequest,
    CompileResponse,
    Crashed,
    Hung,
    Rejected,
    ReshapeCase,
)

__all__ = ["DTYPES", "Decision", "available", "compiled_bitcasts", "versions"]

#: jax dtype names for the element types the family uses.
DTYPES = {"f32": "float32", "bf16": "bfloat16", "s8": "int8", "s32": "int32",
          "f16": "float16", "u8": "uint8", "s16": "int16", "f64": "float64"}


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


def _case(src: str, dst: str, transpose) -> ReshapeCase:
    """What the worker needs, from tilespec's reading of the texts."""
    sides = []
    for text in (src, dst):
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
        sides.append(ArrayLayout(concrete_dims(s), DTYPES[s.element_type],
                                 tuple(reversed(lay.minor_to_major)),
                                 tuple(tuple(t.sizes) for t in lay.tiles)))
    return ReshapeCase(sides[0], sides[1],
                       tuple(transpose) if transpose is not None else None)


def compiled_bitcasts(cases, timeout: float = 600.0, batch: int = 1) -> list[Decision]:
    """Does XLA's compiler make each (src, dst, transpose) case a bitcast?
    Its :class:`Decision` for each, in order.

    Each case is compiled as its own jitted function (``batch`` > 1 compiles
    that many as one function with one argument and result per case: faster,
    but copy insertion then sees all the donated buffers at once and adds
    copies a lone case would not get, so the tests keep 1).  One worker
    answers everything; if XLA aborts, the case it was compiling is answered
    ``aborted`` and a new worker takes the rest."""
    require()
    cases = [(s, d, tuple(t) if t is not None else None) for s, d, t in cases]
    requests = [_case(*c) for c in cases]
    answers: dict[int, tuple] = {}
    orders: dict[ArrayLayout, str | None] = {}
    with Worker(WorkerSetup(timeout=timeout)) as worker:
        groups = [list(range(k, min(k + batch, len(cases))))
                  for k in range(0, len(cases), batch)]
        while groups:
            group = groups.pop(0)
            response = worker.ask(CompileRequest(tuple(requests[i] for i in group)))
            if isinstance(response, CompileResponse):
                for i, (verdict, ops) in zip(group, _verdicts(response.hlo, len(group))):
                    src = requests[i].src
                    if verdict == "bitcast" and src not in orders:
                        orders[src] = _buffer_order(worker, src)
                    memory = orders[src] if verdict == "bitcast" else None
                    answers[i] = (verdict, tuple(ops), memory, None)
            elif len(group) > 1:
                groups[:0] = [[i] for i in group]    # find which: ask each alone
            else:
                answers[group[0]] = _unanswered(response)
    return [Decision(*cases[i], *answers[i]) for i in range(len(cases))]


def _unanswered(response) -> tuple:
    if isinstance(response, Rejected):
        return ("rejected", (), None, response.message)
    if isinstance(response, Aborted):
        return ("aborted", (), None, response.last_words)
    if isinstance(response, Hung):
        return ("aborted", (), None, f"no answer within {response.seconds:g} s")
    assert isinstance(response, Crashed)
    raise RuntimeError(f"the XLA worker failed: {response.error}")


def _buffer_order(worker: Worker, array: ArrayLayout) -> str | None:
    """How the device stores SRC (read only where it explains something: a
    bitcast), or ``None`` if the device cannot say."""
    response = worker.ask(BufferOrderRequest(array))
    return response.memory if isinstance(response, BufferOrderResponse) else None


# --- reading the optimised HLO ----------------------------------------------------------

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
