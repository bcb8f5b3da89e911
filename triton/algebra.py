"""Triton's operations on linear layouts, with Triton's names and answers
(``lib/Tools/LinearLayout.cpp``): where Triton asserts or aborts, a
:class:`~tilespec.triton.layout.TritonLayoutError` names the rule.

>>> from tilespec.triton import LinearLayout
>>> L = LinearLayout.from_bases([("i", [[2], [1]])], ["o"])
>>> compose(L, LinearLayout.from_bases([("o", [[2], [1]])], ["p"]))
LinearLayout(bases=(('i', ((1,), (2,))),), out_dims=(('p', 4),))
>>> invert(L).bases
(('o', ((2,), (1,))),)
>>> product(LinearLayout.identity_1d(4, "i", "o"), LinearLayout.zeros_1d(2, "i", "o")).bases
(('i', ((1,), (2,), (0,))),)
"""

from __future__ import annotations

from typing import Iterable, Sequence

from .f2 import pivot, rref, transpose
from .layout import LinearLayout, TritonLayoutError, is_power_of_two, log2


def _same_set(a: Sequence[str], b: Sequence[str], what: str) -> None:
    if set(a) != set(b) or len(a) != len(b):
        raise TritonLayoutError("dims", f"{what}: the dims must match, ignoring order, "
                                f"but got {list(a)} and {list(b)}")


def supremum(first: Sequence[str], second: Sequence[str]) -> list[str]:
    """The shortest order holding both orders, biased to the first
    (Triton's ``supremum``, the dim order of a product); refused where the
    dims they share come in different orders.

    >>> supremum(["a", "b"], ["a", "c"]), supremum(["x", "y"], ["z", "y"])
    (['a', 'b', 'c'], ['x', 'z', 'y'])
    >>> supremum(["a", "b"], ["b", "a"])
    Traceback (most recent call last):
    ...
    tilespec.triton.layout.TritonLayoutError: dim order: the dims common to ['a', 'b'] and ['b', 'a'] come in different orders
    """
    common = [d for d in first if d in second]
    if common != [d for d in second if d in first]:
        raise TritonLayoutError("dim order", f"the dims common to {list(first)} and "
                                f"{list(second)} come in different orders")
    out: list[str] = []
    j = 0
    for d in first:
        if d in second:
            while second[j] != d:
                out.append(second[j])
                j += 1
            j += 1
        out.append(d)
    return out + list(second[j:])


def product(inner: LinearLayout, outer: LinearLayout) -> LinearLayout:
    """Triton's ``operator*``, the direct sum: ``inner`` on the low bits of
    each shared in-dim and out-dim, ``outer`` above them.

    >>> a = LinearLayout.identity_1d(4, "i", "o1")
    >>> product(a, LinearLayout.identity_1d(8, "i", "o2")).apply({"i": 29})
    {'o1': 1, 'o2': 7}
    """
    ins = supremum(inner.in_dim_names, outer.in_dim_names)
    outs = supremum(inner.out_dim_names, outer.out_dim_names)
    in_bits = {d: 0 for d in ins}
    out_size = {d: 1 for d in outs}
    for layout in (inner, outer):
        for d, vs in layout.bases:
            in_bits[d] += len(vs)
        for d, size in layout.out_dims:
            out_size[d] *= size
    inner_in, outer_in = dict(inner.bases), dict(outer.bases)
    inner_out = dict(inner.out_dims)
    bases = []
    for d in ins:
        rows = [[0] * len(outs) for _ in range(in_bits[d])]
        low = len(inner_in.get(d, ()))
        for k, o in enumerate(outs):
            if o in inner.out_dim_names:
                at = inner.out_dim_names.index(o)
                for i, b in enumerate(inner_in.get(d, ())):
                    rows[i][k] = b[at]
            if o in outer.out_dim_names:
                at = outer.out_dim_names.index(o)
                for i, b in enumerate(outer_in.get(d, ())):
                    rows[low + i][k] = b[at] * inner_out.get(o, 1)
        bases.append((d, rows))
    return LinearLayout(bases, [(o, out_size[o]) for o in outs])


