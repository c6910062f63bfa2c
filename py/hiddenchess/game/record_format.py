"""Writing and reading game records (the format is described in :mod:`hiddenchess.game.record`).

This module knows a game only through the instance (or class) it is given, so that
:class:`~hiddenchess.game.game.Game` can offer ``to_record``/``from_record``/``pgn`` without an
import loop; use the functions of :mod:`hiddenchess.game.record`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hiddenchess.game.clock import Clock
from hiddenchess.errors import ClockError, HiddenChessError, RecordError
from hiddenchess.engine.variant import get_variant

__all__ = [
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "KNOWN_SECTIONS",
    "to_record",
    "read_record",
    "extra_sections",
    "to_pgn",
    "RecordError",
]

RECORD_FORMAT = "hiddenchess-game"
RECORD_VERSION = 1

#: Top-level keys this version reads. Others are optional extension sections (see module doc).
KNOWN_SECTIONS = frozenset(
    {"format", "version", "variant", "start_fen", "moves", "end", "draw_offer", "result",
     "reason", "clock", "meta", "requires", "setup"}
)

#: Sections this version can honour when a record says it ``requires`` them.
UNDERSTOOD = frozenset(KNOWN_SECTIONS - {"requires"})

COLORS = ("white", "black")
END_TYPES = ("resign", "agreement", "claim", "flag", "abort")


def _json_copy(value: Any, what: str) -> Any:
    """A deep copy through JSON, so the record shares nothing with the caller; RecordError if
    ``value`` cannot be written as JSON."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as e:
        raise RecordError(f"{what} must be JSON data: {e}") from None


def to_record(
    game,
    *,
    clock: Clock | None = None,
    meta: dict | None = None,
    extra: dict | None = None,
    moves: list | None = None,
) -> dict:
    """The JSON record of ``game`` (with its ``clock`` and ``meta``), a fresh plain dict.

    ``extra`` holds extension sections to carry over (usually ``extra_sections(old_record)``);
    their names must not clash with :data:`KNOWN_SECTIONS`. ``moves``: the ``moves`` section
    to write instead of the history's (the page's saving writes ``[]`` and puts in the text it
    keeps of the moves, :mod:`hiddenchess.app.saving`).

    >>> from hiddenchess import Game
    >>> g = Game.new("standard")
    >>> _ = g.play("e4"); _ = g.resign("black")
    >>> rec = to_record(g)
    >>> rec["moves"], rec["end"], rec["result"]
    ([{'uci': 'e2e4', 'san': 'e4'}], {'type': 'resign', 'by': 'black'}, '1-0')
    """
    if clock is not None and not isinstance(clock, Clock):
        raise RecordError(f"clock must be a Clock or None, got {type(clock).__name__}")
    if meta is not None and not isinstance(meta, dict):
        raise RecordError(f"meta must be a dict, got {type(meta).__name__}")
    if extra is not None and not isinstance(extra, dict):
        raise RecordError(f"extra must be a dict of sections, got {type(extra).__name__}")
    clash = sorted(set(extra or {}) & KNOWN_SECTIONS)
    if clash:
        raise RecordError(f"extra sections may not replace {', '.join(clash)}")
    status = game.status
    record = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "variant": game.variant.id,
        "start_fen": game.start_fen,
        "moves": ([{"uci": ply.uci, "san": ply.san} for ply in game.history] if moves is None
                  else moves),
        "end": dict(game.end_action) if getattr(game, "end_action", None) else None,
        "draw_offer": None if status.over else getattr(game, "draw_offer", None),
        "result": status.result,
        "reason": status.reason,
        "clock": clock.to_json() if clock is not None else None,
        "meta": _json_copy(meta or {}, "meta"),
    }
    setup = game.rules.record_setup(game)
    if setup is not None:
        record["setup"] = _json_copy(setup, "setup")
        record["requires"] = ["setup"]
    record.update(_json_copy(extra or {}, "extra sections"))
    return record


def extra_sections(data: dict) -> dict:
    """The extension sections of a record (top-level keys this version does not know).

    >>> extra_sections({"format": "hiddenchess-game", "notes": {"white": "Ann"}})
    {'notes': {'white': 'Ann'}}
    """
    if not isinstance(data, dict):
        raise RecordError(f"a game record must be a JSON object, got {type(data).__name__}")
    return {k: v for k, v in data.items() if k not in KNOWN_SECTIONS}


