"""What XLA's parser refuses in the replica groups of a mesh.

``replica_groups=mesh['x'=2,'y'=2], device_ids=([2,2]T(1,0)) {'y'}``: the
groups of a collective as the axes of a device mesh (the TPU compiler
prints them for a program sharded over a 2x2 mesh whose devices are not in
iota order).  The module reader finds where the value ends
(:meth:`tilespec.prover.hlo.reader.Reader.mesh_end`); :func:`mesh_refusal`
says whether XLA would read its three pieces.  Facts from XLA's source (the
mirror of openxla/xla, ``xla/hlo/parser/hlo_parser.cc`` at commit
183fa00cb5): ``HloParserImpl::ParseMesh`` reads ``'name'=size`` pairs (or
``device_id=N`` in a ``maximal_mesh``), then an optional ``device_ids=`` as
an iota ``[r1,r2]T(p1,p2)`` (``ParseIotaTileAssignmentArray``: ``T(...)``
required after two or more dims, each a dim number) or a list of device
numbers, as many devices as the mesh has; ``ParseAxisRefList`` reads a
``{...}`` list of axes, each a mesh axis's name or number, optionally a
sub-axis ``:(pre)size`` (``ParseAxisRef``).  Whitespace and comments may
stand between any two tokens (the text given here has its comments
blanked).

>>> mesh_refusal("['x'=2,'y'=2]", "[2,2]T(1,0)", "'y'") is None
True
>>> mesh_refusal("['x'=2,'y'=2, device_ids=(3,2,1,0)]", None, "'x'")
"mesh axes that are not 'name'=size pairs (HloParserImpl::ParseMesh)"
"""

from __future__ import annotations

import math
import re

_W = r"[ \t\n\r]*"
_STRING = r"""(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")"""
_INT = r"-?[0-9]+"
_AXIS_SIZE = re.compile(rf"{_W}({_STRING}){_W}={_W}({_INT}){_W}")
_AXIS_REF = re.compile(
    rf"{_W}({_STRING}){_W}(?::{_W}\({_W}({_INT}){_W}\){_W}({_INT}){_W})?")
_INT_ITEM = re.compile(rf"{_W}({_INT}){_W}")
_MAXIMAL = re.compile(rf"{_W}device_id={_W}{_INT}{_W}")
_IOTA = re.compile(rf"{_W}\[([^\]]*)\]{_W}(?:T{_W}\(([^)]*)\){_W})?")


def items(item: re.Pattern, text: str) -> list[re.Match] | None:
    """``item (, item)*`` or nothing, or ``None`` when ``text`` is not that.

    >>> [m.group(1) for m in items(_INT_ITEM, " 1, 2 ")], items(_INT_ITEM, "1,")
    (['1', '2'], None)
    """
    if not text.strip(" \t\n\r"):
        return []
    out, i = [], 0
    while True:
        m = item.match(text, i)
        if m is None:
            return None
        out.append(m)
        if m.end() == len(text):
            return out
        if text[m.end()] != ",":
            return None
        i = m.end() + 1


def mesh_refusal(axes: str, device_ids: str | None, groups: str,
                 maximal: bool = False) -> str | None:
    """Why XLA refuses the mesh ``axes`` (its ``[...]``, brackets included),
    ``device_ids`` (inside its parentheses; ``None`` when absent) and the
    axes of its ``groups`` (inside the braces); ``None`` when it reads them.

    >>> mesh_refusal("['x'=4]", "3,2,1", "'x'")
    'device_ids names 3 devices for a mesh of 4 (HloParserImpl::ParseMesh)'
    >>> mesh_refusal("['x'=4]", None, "'z'")
    "axis 'z' is not an axis of the mesh (HloParserImpl::ParseAxisRef)"
    """
    inner = axes.strip(" \t\n\r")[1:-1]
    if maximal:
        if _MAXIMAL.fullmatch(inner) is None:
            return "maximal_mesh[...] that is not [device_id=N] (HloParserImpl::ParseMesh)"
        names: list[str] = []
        sizes: list[int] = []
    else:
        pairs = items(_AXIS_SIZE, inner)
        if pairs is None:
            return "mesh axes that are not 'name'=size pairs (HloParserImpl::ParseMesh)"
        names = [p.group(1)[1:-1] for p in pairs]
        sizes = [int(p.group(2)) for p in pairs]
        size = math.prod(sizes)
        if device_ids is not None:
            count = device_count(device_ids)
            if count is None:
                return ("device_ids that are not an iota [dims]T(perm) nor device "
                        "numbers (HloParserImpl::ParseMesh)")
            if count != size:
                return (f"device_ids names {count} devices for a mesh of {size} "
                        "(HloParserImpl::ParseMesh)")
        if len(set(names)) < len(names):
            return "a mesh with an axis name twice (Mesh::Validate)"
        if device_ids is not None:
            listed = items(_INT_ITEM, device_ids)
            ids = [int(d.group(1)) for d in listed or ()]
            if listed is not None and ids and (sorted(ids) != list(range(len(ids)))
                                               or ids == sorted(ids)):
                return ("device_ids that are not a permutation of 0..n-1 other than "
                        "the identity (Mesh::Validate)")
    refs = items(_AXIS_REF, groups)
    if refs is None:
        return "mesh group axes that are not a list of axis names (HloParserImpl::ParseAxisRef)"
    taken: list[tuple[int, int, int]] = []
    for ref in refs:
        name = ref.group(1)[1:-1]
        if name not in names and not (name.isdigit() and int(name) < len(names)):
            return f"axis {ref.group(1)} is not an axis of the mesh (HloParserImpl::ParseAxisRef)"
        axis = names.index(name) if name in names else int(name)
        whole = sizes[axis]
        low, high = 1, whole
        if ref.group(2) is not None:
            pre, size = int(ref.group(2)), int(ref.group(3))
            if pre < 1 or size < 2 or whole % (pre * size) or size >= whole:
                return (f"sub-axis {ref.group(1)}:({pre}){size} of an axis of {whole}: "
                        "not a proper sub-axis (AxisRef::Validate)")
            low, high = pre, pre * size
        if any(a == axis and max(lo, low) < min(hi, high) for a, lo, hi in taken):
            return f"axis {ref.group(1)} taken twice (ValidateSpanOfAxes: axes overlap)"
        taken.append((axis, low, high))
    return None


def device_count(device_ids: str) -> int | None:
    """How many devices ``device_ids`` (inside its parentheses) names, or
    ``None`` when it is neither an iota nor a list of device numbers.

    >>> device_count("[2,2]T(1,0)"), device_count("[4]"), device_count("0,1,2"), device_count("[2,2]")
    (4, 4, 3, None)
    """
    iota = _IOTA.fullmatch(device_ids)
    if iota is None:
        listed = items(_INT_ITEM, device_ids)
        return None if listed is None else len(listed)
    dims = items(_INT_ITEM, iota.group(1))
    if not dims:
        return None
    if iota.group(2) is None:
        return int(dims[0].group(1)) if len(dims) == 1 else None
    perm = items(_INT_ITEM, iota.group(2))
    if len(dims) == 1 or perm is None or any(not 0 <= int(p.group(1)) < len(dims)
                                              for p in perm):
        return None
    return math.prod(int(d.group(1)) for d in dims)
