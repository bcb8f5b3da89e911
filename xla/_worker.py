"""The subprocess that asks real XLA (jaxlib) questions; see :mod:`.real`.

It reads one JSON request per line on stdin and writes JSON lines on stdout:
``{"at": "parse", "i": i}`` or ``{"at": "compile", "items": [...]}`` before
each step that might abort the process, then ``{"i": i, ...}`` pieces of an
answer, and ``{"done": true}`` when the request is answered.  The markers let
the parent name the input that was being asked when XLA aborted.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any, cast

#: Largest total bytes one batch may allocate to measure ArraySize.
BATCH_BYTES = 64 << 20
#: Largest bytes one array may take and still be allocated.
ARRAY_BYTES = 16 << 20
INT64_MAX = 2**63 - 1
#: Most arrays measured by one compilation (its time grows with the count).
BATCH_ITEMS = 256
#: Element types jax cannot hand to XLA as themselves: jax lowers int1 and
#: uint1 to MLIR's i1, which XLA reads as pred, so XLA's validator would
#: judge a pred array (and name pred in its message) instead.
LOWERED_AS_OTHER = {"s1": "pred", "u1": "pred"}


class _JaxError(Exception):
    """jax refused to build the question (a limit of jax, not XLA's answer)."""


def _unique_groups(items, size=256):
    """Groups in which no two items print alike without their layout, so the
    shape XLA's verifier names in its message points at one item."""
    groups: list[list] = []
    for it in items:
        for g in groups:
            if len(g) < size and all(o["sig"] != it["sig"] for o in g):
                g.append(it)
                break
        else:
            groups.append([it])
    return groups


def parse_all(xc, texts) -> dict:
    """Parse every text with XLA's parser in forked children, so that an
    abort costs a fork, not a new Python with jax; say each answer and
    return, by index, the facts of those that parsed."""
    import os
    import tempfile
    parsed, pos = {}, 0
    while pos < len(texts):
        with tempfile.TemporaryFile("w+") as err:
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: parse from pos on, streaming answers
                os.close(read)
                os.dup2(err.fileno(), 2)
                out = os.fdopen(write, "w")
                for i, text in texts[pos:]:
                    out.write(json.dumps({"at": i}) + "\n")
                    out.flush()
                    try:
                        shape = xc.Shape(text)
                        printed = str(shape)
                        kind = ("tuple" if shape.is_tuple() else "token" if shape.is_token()
                                else "array" if shape.is_array() else "other")
                        if printed.startswith("b("):
                            kind = "buffer"
                        answer = {"i": i, "parsed": True, "printed": printed, "kind": kind,
                                  **_array_facts(shape, kind)}
                    except Exception as e:
                        answer = {"i": i, "parsed": False, "parse_error": _message(e),
                                  "final": True}
                    out.write(json.dumps(answer) + "\n")
                    out.flush()
                out.close()
                os._exit(0)
            os.close(write)
            at = None
            with os.fdopen(read) as stream:
                for line in stream:
                    msg = json.loads(line)
                    if "at" in msg:
                        at = msg["at"]
                        continue
                    pos += 1
                    at = None
                    if msg["parsed"]:
                        parsed[msg["i"]] = msg
                        msg = {k: msg[k] for k in ("i", "parsed", "printed", "kind")}
                    _say(**msg)
            _, status = os.waitpid(pid, 0)
            if at is not None:  # the child died parsing this one
                err.seek(0)
                _say(i=at, aborted=last_words(err.read(), status), final=True)
                pos += 1
            elif status != 0 and pos < len(texts):
                raise RuntimeError(f"the parsing child failed with status {status}")
    return parsed


def _array_facts(shape, kind) -> dict:
    """What the parent needs to validate an array, read in the child (some
    accessors abort on extreme dims)."""
    if kind != "array":
        return {}
    facts = {"static": shape.is_static()}
    dims = list(shape.dimensions())
    if any(d < 0 for d in dims):  # an unbounded '?'
        facts["unbounded"] = True
        return facts
    try:
        facts["dtype"] = shape.numpy_dtype().name
    except Exception as e:
        facts["dtype_error"] = _message(e)
        return facts
    layout = shape.layout()
    facts.update(dims=list(shape.dimensions()), m2m=list(layout.minor_to_major()),
                 tiling=[list(t) for t in layout.tiling()])
    return facts


def last_words(stderr: str, code) -> str:
    """XLA's fatal message from stderr: glog's FATAL line or a Check failure."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    for ln in lines:
        if ln[:1] == "F" and ln[1:5].isdigit():
            return ln.split("] ", 1)[-1][:300]
    for ln in lines:
        if "Check failed" in ln:
            return ln.split("] ", 1)[-1][:300]
    tail = lines[-1][:300] if lines else "no message"
    return f"the process ended with status {code}: {tail}"


def _say(**kw) -> None:
    sys.stdout.write(json.dumps(kw) + "\n")
    sys.stdout.flush()


def _message(error: Exception) -> str:
    """XLA's status message in one line, without the status code prefix."""
    text = str(error)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if "error:" in ln and ln.split("error:", 1)[1].strip():
            return ln.split("error:", 1)[1].strip()
    if len(lines) > 1 and lines[0].endswith("Syntax error:"):
        return lines[1]
    first = lines[0] if lines else type(error).__name__
    for code in ("INVALID_ARGUMENT: ", "INTERNAL: ", "UNIMPLEMENTED: ",
                 "FAILED_PRECONDITION: ", "UNKNOWN: "):
        if first.startswith(code):
            first = first[len(code):]
    if first.startswith("during context [hlo verifier]: "):
        first = first[len("during context [hlo verifier]: "):]
    return first


def main() -> None:
    import jax
    jax.config.update("jax_enable_x64", True)  # s64/f64/c128 stay themselves
    import jax.experimental.layout as jax_layout
    import jax.numpy as jnp
    import numpy as np
    from jax._src.lib import xla_client as xc
    # jax before 0.6 named today's Layout DeviceLocalLayout and Format Layout
    # (untyped here: the names differ between the releases asked).
    old = hasattr(jax_layout, "DeviceLocalLayout")
    old_name = "DeviceLocalLayout"
    Layout: Any = getattr(jax_layout, old_name) if old else jax_layout.Layout
    Format: Any = jax_layout.Layout if old else jax_layout.Format
    from jax.sharding import SingleDeviceSharding

    # Parse before the CPU client exists: parse_all forks, and a process
    # with XLA's thread pools running must not.
    requests = [json.loads(line) for line in sys.stdin]
    parsed_all = [parse_all(xc, r["texts"]) for r in requests]
    import ml_dtypes
    sharding = SingleDeviceSharding(jax.devices("cpu")[0])

    class Exact(Layout):
        """A jax Layout that hands XLA an exact layout text.

        jax writes ``str(layout._to_xla_layout(dtype))`` into the module as
        the ``mhlo.layout_mode`` attribute, and XLA parses and validates it;
        jax's own Layout has no L, S, SC, M, # or * fields.  The dummy tiling
        and the patches below keep jax from dropping it as "the default" and
        from checking, after compiling, that XLA kept what jax would have
        asked for (XLA's reading of the text is the answer we want).
        """

        def __init__(self, major_to_minor, text):
            super().__init__(major_to_minor, **{"_tiling" if old else "tiling": ((1,),)})
            self.text = text

        def _to_xla_layout(self, dtype):
            return self

        def __str__(self):
            return self.text

        def __hash__(self):
            return hash(self.text)

        def __eq__(self, other):
            return isinstance(other, Exact) and other.text == self.text

    from jax._src.interpreters import pxla
    same_layout, is_default = pxla.is_user_xla_layout_equal, pxla.is_default_layout
    pxla.is_user_xla_layout_equal = (
        lambda ul, xl: isinstance(ul, Exact) or same_layout(ul, xl))
    pxla.is_default_layout = (
        lambda layout, s, aval: not isinstance(layout, Exact) and is_default(layout, s, aval))

    def estimate_bytes(dims, tiles, itemsize):
        # An upper bound on the padded size: each tile may pad every
        # element out to a whole tile.  A '*' entry counts as 32 (ArraySize
        # pads it at most that far).
        n = max(math.prod(dims), 1)
        for tile in tiles:
            n *= math.prod(t if t > 0 else 32 for t in tile)
        return n * max(itemsize, 1)

    def formats(items):
        return tuple(Format(Exact(it["m2m"], it["layout"]), sharding) for it in items)

    def check_params(items):
        """Validate many layouts with one cheap compilation: each is the
        layout of an unused parameter, checked by XLA's HLO verifier.
        Returns the layouts the compiler kept, or raises."""
        _say(at="compile", items=[it["i"] for it in items])
        fn = jax.jit(lambda *xs: 0, in_shardings=formats(items), keep_unused=True)
        try:
            lowered = fn.lower(*[jax.ShapeDtypeStruct(it["dims"], it["dtype"])
                                 for it in items])
        except Exception as e:  # jax's own limits, not XLA's verdict
            raise _JaxError(_message(e)) from None
        compiled = lowered.compile()
        try:
            # jax's private executable (untyped): the only way to the parameter layouts
            executable = cast(Any, compiled)._executable.xla_executable
            return [str(l) for l in executable.get_parameter_layouts()]
        except Exception:
            return [None] * len(items)

    def measure(items):
        """ArraySize of each item: allocate it as an output in its layout."""
        _say(at="compile", items=[it["i"] for it in items])
        specs = [(it["dims"], it["dtype"]) for it in items]
        fn = jax.jit(lambda: tuple(jnp.zeros(d, t) for d, t in specs),
                     out_shardings=formats(items))
        arrays = fn.lower().compile()()
        return [int(a.on_device_size_in_bytes()) for a in arrays]

    def validate(items, singly):
        """Say valid/invalid for each item; return the valid ones."""
        valid = []
        groups = [[it] for it in items] if singly else _unique_groups(items)
        while groups:
            group = groups.pop()
            try:
                kept = check_params(group)
            except _JaxError as e:
                if len(group) == 1:
                    _say(i=group[0]["i"], note=f"not validated: jax cannot lower it ({e})",
                         final=True)
                else:
                    groups += [group[:len(group) // 2], group[len(group) // 2:]]
                continue
            except Exception as e:  # XLA's status: the verifier's reason
                reason = _message(e)
                culprit = [it for it in group if reason.endswith(": " + it["sig"])]
                if len(group) == 1 or len(culprit) == 1:
                    bad = group[0] if len(group) == 1 else culprit[0]
                    _say(i=bad["i"], valid=False, reason=reason, final=True)
                    rest = [it for it in group if it is not bad]
                    if rest:
                        groups.append(rest)
                else:
                    groups += [group[:len(group) // 2], group[len(group) // 2:]]
                continue
            for it, layout in zip(group, kept):
                if it["static"]:
                    _say(i=it["i"], valid=True, device_layout=layout)
                    valid.append(it)
                else:
                    _say(i=it["i"], valid=True, device_layout=layout, final=True,
                         note="validated with each '<=N' dim at its bound N (jax "
                         "cannot allocate a dynamic shape); ArraySize not measured")
        return valid

    def sizes(items, singly):
        """Measure in batches under the memory cap; a failing batch is split."""
        small = [it for it in items if it["estimate"] <= ARRAY_BYTES]
        for it in items:
            if it["estimate"] > ARRAY_BYTES:
                _say(i=it["i"], note="ArraySize not measured: the array is too "
                     "large to allocate here", final=True)
        batches: list[list[dict]] = []
        batch: list[dict] = []
        total = 0
        for it in small:
            if batch and (total + it["estimate"] > BATCH_BYTES or singly
                          or len(batch) >= BATCH_ITEMS):
                batches.append(batch)
                batch, total = [], 0
            batch.append(it)
            total += it["estimate"]
        if batch:
            batches.append(batch)
        while batches:
            batch = batches.pop()
            try:
                got = measure(batch)
            except Exception as e:
                if len(batch) == 1:
                    _say(i=batch[0]["i"], note="ArraySize not measured: XLA cannot "
                         f"produce an array in this layout ({_message(e)})", final=True)
                else:
                    batches += [batch[:len(batch) // 2], batch[len(batch) // 2:]]
                continue
            for it, size in zip(batch, got):
                _say(i=it["i"], array_size=size, final=True)

    for request, parsed in zip(requests, parsed_all):
        singly = set(request.get("singly", ()))
        group: list[dict] = []
        alone: list[dict] = []
        for i, _text in request["texts"]:
            facts = parsed.get(i)
            if facts is None:
                continue  # XLA's parser rejected it or aborted: already said
            printed, kind = facts["printed"], facts["kind"]
            if not request.get("validate", True):
                _say(i=i, final=True)
                continue
            if kind != "array":
                _say(i=i, note=f"not validated: a {kind} shape", final=True)
                continue
            if facts.get("unbounded"):
                _say(i=i, note="not validated: jax cannot allocate an unbounded "
                     "dynamic dim '?'", final=True)
                continue
            if "dtype" not in facts:
                _say(i=i, note="not validated: jax has no array type for it "
                     f"({facts['dtype_error']})", final=True)
                continue
            element = printed[:printed.index("[")]
            if element in LOWERED_AS_OTHER:
                _say(i=i, note=f"not validated: jax hands XLA a {LOWERED_AS_OTHER[element]} "
                     f"array for {element}, so XLA's answer would be about another shape",
                     final=True)
                continue
            dtype = getattr(ml_dtypes, facts["dtype"], None) or np.dtype(facts["dtype"])
            m2m, dims = facts["m2m"], facts["dims"]
            if math.prod(max(d, 1) for d in dims) > INT64_MAX:
                # XLA aborts compiling these ("overflow in static extent
                # product"), taking every question in the batch with it.
                _say(i=i, note="not validated: the element count overflows int64, "
                     "which XLA does not survive compiling", final=True)
                continue
            text_layout = printed[printed.index("]") + 1:] or (
                "{" + ",".join(map(str, m2m)) + "}")
            itemsize = np.dtype(dtype).itemsize
            item = {"i": i, "dims": dims, "dtype": dtype, "static": facts["static"],
                    "sig": printed[:printed.index("[")] + "[" + ",".join(map(str, dims)) + "]",
                    "layout": text_layout,
                    "m2m": tuple(reversed(m2m)) if len(m2m) == len(dims)
                    else tuple(range(len(dims))),
                    "estimate": estimate_bytes(dims, facts["tiling"], itemsize)}
            if math.prod(dims) * itemsize > ARRAY_BYTES:
                item["estimate"] = ARRAY_BYTES + 1
            (alone if i in singly else group).append(item)
        for items, singly_ in ((group, False), (alone, True)):
            ok = validate(items, singly_)
            if request.get("measure", True):
                sizes(ok, singly_)
            else:
                for it in ok:
                    _say(i=it["i"], final=True)
        _say(done=True)


if __name__ == "__main__":
    main()
