"""Hidden Identity by the tabletop rules on the page: bluffs, discovery, penalties (Session)."""

from hiddenchess.variants.hidden_identity.rules import standard_layout
from hiddenchess.app.panels import board_colors
from hiddenchess.app.session import Session
from hiddenchess.app.storage import MemoryBackend

T = 0


def clock():
    global T
    T += 1
    return T


def started(variant="hidden-identity-tt", backend=None):
    """A tabletop game with both sides in the standard arrangement, White to move at the device."""
    s = Session(backend or MemoryBackend())
    st = s.new_game({"variant": variant}, now_ms=clock())
    assert st["error"] is None
    for seat in ("white", "black"):
        s.show_board(seat, now_ms=clock())
        s.layout("standard", now_ms=clock())
        st = s.confirm_setup(now_ms=clock())
        assert st["error"] is None, st["error"]
    st = s.show_board("white", now_ms=clock())
    assert st["phase"] == "play" and st["viewer"] == "white"
    return s, st


def move(s, uci, bluff=False):
    """The side to move takes the device (if needed) and plays ``uci``."""
    st = s.state(now_ms=clock())
    if st["handover"]:
        st = s.show_board(st["handover"]["to"], now_ms=clock())
    if bluff:
        assert uci[2:4] in st["tabletop"]["bluffs"].get(uci[:2], []), uci
    assert uci[2:4] in st["movable"]["dests"].get(uci[:2], []), uci
    st = s.move(uci[:2], uci[2:4], allow_illegal=bluff, now_ms=clock())
    assert st["error"] is None, st["error"]
    return st


def test_bluffs_are_offered_only_to_the_side_to_move():
    s, st = started()
    assert "a4" in st["tabletop"]["bluffs"]["a1"]          # a rook jumping over its pawn
    assert "e4" not in st["tabletop"]["bluffs"].get("e2", [])  # legal: not a bluff
    assert st["tabletop"]["penalty"] is None
    st = s.move("a1", "a4", now_ms=clock())                 # without allow_illegal: refused
    assert st["error"] and st["moves"] == []
    st = move(s, "e2e4")
    assert st["handover"] == {"to": "black", "for": "move"}
    assert st["tabletop"]["bluffs"] == {} and st["movable"]["dests"] == {}


def test_bluff_found_on_the_board_then_penalty_chosen():
    s, st = started()
    st = move(s, "a1a4", bluff=True)                        # jumps over a2: no piece can do that
    assert st["fen"].split("/")[4][0] == "8"                 # a4 is empty again: the rook was removed
    assert st["tabletop"]["penalty"] == {"by": "black", "count": 1, "mine": False}
    assert st["handover"] == {"to": "black", "for": "penalty"}
    note = st["identity"]["notes"]["0"]
    assert "illegal move" in note and "rook" in note
    assert st["identity"]["lastNote"] == note
    st = s.show_board("black", now_ms=clock())
    assert st["tabletop"]["penalty"]["mine"] is True
    assert st["movable"]["dests"] == {} and st["tabletop"]["bluffs"] == {}
    bad = s.penalty(["d8", "e8"], now_ms=clock())
    assert bad["error"] == "Remove exactly 1 different enemy piece."
    bad = s.penalty(["d7"], now_ms=clock())                  # its own piece
    assert "no white piece on d7" in bad["error"]
    st = s.penalty(["d1"], now_ms=clock())
    assert st["error"] is None and st["tabletop"]["penalty"] is None
    colors = board_colors(st["fen"])
    assert "d1" not in colors and "a1" not in colors and len(colors) == 30
    assert "removes White's piece on d1" in st["identity"]["notes"]["0"]
    assert st["handover"] is None and st["turnColor"] == "black" and st["movable"]["dests"]
    assert st["tabletop"]["found"] == {"white": 1, "black": 0}


def test_bluff_found_on_capture_costs_two_pieces():
    s, _ = started()
    move(s, "e2e5", bluff=True)                              # a pawn moving like a rook: unseen
    st = s.state(now_ms=clock())
    assert st["tabletop"]["penalty"] is None
    move(s, "d7d6")
    move(s, "a2a3")
    st = move(s, "d6e5")                                     # the captured "pawn" gives it away
    assert st["tabletop"]["penalty"] == {"by": "black", "count": 2, "mine": True}
    assert st["handover"] is None and st["turnColor"] == "white"
    assert "illegal move" in st["identity"]["lastNote"]
    st = s.penalty(["d1", "a1"], now_ms=clock())
    assert st["error"] is None
    assert st["handover"] == {"to": "white", "for": "move"}
    assert "removes White's piece on a1" in st["identity"]["notes"]["3"]


def test_second_illegal_move_found_loses():
    s, _ = started()
    move(s, "a1a4", bluff=True)
    s.show_board("black", now_ms=clock())
    s.penalty(["b1"], now_ms=clock())
    move(s, "e7e6")
    st = move(s, "h1h4", bluff=True)
    assert st["status"]["over"] and st["status"]["winner"] == "black"
    assert st["status"]["reason"] == "second-illegal-move"
    assert st["status"]["message"].startswith("Second illegal move")
    moves = st["tabletop"]["illegalMoves"]
    assert [(m["color"], m["uci"], m["found"]) for m in moves] == [
        ("white", "a1a4", "on-board"), ("white", "h1h4", "on-board")]


def test_a_legal_tabletop_game_never_shows_bluff_results_and_survives_reload():
    backend = MemoryBackend()
    s, _ = started(backend=backend)
    for uci in ("e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7", "a7a6", "f7e8"):
        st = move(s, uci)
    assert st["status"]["over"] and st["status"]["reason"] == "king-captured"
    assert st["tabletop"]["illegalMoves"] == [] and st["tabletop"]["penalty"] is None
    assert st["tabletop"]["found"] == {"white": 0, "black": 0}
    assert all("illegal" not in n for n in st["identity"]["notes"].values())
    again = Session(backend).restore(now_ms=clock())
    assert again["variant"]["id"] == "hidden-identity-tt" and again["status"] == st["status"]


def test_refereed_games_refuse_illegal_moves():
    s = Session(MemoryBackend())
    st = s.new_game({"variant": "hidden-identity"}, now_ms=clock())
    assert st["tabletop"] is None
    st = s.new_game({"variant": "standard"}, now_ms=clock())
    assert st["tabletop"] is None
    st = s.move("a1", "a4", allow_illegal=True, now_ms=clock())
    assert st["error"] == "Illegal moves are only allowed by the tabletop rules."
    assert s.penalty(["d7"], now_ms=clock())["error"] == "Penalties belong to the tabletop rules."
