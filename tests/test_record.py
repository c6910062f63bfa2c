"""Tests of hiddenchess.game.record: the JSON game record (round trips, malformed input) and PGN."""

import copy
import doctest
import io
import json
import random
import re

import chess
import chess.pgn
import pytest
from hypothesis import given, settings, strategies as st

import hiddenchess.game.record
import hiddenchess.game.record_format
from hiddenchess import Game
from hiddenchess.game.clock import Clock, ClockSettings
from hiddenchess.errors import HiddenChessError, RecordError
from hiddenchess.variants.hidden_identity.rules import shuffle_layout
from hiddenchess.game.record import (
    KNOWN_SECTIONS,
    RECORD_FORMAT,
    RECORD_VERSION,
    extra_sections,
    from_record,
    to_pgn,
    to_record,
)

T0 = 1_700_000_000_000


def play(game, moves):
    for move in moves:
        game.play(move)
    return game


def random_game(rng, variant="standard", fen=None, max_plies=120):
    game = Game.new(variant, fen=fen)
    for _ in range(rng.randrange(max_plies + 1)):
        moves = game.legal_moves()
        if not moves:
            break
        game.play(rng.choice(moves))
    return game


def random_clock(rng, plies):
    """A clock as a session would leave it after ``plies`` moves (maybe running, maybe stopped)."""
    clock = Clock(ClockSettings(rng.randrange(1_000, 3_600_000), rng.randrange(0, 30_000)))
    now = T0
    color = "white"
    for _ in range(plies):
        if clock.flagged(now):
            break
        clock.press(color, now)
        color = "black" if color == "white" else "white"
        now += rng.randrange(0, 20_000)
    if rng.random() < 0.3:
        clock.stop(now)
    return clock


def end_randomly(rng, game):
    """Maybe end the game by an action that is not a move; maybe leave a draw offer standing."""
    if game.status.over:
        return
    choice = rng.randrange(7)
    if choice == 0:
        game.resign(rng.choice(["white", "black"]))
    elif choice == 1:
        game.agree_draw()
    elif choice == 2:
        game.flag(rng.choice(["white", "black"]))
    elif choice == 3 and game.claimable_draw():
        game.claim_draw()
    elif choice == 4 and game.claim_moves():
        game.claim_draw(rng.choice(sorted(game.claim_moves())))
    elif choice == 5:
        game.offer_draw(rng.choice(["white", "black"]))


def assert_same_game(a, b):
    assert a.variant.id == b.variant.id
    assert a.start_fen == b.start_fen
    assert a.fen() == b.fen()
    assert a.status == b.status
    assert a.status.to_json() == b.status.to_json()
    assert [(p.uci, p.san) for p in a.history] == [(p.uci, p.san) for p in b.history]
    assert a.end_action == b.end_action
    assert a.draw_offer == b.draw_offer
    assert a.legal_moves() == b.legal_moves()


# ---------------------------------------------------------------- round trips


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(["standard", "royal-pawn"]))
def test_round_trip_over_random_games(seed, variant):
    rng = random.Random(seed)
    game = random_game(rng, variant)
    end_randomly(rng, game)
    clock = random_clock(rng, game.ply) if rng.random() < 0.7 else None
    meta = {"white": "Ann", "black": "Bob", "mode": "local", "created_ms": T0, "updated_ms": T0 + 9}
    record = to_record(game, clock=clock, meta=meta)
    text = json.dumps(record, allow_nan=False)  # it really is JSON
    game2, clock2, meta2 = from_record(json.loads(text))
    assert_same_game(game, game2)
    assert clock2 == clock
    if clock is not None:
        assert clock2.remaining_ms("white", T0 + 10**6) == clock.remaining_ms("white", T0 + 10**6)
    assert meta2 == meta
    # And again: a record of the restored game is the same record.
    assert to_record(game2, clock=clock2, meta=meta2) == record


def test_record_fields():
    game = play(Game.new("standard"), ["e4", "e5", "Nf3"])
    clock = Clock(ClockSettings.parse("5+3"))
    clock.press("white", T0)
    record = to_record(game, clock=clock, meta={"mode": "computer"})
    assert record == {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "variant": "standard",
        "start_fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "moves": [{"uci": "e2e4", "san": "e4"}, {"uci": "e7e5", "san": "e5"}, {"uci": "g1f3", "san": "Nf3"}],
        "end": None,
        "draw_offer": None,
        "result": "*",
        "reason": None,
        "clock": clock.to_json(),
        "meta": {"mode": "computer"},
    }


