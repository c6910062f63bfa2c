"""Blame by knowledge (issue #23, part 3): the end-of-game audit judges each move and answer by
what the side that made it knew at that ply -- its own secrets and what the other side had
actually shown it -- never by a truth rebuilt through a move that was wrongly accepted. It still
lists every problem, and the verdict still takes the first break."""

from __future__ import annotations

import random

from hiddenchess.errors import HiddenChessError
from hiddenchess.peer.verdict import decisive
from hiddenchess.variants.hidden_identity.rules import parse_placement

from test_peer_support import Pair, random_game
from test_peer_protocol import SP_MOVES, SP_SEALS, play
from test_peer_session import Link

STANDARD = "rnbqkbnr/pppppppp"


def forgetful(pg, item: str) -> None:
    """``pg``'s page ignores its own secret pawn ``item`` (its committed flag stays "1"): it
    neither refuses king moves into that pawn's extra attack nor opens it when it reveals."""
    honest = pg.protocol.known_secret_squares
    pg.protocol.known_secret_squares = \
        lambda peer_open=None: [s for s in honest(peer_open) if s != item]
    pg.adopt_local(None)


def kxe5_line():
    """The issue's line: White seals c2, d2, Black b7, f7; Black's page forgets f7 (on f5, it
    defends e5), so its answer to White's question allows 25.Kxe5 and it accepts the move."""
    p = Pair("secret-pawn", seals=SP_SEALS)
    forgetful(p.b, "f7")
    play(p, SP_MOVES)
    play(p, ["d5e5"])
    assert p.w.ply == p.b.ply == len(SP_MOVES) + 1       # (accepted)
    return p


def test_the_kxe5_line_blames_only_black():
    # After 25.Kxe5 the truth (replayed through the wrongly accepted move) has White's king next
    # to a revealed f5 pawn, so 27.a3 "leaves it in check" there -- but White was never shown
    # f5's secret: by what White knew, a3 is legal. Only Black's breaks are reported, on both
    # pages, and Black's first one decides.
    p = kxe5_line()
    play(p, ["a7a6", "a2a3", "g8f6"])
    p.w.resign()
    p.pump()
    for side in (p.w, p.b):
        problems = side.audit["problems"]
        assert side.audit["status"] == "failed"
        assert problems and all(q["by"] == "black" for q in problems), problems
        # (every problem is listed: the wrong acceptance and the opening it left out)
        at25 = [q["message"] for q in problems if (q["ply"], q["kind"]) == (25, "wrong-answer")]
        assert any(m.startswith("black accepted d5e5") for m in at25), problems
        assert "d5e5 revealed f7, which black did not open" in at25
        assert not any("a2a3" in q["message"] for q in problems)
        assert decisive(side.audit, side.problems)["ply"] == 25
        st = side.status()
        assert st.reason == "forfeit" and st.winner == "white"
        assert side.ending["was"]["reason"] == "resignation"


def test_a_move_its_mover_knew_to_be_illegal_is_the_movers():
    # 3.Ke3 reveals Black's f5 pawn (its extra attack reaches f4, next to the king): Black opens
    # it. Both pages then forget f5's secret, and White's king steps to f4, which White knew to
    # be illegal (it had been shown the opening). The audit blames White, on both pages.
    p = Pair("secret-pawn", seals=SP_SEALS)
    play(p, ["e2e4", "f7f5", "e1e2", "a7a6", "e2e3"])
    assert p.w.peer_open.get("f7") == "1"
    play(p, ["a6a5"])
    forgetful(p.b, "f7")
    forgetful(p.w, "f7")
    play(p, ["e3f4", "h7h6"])
    p.w.resign()
    p.pump()
    for side in (p.w, p.b):
        problems = side.audit["problems"]
        assert [(q["ply"], q["by"], q["kind"]) for q in problems
                if q["kind"] in ("illegal-move", "wrong-answer")] == [(7, "white", "illegal-move")], \
            problems
        assert side.status().winner == "black" and side.status().reason == "forfeit"


