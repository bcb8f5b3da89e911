"""tilespec: an executable specification and a verifier for XLA's tiled layouts.

Everything a user needs is importable from here; the solver is imported only
when a proving function is first used, so ``import tilespec`` stays light.
Every function that takes a shape also takes its text, and ``dims=`` gives
named dims their sizes.

>>> import tilespec
>>> s = tilespec.parse_shape("bf16[1024,1024]{1,0:T(8,128)(2,1)}")
>>> tilespec.offset(s, (1, 0)), tilespec.offset(s, (0, 1)), tilespec.offset(s, (8, 0))
(1, 2, 8192)
>>> tilespec.locate(s, 2), tilespec.byte_size(s)
((0, 1), 2097152)
>>> tilespec.offset("f32[3,5]{1,0:T(2,2)}", (2, 3))
17
>>> tilespec.byte_size("bf16[m,n]{1,0:T(8,128)(2,1)}", dims={"m": 16, "n": 300})
12288
>>> tilespec.prove("bf16[m,n]{1,0:T(8,128)(2,1)}", "bijective").status
'proved'

The package is three parts: :mod:`tilespec.spec` (the semantics; never
imports a solver), :mod:`tilespec.prover` (Z3 proofs about the spec) and
:mod:`tilespec.cli` (the ``tilespec`` command); :mod:`tilespec.cute` is
CuTe's layouts and their algebra.
"""

from __future__ import annotations

from . import (
    cute,  # noqa: F401  (CuTe's layouts and algebra: light, no solver)
    spec,
)
from .cute import cute_layout  # noqa: F401
from .interop import from_jax, from_strides, strides, to_jax  # noqa: F401
from .spec import *  # noqa: F401,F403  (the semantics: light, no solver)
from .spec import __all__ as _spec_all

# The public functions of a shape: each takes the shape or its text, and
# dims= (one wrapper, so that the spec's definitions stay plain and fast).
all_offsets = accepts_text(spec.all_offsets)  # noqa: F405
locate = accepts_text(spec.locate)  # noqa: F405
locate_many = accepts_text(spec.locate_many)  # noqa: F405
offset = accepts_text(spec.offset)  # noqa: F405
offset_expr = accepts_text(spec.offset_expr)  # noqa: F405
offsets = accepts_text(spec.offsets)  # noqa: F405
padded_elements = accepts_text(spec.padded_elements)  # noqa: F405
tiled_dims = accepts_text(spec.tiled_dims)  # noqa: F405
physical_size = accepts_text(spec.physical_size)  # noqa: F405
aligned_elements = accepts_text(spec.aligned_elements)  # noqa: F405
bit_range = accepts_text(spec.bit_range)  # noqa: F405
byte_size = accepts_text(spec.byte_size)  # noqa: F405
num_elements = accepts_text(spec.num_elements)  # noqa: F405
padding_fraction = accepts_text(spec.padding_fraction)  # noqa: F405
unpadded_bytes = accepts_text(spec.unpadded_bytes)  # noqa: F405
format_shape = accepts_text(spec.format_shape, array=False)  # noqa: F405

#: Names that need the solver (or matplotlib), and the byte images:
#: resolved on first use (PEP 562), so that ``import tilespec`` and
#: ``tilespec --version`` never import z3 and a command imports only what
#: it needs.  Each entry: (module, attribute, how many leading arguments
#: are shapes that may be given as text; 0 = used as it is).
_LAZY = {
    "prove": (".prover.properties.proof", "prove", 1),
    "PROPERTIES": (".prover.properties.proof", "PROPERTIES", 0),
    "Result": (".prover.result", "Result", 0),
    "bitcast": (".prover.bitcast", "is_bitcast", 2),
    "equivalent": (".prover.equivalence", "equivalent", 2),
    "prove_cute": (".cute.proofs.xla_equality", "prove_cute", 1),
    "compare_cute": (".cute.proofs.xla_equality", "compare_cute", 1),
    "from_cute": (".cute.proofs.xla_equality", "from_cute", 0),
    "prove_cute_law": (".cute.proofs.laws", "prove_law", 0),
    "prove_swizzle": (".cute.proofs.swizzle", "prove_swizzle", 0),
    "tile_division": (".cute.proofs.tile_division", "tile_division", 1),
    "explain": (".teach.explain", "explain", 1),
    "draw": (".teach.draw.figure", "draw", 1),
    "padding": (".prover.padding.advice", "advise", 0),
    "read_oom_report": (".prover.padding.report", "read_report", 0),
    "human_bytes": (".prover.padding.report", "human_bytes", 0),
    "formula": (".codegen.symbolic", "formula", 1),
    "python_functions": (".codegen.symbolic", "python_functions", 1),
    "convert_formula": (".codegen.convert", "closed_form", 2),
    "convert_source": (".codegen.convert", "numpy_source", 2),
    "prove_convert": (".prover.codegen.convert", "prove_convert", 2),
    "to_bytes": (".image", "to_bytes", 0),        # byte images: numpy, no solver,
    "from_bytes": (".image", "from_bytes", 0),    # but not needed to start a command
    "pallas_report": (".mosaic.report", "pallas_report", 0),
    "PallasKernel": (".mosaic.kernels", "Kernel", 0),
    "PallasOperand": (".mosaic.kernels", "Operand", 0),
    "pallas_order": (".mosaic.order", "pallas_order", 1),
    "prove_mosaic_claim": (".mosaic.proofs", "prove_claim", 0),
}

