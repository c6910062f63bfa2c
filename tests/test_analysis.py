"""Analysis after the game (issue 27): the request of a replayed position
(:mod:`hiddenchess.app.analysis`) and its analysis (:mod:`hiddenchess.ai.analysis`).

"What I knew" must be the seat's view only -- two games that seat cannot tell apart get the same
request and the same analysis -- while "everything" searches the truth; in a position where the
truth holds what the view cannot see, their best moves differ."""

import doctest
import json
import random

import pytest

from hiddenchess.ai import analysis as ai_analysis
from hiddenchess.ai.analysis import analyse
from hiddenchess.ai.determinizers import InvalidViewError
from hiddenchess.app import analysis as app_analysis
from hiddenchess.app.analysis import analysis_request, game_at, position_request
from hiddenchess.app.errors import SessionError
from hiddenchess.app.session import Session
from hiddenchess.app.storage import MemoryBackend
from hiddenchess.errors import GameOverError, UnknownVariantError
from hiddenchess.game.game import Game
from hiddenchess.variants.hidden_identity.rules import shuffle_layout, standard_layout
from hiddenchess.variants.reveal.rules import SeededDraw

from test_peer_session import Link

T0 = 1_700_000_000_000
#: Small budgets: these tests are about what is searched, not how well.
NODES = 6_000


def test_doctests():
    for module in (ai_analysis, app_analysis):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted >= 2, module.__name__


def knight_behind_pawns(black_secrets):
    """Secret Pawn from a FEN: White's queen may take the knight on d7. Only a secret e7 pawn
    defends it (a secret pawn takes sideways). Black's original pawns are a7, b7, e7; two of
    them are secret, and White cannot see which. White resigned after Kg1."""
    fen = f"7k/pp1np3/8/8/8/8/8/3Q3K w - - 0 1 secret:{','.join(black_secrets)}"
    game = Game.new("secret-pawn", fen=fen)
    game.play("Kg1")
    game.resign("white")
    return game


def test_what_white_knew_misses_what_the_truth_shows():
    safe = knight_behind_pawns(["a7", "b7"])       # e7 is an ordinary pawn: the knight hangs
    white = analyse(position_request(safe, 0, "white"), max_nodes=NODES)
    truth = analyse(position_request(safe, 0, "all"), max_nodes=NODES)
    assert truth["basis"] == "truth" and truth["samples"] == 1
    assert truth["san"] == "Qxd7" and truth["white"] > 500
    # White could not know that e7 is not secret: as the computer in White's seat, it does not
    # risk the queen for the knight.
    assert white["basis"] == "view" and white["samples"] > 1
    assert white["uci"] != "d1d7", white
    assert white["turn"] == truth["turn"] == "white"


def test_what_white_knew_carries_no_secret_of_black():
    games = [knight_behind_pawns(s) for s in (["a7", "b7"], ["a7", "e7"])]
    requests = [position_request(g, 0, "white") for g in games]
    assert requests[0] == requests[1]                        # nothing of Black's secrets in it
    assert "truth" not in requests[0] and requests[0]["view"]["seat"] == "white"
    assert "a7,b7" not in json.dumps(requests[0]) and "a7,e7" not in json.dumps(requests[0])
    answers = [analyse(r, max_nodes=NODES) for r in requests]
    assert answers[0] == answers[1]
    # The truths differ, and "everything" sees it: with e7 secret, taking loses the queen.
    truths = [analyse(position_request(g, 0, "all"), max_nodes=NODES) for g in games]
    assert truths[0]["san"] == "Qxd7" and truths[1]["uci"] != "d1d7"


def test_black_knew_its_own_secrets():
    game = knight_behind_pawns(["a7", "e7"])
    request = position_request(game, 0, "black")
    assert request["view"]["seat"] == "black" and "truth" not in request
    assert request["turn"] == "white"                  # White's move, as Black saw the board
    answer = analyse(request, max_nodes=NODES)
    assert answer["uci"] != "d1d7"                      # Black knew e7 defends the knight


def hidden_identity_pair():
    """Two Hidden Identity games that Black cannot tell apart (White's king and queen, knights
    and bishops swapped), over after 1. e4 e5 2. d4 (Black resigned)."""
    white_a = standard_layout("white")
    white_b = dict(white_a, d1="k", e1="q", b1="b", c1="n")
    black = shuffle_layout("black", random.Random(7))
    games = []
    for white in (white_a, white_b):
        g = Game.new("hidden-identity")
        g.setup("white", {"placement": white})
        g.setup("black", {"placement": black})
        for move in ["e2e4", "e7e5", "d2d4"]:
            g.play(move)
        g.resign("black")
        games.append(g)
    return games