def test_record_shares_nothing_with_the_caller():
    meta = {"players": ["Ann", "Bob"]}
    game = play(Game.new("standard"), ["e4"])
    record = to_record(game, meta=meta)
    meta["players"].append("Eve")
    assert record["meta"] == {"players": ["Ann", "Bob"]}
    _, _, meta2 = from_record(record)
    meta2["players"].append("Zed")
    assert record["meta"] == {"players": ["Ann", "Bob"]}


def test_checkmate_needs_no_end_action():
    game = play(Game.new("standard"), ["f3", "e5", "g4", "Qh4"])
    record = to_record(game)
    assert record["end"] is None and record["result"] == "0-1" and record["reason"] == "checkmate"
    game2, _, _ = from_record(record)
    assert game2.status.reason == "checkmate" and game2.status.winner == "black"


def test_claim_by_declared_move_round_trips_without_playing_it():
    game = play(Game.new("standard"), ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"])
    assert game.claim_moves() == {"f6g8": "threefold"}
    game.claim_draw("Ng8")
    record = to_record(game)
    assert record["end"] == {"type": "claim", "move": "f6g8"}
    assert len(record["moves"]) == 7
    game2, _, _ = from_record(record)
    assert_same_game(game, game2)
    assert game2.status.reason == "threefold-repetition"


def test_flag_with_insufficient_material_is_a_draw_after_round_trip():
    game = Game.new("standard", fen="4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    game.flag("white")  # Black has only a king: drawn
    game2, _, _ = from_record(to_record(game))
    assert game2.status.reason == "timeout-insufficient-material"
    assert game2.end_action == {"type": "flag", "by": "white"}


def test_standing_draw_offer_round_trips():
    game = play(Game.new("standard"), ["e4"])
    game.offer_draw("white")
    game.play("e5")  # the offer from White still stands until Black answers... Black moved: declined
    game.offer_draw("white")
    record = to_record(game)
    assert record["draw_offer"] == "white"
    game2, _, _ = from_record(record)
    assert game2.draw_offer == "white"
    game2.accept_draw("black")
    assert game2.status.reason == "agreement"


def test_royal_pawn_custom_start_round_trips():
    fen = "4k3/8/4p3/8/8/4P3/8/4K3 w - - 0 1 royal:e3,e6"
    game = play(Game.new("royal-pawn", fen=fen), ["e4", "Kd7"])
    game2, _, _ = from_record(to_record(game))
    assert_same_game(game, game2)
    assert game2.start_fen == fen


def test_game_methods_delegate_to_record():
    game = play(Game.new("standard"), ["d4", "d5"])
    record = game.to_record(meta={"x": 1})
    assert record == to_record(game, meta={"x": 1})
    assert Game.from_record(record).fen() == game.fen()


# ---------------------------------------------------------------- extension sections


def test_unknown_sections_are_ignored_and_can_be_carried_over():
    game = play(Game.new("standard"), ["e4"])
    record = to_record(game)
    record["future"] = {"white": {"secret": ["d2", "e2"]}, "draws": [3, 1]}
    record["annotations"] = [{"ply": 1, "text": "!"}]
    game2, _, _ = from_record(record)
    assert game2.fen() == game.fen()
    extra = extra_sections(record)
    assert extra == {"future": record["future"], "annotations": record["annotations"]}
    rewritten = to_record(game2, extra=extra)
    assert rewritten["future"] == record["future"]
    assert rewritten == record


def test_extra_sections_may_not_replace_known_ones():
    game = Game.new("standard")
    for name in sorted(KNOWN_SECTIONS):
        with pytest.raises(RecordError, match="may not replace"):
            to_record(game, extra={name: 1})


def test_required_sections():
    record = to_record(play(Game.new("standard"), ["e4"]))
    assert from_record({**record, "requires": ["clock", "meta"]})[0].ply == 1
    with pytest.raises(RecordError, match="'future' section.*newer version"):
        from_record({**record, "requires": ["future"], "future": {}})
    with pytest.raises(RecordError, match="no setup choices"):
        from_record({**record, "setup": {"sealed": {"white": ["d2", "e2"]}}})
    with pytest.raises(RecordError, match="section names"):
        from_record({**record, "requires": [1]})
    with pytest.raises(RecordError):
        from_record({**record, "requires": "setup"})


def test_to_record_rejects_bad_arguments():
    game = Game.new("standard")
    with pytest.raises(RecordError, match="clock"):
        to_record(game, clock={"initial_ms": 1})
    with pytest.raises(RecordError, match="meta"):
        to_record(game, meta=["not", "a", "dict"])
    with pytest.raises(RecordError, match="JSON"):
        to_record(game, meta={"when": object()})
    with pytest.raises(RecordError, match="JSON"):
        to_record(game, meta={"x": float("nan")})
    with pytest.raises(RecordError, match="extra"):
        to_record(game, extra=[1])


# ---------------------------------------------------------------- malformed records


def good_record():
    game = play(Game.new("standard"), ["e4", "e5", "Nf3", "Nc6"])
    clock = Clock(ClockSettings.parse("3+2"))
    clock.press("white", T0)
    return to_record(game, clock=clock, meta={"white": "A"})


def with_(**changes):
    record = good_record()
    for key, value in changes.items():
        if value is KeyError:
            del record[key]
        else:
            record[key] = value
    return record


def with_move(index, value):
    record = good_record()
    record["moves"][index] = value
    return record


MALFORMED = [
    (None, "JSON object"),
    ([1, 2], "JSON object"),
    ("hiddenchess-game", "JSON object"),
    (with_(format="pgn"), "not a Hidden Chess game"),
    (with_(format=KeyError), "not a Hidden Chess game"),
    (with_(version=2), "newer version"),
    (with_(version=0), "does not exist"),
    (with_(version="1"), "'version' must be an integer"),
    (with_(version=True), "'version' must be an integer"),
    (with_(version=1.0), "'version' must be an integer"),
    (with_(version=KeyError), "'version' is missing"),
    (with_(variant="crazyhouse"), "unknown variant"),
    (with_(variant=7), "'variant' must be a variant id"),
    (with_(variant=KeyError), "'variant' is missing"),
    (with_(start_fen="not a fen"), "start position"),
    (with_(start_fen="8/8/8/8/8/8/8/8 w - - 0 1"), "start position"),
    (with_(start_fen=None), "'start_fen' must be a FEN"),
    (with_(moves="e2e4 e7e5"), "'moves' must be a list"),
    (with_(moves=KeyError), "'moves' is missing"),
    (with_move(2, "g1f3"), "ply 3: each move must be an object"),
    (with_move(2, {"san": "Nf3"}), "ply 3: 'uci' must be a string"),
    (with_move(2, {"uci": 5}), "ply 3: 'uci' must be a string"),
    (with_move(2, {"uci": "g1f3", "san": 5}), "ply 3: 'san' must be a string"),
    (with_move(2, {"uci": "g1g3"}), "ply 3 ('g1g3'): illegal move"),
    (with_move(2, {"uci": "e2e4"}), "ply 3 ('e2e4'): illegal move"),
    (with_move(2, {"uci": "hello"}), "ply 3 ('hello'): invalid move"),
    (with_move(2, {"uci": "Nf3"}), "ply 3: 'Nf3' is not in UCI form"),
    (with_(end="resigned"), "'end' must be an object"),
    (with_(end={"type": "abandon"}), "unknown ending"),
    (with_(end={"type": "resign"}), "needs 'by'"),
    (with_(end={"type": "resign", "by": "red"}), "needs 'by'"),
    (with_(end={"type": "flag", "by": None}), "needs 'by'"),
    (with_(end={"type": "claim", "move": None}), "claim ending does not stand"),
    (with_(end={"type": "claim", "move": "a7a6"}), "claim ending does not stand"),
    (with_(end={"type": "claim", "move": 5}), "string or null"),
    (with_(draw_offer="both"), "'draw_offer'"),
    (with_(draw_offer=1), "'draw_offer'"),
    (with_(draw_offer="white", end={"type": "agreement"}), "after the end of the game"),
    (with_(clock="5+3"), "'clock' must be an object"),
    (with_(clock={"initial_ms": 300000}), "its clock: saved clock is missing"),
    (with_(meta=[]), "'meta' must be an object"),
]


@pytest.mark.parametrize("data, words", MALFORMED)
def test_malformed_records_raise_clear_errors(data, words):
    snapshot = copy.deepcopy(data)
    with pytest.raises(RecordError) as info:
        from_record(data)
    message = str(info.value)
    assert message.startswith("bad game record: ")
    assert words in message
    assert data == snapshot  # the input is not modified


def test_unknown_fields_in_an_ending_are_ignored():
    record = good_record()
    record["end"] = {"type": "resign", "by": "white", "note": "lost on purpose"}
    record["result"], record["reason"] = "0-1", "resignation"
    game, _, _ = from_record(record)
    assert game.status.result == "0-1" and game.end_action == {"type": "resign", "by": "white"}


def test_ending_after_checkmate_is_refused():
    record = to_record(play(Game.new("standard"), ["f3", "e5", "g4", "Qh4"]))
    record["end"] = {"type": "resign", "by": "black"}
    with pytest.raises(RecordError, match="already ended \\(checkmate\\)"):
        from_record(record)


def test_move_after_the_end_is_refused():
    record = to_record(play(Game.new("standard"), ["f3", "e5", "g4", "Qh4"]))
    record["moves"].append({"uci": "a2a3"})
    with pytest.raises(RecordError, match="ply 5 \\('a2a3'\\): game over"):
        from_record(record)


def test_record_error_is_a_hidden_chess_error():
    assert issubclass(RecordError, HiddenChessError)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | st.text(max_size=6)
    | st.sampled_from(["white", "black", "e2e4", "g1f3", "resign", "claim", "standard"]),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(
        st.sampled_from(["type", "by", "move", "uci", "san", "x"]) | st.text(max_size=4), children, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(sorted(KNOWN_SECTIONS)), json_values, max_size=3))
def test_any_corruption_of_a_record_is_a_record_error_or_a_valid_game(changes):
    record = {**good_record(), **changes}
    try:
        game, clock, meta = from_record(record)
    except RecordError as e:
        assert str(e).startswith("bad game record: ")
        return
    # Accepted: then it is a consistent game that round-trips.
    again = from_record(to_record(game, clock=clock, meta=meta))
    assert_same_game(game, again[0])


# ---------------------------------------------------------------- PGN


def pgn_tags(pgn):
    """Tag pairs, unescaped as the PGN standard says (python-chess keeps the backslashes)."""
    pairs = re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$', pgn, re.M)
    return {name: re.sub(r"\\(.)", r"\1", value) for name, value in pairs}


def test_pgn_of_a_finished_game():
    game = play(Game.new("standard"), ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7"])
    clock = Clock(ClockSettings.parse("5+3"))
    pgn = to_pgn(game, tags={"White": 'Ann "the rook"', "Black": "B\\ob", "Date": "2025.01.02"}, clock=clock)
    tags = pgn_tags(pgn)
    assert list(tags)[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
    assert tags["Result"] == "1-0" and tags["Date"] == "2025.01.02"
    assert tags["TimeControl"] == "300+3"
    assert tags["Termination"] == "Normal"
    assert tags["Variant"] == "Standard" and "FEN" not in tags
    assert tags["White"] == 'Ann "the rook"' and tags["Black"] == "B\\ob"
    assert '[White "Ann \\"the rook\\""]' in pgn
    parsed = chess.pgn.read_game(io.StringIO(pgn))
    assert parsed.end().board().is_checkmate()
    assert pgn.rstrip().endswith("4. Qxf7# {Checkmate - White wins} 1-0")


def test_pgn_result_comes_from_the_game():
    game = play(Game.new("standard"), ["e4"])
    game.resign("black")
    pgn = to_pgn(game, tags={"Result": "0-1"})
    assert pgn_tags(pgn)["Result"] == "1-0"
    assert pgn.rstrip().endswith("1. e4 {Resignation - White wins} 1-0")


def test_pgn_time_forfeit_termination():
    game = play(Game.new("standard"), ["e4"])
    game.flag("black")
    assert pgn_tags(to_pgn(game))["Termination"] == "Time forfeit"


def test_pgn_variant_and_setup_tags():
    game = play(Game.new("royal-pawn"), ["e4", "d5"])
    tags = pgn_tags(to_pgn(game))
    assert tags["Variant"] == "Royal Pawn"
    assert "FEN" not in tags and "SetUp" not in tags
    fen = "4k3/8/4p3/8/8/4P3/8/4K3 b - - 3 12 royal:e3,e6"
    game = play(Game.new("royal-pawn", fen=fen), ["Kd7", "Kd2"])
    pgn = to_pgn(game)
    tags = pgn_tags(pgn)
    assert tags["SetUp"] == "1" and tags["FEN"] == fen
    assert "12... Kd7 13. Kd2 *" in pgn


def test_pgn_rejects_bad_tag_names():
    with pytest.raises(HiddenChessError, match="tag names"):
        to_pgn(Game.new("standard"), tags={"Bad Tag": "x"})


def test_pgn_tags_cannot_break_lines():
    pgn = to_pgn(Game.new("standard"), tags={"Event": "line1\nline2", "Annotator": "a\tb"})
    tags = pgn_tags(pgn)
    assert tags["Event"] == "line1 line2" and tags["Annotator"] == "a b"


def replay_san_movetext(pgn, variant, fen=None):
    """Our own reader for the movetext: every SAN token must replay in our engine."""
    movetext = pgn.split("\n\n", 1)[1]
    movetext = re.sub(r"\{[^}]*\}", " ", movetext)
    game = Game.new(variant, fen=fen)
    for token in movetext.split()[:-1]:
        if re.fullmatch(r"\d+\.(\.\.)?", token):
            continue
        game.play(token)
    return game


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32))
def test_pgn_matches_python_chess_on_random_standard_games(seed):
    rng = random.Random(seed)
    fens = [None, "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R b KQkq - 4 9",
            "8/P6k/8/8/8/8/6Kp/8 w - - 0 50"]
    fen = rng.choice(fens)
    game = random_game(rng, "standard", fen=fen, max_plies=200)
    end_randomly(rng, game)
    pgn = to_pgn(game, tags={"Event": "Random", "White": "R1", "Black": "R2"})
    assert all(len(line) <= 80 for line in pgn.splitlines())
    parsed = chess.pgn.read_game(io.StringIO(pgn))
    assert not parsed.errors
    assert [m.uci() for m in parsed.mainline_moves()] == [p.uci for p in game.history]
    assert parsed.end().board().fen() == game.fen()
    assert parsed.headers["Result"] == game.status.result
    assert (parsed.headers.get("FEN")) == fen
    # SAN equals python-chess's SAN, ply by ply.
    board = parsed.board()
    for ply, move in zip(game.history, parsed.mainline_moves()):
        assert ply.san == board.san(move)
        board.push(move)
    # Our engine reads its own movetext back.
    assert replay_san_movetext(pgn, "standard", fen).fen() == game.fen()


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32))
def test_pgn_movetext_of_royal_pawn_games_replays(seed):
    rng = random.Random(seed)
    game = random_game(rng, "royal-pawn", max_plies=150)
    pgn = to_pgn(game)
    assert all(len(line) <= 80 for line in pgn.splitlines())
    assert replay_san_movetext(pgn, "royal-pawn").fen() == game.fen()


