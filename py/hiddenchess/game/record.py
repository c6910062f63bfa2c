"""The versioned JSON game record, and PGN export.

A record is what the page saves (in ``localStorage``, see :mod:`hiddenchess.app.storage`), downloads
and reloads. It is plain JSON::

    {
      "format": "hiddenchess-game",          # always this string
      "version": 1,                          # RECORD_VERSION; newer versions are refused
      "variant": "standard",                 # Variant.id
      "start_fen": "rnbqkbnr/... w KQkq - 0 1",
      "moves": [{"uci": "e2e4", "san": "e4"}, ...],   # uci is the truth; san is for people
      "end": null,                           # how the game ended other than by a move, see below
      "draw_offer": null,                    # "white"/"black": a standing draw offer
      "result": "*", "reason": null,         # informational copy of the outcome
      "clock": null,                         # Clock.to_json(), or null for no clock
      "meta": {}                             # free JSON object, see below
    }

``end`` is ``Game.end_action``: ``{"type": "resign", "by": "white"}``, ``{"type": "agreement"}``,
``{"type": "claim", "move": "g1f3"}`` (a claim by declaring a move that is *not* played;
``"move": null`` for a claim in the current position) or ``{"type": "flag", "by": "black"}``;
other fields in it are ignored.
Checkmate, stalemate and the automatic draws need no ``end``: replaying the moves finds them.

:func:`from_record` rebuilds the game by replaying every ``uci`` through :meth:`Game.play` from
``start_fen`` and then applying ``end``: the rules engine, not the file, decides what is legal.
``san``, ``result`` and ``reason`` are for people and for listing games without replaying; the
replay recomputes them and refuses (RecordError naming the ply) a record whose written ones
disagree, so an altered setup (other secret pawns, another placement) or move cannot pass for the
game the record describes, and a record that says the game is over must end there.

``meta`` belongs to the caller; by convention: ``created_ms`` and ``updated_ms`` (epoch ms),
``mode`` (``"local"``, ``"computer"``, ``"peer"``), ``white`` and ``black`` (player names),
``level`` (computer strength). It must be JSON-able.

Extending without a version bump
--------------------------------
Readers ignore top-level sections they do not know, and :func:`extra_sections` returns them so a
program that rewrites a record can carry them over (``to_record(..., extra=...)``). Hidden
variants add a ``setup`` section this way (Secret Pawn Chess: ``{"sealed": {"white": [..],
"black": [..]}}``, written by the variant's rules hook ``record_setup`` and replayed by
``apply_record_setup``). A section that a reader *must* understand to replay the game correctly
is listed in the optional ``"requires": ["setup"]``: a reader that does not know a required section refuses the record with
a clear message instead of replaying it wrongly. Only a change to the meaning of an existing
field needs ``version`` 2.

>>> from hiddenchess import Game
>>> from hiddenchess.game.record import from_record, to_pgn, to_record
>>> g = Game.new("standard")
>>> for san in ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7"]:
...     _ = g.play(san)
>>> data = to_record(g, meta={"white": "Ann", "black": "Bob"})
>>> data["moves"][-1], data["result"], data["reason"]
({'uci': 'h5f7', 'san': 'Qxf7#'}, '1-0', 'checkmate')
>>> game, clock, meta = from_record(data)
>>> game.fen() == g.fen(), clock, meta["white"]
(True, None, 'Ann')
>>> print(to_pgn(g, tags={"White": "Ann", "Black": "Bob"}))
[Event "?"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "Ann"]
[Black "Bob"]
[Result "1-0"]
[Variant "Standard"]
[Termination "Normal"]
<BLANKLINE>
1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# {Checkmate - White wins} 1-0
<BLANKLINE>
"""

from __future__ import annotations

from hiddenchess.errors import RecordError
from hiddenchess.game.clock import Clock
from hiddenchess.game.game import Game
from hiddenchess.game.record_format import (
    KNOWN_SECTIONS, RECORD_FORMAT, RECORD_VERSION, extra_sections, read_record, to_pgn, to_record,
)

__all__ = [
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "KNOWN_SECTIONS",
    "to_record",
    "from_record",
    "extra_sections",
    "to_pgn",
    "RecordError",
]


def from_record(data: dict) -> tuple[Game, Clock | None, dict]:
    """Rebuild ``(game, clock, meta)`` from a record, replaying every move (see
    :func:`~hiddenchess.game.record_format.read_record` for the errors)."""
    return read_record(data, Game)