def test_hidden_identity_what_black_knew_is_the_same_for_both_truths():
    games = hidden_identity_pair()
    for ply in (1, 3):
        requests = [position_request(g, ply, "black") for g in games]
        assert requests[0] == requests[1]
        answers = [analyse(r, max_nodes=NODES) for r in requests]
        assert answers[0]["uci"] == answers[1]["uci"]
    alls = [position_request(g, 3, "all") for g in games]
    assert alls[0]["truth"] != alls[1]["truth"]
    for request, game in zip(alls, games):
        answer = analyse(request, max_nodes=NODES)
        then = game_at(game, 3)
        assert answer["uci"] in then.legal_moves() and answer["turn"] == "black"


def test_the_request_is_the_view_the_computer_had_then():
    game = Game.new("secret-pawn")
    game.seal("white", ["d2", "e2"])
    game.seal("black", ["c7", "f7"])
    for move in ["e4", "c5", "d4", "c4", "Nf3", "c4d3"]:
        game.play(move)
    game.resign("white")
    for ply in range(game.ply + 1):
        for seat in ("white", "black"):
            view = position_request(game, ply, seat)["view"]
            assert view["ply"] == ply and view["seat"] == seat
            assert view["fen"] == game.frames(seat)[ply]["fen"]
            assert not view["status"]["over"]
    # "everything": the truth of that moment and of every moment before
    request = position_request(game, 4, "all")
    assert request["truth"]["fen"] == game.history[3].fen_after
    assert request["truth"]["before"] == [game.play_start_fen] + [p.fen_after for p in game.history[:3]]
    answer = analyse(request, max_nodes=NODES)
    assert answer["uci"] in game_at(game, 4).legal_moves()


def test_standard_the_truth_and_the_view_agree_and_scores_are_from_whites_side():
    game = Game.new("standard")
    for san in ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]:
        game.play(san)
    final = position_request(game, 7, "all")
    assert final["over"] == "Checkmate — White wins" and final["result"] == "1-0"
    assert "view" not in final
    view = analyse(position_request(game, 6, "white"), max_nodes=NODES)
    truth = analyse(position_request(game, 6, "all"), max_nodes=NODES)
    assert view["san"] == truth["san"] == "Qxf7#"
    assert view["mate"] == 1 and view["white"] > 90_000
    # Black to move after 3. Qh5: the score for the side to move is Black's, "white" White's.
    black = analyse(position_request(game, 5, "all"), max_nodes=NODES)
    assert black["turn"] == "black" and black["white"] == -black["score"]
    assert black["uci"] != "g8f6"                    # Nf6?? allows mate in one
    assert black["pv_san"][0] == black["san"] and len(black["pv"]) <= ai_analysis.PV_PLIES


def test_reveal_everything_keeps_the_draws_as_chance():
    game = Game.new("reveal", draw_source=SeededDraw(0))
    for move, role in [("e2e4", "p"), ("e7e5", "b"), ("g1f3", "q"), ("b8c6", "r")]:
        game.play(move, draw=role)
    game.resign("black")
    answer = analyse(position_request(game, 4, "all"), max_nodes=NODES)
    assert answer["uci"] in game_at(game, 4).legal_moves() and answer["depth"] >= 1


def test_same_request_same_answer():
    game = knight_behind_pawns(["a7", "b7"])
    request = position_request(game, 0, "white")
    assert analyse(request, max_nodes=NODES) == analyse(request, max_nodes=NODES)


def test_the_session_asks_for_the_position_the_replay_shows():
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    st = s.new_game({"variant": "standard", "mode": "computer", "level": 1, "color": "white"},
                    now_ms=T0)
    with pytest.raises(SessionError, match="once the game is over"):
        analysis_request(s)
    st = s.move("e2", "e4", None, now_ms=T0)
    st = s.computer_move("e7e5", ply=1, game=st["gameId"], now_ms=T0)
    assert st["error"] is None, st["error"]
    s.resign(now_ms=T0)
    request = analysis_request(s)                      # not browsing: the final position
    assert (request["ply"], request["perspective"], request["game"]) == (2, "all", st["gameId"])
    s.replay(1, None, now_ms=T0)
    request = analysis_request(s)
    assert request["ply"] == 1 and request["turn"] == "black" and request["key"] == "1|all"
    assert analyse(request, max_nodes=NODES)["turn"] == "black"
    # the other positions, for the marks in the move list (the replay stays where it is)
    other = analysis_request(s, 0, "white")
    assert (other["ply"], other["perspective"], other["view"]["seat"]) == (0, "white", "white")
    assert s.replaying.at == {"ply": 1, "perspective": "all"}
    with pytest.raises(SessionError, match="ply must be"):
        analysis_request(s, 3)


