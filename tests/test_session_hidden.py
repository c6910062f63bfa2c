"""Hidden Identity Chess through the UI controller (hiddenchess.app.session): placing the pieces on
one device through the hand-over screen, what each state may show, captures that reveal, en
passant against a piece that was not a pawn, king capture, saving and the replay."""

import json

import pytest

from hiddenchess.ai import DETERMINIZERS
from hiddenchess.variants.hidden_identity.rules import standard_layout
from hiddenchess.app.session import Session
from hiddenchess.app.storage import MemoryBackend

T0 = 1_700_000_000_000
# Black's queen on d7 and a pawn on d8: after 1. e4 a6 2. e5 the queen's two-square advance
# d7-d5 lets White take "en passant" -- against a piece that is not a pawn.
QUEEN_FORWARD = dict(standard_layout("black"), d7="q", d8="p")
EP_LINE = ["e2e4", "a7a6", "e4e5", "d7d5", "e5d6"]
KING_LINE = ["d5d2", "a2a3", "d2e1"]


def new(variant="hidden-identity", backend=None):
    s = Session(backend or MemoryBackend())
    st = s.new_game({"variant": variant}, now_ms=T0)
    assert st["error"] is None
    return s, st


def place_all(s, seat, placement):
    """The player ``seat`` takes the device and places ``placement`` square by square."""
    st = s.show_board(seat, now_ms=T0)
    assert st["error"] is None and st["placing"]["seat"] == seat
    for sq, role in placement.items():
        st = s.place(sq, role, now_ms=T0)
        assert st["error"] is None, st["error"]
    assert st["placing"]["complete"] is True
    return s.confirm_setup(now_ms=T0)


def play(s, ucis):
    st = None
    for uci in ucis:
        st = s.show_board(None, now_ms=T0)
        assert st["error"] is None
        st = s.move(uci[:2], uci[2:4], now_ms=T0)
        assert st["error"] is None, (uci, st["error"])
    return st


def started(black=None):
    s, _ = new()
    place_all(s, "white", standard_layout("white"))
    st = place_all(s, "black", black or standard_layout("black"))
    return s, st


def public(st):
    """A state without the fields that differ between two otherwise equal games."""
    return {k: v for k, v in st.items() if k not in ("gameId",)}


def test_setup_through_the_handover_screen():
    s, st = new()
    assert st["phase"] == "setup" and st["viewer"] == "spectator"
    assert st["handover"] == {"to": "white", "for": "place"}
    assert st["placing"] is None and st["sealing"] is None and st["movable"]["dests"] == {}
    assert s.place("e1", "k", now_ms=T0)["error"] == "Pass the device to White first."
    assert s.show_board("black", now_ms=T0)["error"] == "The device goes to White now, not to Black."
    st = s.show_board("white", now_ms=T0)
    assert st["placing"]["left"] == {"k": 1, "q": 1, "r": 2, "b": 2, "n": 2, "p": 8}
    assert st["placing"]["squares"][:2] == ["a1", "b1"] and len(st["placing"]["squares"]) == 16
    # Bad placements are explained and change nothing.
    st = s.place("e1", "k", now_ms=T0)
    assert s.place("d1", "k", now_ms=T0)["error"] == (
        "All your kings are already on the board: take one off first.")
    assert s.place("e7", "q", now_ms=T0)["error"] == (
        "e7 is not on your two home rows (rows 1 and 2).")
    assert s.place("d1", "x", now_ms=T0)["error"].startswith("The piece must be one of k, q")
    st = s.confirm_setup(now_ms=T0)
    assert st["error"] == "Place all 16 pieces first (15 still in the tray)."
    assert st["placing"]["draft"] == {"e1": "k"} and st["fen"] == "********/********/8/8/8/8/8/4K3"
    # Taking a piece off, the layouts, and confirming.
    assert s.place("e1", None, now_ms=T0)["placing"]["draft"] == {}
    st = s.layout("shuffle", now_ms=T0)
    assert st["placing"]["complete"] and sorted(st["placing"]["draft"]) == sorted(st["placing"]["squares"])
    assert sorted(st["placing"]["draft"].values()) == sorted("kqrrbbnnpppppppp")
    assert s.layout("clear", now_ms=T0)["placing"]["draft"] == {}
    assert s.layout("diagonal", now_ms=T0)["error"].startswith("Layout must be 'standard'")
    st = s.layout("standard", now_ms=T0)
    assert st["fen"] == "********/********/8/8/8/8/PPPPPPPP/RNBQKBNR"  # (Black's rows: unknown)
    st = s.confirm_setup(now_ms=T0)
    assert st["error"] is None and st["handover"] == {"to": "black", "for": "place"}
    assert st["fen"] == "8/8/8/8/8/8/8/8"  # White's pieces are not shown to anyone yet
    st = s.show_board("black", now_ms=T0)
    assert st["placing"]["seat"] == "black" and st["placing"]["draft"] == {}  # a fresh tray
    st = s.layout("standard", now_ms=T0)
    assert st["fen"] == "rnbqkbnr/pppppppp/8/8/8/8/????????/????????"  # (QA: White's were not drawn)
    st = s.confirm_setup(now_ms=T0)
    assert st["phase"] == "play" and st["handover"] == {"to": "white", "for": "move"}
    assert st["fen"] == "********/********/8/8/8/8/????????/????????"
    assert s.layout("standard", now_ms=T0)["error"] == "The pieces are already placed: the game is on."
    st = s.show_board("white", now_ms=T0)
    assert st["fen"] == "********/********/8/8/8/8/PPPPPPPP/RNBQKBNR"
    assert sorted(st["movable"]["dests"]["g1"]) == ["f3", "h3"]
    assert st["check"] is None and st["royal"] == []


