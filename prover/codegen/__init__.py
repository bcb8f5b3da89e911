"""Generated code proved equal to the spec: offset and locate in Python and C
(:mod:`.generated`, compiled first by :mod:`.compile_check`), the tile/untile
code (:mod:`.tile_code`), and the copy between two layouts (:mod:`.convert`).

The code is read as syntax trees and evaluated by one walk
(:mod:`.interpret`) in three meanings: Z3 terms for the claim
(:mod:`.terms`), columns of ints on every index of a small shape
(:mod:`.exhaustive`), and exact ints to replay a witness."""

# What other packages ask of this one (`x as x`: re-exported for mypy).
from .convert import (
    prove_convert as prove_convert,
)
from .generated import (
    prove_generated as prove_generated,
)
from .tile_code import (
    joint_scope as joint_scope,
    prove_tiling as prove_tiling,
)