def test_a_game_that_ended_on_the_board_says_so_in_the_words_of_its_result_line():
    """The analysis of a mate names who won as the result line does ("Computer wins"), not
    the colour ("Black wins") beside it."""
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    st = s.new_game({"variant": "standard", "mode": "computer", "level": 1, "color": "white"},
                    now_ms=T0)
    for ply, (mine, its) in enumerate([("f2f3", "e7e5"), ("g2g4", "d8h4")]):
        s.move(mine[:2], mine[2:], None, now_ms=T0)
        st = s.computer_move(its, ply=2 * ply + 1, game=st["gameId"], now_ms=T0)
        assert st["error"] is None, st["error"]
    assert st["status"]["message"] == "Checkmate — Computer wins"
    final = analysis_request(s)
    assert final["over"] == "Checkmate — Computer wins" and final["result"] == "0-1"


def test_bad_requests_get_clear_errors(monkeypatch):
    game = knight_behind_pawns(["a7", "b7"])
    with pytest.raises(SessionError, match="perspective"):
        position_request(game, 0, "spectator")
    with pytest.raises(SessionError, match="ply must be"):
        position_request(game, 2, "white")
    with pytest.raises(SessionError, match="ply must be"):
        position_request(game, True, "white")
    going = Game.new("standard")
    with pytest.raises(SessionError, match="once the game is over"):
        position_request(going, 0, "all")
    monkeypatch.setattr(app_analysis, "computer_plays", lambda variant_id: None)
    with pytest.raises(SessionError, match="does not play Secret Pawn"):
        position_request(game, 0, "white")


def test_a_game_resigned_before_its_set_up_has_nothing_to_analyse():
    g = Game.new("secret-pawn")
    g.resign("white")  # before either side sealed its pawns
    with pytest.raises(SessionError, match="before its set-up was done"):
        position_request(g, 0, "all")
    with pytest.raises(SessionError, match="before its set-up was done"):
        position_request(g, 0, "white")


def test_bad_analysis_input_gets_clear_errors():
    game = knight_behind_pawns(["a7", "b7"])
    good = position_request(game, 0, "all")
    with pytest.raises(InvalidViewError):
        analyse("not a request")
    with pytest.raises(InvalidViewError, match="'view'"):
        analyse({"truth": good["truth"]})
    with pytest.raises(InvalidViewError, match="node budget"):
        analyse(good, max_nodes=0)
    with pytest.raises(InvalidViewError, match="truth"):
        analyse(dict(good, truth="e4"))
    flipped = dict(good, truth={"fen": good["truth"]["fen"].replace(" w ", " b "), "before": []})
    with pytest.raises(InvalidViewError, match="side to move"):
        analyse(flipped)
    with pytest.raises(UnknownVariantError):
        analyse({"view": dict(good["view"], variant="no-such-variant")})
    over = dict(good, view=dict(good["view"], status={"over": True, "reason": "checkmate"}))
    with pytest.raises(GameOverError):
        analyse(over)


def test_a_game_with_a_friend_is_analysed_as_far_as_this_device_knows():
    link = Link("secret-pawn")
    link.call("a", "seal", {"squares": ["d2", "e2"]})
    link.call("b", "seal", {"squares": ["c7", "f7"]})
    link.play(["e2e4", "e7e5"])
    link.up = False                                    # Black's final (its secrets) not here yet
    st = link.a.dispatch("resign", {}, now_ms=link.now)
    assert st["status"]["over"] and st["viewer"] == "white"
    with pytest.raises(SessionError, match="only what White knew can be analysed"):
        analysis_request(link.a)                         # "everything" is not known here yet
    link.a.dispatch("replay", {"ply": 2, "perspective": "white"}, now_ms=link.now)
    mine = analysis_request(link.a)
    assert mine["view"]["seat"] == "white" and "truth" not in mine
    assert "c7" not in json.dumps(mine) and "f7" not in mine["view"]["fen"]
    link.close()
    link.open()                                          # the finals are in: everything known
    assert link.state("a")["viewer"] == "all"
    link.a.dispatch("replay", {"ply": 2, "perspective": "all"}, now_ms=link.now)
    request = analysis_request(link.a)
    assert request["truth"]["fen"].endswith("secret:d2,e4,c7,f7")
    assert analyse(request, max_nodes=NODES)["basis"] == "truth"
