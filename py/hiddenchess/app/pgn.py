"""PGN as lichess writes it, both ways: the tags of an exported game, and what an imported PGN
brings besides its moves (its tags, clock comments and ending).

Export (:func:`export_tags`): the Seven Tag Roster with the players' names as the page knows
them (``"You"``, ``"Computer level 5"``, ``"Your friend"``; ``"Anonymous"`` for two players on
one device, as lichess names a player without an account), the game's date (UTC), ``Round "-"``,
``UTCDate``/``UTCTime``, ``Variant``, ``TimeControl`` (``"300+3"``, ``"-"`` without a clock) and
``Termination`` (``Normal``, ``Time forfeit``, ``Unterminated``) are written by
:func:`hiddenchess.game.record_format.to_pgn`.

Import (:func:`read_pgn`): the moves are replayed by the engine; a result the moves alone do not
reach (a resignation, a flag, an agreed draw) ends the game as the ``Result`` and
``Termination`` tags say, so a finished game stays finished; the tags (names, event, date,
ratings, opening...) and the ``[%clk 0:03:00]`` comments are kept with the game
(:data:`session.pgn`) and written again on export.

>>> game, kept = read_pgn('[White "Ann"]\\n[Black "Bob"]\\n[Result "1-0"]\\n\\n'
...                       '1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:02:59] } 1-0')
>>> game.status.result, game.status.reason, kept["tags"]["White"], kept["clk"]
('1-0', 'resignation', 'Ann', ['0:03:00', '0:02:59'])
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from hiddenchess.app.errors import SessionError
from hiddenchess.app.panels import base_variant
from hiddenchess.app.text import COLORS, other
from hiddenchess.engine.variant import VARIANTS
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.game import Game
from hiddenchess.game.record_format import termination

__all__ = ["read_pgn", "export_tags", "names", "shown_names", "speakers", "check_kept",
           "clock_comments", "parse_tags"]

#: Tags an import keeps at most, and the longest value kept (longer ones are cut).
MAX_TAGS = 40
MAX_VALUE = 200
#: Tags that come from the game itself, never from what was imported.
GENERATED = frozenset({"Result", "Variant", "SetUp", "FEN", "PlyCount"})
#: Tags an import keeps before any other.
_FIRST = frozenset({"Event", "Site", "Date", "Round", "White", "Black", "UTCDate", "UTCTime",
                    "TimeControl", "Termination"})
#: Names that say no more than the colour.
NO_NAME = frozenset({"", "?", "-", "anonymous"})
#: Where the export says the game was played when the page does not say its address.
SITE = "Hidden Chess"

_TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_TAG_NAME = re.compile(r"^[A-Za-z0-9_]{1,40}$")
_TOKEN = re.compile(r"\{([^}]*)\}?|;[^\n]*|\(|\)|[^\s{}();]+")
# (minutes and seconds below 60: a "0:99:00" is no clock, and is dropped)
_CLK = re.compile(r"\[%clk\s+(\d{1,3}:[0-5]\d:[0-5]\d(?:\.\d{1,3})?)\]")
_CLK_VALUE = re.compile(r"^\d{1,3}:[0-5]\d:[0-5]\d(?:\.\d{1,3})?$")
_NUMBER = re.compile(r"^\d+\.(\.\.)?$|^\d+\.\.\.$")
_RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
_ANNOTATION = re.compile(r"[!?]+$")


# -- import ----------------------------------------------------------------------------------------

def parse_tags(text: str) -> tuple:
    """``(tags, movetext)`` of a PGN: the tag pairs (unescaped, in order) and the rest."""
    tags = {}
    for name, value in _TAG.findall(text):
        tags.setdefault(name, value.replace('\\"', '"').replace("\\\\", "\\"))
    return tags, _TAG.sub(" ", text)


def _variant_of(tags: dict) -> str:
    if "Variant" not in tags:
        return base_variant()
    name = tags["Variant"].strip().lower()
    for vid, v in VARIANTS.items():
        if name in ((v.pgn_name or v.name).lower(), v.name.lower(), vid):
            return vid
    if name in ("chess", "normal", "from position"):  # (other sites' names of chess)
        return base_variant()
    raise SessionError(f"the PGN's variant {tags['Variant']!r} is not one this page plays")


def _movetext(text: str) -> tuple:
    """``(moves, clocks, result)``: the main line's move tokens, the ``%clk`` of each (or
    ``None``), and the result written at its end (or ``None``). Variations, NAGs and other
    comments are left out."""
    depth, moves, clocks, result = 0, [], [], None
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth = max(0, depth - 1)
        elif depth or tok.startswith(";"):
            continue
        elif m.group(1) is not None or tok.startswith("{"):
            clk = _CLK.search(m.group(1) or "")
            if clk and moves and clocks[-1] is None:
                clocks[-1] = clk.group(1)
        elif tok in _RESULTS:
            result = tok
        elif _NUMBER.match(tok) or tok.startswith("$") or tok.startswith("**"):
            continue   # (Secret Pawn's reveal marks "**c4" are not moves)
        else:
            number = re.match(r"^\d+\.+(.+)$", tok)   # "1.e4"
            moves.append(number.group(1) if number else tok)
            clocks.append(None)
    return moves, clocks, result


#: The longest move text a PGN may hold (Hidden Identity's ``e1g1 castle h1f1`` is 16).
MAX_MOVE_CHARS = 40


def _play(game: Game, tokens: list) -> int:
    """Play the PGN's moves (SessionError naming the first that cannot be); the plies played."""
    number = game.position.fullmove
    for tok in tokens:
        if game.status.over:
            raise SessionError(f"the PGN goes on after the end of the game ({game.status.message})")
        label = f"{number}{'.' if game.turn == 'white' else '...'} {tok}"
        if len(tok) > MAX_MOVE_CHARS:  # (no move is written that long: say so, not all of it)
            raise SessionError(f"move {label[:label.index(' ') + 1 + 12]}… of the PGN is not a move "
                               f"({len(tok):,} characters)")
        wanted = _ANNOTATION.sub("", tok)
        # (a move that draws plays the role it says it drew, e.g. Reveal's "Nf3?B"; any other
        # text the engine reads as SAN or UCI, as leniently as python-chess: 0-0, a8Q, ed5, e2-e4)
        drawn = game.rules.written_draw(wanted)
        try:
            result = game.play(wanted, draw=drawn or None)
        except HiddenChessError as e:
            raise SessionError(f"move {label} of the PGN cannot be played: {e}") from None
        if drawn == "" and any(e.kind == "reveal" for e in game.history[-1].events):
            raise SessionError(f"move {label} of the PGN reveals a cover but does not say what it "
                               f"became (as in {result.san.split()[0]}): this text cannot be imported")
        if game.turn == "white":
            number += 1
    return game.ply