def _check_type(data: dict, key: str, types: tuple, what: str, *, required: bool = True) -> Any:
    if key not in data:
        if required:
            raise RecordError(f"'{key}' is missing")
        return None
    value = data[key]
    if isinstance(value, bool) and bool not in types:
        raise RecordError(f"'{key}' must be {what}, got {value!r}")
    if not isinstance(value, types):
        shown = repr(value) if len(repr(value)) <= 60 else type(value).__name__
        raise RecordError(f"'{key}' must be {what}, got {shown}")
    return value


def read_record(data: dict, game_class) -> tuple:
    """Rebuild ``(game, clock, meta)`` from a record, replaying every move; ``game_class`` is
    the :class:`~hiddenchess.game.game.Game` class (or a subclass) to build.

    Raises :class:`~hiddenchess.errors.RecordError` with a clear message for anything malformed:
    wrong format or version, unknown variant, bad FEN, a move that is not legal at its ply, a bad
    ending, a bad clock, wrong types. Nothing half-built is ever returned.

    >>> from hiddenchess import Game
    >>> read_record({"format": "hiddenchess-game", "version": 1, "variant": "standard",
    ...              "start_fen": "8/8/8/8/8/8/8/K6k w - - 0 1", "moves": [{"uci": "a1a3"}]}, Game)
    Traceback (most recent call last):
      ...
    hiddenchess.errors.RecordError: bad game record: ply 1 ('a1a3'): game over: the game has ended (insufficient-material)
    """
    if not isinstance(data, dict):
        raise RecordError(f"a game record must be a JSON object, got {type(data).__name__}")
    fmt = data.get("format")
    if fmt != RECORD_FORMAT:
        raise RecordError(f"not a Hidden Chess game (format {fmt!r}, expected {RECORD_FORMAT!r})")
    version = _check_type(data, "version", (int,), "an integer")
    if version > RECORD_VERSION:
        raise RecordError(
            f"it was made by a newer version of Hidden Chess (record version {version}; this "
            f"program reads version {RECORD_VERSION})"
        )
    if version < 1:
        raise RecordError(f"record version {version} does not exist")
    requires = _check_type(data, "requires", (list,), "a list of section names", required=False)
    for name in requires or []:
        if not isinstance(name, str):
            raise RecordError(f"'requires' must list section names, got {name!r}")
        if name not in UNDERSTOOD:
            raise RecordError(
                f"it needs the {name!r} section, which this version of Hidden Chess does not "
                "understand; open it with a newer version"
            )

    variant_id = _check_type(data, "variant", (str,), "a variant id")
    try:
        variant = get_variant(variant_id)
    except HiddenChessError as e:
        raise RecordError(str(e)) from None
    start_fen = _check_type(data, "start_fen", (str,), "a FEN string")
    moves = _check_type(data, "moves", (list,), "a list of moves")
    end = _check_type(data, "end", (dict, type(None)), "an object or null", required=False)
    draw_offer = _check_type(data, "draw_offer", (str, type(None)), "a colour or null", required=False)
    if draw_offer is not None and draw_offer not in COLORS:
        raise RecordError(f"'draw_offer' must be 'white', 'black' or null, got {draw_offer!r}")
    clock_data = _check_type(data, "clock", (dict, type(None)), "an object or null", required=False)
    meta = _check_type(data, "meta", (dict,), "an object", required=False)

    try:
        game = game_class.new(variant, fen=start_fen)
    except HiddenChessError as e:
        raise RecordError(f"its start position is not usable: {e}") from None
    setup = _check_type(data, "setup", (dict, type(None)), "an object or null", required=False)
    if setup is not None:
        try:
            game.rules.apply_record_setup(game, setup)
        except HiddenChessError as e:
            raise RecordError(f"its setup: {e}") from None

    for index, entry in enumerate(moves):
        ply = index + 1
        if not isinstance(entry, dict):
            raise RecordError(f"ply {ply}: each move must be an object with 'uci', got {entry!r}")
        uci = entry.get("uci")
        if not isinstance(uci, str):
            raise RecordError(f"ply {ply}: 'uci' must be a string, got {uci!r}")
        san = entry.get("san")
        if san is not None and not isinstance(san, str):
            raise RecordError(f"ply {ply}: 'san' must be a string, got {san!r}")
        try:
            result = game.play(uci)
        except HiddenChessError as e:
            raise RecordError(f"ply {ply} ({uci!r}): {e}") from None
        if result.uci != uci:
            raise RecordError(f"ply {ply}: {uci!r} is not in UCI form (the move is {result.uci!r})")

    if end is not None:
        _apply_end(game, end)
    if draw_offer is not None:
        if game.status.over:
            raise RecordError("a draw offer is recorded after the end of the game")
        try:
            game.offer_draw(draw_offer)
        except HiddenChessError as e:  # pragma: no cover - the game is ongoing here
            raise RecordError(f"the draw offer cannot stand: {e}") from None
    _check_claims(game, moves, data)

    clock = None
    if clock_data is not None:
        try:
            clock = Clock.from_json(clock_data)
        except ClockError as e:
            raise RecordError(f"its clock: {e.message}") from None
    return game, clock, _json_copy(meta or {}, "meta")


