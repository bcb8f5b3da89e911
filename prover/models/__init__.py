"""Models of XLA's C++ functions, written over an Arithmetic after what
openxla/xla's source states, each compared with the spec: ``ShapeUtil::ArraySize``
(:mod:`.array_size`), ``LayoutUtil::LinearIndex`` (:mod:`.linear_index`), the
nested-tiling index functions (:mod:`.nested_tiling`), ``ReshapeIsBitcast`` and
``TransposeIsBitcast`` (:mod:`.bitcast_rules`); the catalogue is :mod:`.rules`.

These are models, not XLA: the real XLA (from jaxlib) is :mod:`tilespec.xla`."""
