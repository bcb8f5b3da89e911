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

#: Largest total bytes one batch may allocate to measure ArraySize.
BATCH_BYTES = 64 << 20
#: Largest bytes one array may take and still be allocated.
ARRAY_BYTES = 16 << 20


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
            return first[len(code):]
    return first


def main() -> None:
    import jax
    jax.config.update("jax_enable_x64", True)  # s64/f64/c128 stay themselves
    import jax.numpy as jnp
    import numpy as np
    from jax._src.lib import xla_client as xc
    from jax.experimental.layout import Format, Layout
    from jax.sharding import SingleDeviceSharding

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
            super().__init__(major_to_minor, tiling=((1,),))
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
        # element out to a whole tile.
        # A '*' entry counts as 32 (ArraySize pads it at most that far).
        n = max(math.prod(dims), 1)
        for tile in tiles:
            n *= math.prod(t if t > 0 else 32 for t in tile)
        return n * max(itemsize, 1)

    def compile_group(items):
        """Validate and measure many arrays with one compilation."""
        _say(at="compile", items=[it["i"] for it in items])
        outs = tuple(Format(Exact(it["m2m"], it["layout"]), sharding) for it in items)
        specs = [(it["dims"], it["dtype"]) for it in items]
        fn = jax.jit(lambda: tuple(jnp.zeros(d, t) for d, t in specs),
                     out_shardings=outs)
        compiled = fn.lower().compile()
        try:  # the layouts the CPU compiler settled on (it may drop E or S)
            used = [str(l) for l in compiled._executable.xla_executable.get_output_layouts()]
        except Exception:
            used = [None] * len(items)
        run = sum(it["estimate"] for it in items) <= BATCH_BYTES and all(
            it["estimate"] <= ARRAY_BYTES for it in items)
        sizes = [None] * len(items)
        if run:
            arrays = compiled()
            sizes = [int(a.on_device_size_in_bytes()) for a in arrays]
        return sizes, used

    def validate(items, singly):
        if not items:
            return
        if singly or len(items) == 1:
            for it in items:
                try:
                    sizes, used = compile_group([it])
                except Exception as e:  # XLA's status: the validator's reason
                    _say(i=it["i"], valid=False, reason=_message(e), final=True)
                else:
                    valid(it, sizes[0], used[0])
            return
        try:
            sizes, used = compile_group(items)
        except Exception:
            half = len(items) // 2
            validate(items[:half], False)
            validate(items[half:], False)
            return
        for it, size, layout in zip(items, sizes, used):
            valid(it, size, layout)

    def valid(it, size, layout):
        extra = {} if size is not None else {
            "note": "ArraySize not measured: the array is too large to allocate"}
        _say(i=it["i"], valid=True, array_size=size, device_layout=layout,
             final=True, **extra)

    for line in sys.stdin:
        request = json.loads(line)
        singly = set(request.get("singly", ()))
        group, alone = [], []
        for i, text in request["texts"]:
            _say(at="parse", i=i)
            try:
                shape = xc.Shape(text)
            except Exception as e:
                _say(i=i, parsed=False, parse_error=_message(e), final=True)
                continue
            printed = str(shape)
            kind = ("tuple" if shape.is_tuple() else "token" if shape.is_token()
                    else "array" if shape.is_array() else "other")
            if printed.startswith("b("):
                kind = "buffer"
            _say(i=i, parsed=True, printed=printed, kind=kind)
            if not request.get("validate", True):
                _say(i=i, final=True)
                continue
            if kind != "array":
                _say(i=i, note=f"not validated: a {kind} shape", final=True)
                continue
            if not shape.is_static():
                _say(i=i, note="not validated: jax cannot allocate a dynamic shape",
                     final=True)
                continue
            try:
                dtype = shape.numpy_dtype()
            except Exception as e:
                _say(i=i, note=f"not validated: jax has no array type for it ({_message(e)})",
                     final=True)
                continue
            layout = shape.layout()
            m2m = list(layout.minor_to_major())
            dims = list(shape.dimensions())
            text_layout = printed[printed.index("]") + 1:] or (
                "{" + ",".join(map(str, m2m)) + "}")
            item = {"i": i, "dims": dims, "dtype": dtype,
                    "layout": text_layout,
                    "m2m": tuple(reversed(m2m)) if len(m2m) == len(dims)
                    else tuple(range(len(dims))),
                    "estimate": estimate_bytes(dims, layout.tiling(),
                                               np.dtype(dtype).itemsize)}
            if math.prod(dims) * np.dtype(dtype).itemsize > ARRAY_BYTES:
                item["estimate"] = ARRAY_BYTES + 1
            (alone if i in singly else group).append(item)
        validate(group, False)
        validate(alone, True)
        _say(done=True)


if __name__ == "__main__":
    main()
