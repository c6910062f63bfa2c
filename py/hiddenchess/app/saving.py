"""The session's game in ``localStorage``: loading, saving, the meta section, notices.

The record (:mod:`hiddenchess.game.record`) holds the game and its clock; its ``meta`` holds
what the page adds: ``mode``, ``orientation``, ``autoflip``, ``created_ms``, ``updated_ms``,
``game_id`` (a random id, :func:`new_game_id`), ``pgn`` (an imported game's tags and clock
comments, :mod:`hiddenchess.app.pgn`) and what the play mode saves
(:meth:`hiddenchess.app.modes.base.Mode.meta`).

>>> len(new_game_id()), new_game_id() != new_game_id()
(16, True)
>>> ids_of({"created_ms": 5, "game_id": "0123456789abcdef"})
(5, '0123456789abcdef')
>>> created, gid = ids_of({"created_ms": 5})         # an old save: it gets an id now
>>> created, len(gid)
(5, 16)
"""

from __future__ import annotations

import json
import secrets
import weakref

from hiddenchess.app import games
from hiddenchess.app.errors import SessionError
from hiddenchess.app.modes.base import MODES, Mode
from hiddenchess.app.modes.computer import ComputerMode
from hiddenchess.app.modes import friend_mode
from hiddenchess.app.options import default_options
from hiddenchess.app.panels import panel_for
from hiddenchess.app.pgn import check_kept
from hiddenchess.app.text import COLORS
from hiddenchess.errors import (
    DeletedSaveError, HiddenChessError, StaleSaveError, StorageFullError, StorageUnavailableError,
)
from hiddenchess.game.record import from_record, to_record

__all__ = ["new_game_id", "ids_of", "meta", "restore", "load", "adopt", "save", "export_corrupt",
           "FULL_WARNING"]

FULL_WARNING = ("Your browser's storage is full: this game is not being saved and will be lost "
                "if you close or reload the page.")
UNAVAILABLE_WARNING = ("Your browser's storage is unavailable (blocked by its settings?): this game "
                       "is not being saved and will be lost if you close or reload the page.")


def new_game_id() -> str:
    """A fresh random game id: 16 hexadecimal digits, in capitals (so that no id reads like a
    square name such as ``a2``, which the page's privacy tests look for)."""
    return secrets.token_hex(8).upper()


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def ids_of(meta: dict) -> tuple:
    """``(created_ms, game_id)`` of a saved game's meta; a save without a game id gets a new one."""
    created = meta.get("created_ms")
    gid = meta.get("game_id")
    return (created if _is_int(created) else 0,
            gid if isinstance(gid, str) and 0 < len(gid) <= 64 else new_game_id())


def meta(session, now_ms: int) -> dict:
    """The meta section of the session's record."""
    out = {
        "mode": session.options.get("mode", "local"),
        "orientation": session.orientation,
        "autoflip": session.auto_flip,
        "created_ms": session.created_ms,
        "game_id": session.game_id,
        "updated_ms": now_ms,
    }
    if session.pgn:
        out["pgn"] = session.pgn
    out.update(session.mode.meta())
    return out


#: game -> ``(plies, texts)``: the JSON of each ply of the record's ``moves``, kept from one save
#: to the next so that a save late in a long game writes only the new moves as JSON (issue 17).
_MOVE_TEXTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
#: What the record holds in place of its moves until the text is put in (the first of the
#: record's keys that can hold this: those before it are numbers and strings).
_MOVES_HOLE = '"moves":[]'


def moves_text(game) -> str:
    """The record's ``moves`` section of ``game`` as saved JSON (``[{"uci":..,"san":..},..]``),
    built from the text of the previous save where the history is the same."""
    history = game.history
    cached = _MOVE_TEXTS.get(game)
    keep = 0
    if cached is not None:
        keep = max(0, min(len(cached[0]), len(history)) - 1)  # (the last ply: written again)
        if cached[0][:keep] != history[:keep]:  # (identical plies compare without a look inside)
            keep = 0
    texts = cached[1][:keep] if keep else []
    texts.extend(json.dumps({"uci": ply.uci, "san": ply.san}, ensure_ascii=False,
                            separators=(",", ":"), allow_nan=False) for ply in history[keep:])
    _MOVE_TEXTS[game] = (list(history), texts)
    return "[" + ",".join(texts) + "]"


def compact_moves(game) -> str:
    """The record's ``moves`` of a finished game, UCI only (the record's SAN is optional).

    >>> from hiddenchess.game.game import Game
    >>> g = Game.new("standard"); _ = g.play("e4")
    >>> compact_moves(g)
    '[{"uci":"e2e4"}]'
    """
    return "[" + ",".join('{"uci":%s}' % json.dumps(ply.uci) for ply in game.history) + "]"


def save(session, now_ms: int) -> None:
    """Write the session's game; a full storage sets ``session.warning`` (the game goes on)."""
    try:
        session.storage.select(session.game_id)  # one key per game (hiddenchess.app.library)
        record = to_record(session.game, clock=session.clock, meta=meta(session, now_ms),
                           moves=[])
        over = session.game.status.over  # (a finished game is kept compact: its moves' SAN
        # is written again by the replay on load, so thousands of finished games fit)
        splice = (_MOVES_HOLE, '"moves":' + (compact_moves(session.game) if over
                                             else moves_text(session.game)))
        session.storage.save_current(record, now_ms, splice=splice)
    except DeletedSaveError:
        session.stale = "deleted"  # another tab deleted it: it is not brought back
    except StaleSaveError:
        session.stale = True  # another tab's newer save is kept; this page stops playing
    except StorageUnavailableError:
        session.warning = UNAVAILABLE_WARNING
    except StorageFullError:
        session.warning = FULL_WARNING
    else:
        session.warning = None
        games.note(session, now_ms)  # its line in the list of games (a full storage: a warning)