def _check_claims(game, moves: list, data: dict) -> None:
    """Refuse a record whose written SAN or result is not what its replay gives: a record must
    prove what it claims (an altered setup, such as other secret pawns or another placement,
    would otherwise replay as a different game under the same SAN and result). A record that
    says the game is finished must end there: it cannot stop short of its ending."""
    for index, entry in enumerate(moves):
        san = entry.get("san")
        if san is not None and san != game.history[index].san:
            raise RecordError(f"ply {index + 1}: the record says {san!r}, but the replay plays "
                              f"{game.history[index].san!r} (moves or setup were altered)")
    status = game.status
    result = data.get("result")
    if result is not None and result != status.result:
        if status.result == "*":
            raise RecordError(f"the record says the game ended {result!r}, but its replay is "
                              "still in progress (moves or its ending are missing)")
        raise RecordError(f"the record says the result is {result!r}, but the replay gives "
                          f"{status.result!r} ({status.reason})")
    reason = data.get("reason")
    if result is not None and reason is not None and reason != status.reason:
        raise RecordError(f"the record says the game ended by {reason!r}, but the replay ends by "
                          f"{status.reason!r}")


def _apply_end(game, end: dict) -> None:
    kind = end.get("type")
    if kind not in END_TYPES:
        raise RecordError(f"unknown ending {kind!r} (expected one of {', '.join(END_TYPES)})")
    # Fields other than type/by/move are ignored (a newer engine may add details such as a
    # reason); the ending is re-applied through the Game API, which recomputes the outcome.
    if kind in ("resign", "flag") and end.get("by") not in COLORS:
        raise RecordError(f"the {kind} ending needs 'by': 'white' or 'black', got {end.get('by')!r}")
    move = end.get("move")
    if kind == "claim" and move is not None and not isinstance(move, str):
        raise RecordError(f"a claimed draw's declared move must be a string or null, got {move!r}")
    if game.status.over:
        raise RecordError(
            f"a {kind} ending is recorded after the game had already ended ({game.status.reason})"
        )
    try:
        if kind == "resign":
            game.resign(end["by"])
        elif kind == "flag":
            game.flag(end["by"])
        elif kind == "agreement":
            game.agree_draw()
        elif kind == "abort":
            game.abort()
        else:
            game.claim_draw(move)
    except HiddenChessError as e:
        raise RecordError(f"the {kind} ending does not stand: {e}") from None


# -- PGN -----------------------------------------------------------------------------------------

SEVEN_TAG_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
_DEFAULT_TAGS = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "White": "?",
                 "Black": "?"}
_TAG_NAME = re.compile(r"^[A-Za-z0-9_]+$")
LINE_WIDTH = 80


def _tag_value(value: object) -> str:
    text = " ".join(str(value).split())  # no newlines or tabs inside a tag
    return text.replace("\\", "\\\\").replace('"', '\\"')


def termination(game) -> str:
    """The ``Termination`` tag as lichess writes it: ``Normal``, ``Time forfeit``,
    ``Unterminated``, ``Abandoned`` (an aborted game)."""
    status = game.status
    if not status.over:
        return "Unterminated"
    if status.reason == "aborted":
        return "Abandoned"
    if status.reason in ("timeout", "timeout-insufficient-material"):
        return "Time forfeit"
    return "Normal"


