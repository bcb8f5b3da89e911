"""Triton's linear layout: a function over F2 from named input dims to named
output dims, given by its values at the powers of two.

The theory, as Triton's ``include/triton/Tools/LinearLayout.h`` states it
(commit 012678f08ad1e35aa6d6073bedbe419de8d6a424): a linear layout ``L``
maps a tuple of input coordinates (named in-dims, each of a power-of-two
size) to a tuple of output coordinates (named out-dims, each of a
power-of-two size).  It is fixed by its *bases*: ``bases[d][i]`` is
``L(0, ..., d = 2**i, ..., 0)``.  Every other value is the XOR of the bases
of the set bits of the input (the linearity rule
``L(x ^ y) = L(x) ^ L(y)``), so ``L(0) = 0`` always.  Stacking the bits of
the in-dims (first in-dim lowest) and of the out-dims (first out-dim
lowest) makes ``L`` a matrix over GF(2) whose columns are the bases; each
out-dim's size bounds its bases.  The dim order is minor to major and
matters only to the reshapes and the product.

>>> L = LinearLayout.from_bases([("t", [[1, 1], [2, 2]]), ("w", [[0, 1], [0, 2]])],
...                             ["x", "y"])
>>> L.apply({"t": 3, "w": 3})
{'x': 3, 'y': 0}
>>> L.out_dims
(('x', 4), ('y', 4))

That is the header's swizzled 4x4 example, ``(t, w) -> (t, w ^ t)``.
Bad input is refused with a one-line :class:`TritonLayoutError` whose
``reason`` names the rule Triton asserts (``"non-power-of-two"``,
``"basis out of range"``, ``"not surjective"``, ...):

>>> LinearLayout.from_bases([("r", [[3]])], ["x"], [3], False)
Traceback (most recent call last):
...
tilespec.triton.layout.TritonLayoutError: non-power-of-two: out-dim 'x' has size 3; out-dim sizes must be powers of 2
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from ..spec import LayoutError
from .f2 import matrix_rank

#: A basis: one value per out-dim.
Basis = tuple[int, ...]
#: In-dims and their bases, in order: ``((name, (basis, ...)), ...)``.
Bases = tuple[tuple[str, tuple[Basis, ...]], ...]
#: Out-dims and their sizes, in order.
OutDims = tuple[tuple[str, int], ...]

#: The largest dim size Triton's int32 sizes hold as a power of two.
MAX_SIZE = 1 << 30


class TritonLayoutError(LayoutError):
    """A linear layout or an operation Triton refuses (it asserts or
    aborts there); ``reason`` is the rule broken, the message one line.

    >>> e = TritonLayoutError("not invertible", "the layout is not square")
    >>> e.reason, str(e)
    ('not invertible', 'not invertible: the layout is not square')
    """

    def __init__(self, reason: str, detail: str):
        self.reason = reason
        super().__init__(f"{reason}: {detail}")


def is_power_of_two(n: int) -> bool:
    """Is ``n`` a power of two (1, 2, 4, ...)?

    >>> [n for n in range(10) if is_power_of_two(n)]
    [1, 2, 4, 8]
    """
    return n > 0 and n & (n - 1) == 0


def log2(n: int) -> int:
    """The exponent of the power of two ``n``.

    >>> log2(1), log2(1024)
    (0, 10)
    """
    return n.bit_length() - 1


def next_power_of_two(n: int) -> int:
    """The least power of two greater than ``n`` (LLVM's ``NextPowerOf2``,
    with which Triton infers an out-dim's size from its largest basis).

    >>> next_power_of_two(0), next_power_of_two(4), next_power_of_two(5)
    (1, 8, 8)
    """
    return 1 << n.bit_length()


def _check_size(what: str, size: Any) -> int:
    if not isinstance(size, int) or isinstance(size, bool) or not is_power_of_two(size):
        raise TritonLayoutError("non-power-of-two",
                                f"{what} has size {size}; {what.split()[0]} sizes "
                                "must be powers of 2")
    if size > MAX_SIZE:
        raise TritonLayoutError("too large", f"{what} has size {size}, more than "
                                f"Triton's int32 sizes hold (2**30)")
    return size


def _unique(names: Sequence[str], what: str) -> None:
    for n in names:
        if not isinstance(n, str) or not n:
            raise TritonLayoutError("bad dim name", f"{what} names must be non-empty "
                                    f"strings, got {n!r}")
    seen = [n for i, n in enumerate(names) if n in names[:i]]
    if seen:
        raise TritonLayoutError("repeated dim", f"{what} {seen[0]!r} is named twice")


@dataclass(frozen=True, init=False)
class LinearLayout:
    """A linear layout: the bases of each in-dim and the out-dims' sizes.

    The one constructor takes ``bases`` as ``[(in_dim, [basis, ...]), ...]``
    (a mapping too) and ``out_dims`` as ``[(out_dim, size), ...]``, and
    checks what Triton's ``checkInvariants`` checks: sizes powers of two,
    each basis one non-negative value per out-dim, below the out-dim's
    size.  Surjectivity is a property (:meth:`is_surjective`), asked by
    :meth:`from_bases` as Triton's ``require_surjective`` asks it.

    >>> LinearLayout([("i", [[1], [2]])], [("o", 4)])
    LinearLayout(bases=(('i', ((1,), (2,))),), out_dims=(('o', 4),))
    >>> LinearLayout([("i", [[4]])], [("o", 4)])
    Traceback (most recent call last):
    ...
    tilespec.triton.layout.TritonLayoutError: basis out of range: basis 4 of in-dim 'i' (bit 0) for out-dim 'o' is not below its size 4
    """

    bases: Bases
    out_dims: OutDims

    def __init__(self, bases: Iterable[Any] | Mapping[str, Any],
                 out_dims: Iterable[tuple[str, int]]):
        items = list(bases.items()) if isinstance(bases, Mapping) else list(bases)
        outs = tuple((name, size) for name, size in out_dims)
        _unique([n for n, _ in items], "in-dim")
        _unique([n for n, _ in outs], "out-dim")
        for name, size in outs:
            _check_size(f"out-dim {name!r}", size)
        norm = []
        for name, vectors in items:
            vs = []
            for i, basis in enumerate(vectors):
                b = tuple(basis)
                if len(b) != len(outs):
                    raise TritonLayoutError(
                        "basis length", f"basis {list(b)} of in-dim {name!r} (bit {i}) "
                        f"has {len(b)} values for {len(outs)} out-dims")
                for v, (out, size) in zip(b, outs):
                    if not isinstance(v, int) or isinstance(v, bool) or v < 0 or v >= size:
                        raise TritonLayoutError(
                            "basis out of range", f"basis {v} of in-dim {name!r} (bit {i}) "
                            f"for out-dim {out!r} is not below its size {size}")
                vs.append(b)
            if len(vs) > 30:
                raise TritonLayoutError("too large", f"in-dim {name!r} has 2**{len(vs)} "
                                        "values, more than Triton's int32 sizes hold")
            norm.append((name, tuple(vs)))
        object.__setattr__(self, "bases", tuple(norm))
        object.__setattr__(self, "out_dims", outs)

    # --- Triton's constructors ------------------------------------------------

    @classmethod
    def from_bases(cls, bases: Iterable[Any] | Mapping[str, Any],
                   out_dim_names: Sequence[str], out_dim_sizes: Sequence[int] | None = None,
                   require_surjective: bool = True) -> "LinearLayout":
        """Triton's ``LinearLayout.from_bases``: without sizes, each out-dim's
        size is the least power of two above its largest basis.

        >>> LinearLayout.from_bases([("i", [[1, 0], [5, 1], [2, 2]])], ["a", "b"],
        ...                         require_surjective=False).out_dims
        (('a', 8), ('b', 4))
        >>> LinearLayout.from_bases([("i", [[1], [4]])], ["o"])
        Traceback (most recent call last):
        ...
        tilespec.triton.layout.TritonLayoutError: not surjective: bases [1], [4] of out-dims o (size 8) reach 4 of its 8 values
        """
        items = list(bases.items()) if isinstance(bases, Mapping) else list(bases)
        names = list(out_dim_names)
        if out_dim_sizes is None:
            sizes = [1] * len(names)
            for _, vectors in items:
                for basis in vectors:
                    for k, v in enumerate(basis):
                        if k < len(sizes) and isinstance(v, int) and v >= 0:
                            sizes[k] = max(sizes[k], next_power_of_two(v))
        else:
            sizes = list(out_dim_sizes)
            if len(sizes) != len(names):
                raise TritonLayoutError("out-dims", f"{len(names)} out-dim names and "
                                        f"{len(sizes)} sizes")
        layout = cls(items, zip(names, sizes))
        if require_surjective and not layout.is_surjective():
            layout.refuse_unless_surjective()
        return layout

    @classmethod
    def strided_1d(cls, size: int, stride: int, in_dim: str, out_dim: str) -> "LinearLayout":
        """``L(x) = stride * x`` for ``x`` in ``[0, size)``, onto
        ``[0, size * stride)`` (Triton's ``strided1D``).

        >>> LinearLayout.strided_1d(4, 2, "i", "o")
        LinearLayout(bases=(('i', ((2,), (4,))),), out_dims=(('o', 8),))
        """
        _check_size(f"in-dim {in_dim!r}", size)
        _check_size(f"stride of in-dim {in_dim!r}", stride)
        return cls([(in_dim, [[stride << i] for i in range(log2(size))])],
                   [(out_dim, size * stride)])

    @classmethod
    def identity_1d(cls, size: int, in_dim: str, out_dim: str) -> "LinearLayout":
        """``L(x) = x`` on ``[0, size)`` (Triton's ``identity1D``).

        >>> LinearLayout.identity_1d(8, "i", "o").apply({"i": 5})
        {'o': 5}
        """
        return cls.strided_1d(size, 1, in_dim, out_dim)

    @classmethod
    def zeros_1d(cls, size: int, in_dim: str, out_dim: str,
                 out_dim_size: int = 1) -> "LinearLayout":
        """``L(x) = 0`` on ``[0, size)``, into an out-dim of ``out_dim_size``
        (Triton's ``zeros1D``; not surjective when that is above 1).

        >>> LinearLayout.zeros_1d(4, "i", "o", 4).is_surjective()
        False
        """
        _check_size(f"in-dim {in_dim!r}", size)
        return cls([(in_dim, [[0]] * log2(size))], [(out_dim, out_dim_size)])

    # --- what a layout is ------------------------------------------------------

    @property
    def in_dim_names(self) -> tuple[str, ...]:
        """The in-dims, minor first."""
        return tuple(name for name, _ in self.bases)

    @property
    def out_dim_names(self) -> tuple[str, ...]:
        """The out-dims, minor first."""
        return tuple(name for name, _ in self.out_dims)

    @property
    def in_dims(self) -> tuple[tuple[str, int], ...]:
        """Each in-dim and its size, ``2 ** len(bases)``.

        >>> LinearLayout.identity_1d(8, "i", "o").in_dims
        (('i', 8),)
        """
        return tuple((name, 1 << len(vs)) for name, vs in self.bases)

    def in_dim_size(self, name: str) -> int:
        """The size of in-dim ``name``."""
        return dict(self.in_dims)[self._in(name)]

    def out_dim_size(self, name: str) -> int:
        """The size of out-dim ``name``."""
        return dict(self.out_dims)[self._out(name)]

    def _in(self, name: str) -> str:
        if name not in self.in_dim_names:
            raise TritonLayoutError("unknown dim", f"no in-dim {name!r} in "
                                    f"{list(self.in_dim_names)}")
        return name

    def _out(self, name: str) -> str:
        if name not in self.out_dim_names:
            raise TritonLayoutError("unknown dim", f"no out-dim {name!r} in "
                                    f"{list(self.out_dim_names)}")
        return name

    @property
    def total_in_bits(self) -> int:
        """``log2`` of the number of inputs."""
        return sum(len(vs) for _, vs in self.bases)

    @property
    def total_out_bits(self) -> int:
        """``log2`` of the number of outputs."""
        return sum(log2(size) for _, size in self.out_dims)

    def out_shifts(self) -> tuple[int, ...]:
        """Where each out-dim's bits start in the stacked output.

        >>> LinearLayout([], [("a", 4), ("b", 8), ("c", 2)]).out_shifts()
        (0, 2, 5)
        """
        shifts, at = [], 0
        for _, size in self.out_dims:
            shifts.append(at)
            at += log2(size)
        return tuple(shifts)

    def columns(self) -> tuple[int, ...]:
        """The bases stacked into ints, in-dims' bits in order: the columns of
        the layout's matrix over GF(2), bit ``j`` of a column its row ``j``.

        >>> LinearLayout([("i", [[1, 0], [0, 1]])], [("a", 2), ("b", 4)]).columns()
        (1, 2)
        """
        shifts = self.out_shifts()
        return tuple(sum(v << s for v, s in zip(b, shifts))
                     for _, vs in self.bases for b in vs)

    def unstack(self, value: int) -> tuple[int, ...]:
        """A stacked output split into one value per out-dim."""
        out = []
        for _, size in self.out_dims:
            out.append(value & (size - 1))
            value >>= log2(size)
        return tuple(out)

    def apply(self, inputs: Mapping[str, int] | Iterable[tuple[str, int]]) -> dict[str, int]:
        """``L(inputs)``: the XOR of the bases of the inputs' set bits, per
        out-dim (Triton's ``apply``; its binding takes a dict, or at HEAD a
        list of pairs: both are accepted here).  Every in-dim must be given;
        bits above an in-dim's size are ignored, as Triton ignores them.

        >>> LinearLayout.from_bases([("i", [[1], [2], [4]])], ["o"]).apply([("i", 6)])
        {'o': 6}
        """
        given = dict(inputs.items() if isinstance(inputs, Mapping) else inputs)
        if set(given) != set(self.in_dim_names):
            raise TritonLayoutError("dims", f"apply takes the in-dims "
                                    f"{list(self.in_dim_names)}, got {list(given)}")
        out = [0] * len(self.out_dims)
        for name, vs in self.bases:
            x = given[name]
            for i, basis in enumerate(vs):
                if x >> i & 1:
                    out = [o ^ v for o, v in zip(out, basis)]
        return dict(zip(self.out_dim_names, out))

    def apply_flat(self, x: int) -> int:
        """``L`` on the stacked input ``x`` (in-dims' bits in order), as the
        stacked output.

        >>> LinearLayout([("i", [[1]]), ("j", [[2]])], [("o", 4)]).apply_flat(3)
        3
        """
        out = 0
        for i, column in enumerate(self.columns()):
            if x >> i & 1:
                out ^= column
        return out

    def rank(self) -> int:
        """The rank of the layout's matrix over GF(2)."""
        return matrix_rank(self.columns())

    def is_surjective(self) -> bool:
        """Does every output have an input (rank = output bits)?

        >>> LinearLayout.from_bases([("i", [[1], [1]])], ["o"]).is_surjective()
        True
        """
        return self.rank() == self.total_out_bits

    def is_injective(self) -> bool:
        """Do distinct inputs have distinct outputs (rank = input bits)?

        >>> LinearLayout.from_bases([("i", [[1], [1]])], ["o"]).is_injective()
        False
        """
        return self.rank() == self.total_in_bits

    def is_invertible(self) -> bool:
        """Surjective and as many inputs as outputs (Triton's
        ``isInvertible``).

        >>> LinearLayout.identity_1d(4, "i", "o").is_invertible()
        True
        """
        return self.is_surjective() and self.total_in_bits == self.total_out_bits

    def refuse_unless_surjective(self, what: str = "") -> None:
        """Raise the ``not surjective`` refusal, with how many outputs the
        bases reach, where the layout is not surjective."""
        if self.is_surjective():
            return
        shown = ", ".join(str(list(b)) for _, vs in self.bases for b in vs) or "no bases"
        raise TritonLayoutError(
            "not surjective", f"{what}bases {shown} of out-dims "
            f"{', '.join(f'{n} (size {s})' for n, s in self.out_dims)} reach "
            f"{1 << self.rank()} of its {1 << self.total_out_bits} values")

    # --- Triton's operations, as its methods (defined in .algebra) ---------------

    def __mul__(self, outer: "LinearLayout") -> "LinearLayout":
        """Triton's ``operator*`` (:func:`~tilespec.triton.algebra.product`)."""
        return _ops.product(self, outer)

    def compose(self, outer: "LinearLayout") -> "LinearLayout":
        """``outer(self(x))`` (:func:`~tilespec.triton.algebra.compose`)."""
        return _ops.compose(self, outer)

    def invert_and_compose(self, outer: "LinearLayout") -> "LinearLayout":
        """A ``C`` with ``outer(C(x)) = self(x)``
        (:func:`~tilespec.triton.algebra.invert_and_compose`)."""
        return _ops.invert_and_compose(self, outer)

    def invert(self) -> "LinearLayout":
        """The inverse (:func:`~tilespec.triton.algebra.invert`)."""
        return _ops.invert(self)

    def pseudoinvert(self) -> "LinearLayout":
        """A right inverse (:func:`~tilespec.triton.algebra.pseudoinvert`)."""
        return _ops.pseudoinvert(self)

    def transpose_ins(self, order: Sequence[str]) -> "LinearLayout":
        """The in-dims reordered (:func:`~tilespec.triton.algebra.transpose_ins`)."""
        return _ops.transpose_ins(self, order)

    def transpose_outs(self, order: Sequence[str]) -> "LinearLayout":
        """The out-dims reordered (:func:`~tilespec.triton.algebra.transpose_outs`)."""
        return _ops.transpose_outs(self, order)

    def reshape_ins(self, new_in_dims: Iterable[tuple[str, int]]) -> "LinearLayout":
        """The in-dims cut anew (:func:`~tilespec.triton.algebra.reshape_ins`)."""
        return _ops.reshape_ins(self, new_in_dims)

    def reshape_outs(self, new_out_dims: Iterable[tuple[str, int]]) -> "LinearLayout":
        """The out-dims cut anew (:func:`~tilespec.triton.algebra.reshape_outs`)."""
        return _ops.reshape_outs(self, new_out_dims)

    def sublayout(self, in_dims: Sequence[str], out_dims: Sequence[str]) -> "LinearLayout":
        """The layout on some dims (:func:`~tilespec.triton.algebra.sublayout`)."""
        return _ops.sublayout(self, in_dims, out_dims)

    def get_free_variable_masks(self) -> dict[str, int]:
        """The free input bits per in-dim
        (:func:`~tilespec.triton.algebra.get_free_variable_masks`)."""
        return _ops.get_free_variable_masks(self)

    def get_num_consecutive_in_out(self) -> int:
        """Consecutive inputs to consecutive outputs
        (:func:`~tilespec.triton.algebra.get_num_consecutive_in_out`)."""
        return _ops.get_num_consecutive_in_out(self)

    def __str__(self) -> str:
        """Triton's ``toString``: each basis as ``dim=2**i -> (values)``.

        >>> print(LinearLayout.identity_1d(4, "i", "o"))
        - i=1 -> (1)
          i=2 -> (2)
        where out dims are: [o (size 4)]
        """
        outs = "[" + ", ".join(f"{n} (size {s})" for n, s in self.out_dims) + "]"
        if not self.bases:
            return f"(empty layout with out-dims {outs})" if self.out_dims else "(empty layout)"
        lines = []
        for name, vs in self.bases:
            if not vs:
                lines.append(f"- {name} is a size 1 dimension")
            for i, b in enumerate(vs):
                lines.append(("- " if i == 0 else "  ") + f"{name}={1 << i} -> "
                             f"({', '.join(map(str, b))})")
        return "\n".join(lines + [f"where out dims are: {outs}"])

    def to_python(self) -> str:
        """The call that builds this layout with Triton's binding (and with
        this class), ready to paste.

        >>> print(LinearLayout.identity_1d(4, "i", "o").to_python())
        LinearLayout.from_bases([("i", [[1], [2]])], ["o"], [4], False)
        """
        bases = ", ".join(f"({n!r}, {[list(b) for b in vs]})" for n, vs in self.bases)
        return (f"LinearLayout.from_bases([{bases}], {list(self.out_dim_names)}, "
                f"{[s for _, s in self.out_dims]}, False)").replace("'", '"')


# The operations need the type; the type's methods name them.  Imported last,
# so that either module may be imported first.
from . import algebra as _ops  # noqa: E402