def test_long_game_wraps_and_keeps_numbers_with_moves():
    opera = ("e4 e5 Nf3 d6 d4 Bg4 dxe5 Bxf3 Qxf3 dxe5 Bc4 Nf6 Qb3 Qe7 Nc3 c6 Bg5 b5 Nxb5 cxb5 "
             "Bxb5+ Nbd7 O-O-O Rd8 Rxd7 Rxd7 Rd1 Qe6 Bxd7+ Nxd7 Qb8+ Nxb8 Rd8#").split()
    game = play(Game.new("standard"), opera)
    pgn = to_pgn(game)
    movetext_lines = pgn.split("\n\n", 1)[1].splitlines()
    assert movetext_lines == [
        "1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7",
        "8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7",
        "14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# {Checkmate - White wins} 1-0",
    ]
    for line, following in zip(movetext_lines, movetext_lines[1:]):
        assert len(line) <= 80
        assert not line.endswith(".")  # a move number stays with its move
        # Greedy: the next line's first token (with its number) would not have fitted.
        first = following.split()[0]
        if first.endswith("."):
            first += " " + following.split()[1]
        assert len(line) + 1 + len(first) > 80
    assert " ".join(movetext_lines).split() == " ".join(pgn.split("\n\n", 1)[1].split()).split()