def test_other_variants_have_nothing_to_place():
    s = Session(MemoryBackend())
    s.new_game({"variant": "secret-pawn"}, now_ms=T0)
    s.show_board("white", now_ms=T0)
    assert s.place("e2", "p", now_ms=T0)["error"] == "Secret Pawn has no pieces to place."
    st = s.new_game({"variant": "standard"}, now_ms=T0)
    assert st["placing"] is None and st["identity"] is None


@pytest.mark.parametrize("ucis", [[], ["e2e4"], ["e2e4", "a7a6", "d2d4"]])
def test_no_secret_reaches_the_handover_or_the_opponent(ucis):
    # Two games that differ only in Black's (secret) placement: everything White and the
    # hand-over screen get must be identical, while Black's own screen differs.
    other = dict(standard_layout("black"), d8="k", e8="q", a8="p", a7="r")
    screens = []
    for black in (standard_layout("black"), other):
        s, st = started(black)
        if ucis:
            st = play(s, ucis)
        handover = public(st)
        assert st["viewer"] == "spectator" and st["movable"]["dests"] == {}
        assert st["placing"] is None and "own" not in st["secrets"]
        assert set(st["fen"]) <= set("?*/12345678")
        white = black_st = None
        if s.game.turn == "white":
            white = public(s.show_board("white", now_ms=T0))
        else:
            black_st = public(s.show_board("black", now_ms=T0))
        screens.append((handover, white, black_st))
        text = json.dumps(handover)
        assert "placement\": {\"" not in text
    assert screens[0][0] == screens[1][0]
    assert screens[0][1] == screens[1][1]
    if screens[0][2] is not None:
        assert screens[0][2]["fen"] != screens[1][2]["fen"]  # (the test can tell them apart)


def test_white_never_sees_black_identities_before_captures():
    s, _ = started(dict(standard_layout("black"), d8="k", e8="q"))
    st = s.show_board("white", now_ms=T0)
    assert st["fen"].split("/")[:2] == ["********", "********"]
    assert st["identity"]["candidatesText"]["e8"] == "K or Q or R or B or N or P"
    assert st["secrets"]["own"]["e1"] == "k" and "e8" not in st["secrets"]["own"]
    blob = json.dumps(st)
    assert '"d8": "k"' not in blob and '"e8": "q"' not in blob


def test_a_capture_reveals_the_captured_piece():
    s, _ = started()
    st = play(s, ["e2e4", "d7d5", "e4d5"])
    assert st["moves"][-1]["san"] == "e4xd5=P"
    assert st["identity"]["captured"] == [{"square": "d5", "color": "black", "piece": "pawn"}]
    st = s.show_board("black", now_ms=T0)
    assert st["identity"]["captured"] == [{"square": "d5", "color": "black", "piece": "pawn"}]
    # Black learnt nothing about the capturer but what its moves allow: e4 moved one step
    # forward twice and captured diagonally.
    assert "p" in st["identity"]["candidates"]["d5"] and "n" not in st["identity"]["candidates"]["d5"]
    assert st["fen"].split("/")[3] == "3?4"


def test_en_passant_against_a_piece_that_is_not_a_pawn_is_explained():
    s, _ = started(QUEEN_FORWARD)
    st = play(s, EP_LINE[:4])
    # The queen's double step from its second row leaves an en passant square for White.
    st = s.show_board("white", now_ms=T0)
    assert "d6" in st["movable"]["dests"]["e5"]
    st = s.move("e5", "d6", now_ms=T0)
    assert st["error"] is None
    assert st["moves"][-1]["san"] == "e5xd6 ep-not-a-pawn"
    note = ("e5xd6 en passant: the piece on d5 was not a pawn, so White's pawn on e5 is removed "
            "and that piece stays, still hidden.")
    assert st["identity"]["lastNote"] == note and st["identity"]["notes"] == {"4": note}
    assert st["fen"].split("/")[3] == "3*4"  # the capturing pawn is gone, the piece stays hidden
    assert {"square": "e5", "color": "white", "piece": "pawn"} in st["identity"]["captured"]
    st = s.show_board("black", now_ms=T0)
    assert st["identity"]["lastNote"] == note
    # White now knows the d5 piece is not a pawn: only the pieces that can double-step straight.
    assert s.move("a6", "a5", now_ms=T0)["error"] is None
    st = s.show_board("white", now_ms=T0)
    assert st["identity"]["candidates"]["d5"] == ["q", "r"]
    assert st["identity"]["candidatesText"]["d5"] == "Q or R"
    assert st["identity"]["lastNote"] is None  # the note belongs to its own move


