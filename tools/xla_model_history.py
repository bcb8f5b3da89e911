"""Where the C++ functions tilespec models changed in XLA's history: the
body of each function (its definition to the closing ``}`` at column 0) at
every commit of the version axis (tilespec.spec.versions.XLA_HISTORY),
compared with the body at the commit before.  The ranges each model of
``prover/models/`` declares (``XLA_MODELS``) follow this table: a function
whose text is the same at every modelled commit holds for every version
modelled; one that changed has a model per version.

Reads a local clone of openxla/xla (or its ROCm/xla mirror) with ``git show``:

    python tools/xla_model_history.py --git-dir /path/to/xla/.git

Output, one line per function (``absent``: the function is not there yet):

    LayoutUtil::LinearIndexForNestedTiling  xla/layout_util.cc  changed at: 1f375f52d4
"""

from __future__ import annotations

import argparse
import subprocess

from tilespec.spec import XLA_HISTORY

#: (file, the text that begins the function's definition line)
FUNCTIONS = [
    ("xla/shape_util.cc", "ShapeUtil::ArraySize("),
    ("xla/shape_util.cc", "ShapeUtil::ByteSizeOfElements("),
    ("xla/shape_util.cc", "ShapeUtil::ArrayDataSize("),
    ("xla/shape_util.cc", "ShapeUtil::ReshapeIsBitcast("),
    ("xla/shape_util.cc", "ShapeUtil::TransposeIsBitcast("),
    ("xla/shape_util.cc", "ShapeUtil::IsDecomposableBitcast("),
    ("xla/shape_util.cc", "ShapeUtil::DecomposeBitcast("),
    ("xla/shape_util.cc", "ShapeUtil::DecomposeBitcastToTrt("),
    ("xla/shape_util.cc", "ShapeUtil::ByteSizeOf("),
    ("xla/layout_util.cc", "LayoutUtil::MaxSplitSize("),
    ("xla/layout_util.cc", "LayoutUtil::LinearIndex("),
    ("xla/layout_util.cc", "LayoutUtil::IsUntiledLayout("),
    ("xla/layout_util.cc", "LayoutUtil::LinearIndexForNestedTiling("),
    ("xla/layout_util.cc", "LayoutUtil::DelinearizeIndexForNestedTiling("),
    ("xla/layout_util.cc", "LayoutUtil::ValidateLayoutForShape("),
    ("xla/layout.cc", "Layout::DeleteDimension("),
    ("xla/hlo/transforms/simplifiers/algebraic_simplifier.cc",
     "AlgebraicSimplifierVisitor::ComputeBitcastDimMap("),
    ("xla/hlo/transforms/simplifiers/algebraic_simplifier.cc", "ValidateTilingOfBitcast("),
    ("xla/tsl/lib/math/math_util.h", "IntegralType MathUtil::CeilOrFloorOfRatio("),
]


def body(git_dir: str, commit: str, path: str, start: str) -> str | None:
    """The function's text at ``commit``, or None where it is not defined."""
    shown = subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"],
                           capture_output=True, text=True)
    if shown.returncode:
        return None
    lines = shown.stdout.split("\n")
    for i, line in enumerate(lines):
        if start in line and not line.rstrip().endswith(";") \
                and not line.lstrip().startswith("//"):
            end = next((j for j in range(i, len(lines)) if lines[j] == "}"), len(lines) - 1)
            return "\n".join(lines[i:end + 1])
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--git-dir", required=True, help="the .git of a clone of openxla/xla")
    args = parser.parse_args()
    for path, start in FUNCTIONS:
        previous, changes = None, []
        for commit in XLA_HISTORY:
            text = body(args.git_dir, commit.sha, path, start)
            if text is None:
                changes.append(f"{commit.short}:absent")
            elif previous is not None and text != previous:
                changes.append(commit.short)
            previous = text
        print(f"{start.rstrip('('):46} {path:56} changed at: {' '.join(changes) or '-'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