def _finish(game: Game, result: str, ending: str) -> None:
    """End ``game`` as the PGN's ``result`` says where its moves do not: a decisive result is a
    resignation (``Time forfeit``: a flag), a draw an agreement (a claim where one stands, a flag
    where the winner could not mate). SessionError when the moves end otherwise."""
    status = game.status
    if result not in ("1-0", "0-1", "1/2-1/2"):
        return
    if status.over:
        if status.result != result:
            ends = "its moves end" if game.ply else "its start position ends"
            raise SessionError(f"the PGN says {result}, but {ends} the game {status.result} ({status.message})")
        return
    on_time = ending.strip().lower() == "time forfeit"
    try:
        if result == "1/2-1/2":
            flagged = next((c for c in (game.turn, other(game.turn))
                            if not game.has_mating_material(other(c))), None)
            if on_time and flagged is not None:
                game.flag(flagged)
            elif game.claimable_draw():
                game.claim_draw()
            elif not _claim_by_declaring(game):  # (a claim by a declared move, as exported)
                game.agree_draw()
            return
        loser = "black" if result == "1-0" else "white"
        if on_time and game.has_mating_material(other(loser)):
            game.flag(loser)
        else:
            game.resign(loser)
    except HiddenChessError as e:  # pragma: no cover - the game is ongoing here
        raise SessionError(f"the PGN's result {result} cannot stand: {e}") from None