def transpose_ins(layout: LinearLayout, order: Sequence[str]) -> LinearLayout:
    """The in-dims in a new order (Triton's ``transposeIns``).

    >>> L = LinearLayout([("a", [[1]]), ("b", [[2]])], [("o", 4)])
    >>> transpose_ins(L, ["b", "a"]).in_dim_names
    ('b', 'a')
    """
    _same_set(order, layout.in_dim_names, "transpose_ins")
    bases = dict(layout.bases)
    return LinearLayout([(d, bases[d]) for d in order], layout.out_dims)


def transpose_outs(layout: LinearLayout, order: Sequence[str]) -> LinearLayout:
    """The out-dims in a new order, each basis permuted with them (Triton's
    ``transposeOuts``).

    >>> L = LinearLayout([("i", [[1, 0], [0, 1]])], [("a", 2), ("b", 2)])
    >>> transpose_outs(L, ["b", "a"]).bases
    (('i', ((0, 1), (1, 0))),)
    """
    _same_set(order, layout.out_dim_names, "transpose_outs")
    perm = [layout.out_dim_names.index(d) for d in order]
    return LinearLayout([(d, [[b[p] for p in perm] for b in vs]) for d, vs in layout.bases],
                        [layout.out_dims[p] for p in perm])


def _check_sizes(dims: Iterable[tuple[str, int]], total: int, what: str) -> list[tuple[str, int]]:
    dims = [(d, s) for d, s in dims]
    for d, s in dims:
        if not isinstance(s, int) or not is_power_of_two(s):
            raise TritonLayoutError("non-power-of-two", f"{what}: dim {d!r} has size {s}; "
                                    "sizes must be powers of 2")
    n = 1
    for _, s in dims:
        n *= s
    if n != total:
        raise TritonLayoutError("size", f"{what}: the new dims hold {n} values, the "
                                f"layout's {total}")
    return dims


def reshape_ins(layout: LinearLayout, new_in_dims: Iterable[tuple[str, int]]) -> LinearLayout:
    """The in-dims flattened (minor first) and cut again into ``new_in_dims``
    (Triton's ``reshapeIns``).

    >>> L = LinearLayout.identity_1d(8, "i", "o")
    >>> reshape_ins(L, [("a", 2), ("b", 4)]).apply({"a": 1, "b": 3})
    {'o': 7}
    """
    dims = _check_sizes(new_in_dims, 1 << layout.total_in_bits, "reshape_ins")
    flat = [b for _, vs in layout.bases for b in vs]
    bases, at = [], 0
    for d, s in dims:
        bases.append((d, flat[at:at + log2(s)]))
        at += log2(s)
    return LinearLayout(bases, layout.out_dims)


def reshape_outs(layout: LinearLayout, new_out_dims: Iterable[tuple[str, int]]) -> LinearLayout:
    """The out-dims flattened (minor first) and cut again into
    ``new_out_dims`` (Triton's ``reshapeOuts``).

    >>> L = LinearLayout.identity_1d(8, "i", "o")
    >>> reshape_outs(L, [("p", 2), ("q", 4)]).apply({"i": 7})
    {'p': 1, 'q': 3}
    """
    dims = _check_sizes(new_out_dims, 1 << layout.total_out_bits, "reshape_outs")
    shifts = layout.out_shifts()
    bases = []
    for d, vs in layout.bases:
        rows = []
        for b in vs:
            flat = sum(v << s for v, s in zip(b, shifts))
            row = []
            for _, s in dims:
                row.append(flat % s)
                flat //= s
            rows.append(row)
        bases.append((d, rows))
    return LinearLayout(bases, dims)


def flatten_ins(layout: LinearLayout) -> LinearLayout:
    """One in-dim, named as the first (Triton's ``flattenIns``).

    >>> flatten_ins(LinearLayout([("a", [[1]]), ("b", [[2]])], [("o", 4)])).in_dims
    (('a', 4),)
    """
    if not layout.bases:
        return reshape_ins(layout, [])
    return reshape_ins(layout, [(layout.in_dim_names[0], 1 << layout.total_in_bits)])


