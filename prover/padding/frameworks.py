"""Which layouts a user's framework lets the user ask for.

JAX (0.10.2, ``jax/_src/layout.py``): an array's layout is requested as
``Format(Layout(major_to_minor, tiling=None, sub_byte_element_size_in_bits=0),
sharding)`` (``jax.experimental.layout``), on ``jax.jit``'s
``in_shardings``/``out_shardings``, ``jax.device_put`` or
``with_sharding_constraint``; ``Layout._to_xla_layout`` passes
``major_to_minor`` reversed as XLA's minor-to-major, and ``tiling`` as the
tiles.  JAX's own layout tests (``tests/layout_test.py``) request
``major_to_minor`` only and leave the tiles to the compiler
(``tiling=None``); whether TPU's compiler keeps a ``tiling`` it did not pick
is not something the advisor knows (libtpu is closed; no TPU here to ask).
So the layouts a JAX user can request on TPU are, as far as is shown:

* another order of the dims with the tiles XLA picked, ``Layout(major_to_minor)``;
* a reshape in the program (``jnp.reshape``), whose tiles XLA picks again:
  the advisor shows it with today's tiles.

Other tiles or element sizes (``T(1,128)`` where XLA picked ``T(8,128)``,
``E(n)``) are alternatives only with ``--any-tiles``, and marked.

>>> JAX.request("f32[8,128]{0,1:T(8,128)}")
'Format(Layout(major_to_minor=(1, 0)), sharding)'
>>> JAX.requestable("f32[8,128]{1,0:T(8,128)}", "f32[8,128]{0,1:T(8,128)}")
True
>>> JAX.requestable("f32[8,128]{1,0:T(8,128)}", "f32[8,128]{0,1:T(4,128)}")
False
"""

from __future__ import annotations

from dataclasses import dataclass

from ...spec import Shape, parse_array_shape


def _shape(s: Shape | str) -> Shape:
    return parse_array_shape(s) if isinstance(s, str) else s


@dataclass(frozen=True)
class Framework:
    """A framework's layout requests: ``name`` and the fields of XLA's
    layout it lets a user choose while the compiler keeps choosing the rest."""

    name: str
    chooses: str

    def requestable(self, here: Shape | str, there: Shape | str) -> bool:
        """Can a user of this framework turn ``here`` into ``there``: the
        same tiles and element size, only the dims' order (or the dims, by
        a reshape in the program) changed."""
        a, b = _shape(here), _shape(there)
        return (a.layout.tiles == b.layout.tiles
                and a.layout.element_size_in_bits == b.layout.element_size_in_bits)

    def request(self, there: Shape | str) -> str:
        """How the user asks for ``there``'s order of the dims."""
        s = _shape(there)
        major_to_minor = tuple(reversed(s.layout.minor_to_major))
        return f"Format(Layout(major_to_minor={major_to_minor}), sharding)"


#: JAX on TPU, as ``jax/_src/layout.py`` of jax 0.10.2 lets a user ask.
JAX = Framework("JAX", "major_to_minor; the tiles stay XLA's")
