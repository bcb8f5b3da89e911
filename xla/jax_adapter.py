"""Every use of jax's and jaxlib's private API, behind named questions.

The worker (:mod:`.worker`) asks XLA through these functions only; what
jax keeps private (``jax._src``: XLA's shape parser and printer, the
layout-equality checks jax runs after compiling, the executable's parameter
layouts) is reached here and nowhere else, so a jax release that moves it
changes this module alone.

A ``backend`` names where XLA compiles: ``"cpu"`` (the CPU client, one
device).  :data:`BACKENDS` maps each name to how its sharding is made; a
backend without devices (a TPU topology described to the compiler) adds an
entry there.

jax is imported inside the functions: this module is the jax boundary, and
importing it (for its doctests, or the worker's table) must not start jax.

>>> sorted(BACKENDS)
['cpu']
"""

from __future__ import annotations

import ctypes
import os
from typing import Any, Callable, cast

import numpy as np

#: Element types jax cannot hand to XLA as themselves: jax lowers int1 and
#: uint1 to MLIR's i1, which XLA reads as pred, so XLA's validator would
#: judge a pred array (and name pred in its message) instead.
LOWERED_AS_OTHER = {"s1": "pred", "u1": "pred"}


class JaxRefusal(Exception):
    """jax refused to build the question (a limit of jax, not XLA's answer)."""


class UnknownBackend(ValueError):
    """A backend this adapter cannot compile for."""


def _cpu_sharding() -> Any:
    import jax
    from jax.sharding import SingleDeviceSharding
    return SingleDeviceSharding(jax.devices("cpu")[0])


#: backend name -> the sharding its arrays are placed with.
BACKENDS: dict[str, Callable[[], Any]] = {"cpu": _cpu_sharding}
_SHARDINGS: dict[str, Any] = {}


def sharding(backend: str = "cpu") -> Any:
    """The one-device sharding of ``backend`` (made once; this starts the
    backend's client and its threads)."""
    if backend not in BACKENDS:
        raise UnknownBackend(f"no backend {backend!r} (known: {', '.join(sorted(BACKENDS))})")
    if backend not in _SHARDINGS:
        _SHARDINGS[backend] = BACKENDS[backend]()
    return _SHARDINGS[backend]


def backends_started() -> bool:
    """Whether a backend's client (and its thread pools) exists: a process
    with XLA's threads running must not fork."""
    return bool(_SHARDINGS)


# --- XLA's shape parser and printer -----------------------------------------------------

def load_parser() -> None:
    """Import jax and XLA's shape parser, so that forked children parse at
    once instead of each importing them."""
    import jax  # noqa: F401
    from jax._src.lib import xla_client  # noqa: F401


def parse_shape(text: str) -> tuple[str, str, dict]:
    """XLA's parse of ``text`` (``ParseShape``, openxla/xla
    xla/hlo/parser/hlo_parser.cc) as (printed, kind, array facts); raises
    XLA's status as an exception if it does not parse.  The facts are read
    here because some accessors abort on extreme dims."""
    from jax._src.lib import xla_client as xc
    shape = xc.Shape(text)
    printed = str(shape)
    kind = ("tuple" if shape.is_tuple() else "token" if shape.is_token()
            else "array" if shape.is_array() else "other")
    if printed.startswith("b("):
        kind = "buffer"
    return printed, kind, (_array_facts(shape) if kind == "array" else {})


def _array_facts(shape) -> dict:
    facts: dict[str, Any] = {"static": shape.is_static()}
    dims = list(shape.dimensions())
    if any(d < 0 for d in dims):  # an unbounded '?'
        facts["unbounded"] = True
        return facts
    try:
        dtype = shape.numpy_dtype()
    except Exception as e:  # jax has no array type for the element type
        facts["dtype_error"] = e
        return facts
    layout = shape.layout()
    facts.update(dims=dims, minor_to_major=list(layout.minor_to_major()),
                 tiling=[list(t) for t in layout.tiling()],
                 dtype=dtype.name, itemsize=dtype.itemsize)
    return facts