def _claim_by_declaring(game: Game) -> bool:
    """Claim a draw by declaring the first move that qualifies (threefold or fifty moves); whether
    one did (the game is then over)."""
    for move in game.legal_moves():
        try:
            game.claim_draw(move)
        except HiddenChessError:
            continue
        return True
    return False


def _kept_tags(tags: dict) -> dict:
    """The tags kept (at most :data:`MAX_TAGS`, the roster and the time first), in their order."""
    first = {n for n in tags if n in _FIRST}
    chosen = set(list(first) + [n for n in tags if n not in first and n not in GENERATED
                                and _TAG_NAME.match(n)][:MAX_TAGS - len(first)])
    return {n: " ".join(v.split())[:MAX_VALUE] for n, v in tags.items() if n in chosen}


def read_pgn(text: str) -> tuple:
    """``(game, kept)``: the game a PGN describes, every move replayed and checked and its
    ending applied, and what the session keeps of it (``{"tags": {...}, "clk": [...]}``);
    SessionError for anything it cannot use."""
    tags, body = parse_tags(text)
    vid = _variant_of(tags)
    fen = tags.get("FEN") if tags.get("SetUp", "1" if "FEN" in tags else "0") == "1" else None
    try:
        game = Game.new(vid, fen=fen)
    except HiddenChessError as e:
        raise SessionError(f"the PGN's start position cannot be used: {e}") from None
    if game.phase != "play" and not game.status.over:   # (a position already over has no set-up)
        raise SessionError(f"a {game.variant.name} game is imported from its JSON record: a PGN "
                           f"does not hold the choices made before the first move")
    tokens, clocks, written = _movetext(body)
    result = tags.get("Result", "*")
    # (a FEN alone is a position to play from; a result alone, a game that ended before a move)
    if not tokens and fen is None and (written or result) == "*":
        raise SessionError("this text holds no moves (paste a PGN or a JSON record)")
    _play(game, tokens)
    if result not in _RESULTS:
        raise SessionError(f"the PGN's result {result!r} is not one of 1-0, 0-1, 1/2-1/2, *")
    if result == "*" and written is not None:
        result = written
    elif written not in (None, "*", result):
        raise SessionError(f"the PGN's Result tag says {result}, but its moves end with {written}")
    _finish(game, result, tags.get("Termination", ""))
    kept = {"tags": _kept_tags(tags), "clk": clocks if any(clocks) else []}
    if not game.status.over:
        kept["tags"].pop("Termination", None)   # (the game goes on: its ending is still to come)
    return game, kept