def to_pgn(game, *, tags: dict | None = None, clock: Clock | None = None,
           comments: list | None = None) -> str:
    """The game as PGN: tags, SAN movetext with move numbers wrapped at 80 columns, result.

    Tags: the Seven Tag Roster (``"?"`` where unknown; pass ``tags`` for names, date, event...),
    ``Variant`` (``Standard`` for ordinary chess), ``SetUp``/``FEN`` when the game did not
    start from the variant's start position, ``TimeControl`` when a ``clock`` is given,
    ``Termination``, then any other ``tags`` in the order given. ``Result`` always comes from the
    game. ``comments``: a text per ply (or ``None``) written as a comment after its move, e.g. a
    clock ``[%clk 0:03:00]``. The movetext ends with a comment saying how the game ended, then
    the result.

    >>> from hiddenchess import Game
    >>> g = Game.new("standard", fen="4k3/8/8/8/8/8/4P3/4K3 b - - 0 30")
    >>> _ = g.play("Kd7"); _ = g.play("e4")
    >>> print(to_pgn(g, tags={"Event": "Endgame drill", "Annotator": "me"}))
    [Event "Endgame drill"]
    [Site "?"]
    [Date "????.??.??"]
    [Round "?"]
    [White "?"]
    [Black "?"]
    [Result "*"]
    [Variant "Standard"]
    [SetUp "1"]
    [FEN "4k3/8/8/8/8/8/4P3/4K3 b - - 0 30"]
    [Termination "Unterminated"]
    [Annotator "me"]
    <BLANKLINE>
    30... Kd7 31. e4 *
    <BLANKLINE>
    """
    tags = dict(tags or {})
    for name in tags:
        if not isinstance(name, str) or not _TAG_NAME.match(name):
            raise HiddenChessError(f"PGN tag names are letters, digits and '_', got {name!r}")
    result = game.status.result
    lines = []
    for name in SEVEN_TAG_ROSTER:
        value = result if name == "Result" else tags.get(name, _DEFAULT_TAGS[name])
        lines.append(f'[{name} "{_tag_value(value)}"]')
    variant = game.variant
    generated = {}
    if variant.pgn_name:
        generated["Variant"] = variant.pgn_name
    if game.start_fen != type(game).new(variant).start_fen:
        generated["SetUp"] = "1"
        generated["FEN"] = game.start_fen
    if clock is not None:
        generated["TimeControl"] = clock.settings.pgn_time_control()
    generated["Termination"] = termination(game)
    for name, value in generated.items():
        value = tags.get(name, value) if name not in ("FEN", "SetUp") else value
        lines.append(f'[{name} "{_tag_value(value)}"]')
    for name, value in tags.items():
        if name not in SEVEN_TAG_ROSTER and name not in generated:
            lines.append(f'[{name} "{_tag_value(value)}"]')

    tokens = _movetext_tokens(game, comments or [])
    if game.status.over:
        message = game.status.message.replace("\u2014", "-").replace("{", "(").replace("}", ")")
        tokens.append("{" + message + "}")
    tokens.append(result)
    return "\n".join(lines) + "\n\n" + "\n".join(_wrap(tokens, LINE_WIDTH)) + "\n"


def _comment(text: str) -> str:
    return "{ " + " ".join(str(text).replace("{", "(").replace("}", ")").split()) + " }"


def _movetext_tokens(game, comments: list) -> list[str]:
    fields = game.start_fen.split()
    black_first = len(fields) > 1 and fields[1] == "b"
    try:
        number = max(1, int(fields[5]))
    except (IndexError, ValueError):
        number = 1
    tokens = []
    commented = False
    for index, ply in enumerate(game.history):
        white_to_move = (index % 2 == 0) != black_first
        if white_to_move:
            tokens.append(f"{number}.")
        elif index == 0 or commented:   # (after a comment, as lichess and python-chess write)
            tokens.append(f"{number}...")
        # Reveal marks of Secret Pawn Chess ("Rd5 **c4") are not PGN movetext: keep them as a
        # comment after the move ({**c4}).
        move, _, reveal = ply.san.partition(" ")
        tokens.append(move)
        commented = False
        if reveal:
            tokens.append("{" + reveal + "}")
            commented = True
        extra = comments[index] if index < len(comments) else None
        if extra:
            tokens.append(_comment(extra))
            commented = True
        if not white_to_move:
            number += 1
    return tokens


def _wrap(tokens: list[str], width: int) -> list[str]:
    """Greedy line filling; a move number stays on the line of its move."""
    # Glue "12." to the move that follows so a line never ends with a bare number.
    glued: list[str] = []
    for token in tokens:
        if glued and glued[-1].endswith(".") and glued[-1][:1].isdigit():
            glued[-1] = f"{glued[-1]} {token}"
        else:
            glued.append(token)
    lines: list[str] = []
    line = ""
    for token in glued:
        if line and len(line) + 1 + len(token) > width:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    if line:
        lines.append(line)
    return lines
