"""Games in and out of the page: PGN and JSON record export, the FEN, a replay link, and import.

Export is what the screen may show: a game whose variant keeps secrets (Secret Pawn, Hidden
Identity) is exported once it is over and its truth is known, never before (its record would show
both sides' choices). The FEN is offered for variants without secrets. A finished game can be
shared as a link whose fragment carries the record, compressed (``#replay=...``): the fragment
never leaves the browser, and opening the link imports the game and shows its replay.

Import takes a JSON record (any variant: it holds every secret) or a PGN (the variants whose
moves alone rebuild the game, Reveal's with the roles its moves name: a PGN of Secret Pawn or
Hidden Identity lacks the set-up choices, and is refused with the reason). Every move is replayed by the engine; a damaged text is refused with a
clear error and the game in progress stays as it was.

>>> from hiddenchess import Game
>>> g = game_from_pgn('[Variant "Royal Pawn"]\\n\\n1. e4 d5+ 2. e5 Nc6# 0-1')
>>> g.variant.id, g.status.result
('royal-pawn', '0-1')
>>> game_from_pgn("1. e4 e5 2. Ke3")
Traceback (most recent call last):
...
hiddenchess.app.errors.SessionError: move 2. Ke3 of the PGN cannot be played: illegal move: Ke3 is not legal in this position
"""

from __future__ import annotations

import base64
import json
import re
import zlib

from hiddenchess.app.errors import SessionError
from hiddenchess.app.pgn import GENERATED, MAX_TAGS, MAX_VALUE, check_kept, clock_comments, export_tags, read_pgn
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.game import Game
from hiddenchess.game.record import from_record, to_pgn, to_record
from hiddenchess.safejson import UnsafeJsonError, loads as safe_loads

__all__ = ["MAX_IMPORT_BYTES", "export_game", "import_text", "read_import", "read_record", "check_import", "import_into", "game_from_pgn", "pack_link",
           "unpack_link"]

#: The largest text import takes (a record of a very long game is well under this).
MAX_IMPORT_BYTES = 400_000
_JSON_START = re.compile(r'\{\s*("|\})')
#: The largest replay link's fragment (compressed and base64).
MAX_LINK_CHARS = 200_000


def _truth_shown(session) -> bool:
    g = session.game
    return not session.panel.keeps_secrets or (g.status.over and getattr(g, "truth_known", True))


def export_game(session, site: "str | None" = None) -> dict:
    """``{"pgn", "record", "fen", "link", "filename"}`` of the session's game (``fen``/``link``:
    ``None`` where not offered); SessionError while its secrets are still secret. ``site``: the
    page's address, the PGN's ``Site`` (:func:`hiddenchess.app.pgn.export_tags`)."""
    g = session.game
    if not _truth_shown(session):
        # (not "both sides' secrets": in a game with a friend this device holds its own only)
        raise SessionError("this game can be exported once it is over: until then its record "
                           "would give away secrets still hidden")
    if site is not None and (not isinstance(site, str) or len(site) > MAX_VALUE):
        site = None
    tags = export_tags(session, site)
    comments = clock_comments(session)
    clock = session.mode.record_clock(session)  # (a friend game's is its own)
    record = export_record(g, clock, tags, (session.pgn or {}).get("clk", []))
    text = json.dumps(record, separators=(",", ":"))
    return {
        "pgn": to_pgn(g, tags=tags, clock=clock, comments=comments),
        "record": text,
        "fen": None if session.panel.keeps_secrets else g.fen(),
        "link": pack_link(text) if g.status.over else None,
        "filename": f"hidden-chess-{g.variant.id}-{session.game_id}",
    }


def pack_link(record_text: str) -> str:
    """The ``#replay=`` fragment value of a record: zlib-compressed, base64url, no padding."""
    packed = base64.urlsafe_b64encode(zlib.compress(record_text.encode("utf-8"), 9)).decode("ascii")
    return packed.rstrip("=")


def unpack_link(value: str) -> str:
    """The record text of a ``#replay=`` fragment value (SessionError when damaged)."""
    if not isinstance(value, str) or not value or len(value) > MAX_LINK_CHARS:
        raise SessionError("this replay link is empty or too long")
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        out = zlib.decompressobj()
        data = out.decompress(raw, MAX_IMPORT_BYTES + 1)
        if len(data) > MAX_IMPORT_BYTES or out.unconsumed_tail:
            raise SessionError("this replay link holds more than a game")
        if not out.eof or out.unused_data:   # (cut short, or something after the game)
            raise ValueError
        return data.decode("utf-8")
    except (ValueError, zlib.error, UnicodeDecodeError):
        raise SessionError("this replay link is damaged (was it cut short when copied?)") from None


