"""Property tests: random legal games checked ply by ply.

Standard chess has an oracle, python-chess; at every ply of a random game (moves chosen from
:meth:`Game.legal_moves`, played through :meth:`Game.play` as UCI or SAN) we check that

* our legal move set equals python-chess's, and no legal move leaves the mover's royal piece
  attacked;
* ``push`` then ``pop`` of every legal move restores the exact state (``state_key``, FEN, en
  passant square, counters);
* the FEN round-trips (``position_from_fen(fen(pos))`` has the same FEN and the same legal moves)
  and equals python-chess's ``board.fen()`` (both write the en passant square only when an en
  passant capture is legal);
* our SAN of every legal move equals python-chess's ``board.san(move)`` and parses back to it;
* :attr:`Game.status` agrees with python-chess on checkmate, stalemate, insufficient material (on
  our automatic list only), fivefold repetition and the seventy-five-move rule; and the claimable
  draws (now, and by declaring a move) agree with python-chess's threefold and fifty-move claims.

Royal Pawn Chess has no python-chess oracle: there we check the royal pawn is never left attacked,
push/pop, the FEN round trip, and the legal moves against the naive generator in ``slowgen.py``.

Games are random but reproducible: ``derandomize=True`` makes hypothesis draw the same games on
every run. A share of the moves "undo" the mover's previous move when it can, so positions repeat
and the repetition rules are exercised, and some games start from the endgame or high-clock
positions below so the material and move-count rules are reached.
"""

import chess
from hypothesis import HealthCheck, Phase, event, given, settings, strategies as st

from hiddenchess import Game
from hiddenchess.engine.core import BLACK, WHITE
from hiddenchess.engine.notation import fen, parse_san, position_from_fen, san, uci
from slowgen import SlowPosition

STANDARD_STARTS = [
    chess.STARTING_FEN,
    # Kiwipete: castling, en passant, promotions come quickly.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    # Promotions (with capture) for both sides.
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    # Pawns that can take each other en passant, and pins along the rank.
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    # Minor-piece endings that reach (or avoid) insufficient material by a capture.
    "4k3/8/8/3b4/8/3N4/8/4K3 w - - 0 1",
    "4k3/8/2b5/8/8/2B5/3P4/4K3 w - - 0 1",
    "4k3/8/8/4n3/8/2N5/8/4K3 b - - 0 1",
    "6k1/8/5b2/8/8/2B5/1p6/4K3 w - - 0 1",
    # Rook endings one or a few moves away from the fifty- and seventy-five-move rules.
    "4k3/8/8/8/8/8/8/R3K2R w KQ - 97 60",
    "r3k3/8/8/8/8/8/8/4K2R b K - 145 90",
    "8/8/3k4/8/8/3K4/3R4/8 w - - 98 70",
    # A mate on the move that reaches the seventy-five-move limit is available (Qg7#).
    "7k/8/5K2/8/8/8/8/6Q1 w - - 149 100",
    # Small endings where random play soon mates or stalemates.
    "8/k1P5/8/1K6/8/8/8/8 w - - 0 1",
    "K1k5/8/P7/8/8/8/8/8 w - - 0 1",
    "8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
    "k7/8/1K6/8/8/8/8/7R w - - 0 1",
    "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",
]

ROYAL_PAWN_STARTS = [
    None,  # the variant's start
    "4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1",
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    "4k3/3pp3/8/6N1/1n6/8/3PP3/4K3 w - - 0 1",
    "rn2k3/4p3/8/8/8/8/4P3/3QK2R b K - 0 1",
    # Royal pawns racing to promote.
    "3k4/8/4P3/8/8/4p3/8/3K4 w - - 0 1 royal:e6,e3",
]

#: A drawn choice below a game's "reverse cutoff" first tries to move back the piece the mover
#: moved last (which makes positions repeat); other choices pick a legal move by index. Each game
#: draws its cutoff: no reversing at all, some, or a lot.
REVERSE_CUTOFFS = st.sampled_from([0, 150, 400])
MOVE_CHOICE = st.integers(min_value=0, max_value=999)

