"""``tilespec cute``: an XLA layout as a CuTe layout, and back.

- ``tilespec cute SHAPE``: the exact CuTe layout of SHAPE's padded shape
  (proved equal to the spec by :func:`tilespec.cute.proofs.prove_cute`),
  with a line saying it is the padded one; ``--logical``: the layout of the
  logical tensor (:func:`tilespec.cute.logical_layout`, proved by
  :func:`~tilespec.cute.proofs.compare_cute`); where none is exact, the
  reason (one line, exit status 2).
- ``tilespec cute --compare SHAPE CUTE``: is the CuTe layout equal to
  SHAPE's on every element (:func:`tilespec.cute.proofs.compare_cute`)?
  Exit status 0 proved, 1 refuted (the first differing element), 3 unknown.
- ``tilespec cute --from CUTE SHAPE``: the XLA layout of SHAPE's element
  type and dims that equals the CuTe layout, of its cosize
  (:func:`tilespec.cute.proofs.from_cute`, proved).

CUTE is the text pycute or CuTe's C++ prints: ``(shape):(stride)``, nested.
"""

from __future__ import annotations

from ..cute import as_layout, cute_layout, dim_modes, logical_layout
from ..prover.names import DEFAULT_TIMEOUT, counted
from ..spec import LayoutError, TilespecError, format_shape, product
from .arguments import check_bounded, parse_shape_arg, seconds
from .envelope import Entry, emit
from .prove import describe

EXIT_STATUS = {"proved": 0, "refuted": 1, "unknown": 3}


def cmd_cute(args) -> int:
    shape = parse_shape_arg(args.shape)
    check_bounded(shape)
    if args.compare and args.source:
        raise TilespecError("cute: give --compare or --from, not both")
    if args.compare:
        if args.cute is None:
            raise TilespecError("cute --compare SHAPE CUTE: the CuTe layout is missing")
        return _compare(args, shape, args.cute)
    if args.cute is not None:
        raise TilespecError(f"cute: {args.cute!r} given without --compare")
    if args.source:
        return _import(args, shape, args.source)
    return _export(args, shape)


def _export(args, shape) -> int:
    from ..cute.proofs import prove_cute  # the solver boundary: the proofs load z3
    if shape.is_symbolic:
        raise TilespecError(f"cute: a CuTe layout has fixed sizes; give {shape.names[0]!r} "
                            "and the other named dims a size with --dims (or prove the "
                            "export for every size with tilespec.prove_cute)")
    padded = cute_layout(shape)      # no exact layout: LayoutError, exit 2
    tensor = "x".join(map(str, shape.dims))
    if args.logical:
        from ..cute.proofs import compare_cute  # the solver boundary: the proofs load z3
        layout = logical_layout(shape)   # none exact: LayoutError naming the dim, exit 2
        r = compare_cute(shape, layout, timeout=args.timeout)
        domain = "logical"
        note = (f"logical: the {tensor} tensor's layout ({counted(layout.size, 'element')}); "
                "the padded shape's: without --logical")
    else:
        layout = padded
        r = prove_cute(shape, timeout=args.timeout)
        domain = "padded"
        try:
            offer = f"the tensor's own, {logical_layout(shape).cute_text()}: --logical"
        except LayoutError as e:
            offer = ("the tensor has no exact CuTe layout of its own: "
                     + str(e).split(": ", 1)[1].split(" (the padded")[0])
        note = (f"padded: the layout of the padded {_domain(padded, shape.rank)} shape "
                f"({counted(padded.size, 'element')}) holding the {tensor} tensor; {offer}")
        if padded.size == product(shape.dims):
            note = f"padded and logical: the {tensor} tensor has no padding"
    lines = [layout.cute_text(), note]
    if r.status != "proved":
        lines.append(describe(r, scope=False))
    emit(args, [_entry(r, shape, layout, domain=domain)], "\n".join(lines))
    return EXIT_STATUS[r.status]


def _domain(layout, rank) -> str:
    """The padded shape a CuTe layout of an XLA shape covers, ``8x128``."""
    return "x".join(str(m.size) for m in dim_modes(layout, rank))


def _compare(args, shape, cute) -> int:
    from ..cute.proofs import compare_cute  # the solver boundary: the proofs load z3
    layout = as_layout(cute)
    r = compare_cute(shape, layout, timeout=args.timeout)
    head = {"proved": "equal: proved", "refuted": "not equal: refuted",
            "unknown": "unknown"}[r.status]
    text = f"{head} -- {r.shape} and {layout.cute_text()}"
    if r.status != "proved":
        text += "\n" + describe(r, head=False)
    emit(args, [_entry(r, shape, layout)], text)
    return EXIT_STATUS[r.status]


def _import(args, like, cute) -> int:
    from ..cute.proofs import compare_cute, from_cute  # the solver boundary: z3
    layout = as_layout(cute)
    shape = from_cute(layout, like, timeout=args.timeout)  # none proved: exit 2
    # The proof from_cute made, once more for its record.
    r = compare_cute(shape, layout, timeout=args.timeout)
    emit(args, [_entry(r, shape, layout, xla=format_shape(shape))], format_shape(shape))
    return EXIT_STATUS[r.status]


def _entry(r, shape, layout, **data) -> Entry:
    """The proof about an XLA layout and a CuTe layout, both its subject."""
    cute = layout.cute_text()
    return Entry.of(r, {"shape": shape, "cute": cute}, {"cute": cute, **data})


def register(command) -> None:
    c = command("cute", "an XLA layout as a CuTe shape:stride layout (proved), a CuTe "
                "layout compared with an XLA layout, or read as one", cmd_cute)
    c.add_argument("shape", help="shape with layout, e.g. 'f32[24,256]{1,0:T(8,128)}' "
                   "(with --from: the element type and dims, e.g. 'f32[24,256]')")
    c.add_argument("cute", nargs="?", metavar="CUTE",
                   help="with --compare: a CuTe layout, e.g. '((8,3),(128,2)):((128,2048),"
                   "(1,1024))'")
    c.add_argument("--compare", action="store_true",
                   help="prove CUTE equal to SHAPE's layout on every element, or give "
                   "the first element where they differ")
    c.add_argument("--from", dest="source", metavar="CUTE",
                   help="the XLA layout of SHAPE's dims that equals this CuTe layout "
                   "(its padded size the CuTe cosize: extra coordinates keep their place)")
    c.add_argument("--logical", action="store_true",
                   help="the layout of the logical tensor (each mode as long as its dim), "
                   "not of the padded shape; proved equal on every element")
    c.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                   help="seconds per solver call (default %(default)s)")
