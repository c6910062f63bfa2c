"""Royal Pawn Chess for players: the card, the first-game hint and the rules page, with the
two-move mate that catches newcomers (see :mod:`hiddenchess.app.guide`)."""

from hiddenchess.app.guide import Example, Guide, Section, square_names


def marks(pos) -> dict:
    """A crown on each royal pawn."""
    return {"crown": square_names(pos.royal)}


GUIDE = Guide(
    how=("Everything moves as in chess, but the e-pawns are royal and the kings are not.",
         "Checkmate the enemy royal pawn, or promote your own to win."),
    icon="crown.svg",
    hint="Your royal pawn is the crowned e-pawn: guard it. It can be checked and mated from its "
         "first move (1.e4 d5+ 2.e5 Nc6 is already mate), so shield it with the d- and f-pawns.",
    warning="The royal pawn is exposed from the first move: 1.e4 d5+ 2.e5 Nc6 is checkmate. "
            "Advance your d- and f-pawns one square to shield it.",
    sections=(
        Section("The royal pawns", (
            "The pawns on e2 and e7 are royal and wear crowns. The kings are ordinary pieces: "
            "they may be captured, may walk into attack and may castle through it.",
            "The royal pawn moves only as a pawn. It can be checked, and a move must never leave "
            "it attacked. Checkmate the enemy royal pawn to win.",
            "A royal pawn may not move through check on its two-square advance, nor stop where an "
            "enemy pawn could take it en passant.",
            "A royal pawn that reaches its last rank wins the game at once: that is its "
            "promotion, and it does not become another piece.",
        )),
        Section("Everything else", (
            "All other rules are those of chess: the other pawns promote, castling needs an "
            "unmoved king and rook, and stalemate, repetition and the fifty-move rule draw.",
        )),
    ),
    examples=(
        Example(
            "Black mates in two",
            "After 1.e4 White's royal pawn is exposed: Black checks it with 1...d5+, it steps to "
            "e5, and 2...Nc6 mates: nothing can take the knight, block or step aside. The board "
            "is shown from Black's side, the side that mates.",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            ("e2e4", "d7d5", "e4e5", "b8c6"), outline=("e5",), side="black"),
    ),
    marks=marks,
)