def _encodable(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8 (a lone surrogate, escaped in JSON, cannot)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_kept(data) -> "dict | None":
    """What an imported PGN left with a saved game (``{"tags", "clk"}``) when it is sound, else
    ``None`` (a damaged save loses only the names, never the game)."""
    if not isinstance(data, dict):
        return None
    tags, clk = data.get("tags"), data.get("clk")
    if not isinstance(tags, dict) or not isinstance(clk, list) or len(tags) > MAX_TAGS:
        return None
    if not all(isinstance(k, str) and _TAG_NAME.match(k) and k not in GENERATED
               and isinstance(v, str) and len(v) <= MAX_VALUE and _encodable(v)
               for k, v in tags.items()):
        return None
    if len(clk) > 10_000 or not all(c is None or isinstance(c, str) and _CLK_VALUE.match(c)
                                    for c in clk):
        return None
    return {"tags": dict(tags), "clk": list(clk)}


_DAY = re.compile(r"^[12][0-9]{3}\.(0[1-9]|1[0-2])\.(0[1-9]|[12][0-9]|3[01])$")


# -- names and export ------------------------------------------------------------------------------

def shown_names(session) -> "dict | None":
    """The names an imported PGN gave the players (``{"white": "Ann", "black": None}``), for the
    player boxes; ``None`` when it gave none."""
    return names_in(session.pgn)


def played_on(kept) -> "str | None":
    """The day an imported game was played, from its ``Date`` tag when it names a whole day
    (``"2024.03.01"``; not ``"2024.??.??"``), else ``None``.

    >>> played_on({"tags": {"Date": "2024.03.01"}}), played_on({"tags": {"Date": "2024.??.??"}})
    ('2024.03.01', None)
    """
    day = (kept or {}).get("tags", {}).get("Date")
    return day if isinstance(day, str) and _DAY.match(day) else None


def names_in(kept) -> "dict | None":
    """:func:`shown_names` of what an import kept (``{"tags", "clk"}``, or ``None``)."""
    tags = (kept or {}).get("tags", {})
    out = {c: tags.get(c.title()) for c in COLORS}
    out = {c: (v if v and v.strip().lower() not in NO_NAME else None) for c, v in out.items()}
    return out if any(out.values()) else None


def names(session) -> dict:
    """Who played each side, as the PGN names them."""
    known = session.mode.names(session) or {}
    shown = shown_names(session) or {}
    tags = (session.pgn or {}).get("tags", {})
    return {c: tags.get(c.title()) or shown.get(c) or known.get(c) or "Anonymous" for c in COLORS}


def speakers(session) -> "dict | None":
    """The names the end-of-game line uses: the mode's (``You``, ``Computer``) or an imported
    game's players."""
    return session.mode.speakers(session) or shown_names(session)


def _speed(clock) -> str:
    """Lichess's speed of a time control: the estimated game time, initial + 40 increments."""
    if clock is None:
        return "Correspondence"
    seconds = (clock.settings.initial_ms + 40 * clock.settings.increment_ms) / 1000
    for limit, name in ((30, "UltraBullet"), (180, "Bullet"), (480, "Blitz"), (1500, "Rapid")):
        if seconds < limit:
            return name
    return "Classical"


def export_tags(session, site: "str | None" = None) -> dict:
    """The tags of the session's game for :func:`~hiddenchess.game.record_format.to_pgn`, as
    lichess writes them; an imported game keeps the tags it came with."""
    g = session.game
    kept = dict((session.pgn or {}).get("tags", {}))
    when = datetime.fromtimestamp(max(0, session.created_ms) / 1000, tz=timezone.utc)
    date = when.strftime("%Y.%m.%d") if session.created_ms > 0 else "????.??.??"
    clock = session.mode.record_clock(session)
    perf = _speed(clock) if g.variant.id == base_variant() else g.variant.name
    player = names(session)
    tags = {
        "Event": f"Casual {perf} game",
        "Site": site or SITE,
        "Date": date,
        "Round": "-",
        "White": player["white"],
        "Black": player["black"],
    }
    if session.created_ms > 0:
        tags["UTCDate"] = date
        tags["UTCTime"] = when.strftime("%H:%M:%S")
    if clock is None:
        tags["TimeControl"] = "-"
    tags["Termination"] = termination(g)
    for name, value in kept.items():
        if name == "TimeControl" and clock is not None:
            continue
        if name == "Termination" and (not g.status.over or value == "Unterminated"):
            continue  # (an unfinished game's tag: the game's own ending stands)
        tags[name] = value
    return tags


def clock_comments(session) -> list:
    """The comment after each ply: an imported game's ``[%clk ...]``."""
    return [f"[%clk {c}]" if c else None for c in (session.pgn or {}).get("clk", [])]
