"""Hidden Identity's fifty-move claim with a friend (issue #12): pawn moves are secret, so the
claimant counts captures and its own pawn moves, the friend answers for its own pawns
(``draw-accept`` / ``draw-decline``), and the audit checks both on the truth."""

from __future__ import annotations

from collections import Counter

import pytest

from hiddenchess.engine.core import SQUARE_INDEX
from hiddenchess.errors import HiddenChessError
from hiddenchess.peer import decode

from test_peer_support import Pair

STANDARD = "rnbqkbnr/pppppppp"


def shuffle(p: Pair, plies: int, seen: Counter) -> None:
    """``plies`` moves that neither capture nor move a pawn (truly: each side picks among its own
    pieces), visiting new positions first (no repetition ends the game)."""
    for _ in range(plies):
        me = p.side(p.w.turn)
        g = me.local
        best = None
        for u in sorted(g.legal_moves()):
            if g.position.piece_at(SQUARE_INDEX[u[:2]])[1] == 1 or \
                    g.position.piece_at(SQUARE_INDEX[u[2:4]]) is not None:
                continue
            g.play(u)
            key = g.fen().split()[0]
            g.undo()
            if best is None or seen[key] < best[0]:
                best = (seen[key], u, key)
        seen[best[2]] += 1
        p.move(best[1])


def game_with_a_white_pawn_step_at_ply_20():
    """White steps its a-pawn at ply 20 (Black cannot tell it from a rook's step); 101 plies in
    all, Black to move: Black counts 101 plies without a capture or a pawn move of its own."""
    p = Pair("hidden-identity", seals=(STANDARD, STANDARD))
    seen = Counter()
    shuffle(p, 20, seen)
    p.move("a2a3")
    shuffle(p, 80, seen)
    assert p.b.ply == 101 and p.b.turn == "black"
    return p, seen


def test_the_holder_answers_a_fifty_move_claim():
    p, seen = game_with_a_white_pawn_step_at_ply_20()
    assert p.b.protocol.own_claim(p.b.local, None) == "fifty-moves"
    p.b.claim_draw()
    assert p.b.waiting_for() == "your friend's answer to your claim" and p.b.dests() == {}
    assert p.b.owed()["what"] == "their answer to your draw claim"
    p.pump()
    # White's pawn moved 80 plies ago: the claim does not stand, and play goes on.
    assert decode(p.sent["white"][-1])["t"] == "draw-decline"
    assert p.w.phase == p.b.phase == "play" and "pawns moved" in p.b.notice
    assert p.b.dests()
    shuffle(p, 20, seen)
    p.b.claim_draw()
    p.pump()
    assert decode(p.sent["white"][-2])["t"] == "draw-accept"
    for side in (p.w, p.b):
        assert side.status().reason == "fifty-moves"
        assert side.audit == {"status": "verified", "problems": []}


def test_a_holder_that_accepts_although_its_pawn_moved_forfeits_by_the_audit():
    p, _ = game_with_a_white_pawn_step_at_ply_20()
    p.w.protocol.holder_claim = lambda game, reason, move: True
    p.b.claim_draw()
    p.pump()
    assert p.b.audit["problems"][-1]["by"] == "white"
    assert p.b.audit["problems"][-1]["kind"] == "wrong-answer"
    st = p.b.status()
    assert st.reason == "forfeit" and st.winner == "black"
    assert p.b.ending["was"]["reason"] == "fifty-moves"


def test_a_claimant_whose_own_pawn_moved_forfeits_by_the_audit():
    p = Pair("hidden-identity", seals=(STANDARD, STANDARD))
    seen = Counter()
    shuffle(p, 99, seen)
    p.move("h7h6")                         # Black's own pawn, at ply 100
    shuffle(p, 1, seen)
    assert p.b.turn == "black"
    with pytest.raises(HiddenChessError):
        p.b.claim_draw()                   # (an honest page does not claim)
    p.b.protocol.own_claim = lambda game, move: "fifty-moves"
    p.b.claim_draw()
    p.pump()                               # White counts 101 plies: it accepts
    assert p.w.audit["problems"][-1]["by"] == "black"
    assert p.w.audit["problems"][-1]["kind"] == "bad-claim"
    st = p.w.status()
    assert st.reason == "forfeit" and st.winner == "white"
