"""Reveal Chess for players: the card, the first-game hint and the rules page (see
:mod:`hiddenchess.app.guide`)."""

from hiddenchess.app.guide import Example, Guide, Section, square_names
from hiddenchess.variants.reveal.panel import ScriptedDraw


def marks(pos) -> dict:
    """A "?" on every covered piece."""
    return {"covered": square_names(pos.covered)}


GUIDE = Guide(
    how=("All pieces but the kings start covered: a cover moves once as its square's piece,",
         "then reveals a role drawn at random from its side's pool."),
    icon="reveal.svg",
    hint="A ? marks a covered piece: it moves as the piece of its starting square, then becomes "
         "whatever its pool draws. The Next reveal table by the board shows the odds.",
    sections=(
        Section("Covers", (
            "The kings stand visible on e1 and e8. Each side's other 15 pieces start covered on "
            "their usual squares. A cover moves, captures and attacks like the piece of its "
            "starting square.",
            "After its first legal move a cover reveals: its role is drawn from its side's pool "
            "(Queen 1, Rook 2, Bishop 2, Knight 2, Pawn 8 at the start), in proportion to what is "
            "left. A covered rook can become a knight on its new square.",
            "Capturing a cover does not reveal it and does not change its owner's pool.",
        )),
        Section("Notation", (
            "A move that reveals a cover is written as the cover moved, then ? and the role it "
            "revealed: Ra3?N means the rook cover went to a3 and became a Knight; exd3?B a pawn "
            "cover captured on d3 and became a Bishop; O-O?B the corner rook cover castled and "
            "became a Bishop on f1.",
            "A cover reaching the last rank that reveals a Pawn promotes to the piece chosen "
            "before the move: Ra8?P=Q. A move without ? was made by a revealed piece or a king.",
        )),
        Section("Pawns, castling and promotion", (
            "A pawn on its home rank may advance two squares. A two-square move of a pawn cover "
            "allows en passant only if it reveals a Pawn.",
            "Castling needs an unmoved king and corner rook (covered or revealed), a clear path "
            "and no attacked square; a covered rook reveals on that move.",
            "A cover that reaches the last rank and reveals a Pawn promotes at once. You choose "
            "that promotion before the move; it applies only if a Pawn is drawn.",
        )),
        Section("Endings", (
            "Kings are never captured: checkmate wins, stalemate draws. Three repetitions or 50 "
            "moves each without a capture, pawn move or reveal may be claimed; five or 75 draw "
            "at once.",
        )),
    ),
    examples=(
        Example(
            "A covered rook moves as a rook, then reveals",
            "The rook cover on a1 slides to a3 as a rook would, and reveals the role its pool "
            "drew, here a Knight: the move is written Ra3?N (? and the role revealed). From now "
            "on it moves as a knight: Nb5.",
            "4k3/7p/8/8/8/8/8/R3K3 w Q - 0 1 covered:a1 pools:q1r2b2n2p8/q1r2b2n2p8",
            ("a1a3", "h7h6", "a3b5"), outline=("a3",),
            game_options=lambda: {"draw_source": ScriptedDraw(["n"])}),
    ),
    marks=marks,
)
