"""Games in and out of the page: PGN and JSON record export, the FEN, a replay link, and import.

Export is what the screen may show: a game whose variant keeps secrets (Secret Pawn, Hidden
Identity) is exported once it is over and its truth is known, never before (its record would show
both sides' choices). The FEN is offered for variants without secrets. A finished game can be
shared as a link whose fragment carries the record, compressed (``#replay=...``): the fragment
never leaves the browser, and opening the link imports the game and shows its replay.

Import takes a JSON record (any variant: it holds every secret) or a PGN (the variants whose
moves alone rebuild the game: a PGN of Secret Pawn or Reveal lacks the choices and draws, and is
refused with the reason). Every move is replayed by the engine; a damaged text is refused with a
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
from hiddenchess.app.panels import base_variant
from hiddenchess.engine.variant import VARIANTS
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.game import Game
from hiddenchess.game.record import from_record, to_pgn, to_record
from hiddenchess.safejson import UnsafeJsonError, loads as safe_loads

__all__ = ["MAX_IMPORT_BYTES", "export_game", "import_text", "import_into", "game_from_pgn", "pack_link",
           "unpack_link"]

#: The largest text import takes (a record of a very long game is well under this).
MAX_IMPORT_BYTES = 400_000
#: The largest replay link's fragment (compressed and base64).
MAX_LINK_CHARS = 200_000

_TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_COMMENT = re.compile(r"\{[^}]*\}|;[^\n]*")
_NUMBER = re.compile(r"^\d+\.(\.\.)?$|^\d+\.\.\.$")
_RESULT = frozenset({"1-0", "0-1", "1/2-1/2", "*"})
_ANNOTATION = re.compile(r"[!?]+$")


def _truth_shown(session) -> bool:
    g = session.game
    return not session.panel.keeps_secrets or (g.status.over and getattr(g, "truth_known", True))


def export_game(session) -> dict:
    """``{"pgn", "record", "fen", "link", "filename"}`` of the session's game (``fen``/``link``:
    ``None`` where not offered); SessionError while its secrets are still secret."""
    g = session.game
    if not _truth_shown(session):
        raise SessionError("this game can be exported once it is over: until then its record "
                           "would show both sides' secrets")
    record = to_record(g, clock=session.clock)
    text = json.dumps(record, separators=(",", ":"))
    return {
        "pgn": to_pgn(g, clock=session.clock),
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
        return data.decode("utf-8")
    except (ValueError, zlib.error, UnicodeDecodeError):
        raise SessionError("this replay link is damaged (was it cut short when copied?)") from None


def import_text(text) -> tuple:
    """``(game, clock)`` from a pasted or loaded JSON record or PGN (SessionError)."""
    if not isinstance(text, str) or not text.strip():
        raise SessionError("paste a game's PGN or its JSON record to import it")
    if len(text.encode("utf-8")) > MAX_IMPORT_BYTES:
        raise SessionError(f"this text is larger than a game record ({MAX_IMPORT_BYTES // 1000} KB at most)")
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            data = safe_loads(stripped, max_bytes=MAX_IMPORT_BYTES)
        except UnsafeJsonError as e:
            raise SessionError(f"this is not a game record: {e}") from None
        if not isinstance(data, dict):
            raise SessionError("this is not a game record")
        try:
            game, clock, _meta = from_record(data)
        except HiddenChessError as e:
            raise SessionError(f"this record cannot be read: {e}") from None
        return game, clock
    return game_from_pgn(stripped), None


def _variant_of(tags: dict):
    if "Variant" not in tags:
        return base_variant()
    name = tags["Variant"]
    for vid, v in VARIANTS.items():
        if name.lower() in ((v.pgn_name or v.name).lower(), v.name.lower(), vid):
            return vid
    if name.lower() in ("chess", "normal", "from position"):  # (other sites' names of chess)
        return base_variant()
    raise SessionError(f"the PGN's variant {name!r} is not one this page plays")


def _movetext_tokens(text: str) -> list:
    text = _COMMENT.sub(" ", text)
    depth, out = 0, []
    for ch in text:          # variations (nested parentheses) are left out
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    tokens = []
    for tok in "".join(out).split():
        if _NUMBER.match(tok) or tok.startswith("$") or tok in _RESULT:
            continue
        m = re.match(r"^\d+\.+(.+)$", tok)   # "1.e4"
        tokens.append(m.group(1) if m else tok)
    return tokens


def game_from_pgn(text: str) -> Game:
    """The game a PGN describes, every move replayed and checked (SessionError)."""
    tags = {k: v.replace('\\"', '"').replace("\\\\", "\\") for k, v in _TAG.findall(text)}
    body = _TAG.sub(" ", text)
    vid = _variant_of(tags)
    fen = tags.get("FEN") if tags.get("SetUp", "1" if "FEN" in tags else "0") == "1" else None
    try:
        game = Game.new(vid, fen=fen)
    except HiddenChessError as e:
        raise SessionError(f"the PGN's start position cannot be used: {e}") from None
    if game.phase != "play":
        raise SessionError(f"a {game.variant.name} game is imported from its JSON record: a PGN "
                           f"does not hold the choices made before the first move")
    tokens = [t for t in _movetext_tokens(body) if not t.startswith("**")]
    if not tokens:
        raise SessionError("this text holds no moves (paste a PGN or a JSON record)")
    number = game.position.fullmove
    for tok in tokens:
        label = f"{number}{'.' if game.turn == 'white' else '...'} {tok}"
        wanted = _ANNOTATION.sub("", tok)
        try:
            result = game.play(wanted)
        except HiddenChessError as e:
            raise SessionError(f"move {label} of the PGN cannot be played: {e}") from None
        if result.san.split()[0].rstrip("+#") != wanted.rstrip("+#") and not _same_uci(result.uci, wanted):
            raise SessionError(f"move {label} of the PGN came out as {result.san}: this variant's "
                               f"game is imported from its JSON record")
        if game.turn == "white":
            number += 1
        if game.status.over:
            break
    return game


def _same_uci(uci: str, text: str) -> bool:
    return uci == text.lower()


def import_into(session, text=None, link=None, *, now_ms: int) -> dict:
    """Replace the session's game by an imported one (a local game; its replay once over)."""
    try:
        if link is not None:
            text = unpack_link(link)
        game, clock = import_text(text)
    except HiddenChessError as e:
        return session.error(e, now_ms)
    settings = clock.settings if clock is not None else None
    opts = {"variant": game.variant.id, "mode": "local", "clock": None, "autoflip": False}
    session.start(opts, settings, now_ms, game=game)
    if clock is not None:
        session.clock = clock
    if game.status.over:
        session.replaying.select(game, game.ply, "all", session.orientation)
    return session.state(now_ms=now_ms)
