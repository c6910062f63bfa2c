"""What a seat knows: the one projection of a :class:`~hiddenchess.game.game.Game` for a seat.

:func:`project` builds the :class:`~hiddenchess.game.events.View` of a seat now; :func:`frames`
the replay, ply by ply, as the seat knew each moment (or everything). Both ask the variant's
:class:`~hiddenchess.game.rules.Rules` hooks for what is secret; neither knows any variant.

>>> from hiddenchess import Game
>>> g = Game.new("standard")
>>> _ = g.play("e4")
>>> project(g, "black").moves, [f["san"] for f in frames(g, "white")]
([{'uci': 'e2e4', 'san': 'e4'}], [None, 'e4'])
"""

from hiddenchess.engine import notation
from hiddenchess.engine.core import SQUARE_NAMES
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.events import SPECTATOR, View


def project(game, seat: str) -> View:
    """What ``seat`` (``"white"``, ``"black"`` or ``"spectator"``) knows of ``game`` now."""
    rules = game.rules
    last = game.history[-1] if game.history else None
    return View(
        seat=seat,
        variant=game.variant.id,
        fen=rules.view_fen(game, seat),
        board=rules.view_board(game, seat),
        turn=game.turn,
        ply=game.ply,
        moves=[rules.view_move(game, i, seat) for i in range(len(game.history))],
        last_move=[last.uci[:2], last.uci[2:4]] if last else None,
        check=game.check_square(),
        royal=game.royal_squares(),
        status=game.status,
        events=[[e.for_seat(seat) for e in p.events] for p in game.history],
        phase=game.phase,
        setup_pending=game.setup_pending(),
        secrets=rules.secrets(game, seat),
        start_fen=known_fen(game, game.play_start_fen, seat),
    )


def known_fen(game, truth_fen: str, seat: str) -> str:
    """A truth from ``game``'s history (FEN) as ``seat`` knows it now."""
    if game.status.over:
        return truth_fen
    own = game.rules.known_fen(game, truth_fen, seat)
    if own is not None:
        return own
    pos = notation.position_from_fen(truth_fen, game.variant)
    return game.fen_of(game.rules.known_at(pos, seat))


def frames(game, perspective: str = "all") -> list:
    """``game`` ply by ply for a replay: frame 0 is the position when play began, frame ``n``
    the position after ply ``n``. ``perspective`` ``"white"`` / ``"black"`` shows what that
    seat knew at each moment; ``"all"`` shows everything from the start (allowed once the game
    is over, or in variants without secrets). Each frame: ``fen``, ``board``, ``san``,
    ``uci``, ``last_move``, ``check``, ``events`` (as that seat saw them)."""
    if perspective == "all" and not game.status.over and game.rules.setup_kind:
        raise HiddenChessError("the full replay is available once the game is over")
    seat = SPECTATOR if perspective == "all" else perspective
    out = []
    fens = [game.play_start_fen] + [p.fen_after for p in game.history]
    for i, truth in enumerate(fens):
        pos = notation.position_from_fen(truth, game.variant)
        known = pos if perspective == "all" else game.rules.known_at(pos, perspective)
        ply = game.history[i - 1] if i else None
        shown = None if perspective == "all" else game.rules.frame_texts(game, i, perspective)
        out.append({
            "ply": i,
            "fen": shown[0] if shown else game.fen_of(known),
            "board": shown[1] if shown else notation.board_fen(known),
            "san": ply.san if ply else None,
            "uci": (game.rules.view_move(game, i - 1, seat)["uci"] if perspective != "all"
                    else ply.uci) if ply else None,
            "last_move": [ply.uci[:2], ply.uci[2:4]] if ply else None,
            "check": SQUARE_NAMES[pos.royal_square(pos.turn)] if pos.is_check() else None,
            "events": [e.for_seat(seat) if seat != SPECTATOR else {"kind": e.kind, **e.public}
                       for e in (ply.events if ply else [])]
            + (game.rules.replay_start_events(game, perspective) if i == 0 else []),
        })
    return out