def flatten_outs(layout: LinearLayout) -> LinearLayout:
    """One out-dim, named as the first (Triton's ``flattenOuts``).

    >>> flatten_outs(LinearLayout([("i", [[1, 1]])], [("a", 2), ("b", 2)])).bases
    (('i', ((3,),)),)
    """
    if not layout.out_dims:
        return reshape_outs(layout, [])
    return reshape_outs(layout, [(layout.out_dim_names[0], 1 << layout.total_out_bits)])


def sublayout(layout: LinearLayout, in_dims: Sequence[str],
              out_dims: Sequence[str]) -> LinearLayout:
    """The layout on these in-dims (the others set to 0) and out-dims (the
    others dropped), in the layout's order (Triton's ``sublayout``).

    >>> L = LinearLayout([("a", [[1, 0]]), ("b", [[0, 1]])], [("x", 2), ("y", 2)])
    >>> sublayout(L, ["b"], ["y"]).bases
    (('b', ((1,),)),)
    """
    for d in in_dims:
        layout.in_dim_size(d)
    for d in out_dims:
        layout.out_dim_size(d)
    keep = [k for k, d in enumerate(layout.out_dim_names) if d in out_dims]
    return LinearLayout([(d, [[b[k] for k in keep] for b in vs]) for d, vs in layout.bases
                         if d in in_dims], [layout.out_dims[k] for k in keep])


def compose(layout: LinearLayout, outer: LinearLayout) -> LinearLayout:
    """``outer(layout(x))`` (Triton's ``compose``): ``layout``'s out-dims
    must be ``outer``'s in-dims, each no larger.

    >>> a = LinearLayout.identity_1d(4, "i", "o")
    >>> compose(a, LinearLayout.strided_1d(4, 2, "o", "p")).apply({"i": 3})
    {'p': 6}
    """
    _same_set(layout.out_dim_names, outer.in_dim_names, "compose")
    for d, size in layout.out_dims:
        if size > outer.in_dim_size(d):
            raise TritonLayoutError("size", f"compose: out-dim {d!r} has size {size}, "
                                    f"more than the outer in-dim's {outer.in_dim_size(d)}")
    names = layout.out_dim_names
    return LinearLayout(
        [(d, [list(outer.apply(dict(zip(names, b))).values()) for b in vs])
         for d, vs in layout.bases], outer.out_dims)


def matrix_rows(layout: LinearLayout) -> list[int]:
    """The layout's matrix as rows (stacked output bits), bit ``c`` of a row
    its input bit ``c``."""
    return transpose(layout.columns(), layout.total_out_bits)


def _lstsq(a: LinearLayout, b: LinearLayout) -> LinearLayout:
    """Triton's ``lstsq``: the ``X`` with ``a(X(x)) = b(x)`` whose free
    variables are 0 (the reduced row echelon form of ``[a | b]``); ``b``'s
    image must lie in ``a``'s.  ``b``'s out-dims are ``a``'s, each no
    larger: its bits sit on ``a``'s rows."""
    na, nb = a.total_in_bits, b.total_in_bits
    shifts = a.out_shifts()
    b_columns = [sum(v << s for v, s in zip(basis, shifts)) for _, vs in b.bases for basis in vs]
    rows = [ra | rb << na for ra, rb in zip(matrix_rows(a),
                                            transpose(b_columns, a.total_out_bits))]
    reduced = [r for r in rref(rows, na + nb) if r]
    pivots = [pivot(r) for r in reduced]
    if any(p >= na for p in pivots):
        raise TritonLayoutError("not in the image", "invert_and_compose: the layout "
                                "reaches outputs the outer layout does not")
    solution = [0] * na               # row r of X: which b-inputs set a-input bit r
    for p, r in zip(pivots, reduced):
        solution[p] = r >> na
    columns = [sum((solution[r] >> c & 1) << r for r in range(na)) for c in range(nb)]
    flat = LinearLayout([("in", [[v] for v in columns])], [("out", 1 << na)])
    return reshape_outs(reshape_ins(flat, b.in_dims), a.in_dims)