# --- arrays with an exact layout text ---------------------------------------------------

_EXACT: list[Any] = []


def _exact_class() -> Any:
    """A jax Layout that hands XLA an exact layout text.

    jax writes ``str(layout._to_xla_layout(dtype))`` into the module as the
    ``mhlo.layout_mode`` attribute, and XLA parses and validates it; jax's
    own Layout has no L, S, SC, M, # or * fields.  The dummy tiling and the
    patches below keep jax from dropping it as "the default" and from
    checking, after compiling, that XLA kept what jax would have asked for
    (XLA's reading of the text is the answer wanted)."""
    if _EXACT:
        return _EXACT[0]
    import jax.experimental.layout as jax_layout
    from jax._src.interpreters import pxla
    # jax before 0.6 named today's Layout DeviceLocalLayout (untyped here: the
    # names differ between the releases asked).
    old_name = "DeviceLocalLayout"
    old = hasattr(jax_layout, old_name)
    layout_class: Any = getattr(jax_layout, old_name) if old else jax_layout.Layout

    class Exact(layout_class):
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

    same_layout, is_default = pxla.is_user_xla_layout_equal, pxla.is_default_layout
    pxla.is_user_xla_layout_equal = (
        lambda ul, xl: isinstance(ul, Exact) or same_layout(ul, xl))
    pxla.is_default_layout = (
        lambda layout, s, aval: not isinstance(layout, Exact) and is_default(layout, s, aval))
    _EXACT.append(Exact)
    return Exact


def _format_class() -> Any:
    import jax.experimental.layout as jax_layout
    # jax before 0.6 named today's Format Layout.
    return jax_layout.Layout if hasattr(jax_layout, "DeviceLocalLayout") else jax_layout.Format


def _exact_formats(arrays, backend: str) -> tuple:
    exact, fmt = _exact_class(), _format_class()
    return tuple(fmt(exact(a.major_to_minor, a.layout), sharding(backend)) for a in arrays)


def _numpy_dtype(name: str) -> Any:
    import ml_dtypes
    return getattr(ml_dtypes, name, None) or np.dtype(name)


def layouts_kept(arrays, backend: str = "cpu") -> list[str | None]:
    """Validate each array's layout with one cheap compilation: each is the
    layout of an unused parameter, checked by XLA's HLO verifier
    (``LayoutUtil::ValidateLayoutForShape``).  Returns the layouts the
    compiler kept (``None`` where they cannot be read); raises XLA's status,
    or :class:`JaxRefusal` when jax cannot lower the question."""
    import jax
    fn = jax.jit(lambda *xs: 0, in_shardings=_exact_formats(arrays, backend),
                 keep_unused=True)
    try:
        lowered = fn.lower(*[jax.ShapeDtypeStruct(a.dims, _numpy_dtype(a.dtype))
                             for a in arrays])
    except Exception as e:  # jax's own limits, not XLA's verdict
        raise JaxRefusal(str(e)) from None
    compiled = lowered.compile()
    try:
        # jax's private executable: the only way to the parameter layouts
        executable = cast(Any, compiled)._executable.xla_executable
        return [str(lay) for lay in executable.get_parameter_layouts()]
    except Exception:
        return [None] * len(arrays)


def array_sizes(arrays, backend: str = "cpu") -> list[int]:
    """ArraySize of each array: allocated as an output in its layout, then
    ``on_device_size_in_bytes()`` of the result."""
    import jax
    import jax.numpy as jnp
    specs = [(a.dims, _numpy_dtype(a.dtype)) for a in arrays]
    fn = jax.jit(lambda: tuple(jnp.zeros(d, t) for d, t in specs),
                 out_shardings=_exact_formats(arrays, backend))
    return [int(x.on_device_size_in_bytes()) for x in fn.lower().compile()()]


# --- arrays in jax's public Layout ------------------------------------------------------

def _public_format(array, backend: str) -> Any:
    from jax.experimental.layout import Format, Layout
    tiling = tuple(tuple(t) for t in array.tiling) or None
    return Format(Layout(tuple(array.major_to_minor), tiling=tiling), sharding(backend))


