"""Hidden Identity Chess for players: the card, the first-game hint and the rules page (see
:mod:`hiddenchess.app.guide`)."""

from hiddenchess.app.guide import Guide, Section

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
)