def test_docstring_examples():
    assert doctest.testmod(hiddenchess.game.record).failed == 0
    assert doctest.testmod(hiddenchess.game.record_format).failed == 0


# --- a record must prove what it claims (issue 17) ----------------------------------------------
def test_a_written_san_that_the_replay_does_not_give_is_refused():
    record = to_record(play(Game.new("standard"), ["e4", "e5", "Nf3", "Nc6"]))
    record["moves"][2]["san"] = "Nh3"
    with pytest.raises(RecordError, match="ply 3: the record says 'Nh3'"):
        from_record(record)
    record["moves"][2] = {"uci": "g1f3"}  # (no SAN written: nothing to disagree with)
    from_record(record)


def test_a_written_result_that_the_replay_does_not_give_is_refused():
    record = to_record(play(Game.new("standard"), ["f3", "e5", "g4", "Qh4"]))
    assert (record["result"], record["reason"]) == ("0-1", "checkmate")
    for result, reason, words in [("1-0", "checkmate", "result is '1-0'"),
                                  ("0-1", "resignation", "ended by 'resignation'"),
                                  ("*", None, "result is '\\*'")]:
        with pytest.raises(RecordError, match=words):
            from_record(dict(record, result=result, reason=reason))


def test_a_record_that_claims_a_finished_game_must_end_there():
    game = play(Game.new("standard"), ["f3", "e5", "g4", "Qh4"])
    record = to_record(game)
    short = dict(record, moves=record["moves"][:-1])  # the mating move is missing
    with pytest.raises(RecordError, match="still in progress"):
        from_record(short)
    resigned = to_record(play(Game.new("standard"), ["e4", "e5"]))
    resigned["result"], resigned["reason"] = "1-0", "resignation"  # ... but no ending
    with pytest.raises(RecordError, match="still in progress"):
        from_record(resigned)
    longer = dict(record, moves=record["moves"] + [{"uci": "e1f2", "san": "Kf2"}])
    with pytest.raises(RecordError, match="ply 5"):
        from_record(longer)