def _image_bits(layout: LinearLayout, dims: Iterable[str]) -> int:
    """The stacked output bits any basis of these in-dims sets."""
    keep = set(dims)
    bits, c = 0, 0
    columns = layout.columns()
    for d, vs in layout.bases:
        if d in keep:
            for v in columns[c:c + len(vs)]:
                bits |= v
        c += len(vs)
    return bits


def invert_and_compose(layout: LinearLayout, outer: LinearLayout) -> LinearLayout:
    """A ``C`` with ``outer(C(x)) = layout(x)`` (Triton's
    ``invertAndCompose``): the out-dims equal (order aside), each of
    ``outer``'s no smaller, and ``outer``'s image holding this layout's;
    ``outer`` need not be surjective (Triton 3.9.0's least squares return
    nothing, and it asserts "outer layout does not cover this layout's
    image", only where a pivot falls in this layout's columns).  An in-dim
    both name with equal bases, whose output bits no other in-dim of either
    touches, maps by the identity (as Triton 3.9.0 answers); the rest is
    Triton's least-squares solution with free variables 0.

    >>> R = LinearLayout.from_bases([("r", [[1], [2]])], ["x"])
    >>> S = LinearLayout.from_bases([("s", [[2], [1]])], ["x"])
    >>> invert_and_compose(R, S).bases
    (('r', ((2,), (1,))),)
    >>> half = LinearLayout.from_bases([("s", [[4], [0]])], ["x"], [16], False)
    >>> invert_and_compose(LinearLayout.from_bases([("r", [[4], [0]])], ["x"], [16], False),
    ...                    half).bases
    (('r', ((1,), (0,))),)
    >>> invert_and_compose(LinearLayout.from_bases([("r", [[1]])], ["x"], [16], False), half)
    Traceback (most recent call last):
    ...
    tilespec.triton.layout.TritonLayoutError: not in the image: invert_and_compose: the layout reaches outputs the outer layout does not
    """
    outs = layout.out_dim_names
    _same_set(outs, outer.out_dim_names, "invert_and_compose")
    a, b = transpose_outs(outer, outs), layout
    for d in outs:
        if a.out_dim_size(d) < b.out_dim_size(d):
            raise TritonLayoutError("size", f"invert_and_compose: out-dim {d!r} has size "
                                    f"{b.out_dim_size(d)} here and only {a.out_dim_size(d)} "
                                    "in the outer layout")
    b_flat = LinearLayout(b.bases, a.out_dims) if b.out_dims != a.out_dims else b
    same = []
    for d in a.in_dim_names:
        if d in b.in_dim_names and sublayout(a, [d], outs).bases == \
                sublayout(b_flat, [d], outs).bases:
            image = _image_bits(a, [d])
            others = _image_bits(a, [e for e in a.in_dim_names if e != d]) | \
                _image_bits(b_flat, [e for e in b.in_dim_names if e != d])
            if not image & others:
                same.append(d)
    a_rest = [d for d in a.in_dim_names if d not in same]
    b_rest = [d for d in b.in_dim_names if d not in same]
    # where one side has no in-dims left, the least squares still answer (as
    # Triton 3.9.0 does): zeros into the outer's rest, or "not in the image"
    result = _lstsq(sublayout(a, a_rest, outs), sublayout(b_flat, b_rest, outs)) \
        if a_rest or b_rest else LinearLayout([], [])
    for d in same:
        result = product(result, LinearLayout.identity_1d(a.in_dim_size(d), d, d))
    return transpose_outs(transpose_ins(result, b.in_dim_names), a.in_dim_names)


