"""Which moves can be taken back (issue 14's takebacks; a QA pass of 2026-12-06): a move that told
a player something hidden cannot be, at one device or against the computer, while a capture or a
promotion that reveals nothing can. Each variant says what its moves reveal
(``Rules.revealed``)."""

from __future__ import annotations

from hiddenchess.app.session import Session
from hiddenchess.app.storage import MemoryBackend
from hiddenchess.game.game import Game
from test_session_computer import T0, answer, computer_game
from test_session_secret import play, sealed_session


def local(**extra) -> Session:
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    if extra:
        st = s.new_game({"mode": "local", **extra}, now_ms=T0)
        assert st["error"] is None, st["error"]
    return s


def test_a_capture_in_standard_chess_can_be_taken_back_at_one_device():
    s = local()
    for frm, to in (("e2", "e4"), ("d7", "d5"), ("e4", "d5")):
        st = s.move(frm, to, now_ms=T0)
    assert st["takeback"] == {"by": "white", "agree": "black", "san": "exd5"}
    st = s.takeback(now_ms=T0)
    assert st["error"] is None and [m["san"] for m in st["moves"]] == ["e4", "d5"]


def test_a_promotion_that_captures_can_be_taken_back_at_one_device():
    s = local(variant="standard", fen="1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    st = s.move("a7", "b8", "r", now_ms=T0)
    assert st["takeback"]["san"] == "axb8=R+"
    st = s.takeback(now_ms=T0)
    assert st["error"] is None and st["moves"] == [] and st["fen"].startswith("1n2k3/P7")


def test_a_capture_and_its_reply_can_be_taken_back_against_the_computer():
    s, st, _ = computer_game(color="white", fen="4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")
    st = s.move("e4", "d5", now_ms=T0 + 1)
    st = answer(s, st, T0 + 2)
    assert st["computer"]["canTakeBack"] is True
    st = s.takeback(now_ms=T0 + 3)
    assert st["error"] is None and st["moves"] == []


def test_a_reveal_chess_draw_cannot_be_taken_back_against_the_computer():
    """Taken back and played again, a cover's move draws its role afresh: a player could fish for a
    queen (the QA pass drew N?R, ?P, ?R, ?P from the same Nf3)."""
    s, st, _ = computer_game(color="white", variant="reveal")
    st = s.move("g1", "f3", now_ms=T0 + 1)
    st = answer(s, st, T0 + 2)
    assert st["computer"]["canTakeBack"] is False
    refused = s.takeback(now_ms=T0 + 3)
    assert "revealed something" in refused["error"] and len(refused["moves"]) == 2


def test_a_secret_pawn_capture_of_a_pawn_shows_whether_it_was_secret():
    g = Game.new("secret-pawn")
    g.seal("white", ["a2", "b2"])
    g.seal("black", ["g7", "h7"])
    for uci in ("e2e4", "d7d5"):
        g.play(uci)
    assert not any(g.rules.revealed(p) for p in g.history)
    g.play("e4d5")  # d5 was no secret pawn: no "**", and that shows
    assert g.rules.revealed(g.history[-1])
    g.play("d8d5")  # (any pawn taken counts, whatever was known of it)
    assert g.rules.revealed(g.history[-1])
    g.play("b1c3")
    g.play("d5e5")
    g.play("c3e2")
    g.play("e5e2")  # a queen takes a knight: nothing was hidden about it
    assert not g.rules.revealed(g.history[-1])


def test_a_capture_in_hidden_identity_shows_the_captured_piece():
    g = Game.new("hidden-identity")
    g.setup("white", "rnbqkbnr/pppppppp")
    g.setup("black", "rnbqkbnr/pppppppp")
    for uci in ("e2e4", "d7d5"):
        g.play(uci)
    assert not any(g.rules.revealed(p) for p in g.history)
    g.play("e4d5")
    assert g.rules.revealed(g.history[-1])


def test_an_error_that_opens_with_a_move_keeps_its_notation():
    """'Bxa3' is a bishop's move: a pawn's bxa3 that cannot be played is not capitalised into one
    (a QA pass, 2026-12-06); other sentences still open with a capital."""
    s = local()
    assert s.dispatch("typed", {"text": "bxa3"}, now_ms=T0)["error"] == "bxa3 is not a move you can play now."
    for uci in ("e2e4", "d7d5"):
        s.dispatch("typed", {"text": uci}, now_ms=T0)
    assert s.dispatch("typed", {"text": "exd6"}, now_ms=T0)["error"].startswith("exd6 ")
    assert s.dispatch("resign", {"color": "purple"}, now_ms=T0)["error"].startswith("Colour must be")


def test_a_secret_pawn_move_keeps_its_notation_in_the_refusal():
    """QA (2026-12-07): Take back's title and the move box said "Ef4 **f4 revealed something": the
    pawn's file was capitalised as if it were a piece letter (a secret pawn's step, file + square)."""
    s, st = sealed_session(white=("d2", "e2"), black=("d7", "e7"))
    st = play(s, "e2e4", "a7a6", "e4f4")
    assert st["moves"][-1]["san"] == "ef4 **f4"
    assert st["takebackWhy"] == "ef4 **f4 revealed something: it cannot be taken back."
