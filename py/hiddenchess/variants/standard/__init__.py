"""Standard chess: the base every variant modifies (no plug-ins: the frameworks' defaults)."""

from hiddenchess.engine.variant import Variant, register_variant

STANDARD = register_variant(Variant(
    id="standard",
    name="Standard",
    summary="Ordinary chess: the base every variant modifies.",
    pgn_name="Standard",
))