def pseudoinvert(layout: LinearLayout) -> LinearLayout:
    """A right inverse ``B`` of a surjective layout: ``layout(B(y)) = y``
    (Triton's ``pseudoinvert``; the inverse where the layout is invertible).

    >>> L = LinearLayout.from_bases([("r", [[1], [2], [0]])], ["x"])
    >>> pseudoinvert(L).bases, pseudoinvert(L).out_dims
    ((('x', ((1,), (2,))),), (('r', 8),))
    """
    layout.refuse_unless_surjective("pseudoinvert: ")
    identity = LinearLayout([], [])
    for d, size in layout.out_dims:
        identity = product(identity, LinearLayout.identity_1d(size, d, d))
    return invert_and_compose(identity, layout)


def invert(layout: LinearLayout) -> LinearLayout:
    """The inverse of an invertible layout (Triton's ``invert``).

    >>> invert(LinearLayout.from_bases([("r", [[1], [2], [0]])], ["x"]))
    Traceback (most recent call last):
    ...
    tilespec.triton.layout.TritonLayoutError: not invertible: 8 inputs and 4 outputs; a linear layout must be surjective and square to be invertible
    """
    if not layout.is_invertible():
        raise TritonLayoutError(
            "not invertible", f"{1 << layout.total_in_bits} inputs and "
            f"{1 << layout.total_out_bits} outputs" + ("" if layout.is_surjective() else
                                                       ", not surjective") +
            "; a linear layout must be surjective and square to be invertible")
    return pseudoinvert(layout)


def get_free_variable_masks(layout: LinearLayout) -> dict[str, int]:
    """For each in-dim, the free input bits: the non-pivot columns of the
    reduced matrix (Triton's ``getFreeVariableMasks``).  With them 0 every
    output of the layout is still reached, and the other bits fix it; a free
    bit whose column is not 0 does change the output when flipped alone
    (Triton's header calls free bits those that "can be changed without
    changing the output", which holds only for the zero columns).

    >>> L = LinearLayout.from_bases([("r", [[1], [1]]), ("t", [[0], [2]])], ["x"])
    >>> get_free_variable_masks(L)
    {'r': 2, 't': 1}
    """
    pivots = {pivot(r) for r in rref(matrix_rows(layout), layout.total_in_bits) if r}
    masks, c = {}, 0
    for d, vs in layout.bases:
        masks[d] = sum(1 << i for i in range(len(vs)) if c + i not in pivots)
        c += len(vs)
    return masks


def get_num_consecutive_in_out(layout: LinearLayout) -> int:
    """How many consecutive inputs of the first in-dim map to consecutive
    outputs of the first out-dim (Triton's ``getNumConsecutiveInOut``).

    >>> L = LinearLayout.from_bases([("r", [[1, 0], [2, 0], [0, 1]]), ("t", [[8, 0]])],
    ...                             ["x", "y"], [16, 2], require_surjective=False)
    >>> get_num_consecutive_in_out(L)
    4
    """
    if not layout.bases or not layout.out_dims:
        return 1
    first = layout.bases[0][1]
    consec = 0
    while consec < len(first) and first[consec][0] == 1 << consec \
            and not any(first[consec][1:]):
        consec += 1
    other = 0
    for k, (_, vs) in enumerate(layout.bases):
        for i, b in enumerate(vs):
            if k > 0 or i >= consec:
                other |= b[0]
    zeros = (other & -other).bit_length() - 1 if other else 31
    return 1 << min(consec, zeros)


