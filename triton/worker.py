"""The one subprocess that asks the real Triton: one query a line (JSON) on
stdin, one answer a line on stdout, in order.

Triton's ``LinearLayout`` binding (``triton._C.libtriton.linear_layout``)
ends the process on some inputs (an LLVM ERROR or a failed assert: sizes
that are not powers of two, ``invert`` of a layout that is not invertible,
``pseudoinvert`` of one that is not surjective).  So each query runs in a
forked child (:func:`answer`): an abort ends the child, and the worker
answers ``{"aborted": Triton's last words}`` and goes on; should the worker
itself end, the client (:mod:`.real`) answers the query in flight
``Aborted`` and starts another for the rest.  A Python exception of the binding (a ``TypeError``, a
``ValueError``, an ``AssertionError`` of Gluon's Python) is an answer too:
``{"refused": ...}``.

Each query is ``{"op": NAME, ...}``; :data:`OPS` is the table of what may
be asked.  A layout travels as ``{"bases": [[in_dim, [[v, ...], ...]],
...], "out_dims": [[name, size], ...]}``: Triton's own ``from_bases``
arguments.

This module imports nothing from tilespec, and Triton only inside the
functions that ask it (it runs as a script of its own; importing it is
free).

>>> sorted(OPS)[:4]
['apply', 'compose', 'from_bases', 'get_matrix_view']
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any, Callable


def layout_of(LinearLayout: Any, value: dict) -> Any:
    """Triton's layout from the wire form (``require_surjective`` as
    asked, default ``False``, so that a layout's own surjectivity is a
    query and not a precondition)."""
    bases = [(name, [list(v) for v in vectors]) for name, vectors in value["bases"]]
    names = [name for name, _ in value["out_dims"]]
    sizes = [size for _, size in value["out_dims"]]
    return LinearLayout.from_bases(bases, names, sizes, bool(value.get("surjective", False)))


def wire(layout: Any) -> dict:
    """A Triton layout in the wire form."""
    return {"bases": [[name, [list(v) for v in vectors]] for name, vectors in layout.bases],
            "out_dims": [[name, size] for name, size in layout.out_dims]}


def apply_all(layout: Any, inputs: list) -> list:
    """``layout.apply`` on each input, a list of ``[in_dim, value]`` pairs.

    Triton 3.6 and 3.9 take a dict; the C++ API and later bindings a list
    of pairs: the dict is tried first."""
    out = []
    for pairs in inputs:
        try:
            answer = layout.apply({name: value for name, value in pairs})
        except TypeError:
            answer = layout.apply([(name, value) for name, value in pairs])
        items = answer.items() if isinstance(answer, dict) else answer
        out.append([[name, value] for name, value in items])
    return out


def _ops(LinearLayout: Any) -> dict[str, Callable[[dict], Any]]:
    lay = lambda q, key="layout": layout_of(LinearLayout, q[key])  # noqa: E731
    return {
        "from_bases": lambda q: wire(lay(q)),
        "apply": lambda q: apply_all(lay(q), q["inputs"]),
        "compose": lambda q: wire(lay(q).compose(lay(q, "other"))),
        "invert": lambda q: wire(lay(q).invert()),
        "pseudoinvert": lambda q: wire(lay(q).pseudoinvert()),
        "invert_and_compose": lambda q: wire(lay(q).invert_and_compose(lay(q, "other"))),
        "is_injective": lambda q: bool(lay(q).is_injective()),
        "is_surjective": lambda q: bool(lay(q).is_surjective()),
        "is_invertible": lambda q: bool(lay(q).is_invertible()),
        "get_matrix_view": lambda q: [list(row) for row in lay(q).get_matrix_view()],
        "identity_1d": lambda q: wire(LinearLayout.identity_1d(q["size"], q["in_dim"],
                                                               q["out_dim"])),
        "strided_1d": lambda q: wire(LinearLayout.strided_1d(q["size"], q["stride"],
                                                             q["in_dim"], q["out_dim"])),
        "zeros_1d": lambda q: wire(LinearLayout.zeros_1d(q["size"], q["in_dim"],
                                                         q["out_dim"])),
        "swizzled_shared": swizzled_shared,
    }


#: The operations a query may name (the handlers are bound in :func:`main`).
OPS = ("from_bases", "apply", "compose", "invert", "pseudoinvert", "invert_and_compose",
       "is_injective", "is_surjective", "is_invertible", "get_matrix_view", "identity_1d",
       "strided_1d", "zeros_1d", "swizzled_shared")


def gluon_builder() -> Any:
    """Gluon's IR builder on one MLIR context and Gluon's layout class,
    made once per worker (in the parent, before the fork: they cost about
    0.4 s)."""
    if not BUILDER:
        from triton._C.libtriton import ir
        from triton._C.libtriton.gluon_ir import GluonOpBuilder
        from triton.experimental.gluon.language._layouts import SwizzledSharedLayout

        context = ir.context()
        ir.load_dialects(context)
        BUILDER.append((context, GluonOpBuilder(context), SwizzledSharedLayout))
    return BUILDER[0]


#: The one (context, builder, Gluon's layout class) of this worker.
BUILDER: list = []


def swizzled_shared(q: dict) -> dict:
    """The linear layout Triton gives a ``SwizzledSharedEncodingAttr`` of
    ``shape`` (Gluon's ``SwizzledSharedLayout(vec, per_phase, max_phase,
    order)`` lowered by ``to_linear_layout``, which runs
    ``swizzledSharedToLinearLayout``): its ``offset`` bases, each the
    coordinates ``[dim0, dim1, ...]`` of one offset bit."""
    _, builder, SwizzledSharedLayout = gluon_builder()
    layout = SwizzledSharedLayout(q["vec"], q["per_phase"], q["max_phase"], list(q["order"]))
    # _to_ir is Gluon's hook from its layout classes to the IR
    linear = builder.to_linear_layout(layout._to_ir(builder), list(q["shape"]))
    return {"offset": [list(v) for v in linear.offset_bases],
            "block": [list(v) for v in linear.block_bases]}


def last_words(stderr: str, code: int | None) -> str:
    """Triton's fatal message from a dead process's stderr.

    >>> last_words("x\\nLLVM ERROR: Illegal\\n", -6)
    'LLVM ERROR: Illegal'
    >>> last_words("", -9)
    'the process ended with status -9: no message'
    """
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    for ln in lines:
        if ln.startswith("LLVM ERROR"):
            return ln[:300]
        if "Assertion" in ln:
            # the assert's text, not the build machine's path before it
            return ln[ln.find("Assertion"):][:300]
    tail = lines[-1][:300] if lines else "no message"
    return f"the process ended with status {code}: {tail}"


def answer(handlers: dict, query: dict) -> dict:
    """One query answered in a forked child, so that an abort costs a fork
    and not a new Python with Triton: ``{"answer": ...}``,
    ``{"refused": ...}`` or ``{"aborted": last words}``."""
    if query.get("op") == "swizzled_shared":
        gluon_builder()
    read, write = os.pipe()
    with tempfile.TemporaryFile("w+") as stderr:
        pid = os.fork()
        if pid == 0:  # the child: answer, write, and leave without cleanup
            os.close(read)
            os.dup2(stderr.fileno(), 2)
            try:
                reply = {"answer": handlers[query["op"]](query)}
            except (TypeError, ValueError, IndexError, KeyError, RuntimeError,
                    AssertionError) as error:  # Gluon checks its layouts with assert
                reply = {"refused": f"{type(error).__name__}: {error}".splitlines()[0][:300]}
            with os.fdopen(write, "w") as out:
                out.write(json.dumps(reply))
            os._exit(0)
        os.close(write)
        with os.fdopen(read) as inp:
            data = inp.read()
        _, status = os.waitpid(pid, 0)
        if data:
            return json.loads(data)
        stderr.seek(0)
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        return {"aborted": last_words(stderr.read(), code)}


def main() -> None:
    """Answer queries until stdin closes."""
    from triton._C.libtriton.linear_layout import LinearLayout

    handlers = _ops(LinearLayout)
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(json.dumps(answer(handlers, json.loads(line))) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