def import_text(text) -> tuple:
    """``(game, clock)`` from a pasted or loaded JSON record or PGN (SessionError)."""
    game, clock, _kept = read_import(text)
    return game, clock


def read_import(text) -> tuple:
    """``(game, clock, kept)`` from a pasted or loaded JSON record or PGN (SessionError);
    ``kept``: what a PGN brings besides its moves (:func:`hiddenchess.app.pgn.read_pgn`), or what
    a record's ``meta`` kept of one, else ``None``."""
    if not isinstance(text, str) or not text.strip("\ufeff \t\r\n"):
        raise SessionError("paste a game's PGN or its JSON record to import it")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise SessionError("this text holds characters that are not text (lone surrogates)") from None
    if size > MAX_IMPORT_BYTES:
        raise SessionError(f"this text is larger than a game record ({MAX_IMPORT_BYTES // 1000} KB at most)")
    stripped = text.strip().lstrip("\ufeff").strip()  # (a byte order mark: text saved by an editor)
    if is_json_text(stripped):
        try:
            data = safe_loads(stripped, max_bytes=MAX_IMPORT_BYTES)
        except UnsafeJsonError as e:
            raise SessionError(f"this is not a game record: {e}") from None
        return read_record(data)
    game, kept = read_pgn(stripped)
    return game, None, kept


def read_record(data) -> tuple:
    """``(game, clock, kept)`` from a parsed JSON record (SessionError), as :func:`read_import`
    reads one (a backup, :mod:`hiddenchess.app.backup`, reads each of its records so)."""
    if not isinstance(data, dict):
        raise SessionError("this is not a game record")
    try:
        game, clock, meta = from_record(data)
    except HiddenChessError as e:
        raise SessionError(f"this record cannot be read: {e}") from None
    except (TypeError, AttributeError, ValueError, KeyError, IndexError) as e:
        # (a part the record's checks let through in a shape nobody writes: still refused)
        raise SessionError(f"this record cannot be read: a part of it has the wrong form "
                           f"({type(e).__name__})") from None
    if (clock is not None and clock.running is not None and not game.status.over
            and clock.running != game.turn):
        raise SessionError(f"this record cannot be read: its clock runs for {clock.running}, "
                           f"but {game.turn} is to move")
    return game, clock, check_kept(meta.get("pgn") if isinstance(meta, dict) else None)


def export_record(game: Game, clock, tags: dict, clk: list) -> dict:
    """The JSON record an export writes: the game, its clock, and the PGN's tags and clock
    comments kept (``meta.pgn``), so that an import shows its players, date and clocks again."""
    kept = {"tags": dict(list((k, str(v)[:MAX_VALUE]) for k, v in tags.items()
                              if k not in GENERATED)[:MAX_TAGS]),
            "clk": list(clk)}
    return to_record(game, clock=clock, meta={"pgn": kept})


def is_json_text(text: str) -> bool:
    """Whether ``text`` (stripped) is meant as a JSON object rather than a PGN that opens with a
    ``{comment}``: ``{`` then a key or ``}``, or a ``{`` that nothing closes (a comment would be
    closed).

    >>> is_json_text('{"format": "hiddenchess-game"}'), is_json_text("{Annotated} 1. e4 *")
    (True, False)
    """
    return text.startswith("{") and (bool(_JSON_START.match(text)) or "}" not in text)


def game_from_pgn(text: str) -> Game:
    """The game a PGN describes, every move replayed and checked, its ending applied
    (SessionError); see :func:`hiddenchess.app.pgn.read_pgn`."""
    return read_pgn(text)[0]


def check_import(text=None, link=None) -> None:
    """SessionError if the text or replay link cannot be imported (:func:`import_into` would
    refuse it); nothing changes either way. The page asks before it offers to leave a game."""
    read_import(unpack_link(link) if link is not None else text)


def import_into(session, text=None, link=None, *, now_ms: int) -> dict:
    """Replace the session's game by an imported one (a local game; its replay once over)."""
    try:
        if link is not None:
            text = unpack_link(link)
        game, clock, kept = read_import(text)
    except HiddenChessError as e:
        return session.error(e, now_ms)
    settings = clock.settings if clock is not None else None
    opts = {"variant": game.variant.id, "mode": "local", "clock": None, "autoflip": False}
    session.start(opts, settings, now_ms, game=game)
    if clock is not None:
        clock.resume_at(now_ms)  # (the time since the export is nobody's)
        session.clock = clock
    session.pgn = kept
    session.save(now_ms)
    if game.status.over:
        session.replaying.select(game, game.ply, "all", session.orientation)
    return session.state(now_ms=now_ms)
