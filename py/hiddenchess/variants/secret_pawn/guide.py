"""Secret Pawn Chess for players: the card, the first-game hint, the rules page and the six
examples of secret-pawn-chess.txt as real positions (the engine plays them; see
:mod:`hiddenchess.app.guide`)."""

from hiddenchess.app.guide import Example, Guide, Section, square_names


def marks(pos) -> dict:
    """Neckties on every chosen pawn (hidden ones too, as in the rules' own pictures), and which
    of them are revealed."""
    return {"necktie": square_names(pos.secret), "revealed": square_names(pos.revealed)}


GUIDE = Guide(
    how=("Before play, each side secretly chooses two of its pawns.",
         "They may also step or capture one square in any direction, and reveal when they use it."),
    icon="necktie.svg",
    setup_hint="Choose your two secret pawns: they wear neckties only you can see. A secret pawn "
               "may step or capture one square in any direction, and is revealed when it does "
               "something an ordinary pawn could not.",
    hint="Your secret pawns wear neckties only you can see. A secret pawn may step or capture one "
         "square in any direction, and is revealed when it does something an ordinary pawn could "
         "not.",
    sections=(
        Section("Setup and movement", (
            "Play starts from the usual position. Each player chooses exactly two of their eight "
            "pawns and seals the choice; it cannot change. White moves first once both have sealed.",
            "A secret pawn keeps its pawn moves and may also move or capture one square in any "
            "direction: sideways, backwards, straight ahead onto a piece, or diagonally onto an "
            "empty square.",
            "You see neckties on your own secret pawns. Your opponent sees them only once they are "
            "revealed. A revealed pawn keeps its powers until it is captured or promotes.",
            "A pawn advances two squares only on its first move. Any earlier move, even a sideways "
            "or backward step, uses up that right. A secret pawn's extra step allows no en passant "
            "reply.",
        )),
        Section("When a secret pawn is revealed", (
            "An extra move: it makes a move or capture an ordinary pawn could not make there.",
            "Check with its extra power: after a move, it attacks the enemy king in a direction an "
            "ordinary pawn could not.",
            "An otherwise safe king move: after any legal move, its hidden power alone stops the "
            "enemy king from stepping to an empty neighbouring square. If several hidden pawns "
            "stop the same square, all of them reveal. Occupied squares never count.",
            "Capture: a secret pawn that is captured (also en passant) is revealed.",
            "An illegal move reveals nothing. If only a hidden pawn stops your king move, you are "
            "told that a secret pawn attacks that square, not which pawn or how many.",
        )),
        Section("Promotion, endings and notation", (
            "A pawn reaching the last rank promotes as usual and loses its necktie and powers.",
            "Checkmate and stalemate count every secret power. Threefold repetition and the "
            "fifty-move rule may be claimed; fivefold repetition and seventy-five moves draw at "
            "once. Each pawn move, extra steps included, resets the move count.",
            "Two asterisks mark a reveal: Rd5 **c4 means the rook moved to d5 and revealed the "
            "secret pawn on c4. A pawn revealed by being captured gets ** alone, as in exd5 **.",
            "When the game ends, every secret pawn is shown. The replay can show what each side "
            "knew at each move, or both choices from the start.",
        )),
    ),
    examples=(
        Example(
            "A sideways move reveals the pawn",
            "The pawn moves sideways to e4 and reveals. It keeps its power. An ordinary d4 → d5 "
            "in this position would leave it hidden.",
            "4k3/8/8/8/3P4/8/8/4K3 w - - 0 1 secret:d4", ("d4e4",), outline=("e4",)),
        Example(
            "A forward move gives check and reveals the pawn",
            "The pawn advances to d5, then gives check straight ahead on d6 and reveals. Before "
            "the move, the rook already attacked d5, so that square did not reveal the pawn "
            "early. An ordinary diagonal pawn check does not reveal it by itself.",
            "8/8/3k4/7R/3P4/8/8/K7 w - - 0 1 secret:d4", ("d4d5",), outline=("d6",)),
        Example(
            "A rook move reveals a pawn",
            "The rook leaves d4 empty beside the king on e3. Only the hidden pawn's sideways "
            "attack from c4 makes d4 unsafe, so the pawn reveals. The knight occupies d3; d5 is "
            "not beside the king.",
            "8/8/k7/8/2pR4/3NK3/8/8 w - - 0 1 secret:c4", ("d4h4",), outline=("d4",)),
        Example(
            "A bishop's shared threat keeps the pawn hidden",
            "The bishop on c3 and the secret pawn on c4 both attack d4. d4 is already unsafe for "
            "the king because of the bishop, so the pawn stays hidden. The knight occupies d3; "
            "d5 is not beside the king.",
            "8/8/k7/8/2pR4/2bNK3/8/8 w - - 0 1 secret:c4", ("d4h4",), outline=("d4",)),
        Example(
            "Two pawns reveal together",
            "The rook leaves d4 empty. Both hidden pawns attack d4 with their extra power, and no "
            "ordinary attack makes it unsafe for the king on e3. Both reveal together. The knight "
            "on d3 blocks the other neighbouring square they attack.",
            "8/8/k7/3p4/2pR4/3NK3/8/8 w - - 0 1 secret:c4,d5", ("d4h4",), outline=("d4",)),
        Example(
            "Capture reveals the captured pawn",
            "White's ordinary pawn captures on d5. The black pawn is revealed and keeps its "
            "necktie beside the board. White's pawn gains no extra power.",
            "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 secret:d5", ("e4d5",), outline=("d5",)),
    ),
    marks=marks,
)
