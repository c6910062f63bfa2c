"""Standard chess for players: the card of the variant every other one modifies (see
:mod:`hiddenchess.app.guide`)."""

from hiddenchess.app.guide import Guide, Section

GUIDE = Guide(
    how=("Ordinary chess, with every rule of the game.",
         "The base the other variants change."),
    icon="favicon.svg",
    sections=(
        Section("The rules", (
            "The pieces move as in chess. Checkmate wins; stalemate, insufficient material, "
            "threefold repetition (claimed) and the fifty-move rule (claimed) draw; fivefold "
            "repetition and seventy-five moves draw at once.",
            "Castling, en passant and promotion follow the FIDE Laws of Chess.",
        )),
    ),
)
