"""Pallas on TPU: which layouts Mosaic gives a kernel's operands, which
block shapes it accepts, and why not.  Models of Mosaic's layouts as the
last open source defines them (``VectorLayout``: :mod:`.vector_layout`; the
memref tiling rule: :mod:`.memref`), the checks a kernel passes before it
runs as predicates (:mod:`.blocks`, :mod:`.kernels`), the compiler's
messages read (:mod:`.messages`), XLA's layout against Mosaic's
(:mod:`.compare`), claims proved for every layout and shape (:mod:`.proofs`;
XLA's operand tiling in Mosaic's order: :mod:`.operand_order`, :mod:`.order`) and
the one report (:mod:`.report`).  Where libtpu 0.0.42.1 disagrees with the last
open source, the model follows the compiler and says so.  Imports
:mod:`tilespec.spec`, the solver core and the bitcast decision.

>>> pallas_report(Kernel("copy", (Operand((16, 3072), "f32", (8, 128)),), "v5e")).verdict.accepted
True
"""

# What other packages ask of this one (`x as x`: re-exported for mypy).
from .compare import Fix as Fix, LayoutMatch as LayoutMatch, compare_layouts as compare_layouts
from .kernels import (
    KINDS as KINDS,
    Kernel as Kernel,
    Operand as Operand,
    Verdict as Verdict,
    kernel_operands as kernel_operands,
    predict as predict,
)
from .memref import GENERATIONS as GENERATIONS, memref_tiling as memref_tiling
from .messages import (
    CHECKS as CHECKS,
    MEANING as MEANING,
    Message as Message,
    read_message as read_message,
)
from .operand_order import (
    OperandOrder as OperandOrder,
    mosaic_layout as mosaic_layout,
    prove_operand_order as prove_operand_order,
)
from .order import OrderAnswer as OrderAnswer, pallas_order as pallas_order
from .proofs import (
    CLAIMS as CLAIMS,
    OPERAND_CLAIMS as OPERAND_CLAIMS,
    ORDER_CLAIMS as ORDER_CLAIMS,
    VECTOR_CLAIMS as VECTOR_CLAIMS,
    claim_scope as claim_scope,
    prove_claim as prove_claim,
)
from .report import (
    PallasReport as PallasReport,
    layouts_in_module as layouts_in_module,
    pallas_report as pallas_report,
)
from .vector_layout import ImplicitDim as ImplicitDim, VectorLayout as VectorLayout
