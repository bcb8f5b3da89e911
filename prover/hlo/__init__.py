"""HLO modules as XLA prints them (:mod:`.module`), and every layout claim in
one checked (:mod:`.check`)."""

from .module import parse_hlo

__all__ = ["parse_hlo"]