def compile_reshapes(cases, backend: str = "cpu") -> str:
    """XLA's optimised HLO of one function that reshapes (or transposes)
    each case's donated argument into its result's layout; raises XLA's status
    when it rejects the layouts."""
    import jax
    import jax.numpy as jnp

    def f(*xs):
        out = [jnp.reshape(x, tuple(c.dst.dims)) if c.transpose is None
               else jnp.transpose(x, tuple(c.transpose)) for x, c in zip(xs, cases)]
        return tuple(out) if len(out) > 1 else out[0]

    ins = tuple(_public_format(c.src, backend) for c in cases)
    outs = tuple(_public_format(c.dst, backend) for c in cases)
    fn = jax.jit(f, in_shardings=ins, out_shardings=outs if len(cases) > 1 else outs[0],
                 donate_argnums=tuple(range(len(cases))))
    args = [jax.ShapeDtypeStruct(tuple(c.src.dims), _numpy_dtype(c.src.dtype), sharding=s)
            for c, s in zip(cases, ins)]
    return _hlo_text(fn.lower(*args).compile())


def compile_program(fn, args, jit_keywords: dict, backend: str = "cpu") -> str:
    """XLA's optimised HLO of ``jax.jit(fn, **jit_keywords)`` on ``args``.
    ``backend`` must be the one the keywords' shardings place on."""
    import jax
    sharding(backend)
    return _hlo_text(jax.jit(fn, **jit_keywords).lower(*args).compile())


def _hlo_text(compiled) -> str:
    text = compiled.as_text()
    if text is None:  # jax returns None where the backend cannot print
        raise RuntimeError("XLA gave no HLO text for the compiled program")
    return text


def device_bytes(values, array, backend: str = "cpu") -> bytes:
    """The raw bytes of the device buffer of ``values`` (a numpy array)
    placed in ``array``'s layout."""

    import jax
    x = jax.device_put(values, _public_format(array, backend))
    n = values.size * values.itemsize
    return bytes((ctypes.c_uint8 * n).from_address(x.unsafe_buffer_pointer()))



#: The memory figures of a compiled program, as ``memory_analysis()`` names them.
MEMORY_FIGURES = ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
                  "temp_size_in_bytes", "generated_code_size_in_bytes")


def compile_for_tpu(fn, specs, result, devices: int, topology: str) -> tuple[str, dict]:
    """The TPU compiler's optimised HLO of ``fn`` on arguments ``specs`` (a
    tree of ``(dims, dtype, partition)``) and its memory figures, for the
    first ``devices`` devices (1, or 4 as a 2x2 mesh ``("x", "y")``) of
    ``topology`` (``"v5e:2x2"``); no TPU is needed, only libtpu."""
    # libtpu takes a lock file meant for one process per TPU host; compiling
    # for a described topology touches no TPU, so workers may share the host.
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
    import jax
    from jax.experimental import topologies
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    topo = topologies.get_topology_desc(topology_name=topology, platform="tpu")
    found: Any = np.array(topo.devices[:devices])
    if devices == 4:
        found = found.reshape(2, 2)
    mesh = Mesh(found, ("x", "y")[:found.ndim])

    def placed(spec):
        dims, dtype, part = spec
        return jax.ShapeDtypeStruct(dims, _numpy_dtype(dtype),
                                    sharding=NamedSharding(mesh, P(*(part or ()))))

    is_spec = lambda s: isinstance(s, tuple) and len(s) == 3 and isinstance(s[1], str)
    args = jax.tree.map(placed, specs, is_leaf=is_spec)
    if isinstance(result, tuple) and result and isinstance(result[0], tuple):
        out: Any = tuple(NamedSharding(mesh, P(*r)) for r in result)
    else:
        out = NamedSharding(mesh, P(*(result or ())))
    compiled = jax.jit(fn, out_shardings=out).trace(*args).lower(
        lowering_platforms=("tpu",)).compile()
    stats = compiled.memory_analysis()
    return _hlo_text(compiled), {k: int(getattr(stats, k)) for k in MEMORY_FIGURES}
