"""Royal Pawn Chess (royal-pawn-chess.txt): the e-pawns are royal, the kings are not.

Everything it changes is data read by move generation."""

from hiddenchess.engine.variant import derive, get_variant, register_variant

STANDARD = get_variant("standard")

ROYAL_PAWN = register_variant(derive(
    STANDARD,
    id="royal-pawn",
    name="Royal Pawn",
    summary="The e-pawns are royal, the kings are not: checkmate or promote the royal pawn.",
    royal="pawn",
    royal_start_squares=("e2", "e7"),
    royal_promotion_wins=True,
    royal_double_step_checks=True,
    castle_through_attack=True,
    pgn_name="Royal Pawn",
    fen_extensions=("royal",),
    package="royal_pawn",
))
