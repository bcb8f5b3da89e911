"""The built-in catalogue ``tilespec prove`` checks when given no shape:
the source document's examples and the tilings real XLA programs use, each
for concrete sizes and, with dims as names, for all sizes."""

from __future__ import annotations

#: (shape text, why it is here)
CATALOGUE: tuple[tuple[str, str], ...] = (
    # the source document
    ("f32[3,5]{1,0:T(2,2)}", "document, Figure 1"),
    ("f32[4,8]{1,0:T(2,4)(2,1)}", "document, Figure 2"),
    ("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", "document, combined dims"),
    ("f32[112,110]{1,0:T(2,3)}", "document, the same array reshaped"),
    ("bf16[1024,1024]{1,0:T(8,128)(2,1)}", "document, TPU bf16"),
    # tilings XLA programs use, concrete
    ("f32[1000]{0:T(128)}", "rank 1, T(128)"),
    ("f32[1000]{0:T(256)}", "rank 1, T(256)"),
    ("f32[1000]{0:T(512)}", "rank 1, T(512)"),
    ("f32[3000]{0:T(1024)}", "rank 1, T(1024)"),
    ("f32[3,200]{1,0:T(2,128)}", "T(2,128)"),
    ("bf16[5,300]{1,0:T(4,128)}", "T(4,128)"),
    ("f32[65536,65536]{1,0:T(8,128)}", "T(8,128), 2^32 elements"),
    ("s8[100,300]{1,0:T(8,128)(4,1)}", "T(8,128)(4,1), 8-bit"),
    ("s8[64,256]{1,0:T(32,128)(4,1)}", "T(32,128)(4,1), 8-bit"),
    ("s32[]{:T(128)}", "scalar, tile longer than the shape"),
    ("f32[]", "scalar, no tiles"),
    ("f32[2,3,5,7,11]{0,1,2,3,4:T(8,128)}", "rank 5, reversed minor_to_major"),
    ("s4[16,256]{1,0:T(8,128)(2,1)E(4)}", "sub-byte, E(4)"),
    ("f32[1048576,1048576]{1,0:T(8,128)(2,1)}", "2^40 elements"),
    # the same tilings for all sizes
    ("f32[n]{0:T(128)}", "rank 1, T(128), all sizes"),
    ("f32[n]{0:T(256)}", "rank 1, T(256), all sizes"),
    ("f32[n]{0:T(512)}", "rank 1, T(512), all sizes"),
    ("f32[n]{0:T(1024)}", "rank 1, T(1024), all sizes"),
    ("f32[m,n]{1,0:T(2,128)}", "T(2,128), all sizes"),
    ("f32[m,n]{1,0:T(4,128)}", "T(4,128), all sizes"),
    ("f32[m,n]{1,0:T(8,128)}", "T(8,128), all sizes"),
    ("bf16[m,n]{1,0:T(8,128)(2,1)}", "TPU bf16, all sizes"),
    ("s8[m,n]{1,0:T(8,128)(4,1)}", "T(8,128)(4,1), all sizes"),
    ("s8[m,n]{1,0:T(32,128)(4,1)}", "T(32,128)(4,1), all sizes"),
    ("f32[b,m,n]{0,2,1:T(8,128)}", "rank 3, transposed, all sizes"),
    ("f32[a,b,c,d,e]{4,3,2,1,0:T(*,*,2,*,3)}", "combined dims, all sizes"),
    ("bf16[b,m,n]{2,1,0:T(*,8,128)(2,1)}", "batch combined into rows, all sizes"),
    ("f32[a,b,c,d,e]{0,1,2,3,4:T(8,128)(2,1)}", "rank 5, all sizes"),
    ("s4[m,n]{1,0:T(8,128)(2,1)E(4)}", "sub-byte, all sizes"),
)
