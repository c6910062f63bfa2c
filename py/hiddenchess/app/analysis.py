"""The request for the analysis of the replayed position of a finished game.

The page's "Analyse" toggle (``assets/js/analysis.js``) asks ``hc.analysis()`` (``py/main.py``)
for the request of the position the replay shows, and hands it to the computer's worker
(:func:`hiddenchess.ai.analysis.analyse`). The request depends on the replay's perspective:

- ``"white"`` / ``"black"`` ("what I knew"): only that seat's view of the game as it stood
  after that ply -- the very view the computer would have been given in that seat then. No
  secret of the other side is in it.
- ``"all"`` ("everything"): the same view of the side to move, plus the truth of that moment
  (the game is over, and everything is known).

>>> from hiddenchess.game.game import Game
>>> g = Game.new("standard")
>>> for san in ["f3", "e5", "g4", "Qh4#"]:
...     _ = g.play(san)
>>> r = position_request(g, 2, "white")
>>> r["view"]["seat"], r["view"]["ply"], "truth" in r, r["turn"]
('white', 2, False, 'white')
>>> position_request(g, 4, "all")["over"]
'Checkmate — Black wins'
>>> position_request(g, 4, "all", {"white": "You", "black": "Computer"})["over"]
'Checkmate — Computer wins'
"""

from hiddenchess.ai import computer_plays
from hiddenchess.ai.analysis import ANALYSIS_PASSES
from hiddenchess.app.errors import SessionError
from hiddenchess.app.pgn import speakers
from hiddenchess.app.text import message
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.record import from_record, to_record

__all__ = ["analysis_request", "position_request", "PERSPECTIVE_LABELS"]

#: How the page names the basis of each perspective.
PERSPECTIVE_LABELS = {"white": "What White knew", "black": "What Black knew", "all": "Everything"}


def analysis_request(session, ply=None, perspective=None) -> dict:
    """The analysis request of the position the session's replay shows (the final position when
    the finished game is not being browsed), or of ``ply`` / as ``perspective`` when given (the
    page analyses the other positions in the background to mark the mistakes); SessionError
    while the game is not over or when
    the computer does not play its variant. ``hidden``: whether the variant keeps secrets (the
    page then says which perspective the analysis used); ``passes``: the node budgets the page
    asks the worker for, one after the other, while the position stays on the board."""
    game = session.game
    if game is None or not game.status.over:
        raise SessionError("the analysis is there once the game is over and everything in it "
                           "is known")
    at = dict(session.replaying.at or {"ply": game.ply, "perspective": "all"})
    if ply is not None:
        at["ply"] = ply
    if perspective is not None:
        at["perspective"] = perspective
    viewer = session.viewer()
    if viewer != "all" and at["perspective"] != viewer:
        # (a game with a friend whose last message, with its secrets, has not come yet: this
        # device knows only its own side)
        raise SessionError(f"until everything in the game is known, only what {viewer.title()} knew "
                           "can be analysed")
    request = position_request(game, at["ply"], at["perspective"], speakers(session))
    request["game"] = session.game_id
    request["hidden"] = bool(session.panel.keeps_secrets)
    request["passes"] = list(ANALYSIS_PASSES)
    return request


def position_request(game, ply: int, perspective: str, names: "dict | None" = None) -> dict:
    """The analysis request of ``game`` (finished) after ``ply`` half-moves, as ``perspective``
    (``"white"``, ``"black"`` or ``"all"``) knew it. Keys: ``key`` (the same request, the same
    key), ``ply``, ``perspective``, ``label``, ``turn``, and either ``view`` (plus ``truth`` for
    ``"all"``) or ``over`` and ``result`` (the game had ended there: its ending's text, in the
    words of the game's result line with ``names`` (``{"white": "You", "black": "Computer"}``),
    and its result)."""
    if not game.status.over:
        raise SessionError("the analysis is there once the game is over")
    if perspective not in PERSPECTIVE_LABELS:
        raise SessionError(f"perspective must be 'white', 'black' or 'all', got {perspective!r}")
    if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= game.ply:
        raise SessionError(f"ply must be a whole number from 0 to {game.ply}, got {ply!r}")
    try:
        if computer_plays(game.variant.id) is None:
            raise SessionError(f"the computer does not play {game.variant.name}, so it cannot "
                               "analyse it")
        then = game_at(game, ply)
        if then.phase == "setup":
            raise SessionError("the game ended before its set-up was done, so there is no position "
                               "to analyse")
    except SessionError:
        raise
    except HiddenChessError as e:
        raise SessionError(f"this game cannot be analysed ({e})") from None
    out = {
        "key": f"{ply}|{perspective}",
        "ply": ply,
        "perspective": perspective,
        "label": PERSPECTIVE_LABELS[perspective],
        "turn": then.turn,
    }
    if then.status.over:
        out["over"] = message(then.status.to_json(), names)
        out["result"] = then.status.result
        return out
    seat = then.turn if perspective == "all" else perspective
    out["view"] = then.view(seat).to_json()
    if perspective == "all":
        fens = [game.play_start_fen] + [p.fen_after for p in game.history]
        out["truth"] = {"fen": fens[ply], "before": fens[:ply]}
    return out


def game_at(game, ply: int):
    """A copy of ``game`` as it stood after ``ply`` half-moves, still going (its record replayed
    without the later moves and without the ending that came after them)."""
    record = to_record(game)
    record["moves"] = record["moves"][:ply]
    record.update(end=None, result=None, reason=None, draw_offer=None, clock=None)
    then, _clock, _meta = from_record(record)
    return then
