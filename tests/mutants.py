"""Deliberately broken versions of the spec's stages, for the prover to refute."""

from dataclasses import dataclass

from tilespec.spec.index import Pad, Permute, Split, shape_pipeline


@dataclass(frozen=True)
class OffByOneSplit(Split):
    """Splits by t+1 in the index while the dims still say t."""

    def forward(self, e, d, ar):
        k = len(self.sizes)
        out = list(e[:len(e) - k])
        for x, t in zip(e[len(e) - k:], self.sizes):
            out += [ar.floordiv(x, t + 1), ar.mod(x, t + 1)]
        return tuple(out)


@dataclass(frozen=True)
class FloorSplit(Split):
    """Counts tiles with floor instead of ceil: the last partial tile is lost."""

    def dims(self, d, ar):
        k = len(self.sizes)
        out = list(d[:len(d) - k])
        for x, t in zip(d[len(d) - k:], self.sizes):
            out += [ar.floordiv(x, t), t]
        return tuple(out)


@dataclass(frozen=True)
class SwappedPermute(Permute):
    """Moves the index entries in the wrong order (dims stay right)."""

    def forward(self, e, d, ar):
        return tuple(e[p] for p in reversed(self.perm))


def over_pad(s: Pad) -> Pad:
    """Pads to twice the tile: still a one-to-one layout, but larger than
    the spec's, so sizes computed from it are not the spec's."""
    return Pad(tuple(2 * t for t in s.sizes), s.level, s.name)


def mutate(shape, kind):
    """The spec's pipeline for ``shape`` with one stage broken, or None if
    the pipeline has no stage of that kind."""
    out = []
    done = False
    for s in shape_pipeline(shape):
        if not done and kind == "off_by_one" and type(s) is Split:
            s, done = OffByOneSplit(s.sizes, s.level, s.name), True
        elif not done and kind == "floor" and type(s) is Split:
            s, done = FloorSplit(s.sizes, s.level, s.name), True
        elif not done and kind == "floor" and type(s) is Pad:
            continue  # a wrong ceil: no padding, tiles counted by floor
        elif not done and kind == "over_pad" and type(s) is Pad and any(
                t > 0 for t in s.sizes):
            s, done = over_pad(s), True
        elif not done and kind == "swap" and type(s) is Permute and len(s.perm) > 1:
            s, done = SwappedPermute(s.perm, s.level, s.name), True
        out.append(s)
    return tuple(out) if done else None


def reversed_permute_index(e, order):
    """Pad-reshape-transpose's transpose with its order reversed: a wrong
    second definition of a layout (for ``spec.prt.permute_index``)."""
    return tuple(e[i] for i in reversed(tuple(order)))
