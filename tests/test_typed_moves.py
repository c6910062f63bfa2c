"""The move box (action ``typed``, hiddenchess.app.typed): moves typed in SAN, UCI and the
variants' own forms, checked against what the viewer may try and then by the rules; commands;
clear refusals that change nothing."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from hiddenchess.app.session import Session
from hiddenchess.app.storage import MemoryBackend
from hiddenchess.app.typed import MAX_TEXT

T0 = 1_700_000_000_000


def session(options=None):
    backend = MemoryBackend()
    s = Session(backend)
    s.backend = backend  # (what snapshot() compares)
    s.restore(now_ms=T0)
    if options is not None:
        state = s.new_game(options, now_ms=T0)
        assert state["error"] is None, state["error"]
    return s


def typed(s, text, now=T0):
    return s.dispatch("typed", {"text": text}, now_ms=now)


def snapshot(s):
    """Everything a refused text must leave as it was: the game, the saved copy, the view."""
    st_ = s.state(now_ms=T0)
    return (s.game.fen(), [p.uci for p in s.game.history], s.game.draw_offer, s.orientation,
            json.dumps(s.backend.data, sort_keys=True),
            st_["fen"], st_["turnColor"])


def play_all(s, texts):
    state = None
    for t in texts:
        state = typed(s, t)
        assert state["error"] is None, (t, state["error"])
    return state


# ------------------------------------------------------------------ standard chess

def test_san_uci_and_long_algebraic_play_the_same_moves_as_clicks():
    s = session()
    state = play_all(s, ["e4", "e7e5", "Nf3", "nc6", "f1-c4", "Ng8-f6", "O-O"])
    assert [m["san"] for m in state["moves"]] == ["e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6", "O-O"]
    assert state["moves"][-1]["uci"] in ("e1g1", "e1h1")


def test_castling_long_and_with_zeros():
    s = session({"fen": "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"})
    state = play_all(s, ["0-0-0", "O-O"])
    assert [m["san"] for m in state["moves"]] == ["O-O-O", "O-O"]


def test_check_marks_and_annotations_are_ignored():
    s = session()
    state = play_all(s, ["e4", "f5", "Qh5+!", "g6?!"])
    assert state["moves"][2]["san"] == "Qh5+"


def test_an_ambiguous_move_names_the_candidates_and_changes_nothing():
    s = session({"fen": "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1"})
    before = snapshot(s)
    state = typed(s, "Nd2")
    assert state["error"] == "Nd2 is ambiguous: type one of b1d2, f1d2."
    assert snapshot(s) == before
    assert typed(s, "Nbd2")["moves"][0]["uci"] == "b1d2"


def test_promotion_needs_a_piece_and_takes_any_form():
    fen = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"
    s = session({"fen": fen})
    before = snapshot(s)
    state = typed(s, "e8")
    assert state["error"] == "e8 promotes: say to which piece, e.g. e7e8=Q."
    assert snapshot(s) == before
    for text, piece in [("e8=N", "n"), ("e8Q", "q"), ("e7e8r", "r"), ("e7-e8=B", "b")]:
        s = session({"fen": fen})
        state = typed(s, text)
        assert state["error"] is None, text
        assert state["moves"][0]["uci"] == "e7e8" + piece


def test_a_promotion_piece_on_an_ordinary_move_is_refused():
    s = session()
    assert typed(s, "e4=Q")["error"] == "e4=Q is not a promotion."


def test_an_illegal_or_garbled_move_is_refused_and_changes_nothing():
    s = session()
    play_all(s, ["e4"])
    before = snapshot(s)
    for text, error in [("Ke2", "Ke2 is not a move you can play now."),
                        ("e4", "e4 is not a move you can play now."),  # (Black's turn)
                        ("Qxf7", "Qxf7 is not a move you can play now."),
                        ("castle please", "'castle please' is not a move or a command: type help for the list."),
                        ("   ", "Type a move such as e4 or Nf3, or help for the commands."),
                        ("x" * (MAX_TEXT + 1), f"That is too long for a move or a command ({MAX_TEXT + 1} characters).")]:
        assert typed(s, text)["error"] == error, text
        assert snapshot(s) == before
    assert s.dispatch("typed", {"text": 7}, now_ms=T0)["error"] == "The typed text must be a string, got int."
    assert s.dispatch("typed", {}, now_ms=T0)["error"].startswith("The typed text must be a string")


def test_a_move_refused_in_check_says_what_is_in_check():
    """QA: in Royal Pawn, 3...Nd4+ then Be3 was "not a move you can play now", not why."""
    s = session()
    play_all(s, ["e4", "e5", "Bc4", "Nc6", "Bxf7"])  # (check: the king on e8)
    assert typed(s, "Nf6")["error"] == "Nf6 is not a move you can play now (your king on e8 is in check)."
    assert typed(s, "Kxf7")["error"] is None
    r = session({"variant": "royal-pawn"})
    play_all(r, ["e4", "d5"])  # 1...d5+ checks the royal pawn on e4
    assert r.state(now_ms=T0)["check"] == "e4"
    assert typed(r, "Nf3")["error"] == "Nf3 is not a move you can play now (your royal pawn on e4 is in check)."
    assert typed(r, "Ke2")["error"] == "Ke2 is not a move you can play now (your royal pawn on e4 is in check)."


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=12))
def test_any_text_either_acts_or_changes_nothing(text):
    s = session()
    before = snapshot(s)
    state = typed(s, text)
    if state["error"] is not None:
        assert snapshot(s) == before
    assert set(state["speech"]) == {"key", "text", "reply"}


# ------------------------------------------------------------------ commands

def test_resign_draw_decline_flip_and_claim():
    s = session()
    state = typed(s, "flip")
    assert state["orientation"] == "black"
    state = typed(s, "draw")
    assert state["drawOffer"] == "white"
    state = typed(s, "decline")
    assert state["drawOffer"] is None and state["error"] is None
    before = snapshot(s)
    assert typed(s, "claim")["error"] is not None
    assert snapshot(s) == before
    # resign is asked first: the state carries the question, the game goes on until the page
    # sends the resign action it names (the player confirmed)
    before = snapshot(s)
    state = typed(s, "resign")
    assert state["error"] is None and not state["status"]["over"]
    assert state["ask"] == {"action": "resign", "args": {"color": "white"}}  # (the side to move)
    assert state["speech"]["reply"] == "Resign?"
    assert snapshot(s) == before
    assert "ask" not in s.state(now_ms=T0)
    state = s.dispatch(state["ask"]["action"], state["ask"]["args"], now_ms=T0)
    assert state["status"]["over"] and state["status"]["winner"] == "black"
    assert typed(s, "e4")["error"].startswith("The game is over")
    assert typed(s, "resign")["error"].startswith("The game is over")  # (refused, not asked)


def test_takeback_typed_asks_as_the_button_does():
    """QA: in a game with a friend, "takeback" answered "It is not your move" (read as a move)."""
    s = session()
    play_all(s, ["e4"])
    before = snapshot(s)
    state = typed(s, "takeback")  # (on one device the other player agrees first: the page asks)
    assert state["error"] is None and state["ask"] == {"action": "takeback", "args": {}}
    assert state["takeback"] == {"by": "white", "agree": "black", "san": "e4"}
    assert snapshot(s) == before
    computer = session({"mode": "computer", "color": "white", "level": 1})
    play_all(computer, ["e4"])
    computer.dispatch("computer_move", {"uci": "e7e5", "ply": 1, "game": computer.state(now_ms=T0)["gameId"]}, now_ms=T0)
    assert typed(computer, "undo")["moves"] == []  # (against the computer: at once)
    friend = session({"mode": "friend", "variant": "standard"})
    for text in ("takeback", "undo", "take back"):
        assert typed(friend, text)["error"] == "There are no takebacks in a game with a friend."


def test_draw_accepts_an_open_offer():
    s = session()
    play_all(s, ["e4"])
    assert typed(s, "draw")["drawOffer"] == "black"  # (the side to move offers)
    assert play_all(s, ["d5"])["drawOffer"] == "black"
    state = typed(s, "draw")  # White, offered a draw, types draw: agreed
    assert state["status"]["over"] and state["status"]["reason"] == "agreement"


def test_reading_commands_answer_in_words_and_change_nothing():
    s = session({"clock": "5+3"})
    play_all(s, ["e4", "e5", "Nf3"])
    before = snapshot(s)
    reply = lambda text: typed(s, text)["speech"]["reply"]  # noqa: E731
    assert reply("c").startswith("White 5 minutes")
    assert "Black 5 minutes" in reply("clock")
    assert reply("l") == "White: knight to f3."
    assert reply("p N") == "White knights: b1, f3."
    assert reply("p n") == "Black knights: b8, g8."
    assert reply("p q") == "Black queens: d8."
    assert reply("s e5") == "e5, black pawn"
    assert reply("s g8") == "g8, black knight, can move to e7 f6 h6"
    assert reply("scan e") == "e1 white king, e2 to e3 empty, e4 white pawn, e5 black pawn, e6 to e7 empty, e8 black king."
    assert reply("scan 3") == "a3 to e3 empty, f3 white knight, g3 to h3 empty."
    assert reply("p").startswith("White: king e1, queen d1, rooks a1 h1")
    assert "resign" in reply("help")
    assert snapshot(s) == before
    assert typed(s, "s e9")["error"] == "S takes a square like e4, got 'e9'."
    assert typed(s, "scan z")["error"] == "Scan takes a file (a to h) or a rank (1 to 8)."
    assert typed(s, "p x")["error"].startswith("P takes a piece letter")


def test_typed_moves_on_the_computers_turn_are_refused():
    s = session({"mode": "computer", "color": "black"})
    state = typed(s, "e4")
    assert state["error"] == "It is not your move: White is to move."
    assert state["moves"] == []
    # on the computer's turn too, resign asks for the player's side, never the computer's
    assert typed(s, "resign")["ask"] == {"action": "resign", "args": {"color": "black"}}


# ------------------------------------------------------------------ Secret Pawn Chess

def secret_game():
    s = session({"variant": "secret-pawn"})
    assert typed(s, "e4")["error"] == "Pass the device to White first, who then types show."
    play_all(s, ["show", "seal d2 e2", "show", "seal c7 f7", "show"])
    return s


def test_secret_pawn_sealing_typed_and_refused_when_wrong():
    s = session({"variant": "secret-pawn"})
    play_all(s, ["show"])
    before = snapshot(s)
    assert typed(s, "seal d2")["error"] == "Seal exactly two pawns, e.g. seal d2 e2 (got 1)."
    assert typed(s, "Nf3")["error"].startswith("Choose your two secret pawns")
    assert snapshot(s) == before
    state = typed(s, "seal d2 e2")
    assert state["handover"] == {"to": "black", "for": "seal"}
    # Black is shown its own pawns' squares (QA: it was told "for example seal d2 e2")
    play_all(s, ["show"])
    assert typed(s, "seal d7")["error"] == "Seal exactly two pawns, e.g. seal d7 e7 (got 1)."
    assert typed(s, "Nf6")["error"] == ("Choose your two secret pawns: type seal and the squares of "
                                        "two of your pawns, for example seal d7 e7.")
    assert "for example seal d7 e7" in s.state(now_ms=T0)["speech"]["text"]


def test_secret_pawn_extra_move_typed_as_the_move_list_writes_it():
    s = secret_game()
    play_all(s, ["e4", "show", "a6", "show"])
    state = typed(s, "ed4 **d4")  # the sealed e-pawn steps sideways: an extra move
    assert state["error"] is None
    assert state["moves"][-1]["san"] == "ed4 **d4"
    assert state["moves"][-1]["say"] == "White: pawn from e4 to d4, White's secret pawn on d4 revealed."


def test_secret_pawn_king_move_refused_by_a_hidden_pawn_changes_nothing():
    s = session({"variant": "secret-pawn", "fen": "4k3/8/8/8/8/3p4/8/4K3 w - - 0 1 secret:d3"})
    play_all(s, ["show"])
    before = snapshot(s)
    state = typed(s, "Kd2")
    assert state["error"] == "Illegal move: a secret pawn attacks that square."
    assert snapshot(s) == before
    assert "secret" not in state["speech"]["text"]


# ------------------------------------------------------------------ Reveal Chess

REVEAL_FEN = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 covered:a1 pools:q1r2b2n2p8/q1r2b2n2p8"


def test_reveal_conditional_promotion_defaults_to_queen_and_takes_a_choice():
    for text, piece in [("Ra8", "queen"), ("Ra8=N", "knight"), ("Ra8?P=R", "rook"), ("a1a8b", "bishop")]:
        s = session({"variant": "reveal", "fen": REVEAL_FEN, "draws": ["p"]})
        state = typed(s, text)
        assert state["error"] is None, text
        assert f"promotes to {piece}" in state["moves"][0]["say"], text


def test_reveal_cover_moves_typed_with_their_marks():
    s = session({"variant": "reveal", "draws": ["n", "p"]})
    state = play_all(s, ["Nc3", "e5?P"])
    assert [m["san"][:3] for m in state["moves"]] == ["Nc3", "e5?"]
    assert state["moves"][0]["say"] == "White: knight to c3, the covered knight on c3 is a knight."


# ------------------------------------------------------------------ Hidden Identity Chess

def test_hidden_identity_placement_typed():
    s = session({"variant": "hidden-identity"})
    play_all(s, ["show", "Ke1"])
    before = snapshot(s)
    state = typed(s, "Ke4")
    assert state["error"] == "e4 is not on your two home rows (rows 1 and 2)."
    assert snapshot(s) == before
    state = play_all(s, ["Qd1", "remove d1"])
    assert state["placing"]["draft"] == {"e1": "k"}
    assert typed(s, "confirm")["error"].startswith("Place all 16 pieces first")
    state = play_all(s, ["standard", "confirm"])
    assert state["handover"] == {"to": "black", "for": "place"}
    state = play_all(s, ["show", "shuffle", "confirm", "show", "Nf3"])
    assert state["moves"][0]["uci"] == "g1f3"
    assert state["moves"][0]["say"] == "White: g1 to f3."  # (the hand-over screen: public only)


def test_tabletop_bluffs_are_never_typed_and_the_penalty_is():
    s = session({"variant": "hidden-identity-tt"})
    play_all(s, ["show", "standard", "confirm", "show", "standard", "confirm", "show"])
    state = typed(s, "a1a4")  # a bluff is made with the pieces, never by typing
    assert state["error"] == "a1a4 is not a move you can play now."
    assert "a4" in state["movable"]["dests"]["a1"]  # (the board offers it as a bluff)
    state = s.move("a1", "a4", allow_illegal=True, now_ms=T0)
    assert state["tabletop"]["penalty"]["by"] == "black"
    state = play_all(s, ["show"])
    assert state["speech"]["text"].endswith("Black removes 1 enemy piece: type remove and the squares.")
    before = snapshot(s)
    assert typed(s, "remove d7")["error"] == "There is no white piece on d7."  # (its own piece)
    assert snapshot(s) == before
    state = typed(s, "remove d1")
    assert state["error"] is None and state["tabletop"]["penalty"] is None
    assert "removes White's piece on d1" in state["moves"][-1]["say"]


def test_a_stale_page_reads_the_board_but_plays_nothing():
    backend = MemoryBackend()
    here, there = Session(backend), Session(backend)
    here.restore(now_ms=T0)
    there.restore(now_ms=T0)
    assert there.dispatch("typed", {"text": "e4"}, now_ms=T0 + 1)["error"] is None  # another tab
    state = here.dispatch("typed", {"text": "d4"}, now_ms=T0 + 2)
    assert state["error"].startswith("This game was changed in another tab")
    assert here.dispatch("typed", {"text": "p K"}, now_ms=T0 + 3)["speech"]["reply"] == "White kings: e1."
    assert [p.uci for p in there.game.history] == ["e2e4"] and here.game.history == []


def test_reveal_a_revealed_pawn_on_the_last_rank_names_its_piece():
    s = session({"variant": "reveal", "fen": "4k3/P7/8/8/8/8/8/4K3 w - - 0 1 pools:q1r2b2n2p7/q1r2b2n2p8"})
    assert typed(s, "a8")["error"] == "a8 promotes: say to which piece, e.g. a7a8=Q."
    assert typed(s, "a8=R")["moves"][0]["uci"] == "a7a8r"