def restore(session, now_ms: int) -> bool:
    """Make the saved game the session's game; ``False`` when there is none or it cannot be
    used. Never raises: a save that fails anywhere on the way (reading, checking, adopting,
    drawing) is kept aside for download, with a notice, and nothing of it stays adopted (the
    caller starts a fresh game, which resets every field)."""
    session.stale = False
    try:
        loaded = load(session)
        if loaded is None:
            return False
        adopt(session, *loaded)
        check_consistent(session)
        if session.clock is not None:
            session.clock.not_before(now_ms)  # the device's clock went back: never gain time
        session.state(now_ms=now_ms)  # a save the page cannot draw is no use either
        session.check_flag(now_ms)
        return True
    except Exception as e:  # noqa: BLE001  (a damaged save must never brick the page)
        take_notice(session, session.storage.set_aside_current(
            f"restoring it failed ({type(e).__name__}: {e})"))
        return False


def check_consistent(session) -> None:
    """Facts of a save that must agree with each other (SessionError when not): a running
    clock runs for the side to move."""
    clock, game = session.clock, session.game
    if (clock is not None and clock.running is not None and not game.status.over
            and clock.running != game.turn):
        raise SessionError(f"its clock runs for {clock.running}, but {game.turn} is to move")


def load(session):
    """``(game, clock, meta)`` of the saved game, or ``None`` (nothing saved, or unreadable:
    then kept aside and the session's notice says so)."""
    loaded = session.storage.load_current()
    take_notice(session, loaded)
    if loaded.record is None:
        return None
    try:
        return from_record(loaded.record)
    except HiddenChessError as e:
        take_notice(session, session.storage.set_aside_current(str(e)))
        return None


def adopt(session, game, clock, meta_data) -> None:
    """Make a restored game (``from_record``'s ``(game, clock, meta)``) the session's game."""
    data = meta_data if isinstance(meta_data, dict) else {}
    session.game, session.clock = game, clock
    session.holder = None  # after a reload, whoever holds the device confirms again
    session.replaying.stop()
    opts = default_options()
    opts["variant"] = game.variant.id
    opts["clock"] = clock.settings.label() if clock is not None else None
    mode = data.get("mode")
    opts["mode"] = mode if mode in MODES else "local"
    session.mode = Mode()
    if opts["mode"] == "computer":
        computer = ComputerMode.from_meta(data, game.variant.id)
        if computer is None:  # unreadable settings: the players go on on this device
            opts["mode"] = "local"
        else:
            session.mode = computer
            opts.update(computer.options())
    elif opts["mode"] == "friend":
        try:
            friend = friend_mode().Friend.from_json(data.get("friend"))
        except HiddenChessError:  # unreadable: the moves stay, played on this device
            opts["mode"] = "local"
        else:
            session.mode = friend
            opts = friend_mode().friend_options(friend.pg)
            session.game, session.clock = friend.pg.local, None
    session.panel = panel_for(session.game.variant)
    session.auto_flip = data.get("autoflip") is True
    opts["autoflip"] = session.auto_flip
    session.options = opts
    orientation = data.get("orientation")
    session.orientation = orientation if orientation in COLORS else "white"
    session.created_ms, session.game_id = ids_of(data)
    session.pgn = check_kept(data.get("pgn"))


def take_notice(session, loaded) -> None:
    """Turn what storage found into a sentence for the player (the details go to
    ``noticeDetail``)."""
    if not loaded.notice:
        return
    session.notice_detail = loaded.notice
    session.corrupt_key = loaded.corrupt_key
    session.corrupt_raw = loaded.raw
    if loaded.corrupt_key:
        session.notice = (
            "Your saved game could not be read, so a new game was started. "
            "Its data was kept aside: you can download it."
        )
        if "newer version" in loaded.notice:  # (the reason, on a phone too: not in a tooltip only)
            session.notice = (
                "Your saved game was saved by a newer version of Hidden Chess, so a new game was "
                "started: reload the page to get the newer version. Its data was kept aside: you "
                "can download it."
            )
        if session.storage.game_id is not None:
            try:  # its line on the Games screen would open nothing (its data is kept aside)
                games.library_of(session).forget(session.storage.game_id)
            except StorageFullError:
                pass  # (the line stays: opening it says the game is not there)
    elif loaded.raw is not None:
        session.notice = (
            "Your saved game could not be read, and the browser's storage is too full to keep "
            "it aside: download its data now if you want to keep it."
        )
    else:
        session.notice = loaded.notice


def export_corrupt(session, key) -> tuple:
    """``(file name, text)`` of the saved data that could not be read; SessionError."""
    if key is None and session.corrupt_key is None and session.corrupt_raw is not None:
        return "hiddenchess-unreadable-save.json", session.corrupt_raw
    key = key or session.corrupt_key
    if key is None:
        raise SessionError("no unreadable saved game was kept aside.")
    return f"{key.replace('.', '-')}.json", session.storage.export_corrupt(key)