def divide_left(a: LinearLayout, b: LinearLayout) -> LinearLayout:
    """The ``C`` with ``a == product(b, C)``, with ``a``'s dims (Triton's
    ``divideLeft``; where Triton answers nothing, a refusal with the reason).

    >>> A = product(LinearLayout.identity_1d(4, "i", "o"), LinearLayout.zeros_1d(2, "i", "o"))
    >>> divide_left(A, LinearLayout.identity_1d(4, "i", "o")).bases
    (('i', ((0,),)),)
    """
    b_out = _dims_within(a, b, "divide_left")
    c_out = _quotient_sizes(a, b_out, "divide_left")
    bases = []
    for d, vs in a.bases:
        nb = len(dict(b.bases).get(d, ()))
        if nb > len(vs):
            raise TritonLayoutError("not divisible", f"divide_left: in-dim {d!r} has "
                                    f"{len(vs)} bits here and {nb} in the divisor")
        for i in range(nb):
            expected = [_basis(b, d, i, o) for o in a.out_dim_names]
            if list(vs[i]) != expected:
                raise TritonLayoutError("not divisible", f"divide_left: basis {i} of in-dim "
                                        f"{d!r} is {list(vs[i])}, not the divisor's "
                                        f"{expected}")
        rows = []
        for i in range(nb, len(vs)):
            row = []
            for o, v in zip(a.out_dim_names, vs[i]):
                size = b.out_dim_size(o) if o in b.out_dim_names else 1
                if v % size:
                    raise TritonLayoutError("not divisible", f"divide_left: basis {i} of "
                                            f"in-dim {d!r} has {v} in out-dim {o!r}, not a "
                                            f"multiple of the divisor's size {size}")
                row.append(v // size)
            rows.append(row)
        bases.append((d, rows))
    c = LinearLayout(bases, c_out)
    if a.is_surjective() and b.is_surjective():
        c.refuse_unless_surjective("divide_left: the quotient's ")
    return c


def divide_right(a: LinearLayout, b: LinearLayout) -> LinearLayout:
    """The ``C`` with ``a == product(C, b)``, with ``a``'s dims (Triton's
    ``divideRight``).

    >>> A = product(LinearLayout.zeros_1d(2, "i", "o"), LinearLayout.identity_1d(4, "i", "o"))
    >>> divide_right(A, LinearLayout.identity_1d(4, "i", "o")).bases
    (('i', ((0,),)),)
    """
    b_out = _dims_within(a, b, "divide_right")
    c_out = _quotient_sizes(a, b_out, "divide_right")
    c_size = dict(c_out)
    bases = []
    for d, vs in a.bases:
        nb = len(dict(b.bases).get(d, ()))
        nc = len(vs) - nb
        if nc < 0:
            raise TritonLayoutError("not divisible", f"divide_right: in-dim {d!r} has "
                                    f"{len(vs)} bits here and {nb} in the divisor")
        for i in range(nc, len(vs)):
            for o in b.out_dim_names:
                v = vs[i][a.out_dim_names.index(o)]
                expected = _basis(b, d, i - nc, o) * c_size[o]
                if v != expected:
                    raise TritonLayoutError(
                        "not divisible", f"divide_right: basis {i} of in-dim {d!r} has {v} "
                        f"in out-dim {o!r}, not the divisor's {expected}")
        bases.append((d, [list(vs[i]) for i in range(nc)]))
    c = LinearLayout(bases, c_out)
    if a.is_surjective() and b.is_surjective():
        c.refuse_unless_surjective("divide_right: the quotient's ")
    return c


def _basis(layout: LinearLayout, in_dim: str, i: int, out_dim: str) -> int:
    """``layout``'s basis ``i`` of ``in_dim`` in ``out_dim``; 0 where the
    layout lacks that out-dim."""
    if out_dim not in layout.out_dim_names:
        return 0
    return dict(layout.bases)[in_dim][i][layout.out_dim_names.index(out_dim)]


def _dims_within(a: LinearLayout, b: LinearLayout, what: str) -> dict[str, int]:
    for d in b.in_dim_names:
        if d not in a.in_dim_names:
            raise TritonLayoutError("not divisible", f"{what}: the divisor's in-dim {d!r} "
                                    "is not the dividend's")
    for d in b.out_dim_names:
        if d not in a.out_dim_names:
            raise TritonLayoutError("not divisible", f"{what}: the divisor's out-dim {d!r} "
                                    "is not the dividend's")
    return dict(b.out_dims)


def _quotient_sizes(a: LinearLayout, b_out: dict[str, int], what: str) -> list[tuple[str, int]]:
    sizes = []
    for d, size in a.out_dims:
        divisor = b_out.get(d, 1)
        if size % divisor:
            raise TritonLayoutError("not divisible", f"{what}: out-dim {d!r} has size "
                                    f"{size}, not a multiple of the divisor's {divisor}")
        sizes.append((d, size // divisor))
    return sizes