def test_king_capture_ends_the_game_and_shows_everything():
    s, _ = started(QUEEN_FORWARD)
    st = play(s, EP_LINE + KING_LINE)
    assert st["moves"][-1]["san"] == "d2xe1=K"
    assert st["status"]["over"] and st["status"]["reason"] == "king-captured"
    assert st["status"]["winner"] == "black" and st["status"]["message"] == "King captured — Black wins"
    assert st["viewer"] == "all" and st["handover"] is None and st["movable"] == {"color": None, "dests": {}}
    assert "?" not in st["fen"] and "*" not in st["fen"]
    assert st["fen"].split("/")[0] == "rnbpkbnr"  # everything shown, Black's odd layout included
    assert st["identity"]["candidates"] == {}
    assert [c["piece"] for c in st["identity"]["captured"]] == ["pawn", "pawn", "king"]
    assert s.move("a3", "a4", now_ms=T0)["error"].startswith("The game is over")
    # The replay: what White knew after the en passant (the queen still a blank).
    st = s.replay(5, "white", now_ms=T0)
    assert st["fen"].split("/")[3] == "3*4" and st["fen"].split("/")[7] == "RNBQKBNR"
    assert st["identity"]["candidatesText"]["d5"] == "Q or R"
    assert st["identity"]["lastNote"] is not None and st["check"] is None
    assert st["identity"]["captured"] == [{"square": "e5", "color": "white", "piece": "pawn"}]
    st = s.replay(5, "all", now_ms=T0)
    assert st["fen"].split("/")[3] == "3q4"


def test_revealed_kings_variant_shows_both_kings():
    s, _ = new("hidden-identity-rk")
    place_all(s, "white", standard_layout("white"))
    st = place_all(s, "black", dict(standard_layout("black"), e8="q", d8="k"))
    assert st["variant"]["name"] == "Hidden Identity (revealed kings)"
    assert st["fen"].split("/")[0] == "***k****" and st["identity"]["revealedKings"] is True


def test_a_reload_keeps_the_placements_and_asks_for_the_device_again():
    backend = MemoryBackend()
    s, _ = new(backend=backend)
    place_all(s, "white", standard_layout("white"))
    s2 = Session(backend)
    st = s2.restore(now_ms=T0 + 1)
    assert st["variant"]["id"] == "hidden-identity" and st["handover"] == {"to": "black", "for": "place"}
    place_all(s2, "black", QUEEN_FORWARD)
    st = play(s2, EP_LINE)
    s3 = Session(backend)
    st3 = s3.restore(now_ms=T0 + 2)
    assert st3["viewer"] == "spectator" and st3["moves"] == st["moves"]
    assert s3.show_board("black", now_ms=T0)["fen"] == s2.show_board("black", now_ms=T0)["fen"]


def test_the_computer_is_offered_only_if_it_plays_the_variant():
    s = Session(MemoryBackend())
    st = s.new_game({"variant": "hidden-identity", "mode": "computer"}, now_ms=T0)
    if "hidden-identity" in DETERMINIZERS:
        assert st["error"] is None and st["computer"]["seat"] == "black"
    else:
        assert st["error"] == "The computer does not play Hidden Identity yet."
        assert "hidden-identity" not in st["computerVariants"]


def test_takebacks_and_draw_offers_show_no_board_to_the_wrong_player():
    """QA: in Hidden Identity on one device, Black agreed to White's takeback and was shown
    White's whole setup. The one who answers holds the device, so the asker's board (and the
    offerer's, for a draw) waits behind the hand-over screen."""
    s, st = started()
    st = play(s, ["c2c3"])
    assert st["handover"] == {"to": "black", "for": "move"}
    st = s.takeback(now_ms=T0)  # asked by White, agreed by Black at the device
    assert st["error"] is None and st["viewer"] == "spectator"
    assert st["handover"] == {"to": "white", "for": "move"} and set(st["fen"]) <= set("?*/12345678")
    st = s.show_board("white", now_ms=T0)
    assert st["viewer"] == "white" and set(st["fen"]) - set("?*/12345678")  # (its own identities)
    st = s.offer_draw(now_ms=T0)
    assert st["handover"] == {"to": "black", "for": "draw"} and set(st["fen"]) <= set("?*/12345678")
    # (answered once Black holds the device: not from under the hand-over screen)
    assert s.decline_draw(now_ms=T0)["error"] == "Pass the device to Black first."
    assert s.show_board("black", now_ms=T0)["viewer"] == "black"
    st = s.decline_draw(now_ms=T0)
    assert st["handover"] == {"to": "white", "for": "move"} and set(st["fen"]) <= set("?*/12345678")