def _replays_as_written(record) -> bool:
    """Whether ``record`` loads; if it does, its replay must be the game it describes."""
    try:
        game, _, _ = from_record(record)
    except RecordError:
        return False
    assert [p.san for p in game.history] == [m["san"] for m in record["moves"]]
    assert game.status.result == record["result"]
    return True


def test_altered_secret_pawns_are_refused_when_the_game_changes():
    """Seal other pawns than the record says: the record either still describes its game
    exactly (the same SAN, reveal markers included, and result) or is refused."""
    rng = random.Random(17)
    refused = loaded = 0
    for _ in range(30):
        game = Game.new("secret-pawn")
        pawns = {"white": [f + "2" for f in "abcdefgh"], "black": [f + "7" for f in "abcdefgh"]}
        for seat in ("white", "black"):
            game.seal(seat, rng.sample(pawns[seat], 2))
        for _ in range(rng.randrange(20, 90)):
            if game.status.over:
                break
            game.play(rng.choice(game.legal_moves()))
        record = to_record(game)
        for _ in range(6):
            altered = copy.deepcopy(record)
            seat = rng.choice(("white", "black"))
            sealed = altered["setup"]["sealed"][seat]
            sealed[rng.randrange(2)] = rng.choice([p for p in pawns[seat] if p not in sealed])
            if _replays_as_written(altered):
                loaded += 1
            else:
                refused += 1
    assert refused and loaded  # (some alterations change nothing anyone saw: those may load)


def test_altered_hidden_identity_placements_are_refused_when_the_game_changes():
    """Swap two pieces of a placement: the record either still describes its game exactly
    (captured identities, en passant outcomes and result) or is refused."""
    rng = random.Random(59)
    refused = loaded = 0
    for _ in range(30):
        game = Game.new("hidden-identity")
        for seat in ("white", "black"):
            game.setup(seat, {"placement": shuffle_layout(seat, rng)})
        for _ in range(rng.randrange(30, 120)):
            if game.status.over:
                break
            game.play(rng.choice(game.legal_moves()))
        record = to_record(game)
        for _ in range(6):
            altered = copy.deepcopy(record)
            placement = altered["setup"]["placement"][rng.choice(("white", "black"))]
            a, b = rng.sample(sorted(placement), 2)
            placement[a], placement[b] = placement[b], placement[a]
            if _replays_as_written(altered):
                loaded += 1
            else:
                refused += 1
    assert refused and loaded