GAME_SETTINGS = settings(
    max_examples=60, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --- helpers -------------------------------------------------------------------------------------
def choose_move(game: Game, choice: int, history: list, cutoff: int = 0) -> str:
    """A legal UCI move of ``game``: the reverse of the mover's previous move when
    ``choice < cutoff`` and that is legal, else ``sorted(legal)[choice % len]``."""
    legal = sorted(game.legal_moves())
    if choice < cutoff and len(history) >= 2:
        prev = history[-2]
        back = prev[2:4] + prev[0:2]
        if back in legal:
            return back
    return legal[choice % len(legal)]


def our_insufficient_material(board: chess.Board) -> bool:
    """Our automatic list, written from the rules text: king against king, kings and a single
    bishop or knight, or kings and only bishops all standing on one square colour."""
    if board.pawns or board.rooks or board.queens:
        return False
    minors = board.knights | board.bishops
    if chess.popcount(minors) <= 1:
        return True
    if board.knights:
        return False
    return not board.bishops & chess.BB_LIGHT_SQUARES or not board.bishops & chess.BB_DARK_SQUARES


def expected_status(board: chess.Board) -> tuple:
    """(over, result, reason) that python-chess says, with our automatic insufficient-material
    list and our precedence among simultaneous outcomes."""
    if board.is_checkmate():
        return True, "1-0" if board.turn == chess.BLACK else "0-1", "checkmate"
    if board.is_stalemate():
        return True, "1/2-1/2", "stalemate"
    if our_insufficient_material(board):
        return True, "1/2-1/2", "insufficient-material"
    if board.is_fivefold_repetition():
        return True, "1/2-1/2", "fivefold-repetition"
    if board.is_seventyfive_moves():
        return True, "1/2-1/2", "seventy-five-moves"
    return False, "*", None


def expected_claim_moves(board: chess.Board) -> tuple:
    """python-chess's view of the draws a player could claim by declaring a move:
    ``({uci: reason}, set of moves to leave out of the comparison)``. A declared move that would
    stalemate is left out: python-chess never counts it, and the game is drawn either way."""
    out, skip = {}, set()
    for move in list(board.legal_moves):
        board.push(move)
        try:
            if board.is_checkmate():
                continue
            if board.is_stalemate():
                skip.add(move.uci())
            elif board.is_repetition(3):
                out[move.uci()] = "threefold"
            elif board.halfmove_clock >= 100:
                out[move.uci()] = "fifty-moves"
        finally:
            board.pop()
    return out, skip


def check_push_pop_and_safety(pos) -> None:
    """Every legal move: the mover's royal piece is safe after it, and pop restores everything."""
    before = (pos.state_key(), fen(pos), pos.ep, pos.halfmove, pos.fullmove, pos.turn)
    mover = pos.turn
    for m in pos.legal_moves():
        pos.push(m)
        assert not pos.is_royal_attacked(mover), f"{uci(m)} leaves the royal piece attacked"
        pos.pop()
        after = (pos.state_key(), fen(pos), pos.ep, pos.halfmove, pos.fullmove, pos.turn)
        assert after == before, f"push/pop of {uci(m)} changed the position"


#: Outcomes that the position alone decides: a game started from the final FEN has them too.
POSITIONAL = {"checkmate", "stalemate", "insufficient-material", "seventy-five-moves",
              "royal-pawn-promoted"}


def check_final_fen(game: Game) -> None:
    if game.status.reason in POSITIONAL:
        assert Game.new(game.variant.id, game.fen()).status == game.status, game.fen()


def check_fen_round_trip(pos, variant: str) -> None:
    text = fen(pos)
    again = position_from_fen(text, variant)
    assert fen(again) == text
    assert sorted(map(uci, again.legal_moves())) == sorted(map(uci, pos.legal_moves()))
    assert again.state_key() == pos.state_key()


def check_against_python_chess(game: Game, board: chess.Board) -> None:
    pos = game.position
    ours = sorted(map(uci, pos.legal_moves()))
    theirs = sorted(m.uci() for m in board.legal_moves)
    assert ours == theirs, f"{board.fen()}: extra {set(ours) - set(theirs)}, " \
                           f"missing {set(theirs) - set(ours)}"
    assert game.fen() == fen(pos) == board.fen()
    # SAN, both ways.
    for m in pos.legal_moves():
        text = san(pos, m)
        expected = board.san(chess.Move.from_uci(uci(m)))
        assert text == expected, f"{board.fen()}: {uci(m)} is {expected}, we wrote {text}"
        assert parse_san(pos, text) == m
    # Status.
    over, result, reason = expected_status(board)
    assert (game.status.over, game.status.result, game.status.reason) == (over, result, reason), \
        board.fen()
    if reason == "insufficient-material":
        assert board.is_insufficient_material()  # our list is a subset of python-chess's
    assert (game.legal_moves() == []) == over
    assert game.check_square() == (chess.square_name(board.king(board.turn))
                                   if board.is_check() else None)
    # Claims.
    if not over:
        now = "threefold" if board.is_repetition(3) else (
            "fifty-moves" if board.is_fifty_moves() else None)
        assert game.claimable_draw() == now, board.fen()
        if now:
            event(f"claimable now: {now}")
        declared, skip = expected_claim_moves(board)
        got = {k: v for k, v in game.claim_moves().items() if k not in skip}
        assert got == declared, board.fen()
        for reason in set(got.values()):
            event(f"claimable by declaring a move: {reason}")
        assert board.can_claim_draw() == (now is not None or bool(got)), board.fen()
    else:
        assert game.claimable_draw() is None and game.claim_moves() == {}


# --- standard chess against python-chess ---------------------------------------------------------
@GAME_SETTINGS
@given(start=st.sampled_from(STANDARD_STARTS),
       choices=st.lists(MOVE_CHOICE, min_size=40, max_size=150),
       use_san=st.lists(st.booleans(), min_size=1, max_size=8),
       cutoff=REVERSE_CUTOFFS)
def test_random_standard_games_agree_with_python_chess(start, choices, use_san, cutoff):
    game = Game.new("standard", start)
    board = chess.Board(start)
    played = []
    check_against_python_chess(game, board)
    check_push_pop_and_safety(game.position)
    check_fen_round_trip(game.position, "standard")
    for i, choice in enumerate(choices):
        if game.status.over:
            break
        move = choose_move(game, choice, played, cutoff)
        chess_move = chess.Move.from_uci(move)
        expected_san = board.san(chess_move)
        text = expected_san if use_san[i % len(use_san)] else move
        result = game.play(text)
        assert (result.uci, result.san) == (move, expected_san)
        assert game.history[-1].uci == move and game.history[-1].san == expected_san
        board.push(chess_move)
        played.append(move)
        assert result.status == game.status
        check_against_python_chess(game, board)
        check_push_pop_and_safety(game.position)
        check_fen_round_trip(game.position, "standard")
    check_final_fen(game)
    event(f"game ended: {game.status.reason}")
    event(f"plies played: {len(played) // 20 * 20}+")


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(choices=st.lists(MOVE_CHOICE, min_size=20, max_size=80), cutoff=REVERSE_CUTOFFS)
def test_undo_restores_the_game(choices, cutoff):
    """Game.undo after every move gives back the FEN, status, legal moves and claims."""
    game = Game.new("standard")
    played = []
    snapshots = []
    for choice in choices:
        if game.status.over:
            break
        snapshots.append((game.fen(), game.status, sorted(game.legal_moves()),
                          game.claimable_draw(), game.ply))
        move = choose_move(game, choice, played, cutoff)
        game.play(move)
        played.append(move)
    while snapshots:
        game.undo()
        assert (game.fen(), game.status, sorted(game.legal_moves()), game.claimable_draw(),
                game.ply) == snapshots.pop()


# --- Royal Pawn Chess: no python-chess oracle ----------------------------------------------------
def slow_legal(pos) -> list:
    """Legal moves of ``pos`` by the naive generator, as UCI."""
    six = " ".join(fen(pos).split()[:6])
    royal = [(s % 8, s // 8) for s in range(64) if pos.royal >> s & 1]
    out = []
    for frm, to, extra, kind in SlowPosition(six, royal="pawn", royal_squares=royal).legal():
        text = "abcdefgh"[frm[0]] + str(frm[1] + 1) + "abcdefgh"[to[0]] + str(to[1] + 1)
        if kind == "promo" and extra != "royal":
            text += extra
        out.append(text)
    return sorted(out)


@settings(max_examples=30, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
          phases=[Phase.explicit, Phase.generate])  # shrinking these slow games takes minutes
@given(start=st.sampled_from(ROYAL_PAWN_STARTS),
       choices=st.lists(MOVE_CHOICE, min_size=30, max_size=100), cutoff=REVERSE_CUTOFFS)
def test_random_royal_pawn_games(start, choices, cutoff):
    game = Game.new("royal-pawn", start)
    played = []
    for choice in [None] + choices:
        pos = game.position
        check_push_pop_and_safety(pos)
        check_fen_round_trip(pos, "royal-pawn")
        assert sorted(map(uci, pos.legal_moves())) == slow_legal(pos), fen(pos)
        for color in (WHITE, BLACK):
            assert bin(pos.royal & pos.color_mask(color)).count("1") == 1
        if choice is None:
            continue
        if game.status.over:
            break
        move = choose_move(game, choice, played, cutoff)
        res = game.play(move)
        played.append(move)
        assert res.uci == move
        assert position_from_fen(game.fen(), "royal-pawn").state_key() == game.position.state_key()
    check_final_fen(game)
    event(f"game ended: {game.status.reason}")
    event(f"plies played: {len(played) // 20 * 20}+")


def test_royal_pawn_capturing_a_king_clears_its_castling_rights():
    """Found by the random games: a captured king must take its side's castling rights with it,
    or the FEN of the position cannot be read back."""
    game = Game.new("royal-pawn", "4k3/4p3/8/8/8/8/4P3/R3K2r b Q - 0 1")
    game.play("Rxe1")
    assert game.fen() == "4k3/4p3/8/8/8/8/4P3/R3r3 w - - 0 2"
    assert Game.new("royal-pawn", game.fen()).fen() == game.fen()


def test_royal_pawn_won_by_promotion_has_a_final_fen_that_reads_back():
    """Found by the random games: the final position (a royal pawn on its last rank) must be a
    readable FEN whose game is over the same way."""
    game = Game.new("royal-pawn", "k7/4P3/8/8/8/8/4p3/K7 w - - 0 1 royal:e7,e2")
    game.play("e8")
    assert (game.status.reason, game.status.winner) == ("royal-pawn-promoted", "white")
    again = Game.new("royal-pawn", game.fen())
    assert again.fen() == game.fen()
    assert again.status == game.status
    assert again.legal_moves() == []
