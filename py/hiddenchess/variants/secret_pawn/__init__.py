"""Secret Pawn Chess (secret-pawn-chess.txt): each side seals two pawns with extra powers.

Plug-ins: ``rules`` (sealing, reveals, views), ``ai`` (sampling the opponent's secret pawns)."""

from hiddenchess.engine.variant import derive, get_variant, register_variant

STANDARD = get_variant("standard")

SECRET_PAWN = register_variant(derive(
    STANDARD,
    id="secret-pawn",
    name="Secret Pawn",
    summary="Seal two pawns that may also step or capture one square in any direction; "
            "they reveal on use.",
    pgn_name="Secret Pawn",
    fen_extensions=("secret", "revealed", "dbl"),
    rules="hiddenchess.variants.secret_pawn.rules:SecretPawnRules",
    package="secret_pawn",
))