#: Subpackages reached as attributes, loaded on first use with the modules
#: a user calls: ``tilespec.xla.real`` (real XLA, in a subprocess),
#: ``tilespec.xla.compare`` (its answers beside tilespec's) and
#: ``tilespec.xla.compiled`` (the compiler's bitcast-or-copy decisions).
_SUBPACKAGES = {"xla": ("real", "compare", "compiled"),
                # Triton's linear layouts, with their proofs (the solver) on use
                "triton": ("proofs",)}


def check_rule(name: str, *shapes, transpose=None, dims=None, **options):
    """One of XLA's rules (``name``, from ``tilespec check-rule --list``)
    against the spec on ``shapes`` (parsed or text): a ``Result`` whose
    counterexample's details say what XLA's rule and the spec each answer.

    >>> r = check_rule("reshape_is_bitcast", "f32[16,256]{1,0:T(8,128)}", "f32[4096]{0}")
    >>> r.status, r.counterexample.details["xla_says_bitcast"]
    ('refuted', True)

    ``xla=`` is the XLA judged by (a commit prefix, a date, ``jaxlib-X.Y.Z``;
    default the newest modelled), named in ``r.xla_version``:

    >>> r = check_rule("linear_index_nested", "f32[200]{0:T(8,128)}", xla="2026-05-22")
    >>> r.xla.kind, r.xla_version.label
    ('aborts', '2c731115ef (2026-05-22)')
    """
    from .prover.models import check
    return check(name, [as_shape(s, dims) for s in shapes],  # noqa: F405
                 transpose=transpose, **options)


def check_hlo(text: str, **options):
    """Every layout claim of an HLO module, given as the text XLA prints
    (``tilespec check-hlo FILE``): a report with its ``status``,
    ``findings`` (rule, level, line, message) and ``buffers``.

    >>> check_hlo('''HloModule m
    ... ENTRY e {
    ...   p = f32[8]{0} parameter(0)
    ...   ROOT b = f32[2,4]{1,0} bitcast(p)
    ... }''').status
    'proved'
    """
    from .prover.hlo import check_module, parse_hlo
    return check_module(parse_hlo(text), **options)


def __getattr__(name: str):
    if name in _SUBPACKAGES:
        import importlib
        for module in _SUBPACKAGES[name]:
            importlib.import_module(f".{name}.{module}", __name__)
        return importlib.import_module(f".{name}", __name__)
    if name == "__version__":
        # read on use: package metadata costs a cold ``tilespec prove`` ~10%
        from importlib import metadata
        try:
            version = metadata.version("tilespec")
        except metadata.PackageNotFoundError:  # running from a source tree
            version = "0+unknown"
        globals()["__version__"] = version
        return version
    if name in _LAZY:
        import importlib
        module, attribute, shapes = _LAZY[name]
        value = getattr(importlib.import_module(module, __name__), attribute)
        if shapes:
            value = accepts_text(value, shapes=shapes)  # noqa: F405
            value.__name__ = value.__qualname__ = name
        globals()[name] = value
        return value
    raise AttributeError(f"module 'tilespec' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_SUBPACKAGES) | {"__version__"})


__all__ = sorted(set(_spec_all) | set(_LAZY) | {
    "__version__", "check_hlo", "check_rule", "cute_layout", "from_jax",
    "from_strides", "strides", "to_jax"})
