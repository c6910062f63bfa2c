"""Reveal Chess (reveal-chess.txt): covered pieces that draw their role on their first move.

Plug-ins: ``rules`` (pools, draws, conditional promotion), ``ai`` (chance nodes over the pool)."""

from hiddenchess.engine.variant import STANDARD_START, derive, get_variant, register_variant

STANDARD = get_variant("standard")

#: Reveal Chess: every piece but the king starts covered on its usual square.
REVEAL_START = (
    STANDARD_START + " covered:" + ",".join(
        f + r for r in "1278" for f in "abcdefgh" if not (f == "e" and r in "18")
    ) + " pools:q1r2b2n2p8/q1r2b2n2p8"
)


REVEAL = register_variant(derive(
    STANDARD,
    id="reveal",
    name="Reveal",
    summary="All but the kings start covered: a cover moves as its square's piece once, then "
            "reveals a role drawn from its side's pool.",
    start_fen=REVEAL_START,
    covers=True,
    pgn_name="Reveal",
    fen_extensions=("covered", "pools"),
    rules="hiddenchess.variants.reveal.rules:RevealRules",
    package="reveal",
))
