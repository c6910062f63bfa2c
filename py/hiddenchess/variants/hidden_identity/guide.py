"""Hidden Identity Chess for players: the card, the first-game hint and the rules page, with
examples of the rules of hidden-identity-chess.txt played by the engine: a free setup, a king
left attacked and taken, en passant against a piece that is not a pawn, and each castling case
of the text (see :mod:`hiddenchess.app.guide`). The boards show the truth; the texts say what
the other side sees."""

from hiddenchess.app.guide import Example, Guide, Section

GUIDE = Guide(
    how=("Place your 16 pieces as you like on your two home rows; your opponent sees only where.",
         "No check: capture the enemy king to win. A captured piece shows what it was."),
    icon="unknown-black.svg",
    hint="Your opponent sees only where your pieces stand, not what they are. There is no check: "
         "a king left attacked can simply be taken, and capturing the king wins.",
    sections=(
        Section("Setup", (
            "Each player places all 16 pieces freely on their two home rows, facing them. Pawns "
            "may stand on the first row, and both bishops may stand on one colour.",
            "The opponent sees a piece on each of those squares, but not which piece.",
        )),
        Section("Play", (
            "Pieces move as in chess. There is no check or checkmate: the goal is to capture the "
            "enemy king, and a king may move onto an attacked square.",
            "A captured piece is revealed. A pawn may double-step from its first or second row.",
            "En passant works against any two-square advance from those rows; if the piece taken "
            "was not a pawn, the capturing pawn is removed instead and the other piece stays "
            "hidden (its owner says only that it is not a pawn).",
            "Castling: king and rook unmoved, on the same row with nothing between. The king "
            "moves two squares towards the rook (or onto the rook's square when it is closer) and "
            "the rook jumps to its other side.",
        )),
        Section("Options", (
            "Revealed kings: both kings are visible to both sides from the start.",
            "Tabletop rules: illegal moves are possible, as over a real board. An illegal move "
            "found removes the piece that made it, and its opponent removes one enemy piece of "
            "its choice (two if the piece had already gone). A second illegal move loses.",
            "On this site without tabletop rules, the referee simply refuses illegal moves.",
        )),
    ),
    examples=(
        Example(
            "A free setup",
            "White placed its 16 pieces as it liked on its two home rows: pawns on a1 and h1, "
            "both bishops on dark squares (c1 and e1), the king on f1. Black sees 16 pieces "
            "there, not which. A pawn may double-step from its second row (a2-a4) and also "
            "from its first row (a1-a3).",
            "rnbqkbnr/pppppppp/8/8/8/8/PPNPQPPP/PNBRBKRP w - - 0 1",
            ("a2a4", "e7e5", "a1a3"), outline=("a1", "c1", "e1")),
        Example(
            "A king left attacked is taken",
            "There is no check. White cannot see that the piece on e7 is a queen and moves the "
            "rook that stood between it and the king. Black takes the king on e1 and wins.",
            "7k/4q3/8/8/8/8/4R3/4K3 w - - 0 1",
            ("e2a2", "e7e1"), outline=("e1",), side="black",
            captions=(None, "White's king on e1 is now attacked, and nothing tells White so.",
                      "The queen takes the king: the game is over.")),
        Example(
            "En passant against a piece that is not a pawn",
            "White's hidden piece on b2 advances two squares to b4, as a pawn could. Black tries "
            "to take it en passant with the c4 pawn, but it was not a pawn (a rook): Black's pawn "
            "is removed instead, and White only says \"not a pawn\": the rook stays hidden.",
            "4k3/8/8/8/2p5/8/1R6/4K3 w - - 0 1",
            ("b2b4", "c4b3"), outline=("b4", "c4"), side="black",
            captions=(None, "A two-square advance from White's second row: Black may try to "
                            "take it en passant on b3.",
                      "Not a pawn: Black's pawn is removed; the piece on b4 stays hidden.")),
        Example(
            "Castling with a rook three or more squares away",
            "King and rook have not moved and nothing stands between them. The king moves two "
            "squares towards the rook (e1 to c1) and the rook goes to its other side (d1). "
            "Castling shows both sides which pieces are the king and that rook.",
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 unmoved:a1,e1",
            ("e1c1",), outline=("c1", "d1")),
        Example(
            "Castling with a rook two squares away",
            "The rook on g1 is two squares from the king: the king takes the rook's square and "
            "the rook goes to its other side, f1.",
            "4k3/8/8/8/8/8/8/4K1R1 w - - 0 1 unmoved:e1,g1",
            ("e1g1",), outline=("g1", "f1")),
        Example(
            "Castling with an adjacent rook",
            "The rook on f1 stands next to the king: the king takes its square and the rook goes "
            "to the other side, e1. The two swap places.",
            "4k3/8/8/8/8/8/8/4KR2 w - - 0 1 unmoved:e1,f1",
            ("e1f1",), outline=("f1", "e1")),
        Example(
            "Castling on the second row",
            "With a free setup the king and rook may stand on the second row: castling works the "
            "same along any row they share, here the king e2 to c2 and the rook a2 to d2.",
            "4k3/8/8/8/8/8/R3K3/8 w - - 0 1 unmoved:a2,e2",
            ("e2c2",), outline=("c2", "d2")),
    ),
)
