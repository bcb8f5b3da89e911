"""Seeded random linear layouts for the tests of tilespec.triton."""

from tilespec.triton import LinearLayout


def random_layout(rng, ins=("r", "t"), outs=("x", "y"), sizes=None, max_bits=3,
                  surjective=False, tries=200):
    """A random layout with these dims (out sizes random, or ``sizes``); with
    ``surjective``, one that is (None where none was drawn)."""
    for _ in range(tries):
        out_dims = [(o, sizes[o] if sizes else 1 << rng.randint(0, max_bits)) for o in outs]
        bases = [(i, [[rng.randrange(s) for _, s in out_dims]
                      for _ in range(rng.randint(0, max_bits + 1))]) for i in ins]
        layout = LinearLayout(bases, out_dims)
        if not surjective or layout.is_surjective():
            return layout
    return None


def every_input(layout):
    """Every input of ``layout``, as dicts."""
    dims = layout.in_dims
    total = 1
    for _, s in dims:
        total *= s
    for flat in range(total):
        x, at = {}, flat
        for d, s in dims:
            x[d] = at % s
            at //= s
        yield x