def test_a_forgetful_holder_never_gets_the_other_side_blamed():
    # Property over random king-heavy games: whichever secret pawn one side's page forgets, the
    # other (honest) side is never blamed by either page's audit, and when anything was found the
    # forgetful side loses by forfeit. (Before issue #23 the honest side was blamed in 2 of these
    # 40 games -- and in 9 of the first 150 -- for moves the truth rebuilt through a wrongly
    # accepted king move refused.)
    found = played = 0
    for seed in range(40):
        rnd = random.Random(seed)
        seals = (sorted(rnd.sample([f + "2" for f in "abcdefgh"], 2)),
                 sorted(rnd.sample([f + "7" for f in "abcdefgh"], 2)))
        p = Pair("secret-pawn", seals=seals, seed=seed)
        cheat_seat = rnd.choice(("white", "black"))
        honest_seat = "black" if cheat_seat == "white" else "white"
        forgetful(p.side(cheat_seat), rnd.choice(seals[0 if cheat_seat == "white" else 1]))
        try:
            random_game(p, seed, max_ply=70, kingy=True)
        except (AssertionError, HiddenChessError):
            continue  # (the forgetful page desynchronised the game before its end)
        played += 1
        for side in (p.w, p.b):
            assert side.audit is not None
            blamed = {q["by"] for q in side.audit["problems"]
                      if q["kind"] not in ("result-mismatch", "wrong-result")}
            assert honest_seat not in blamed, (seed, side.seat, side.audit["problems"])
            if blamed:
                found += side is p.w
                assert side.status().reason == "forfeit" and side.status().winner == honest_seat
    assert played >= 35 and found >= 3, (played, found)     # (not vacuous)


def test_hidden_identity_false_moves_are_blamed_and_the_honest_moves_around_them_are_not():
    # Hidden Identity: a side's move is legal or not by its own identities alone (no check), so
    # what it knew is its own placement. White's knight on g1 moves as a rook (g1g3, g3f3); the
    # truth replays them forced. Black's honest capture in between (h5xg4, answered "pawn") and
    # its moves after them are not blamed; both false moves are.
    p = Pair("hidden-identity", seals=(STANDARD, STANDARD))
    fake = parse_placement("rnbqkbrn/pppppppp", "white")
    p.w.protocol.my_placement = lambda: dict(fake)
    p.w.adopt_local(None)
    play(p, ["g2g4", "h7h5", "g1g3", "h5g4", "g3f3", "a7a6", "f3f6", "b7b6"])
    p.b.resign()
    p.pump()
    for side in (p.w, p.b):
        assert [(q["ply"], q["by"], q["kind"]) for q in side.audit["problems"]] == \
            [(3, "white", "illegal-move"), (5, "white", "illegal-move"), (7, "white", "illegal-move")]
        assert side.status().winner == "black" and side.status().reason == "forfeit"


def test_reveal_an_accepted_illegal_move_stays_its_movers_and_nothing_after_it_is_blamed():
    # Reveal Chess hides nothing once a role is drawn (each side's view is the truth). White's
    # page audits its log as if it had accepted 2...Ke6 (two squares) for 2...Ke7: the audit
    # blames Black's move only, and the moves replayed after it (forced) stay unblamed.
    p = Pair("reveal")
    play(p, ["e2e4", "e7e5", "e1e2", "e8e7", "h2h3", "h7h6", "g2g3", "g7g6"])
    p.w.resign()
    p.pump()
    assert p.w.audit == {"status": "verified", "problems": []}
    (a,) = [a for a in p.w.attempts if a["ply"] == 3]
    a["uci"] = p.w.moves[3]["uci"] = "e8e6"
    audit = p.w.protocol.audit()
    assert [(q["ply"], q["by"], q["kind"]) for q in audit["problems"]] == [(4, "black", "illegal-move")]


def test_the_pages_show_blacks_forfeit_for_the_kxe5_line():
    # What the players see: White's page says Black broke a rule at move 13 (Kxe5), Black's page
    # says this page did; neither blames White's 14.a3.
    link = Link("secret-pawn")
    link.call("a", "seal", {"squares": SP_SEALS[0]})
    link.call("b", "seal", {"squares": SP_SEALS[1]})
    forgetful(link.b.mode.pg, "f7")
    link.play(SP_MOVES + ["d5e5", "a7a6", "a2a3", "g8f6"])
    link.call("a", "resign")
    white, black = link.state("a"), link.state("b")
    for st, who, wins in ((white, "your friend", "You win"), (black, "this page", "Your friend wins")):
        assert st["status"]["reason"] == "forfeit" and st["status"]["winner"] == "white"
        assert st["status"]["message"].startswith(
            f"Forfeit — {wins} (the end-of-game check found that {who} broke a rule at move 13")
        assert st["peer"]["provisional"] is False and st["peer"]["audit"]["status"] == "failed"
        assert {q["by"] for q in st["peer"]["audit"]["problems"]} == {"black"}
        assert "a2a3" not in st["status"]["message"]
