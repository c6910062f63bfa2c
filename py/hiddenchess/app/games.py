"""The session's side of the games kept on this device (:mod:`hiddenchess.app.library`):
which game a page opens, the index entry written with every save, switching games, deleting and
exporting them, and the rule of at most one game with a clock running.

Actions (``Session.dispatch``): ``open_game {id}`` (the game in progress or finished becomes the
page's game; the one left stays under its own key, a clock on this device paused, see
:func:`leave`), ``delete_game {id}`` and ``export_games {ids, format}`` (``format``: ``"pgn"`` or
``"json"``; ``ids``: a list, or ``None`` for every finished game) whose text comes back as
``state.download``; ``check_import {text, link}`` says whether ``import_game`` would take them (an
error, or none), changing nothing. ``new_game``, ``join`` and ``import_game`` pass here too: a new game starts
beside the others (:func:`check_new`: one clock at most). The Games screen itself reads the index
from storage directly (assets/js/games.js: a page lists thousands of games without asking Python).

>>> from hiddenchess.app.session import Session
>>> from hiddenchess.app.storage import MemoryBackend
>>> s = Session(MemoryBackend()); first = s.restore(now_ms=0)["gameId"]
>>> _ = s.move("e2", "e4", now_ms=1)     # (a game nobody touched is not kept when left)
>>> second = s.new_game({"variant": "standard"}, now_ms=1)["gameId"]
>>> sorted(s.library.index("active")) == sorted([first, second])
True
>>> s.dispatch("open_game", {"id": first}, now_ms=2)["gameId"] == first
True
"""

from __future__ import annotations

import json
import secrets

from hiddenchess.app.backup import read_backup
from hiddenchess.app.errors import SessionError
from hiddenchess.app.exchange import check_import, export_record
from hiddenchess.app.library import GAME_ID, Library, make_summary
from hiddenchess.app.modes.computer import ComputerMode
from hiddenchess.app.panels import panel_for
from hiddenchess.app.pgn import MAX_VALUE, check_kept, clock_comments, export_tags, names_in, played_on, shown_names
from hiddenchess.app.text import COLORS, foe_words, other
from hiddenchess.errors import HiddenChessError, StorageFullError
from hiddenchess.game.clock import Clock, ClockSettings
from hiddenchess.game.record import from_record, to_pgn
from hiddenchess.safejson import UnsafeJsonError, loads as safe_loads

__all__ = ["GAMES_ACTIONS", "ROUTED", "dispatch", "prepare", "note", "summary_of", "check_new",
           "leave", "opened", "untouched", "unanswered", "export_text", "INDEX_WARNING"]

#: The actions of this module, with the arguments each takes.
GAMES_ACTIONS = {"open_game": ("id",), "delete_game": ("id",), "export_games": ("ids", "format", "site"),
                 "check_import": ("text", "link"), "set_aside": ("on",)}
#: The actions :func:`dispatch` runs (new games: the clock rule is checked first).
ROUTED = frozenset(GAMES_ACTIONS) | {"new_game", "join", "import_game"}
#: When a game was saved but the list of games could not be updated.
INDEX_WARNING = ("Your browser's storage is full: this game is saved, but the list of your games "
                 "could not be updated. Export and delete finished games on the Games screen to "
                 "make room.")


def library_of(session) -> Library:
    lib = getattr(session, "library", None)
    if lib is None or lib.backend is not session.storage.backend:
        lib = Library(session.storage.backend, session.storage.prefix)
        session.library = lib
    return lib


def _player_seat(session):
    pg = getattr(session.mode, "pg", None)  # a friend game: this page's seat
    if pg is not None:
        return pg.seat
    seat = session.mode.holder(session)
    return seat if seat in COLORS else None


def summary_of(session, now_ms: int) -> dict:
    """The index entry of the session's game (:func:`hiddenchess.app.library.make_summary`)."""
    g = session.game
    status = g.status
    seat = _player_seat(session)
    due = session.next_viewer()
    pg = getattr(session.mode, "pg", None)  # a friend game: what the relays' store knows it by
    if pg is not None and pg.pending is not None and pg.pending["by"] == seat:
        due = None  # (this side's move waits for the friend's answer: nothing awaits this player)
    # (the friend's draw offer waits for this player's answer, even on the friend's turn: QA)
    offered = (pg is not None and pg.phase == "play" and bool(pg.draw_offer)
               and pg.draw_offer["by"] == pg.peer)
    if offered:
        due = seat
    summary = make_summary(
        variant=g.variant.id, mode=session.options.get("mode", "local"),
        result=status.result if status.over else "*", reason=status.reason if status.over else None,
        plies=g.ply, turn=g.turn, seat=seat, clock=session.options.get("clock"),
        level=session.options.get("level") if session.options.get("mode") == "computer" else None,
        yours=due is not None and (seat is None or due == seat),
        created=session.created_ms, updated=now_ms, secrets=session.panel.keeps_secrets,
        heard=len(pg.chain.recv) if pg is not None else None,
        peer_game=pg.game_id if pg is not None else None,
        stranger=getattr(session.mode, "stranger", False), names=shown_names(session),
        played=played_on(session.pgn), offered=offered,
        joined=bool(getattr(session.mode, "ever_connected", False))
        or getattr(session.mode, "role", None) == "guest")
    if unanswered(summary):
        summary.pop("y", None)  # (an invite nobody has answered: nothing awaits this player yet)
    return summary


def summary_from_text(raw: str) -> dict | None:
    """The index entry of a saved game read back (a game the index lacked)."""
    doc = safe_loads(raw, max_bytes=8_000_000)
    record = doc.get("record") if isinstance(doc, dict) else None
    if not isinstance(record, dict):
        return None
    game, clock, meta = from_record(record)
    meta = meta if isinstance(meta, dict) else {}
    friend = meta.get("friend") if isinstance(meta.get("friend"), dict) else None
    game_json = (friend or {}).get("game")
    seat = game_json.get("seat") if isinstance(game_json, dict) else meta.get("color")
    kept = check_kept(meta.get("pgn"))
    mode = meta.get("mode") if meta.get("mode") in ("local", "computer", "friend") else "local"
    created = meta.get("created_ms") if isinstance(meta.get("created_ms"), int) else 0
    updated = doc.get("saved_at") if isinstance(doc.get("saved_at"), int) else created
    over = game.status.over
    return make_summary(
        variant=game.variant.id, mode=mode, result=game.status.result if over else "*",
        reason=game.status.reason if over else None, plies=game.ply, turn=game.turn,
        seat=seat if seat in COLORS else None,
        clock=clock.settings.label() if clock is not None else None,
        level=meta.get("level") if mode == "computer" else None,
        yours=seat not in COLORS or game.turn == seat, created=created, updated=updated,
        secrets=panel_for(game.variant).keeps_secrets,
        stranger=bool(friend) and friend.get("stranger") is True, names=names_in(kept),
        played=played_on(kept))


def prepare(session, requested, now_ms: int) -> None:
    """Before a page loads its game: the older single save becomes one of the games, the index
    lists every game kept, and the storage opens the game this page shows (``requested``, the
    tab's own, else the last opened, else the latest in progress; none: a new game follows)."""
    lib = library_of(session)
    from_legacy = lib.migrate_legacy(_new_id)
    lib.repair(lambda _gid, raw: summary_from_text(raw))
    if lib.has_legacy():  # not moved (unreadable, or no room): opened where it is, this once
        session.storage.select(None)
        return
    session.storage.select(from_legacy or lib.choose(requested))


def _new_id() -> str:
    """A new game id, as :func:`hiddenchess.app.saving.new_game_id` makes them."""
    return secrets.token_hex(8).upper()


def note(session, now_ms: int) -> None:
    """After the game was saved: its entry in the index, and it is the device's last game."""
    lib = library_of(session)
    try:
        lib.note(session.game_id, summary_of(session, now_ms))
    except StorageFullError:
        session.warning = INDEX_WARNING
    lib.set_last(session.game_id)


def leave(session, now_ms: int) -> None:
    """The page leaves its game for another one: a clock on this device (two players, or the
    computer) pauses until the game is opened again (:func:`opened`), so that at most one
    game's clock runs; a friend's clock cannot pause (see :func:`check_new`)."""
    clock = session.clock
    if session.game is None or session.stale or clock is None or session.game.status.over:
        return
    clock.stop(now_ms)
    session.save(now_ms)


def untouched(session) -> bool:
    """Whether the session's game holds nothing a player did: no move, no setup choice of a
    player at this page (secret pawns sealed, pieces placed; the computer's own, made at once,
    is not one), not with a friend (an invitation may be answered). Such a game is not kept
    once the page leaves it for another (a new game would otherwise leave an empty one behind
    each time, and a look at each variant's first screen one a variant)."""
    g = session.game
    if (g is None or g.ply or g.status.over or session.stale
            or getattr(session.mode, "pg", None) is not None):
        return False
    return not any(seat in g.setup_data for seat in session.mode.players(session))


def _drop_if_untouched(session, game_id: str, empty: bool) -> None:
    if empty and game_id and game_id != session.game_id:
        try:
            library_of(session).forget(game_id)
        except StorageFullError:
            pass  # (kept: nothing is lost either way)


def opened(session, now_ms: int) -> None:
    """A saved game became the page's game: its key names it, and a paused clock runs again."""
    session.game_id = session.storage.game_id
    clock = session.clock
    if (clock is not None and clock.started and clock.running is None
            and not session.game.status.over and not session.stale):
        clock.start(session.game.turn, now_ms)
        session.save(now_ms)


def unanswered(summary: dict) -> bool:
    """Whether an index entry is a game with a friend nobody has answered: nothing heard from the
    friend and no move. Its clock cannot run (a friend game's clock starts with the moves), so it
    holds no other game back (QA: an invite no one opened barred every game with a clock)."""
    return summary.get("m") == "friend" and summary.get("n") == 0 and not summary.get("p")


def check_new(session, action: str, args: dict) -> None:
    """At most one game with a clock running: games on this device pause theirs when left, but
    a game with a friend cannot, so while one with a clock is in progress a new game with a
    clock is refused (SessionError naming it)."""
    if action == "new_game":
        options = args.get("options", args) if isinstance(args, dict) else {}
        clock = options.get("clock") if isinstance(options, dict) else None
        clocked = clock not in (None, "none", "")
    elif action == "join":
        invite = args.get("invite")
        clocked = isinstance(invite, dict) and bool(invite.get("c"))
    else:
        return
    if not clocked:
        return
    lib = library_of(session)
    for gid, summary in lib.index("active").items():
        if summary.get("k") and summary.get("m") == "friend" and lib.has(gid) and not unanswered(summary):
            raise SessionError(
                f"your game with a friend with a clock ({summary.get('k')}) is still in "
                "progress, and its clock cannot pause: finish it first, or play this one "
                "without a clock")


def dispatch(session, action: str, args: dict, now_ms: int) -> dict:
    try:
        check_new(session, action, args)
    except HiddenChessError as e:
        return session.error(e, now_ms)
    if action == "import_game" and args.get("link") is None:
        try:
            items = read_backup(args.get("text"))
        except HiddenChessError as e:
            return session.error(e, now_ms)
        if items is not None:
            return import_many(session, items, now_ms)
    if action in ("new_game", "join", "import_game"):
        before, empty = session.game_id, untouched(session)
        leave(session, now_ms)
        if action == "new_game":
            st = session.new_game(args["options"] if "options" in args else args, now_ms=now_ms)
        else:
            st = getattr(session, action)(**args, now_ms=now_ms)
        if session.game_id == before:  # refused: the game goes on, its clock too
            opened(session, now_ms)
            st = session.state(now_ms=now_ms) if st.get("error") is None else st
        _drop_if_untouched(session, before, empty)
        return st
    try:
        if action == "set_aside":  # (quick play seeks: the game waits, its clock too, until Cancel)
            (leave if args.get("on") else opened)(session, now_ms)
            return session.state(now_ms=now_ms)
        if action == "open_game":
            return _open(session, args.get("id"), now_ms)
        if action == "delete_game":
            return _delete(session, args.get("id"), now_ms)
        if action == "check_import":  # (whether import_game would take it: nothing changes)
            backup = read_backup(args.get("text")) if args.get("link") is None else None
            if backup is None:
                check_import(args.get("text"), args.get("link"))
            elif all(isinstance(item, HiddenChessError) for item in backup):
                raise backup[0]
            return session.state(now_ms=now_ms)
        name, text = export_text(session, args.get("ids"), args.get("format", "pgn"), args.get("site"))
    except HiddenChessError as e:
        return session.error(e, now_ms)
    st = session.state(now_ms=now_ms)
    st["download"] = {"name": name, "text": text}
    return st


def import_many(session, items: list, now_ms: int) -> dict:
    """A backup's games (:func:`hiddenchess.app.backup.read_backup`) become games of this device,
    each under its own key, as an import of one does: the page then shows the last one, and a
    notice says how many came in and which could not be read. A full storage stops the import
    (its warning says so); every game imported before it stays."""
    refused = [f"game {n}: {item}" for n, item in enumerate(items, 1)
               if isinstance(item, HiddenChessError)]
    if len(refused) == len(items):
        return session.error(SessionError(f"none of the {len(items)} games of this backup can be "
                                          f"imported ({'; '.join(refused[:3])})"), now_ms)
    before, empty = session.game_id, untouched(session)
    done, refused = 0, []
    for n, item in enumerate(items, 1):
        if isinstance(item, HiddenChessError):
            refused.append(f"game {n}: {item}")
            continue
        game, clock, kept = item
        leave(session, now_ms)
        session.start({"variant": game.variant.id, "mode": "local", "clock": None, "autoflip": False},
                      clock.settings if clock is not None else None, now_ms, game=game)
        if clock is not None:
            clock.resume_at(now_ms)
            session.clock = clock
        session.pgn = kept
        session.save(now_ms)
        if session.warning:
            break
        done += 1
    if done and session.game.status.over:
        session.replaying.select(session.game, session.game.ply, "all", session.orientation)
    _drop_if_untouched(session, before, empty)
    text = f"Imported {done} of the {len(items)} games of this backup: they are on the Games screen."
    if refused:
        text += f" Not imported: {'; '.join(refused[:3])}" + ("; …" if len(refused) > 3 else "") + "."
    session.notice = text[:600]
    return session.state(now_ms=now_ms)


def _check_id(lib: Library, game_id) -> str:
    if not isinstance(game_id, str) or not GAME_ID.match(game_id) or not lib.has(game_id):
        raise SessionError(f"there is no game {game_id!r} on this device (deleted in another tab?)")
    return game_id


def _open(session, game_id, now_ms: int) -> dict:
    lib = library_of(session)
    game_id = _check_id(lib, game_id)
    if game_id == session.game_id and not session.stale:
        return session.state(now_ms=now_ms)
    empty = untouched(session)
    leave(session, now_ms)
    previous = session.game_id
    st = session.restore(game=game_id, now_ms=now_ms)
    if session.game_id != game_id and st.get("notice") is None:
        session.restore(game=previous, now_ms=now_ms)
    elif session.game_id != game_id:
        # It could not be read (its data kept aside, as the notice says): the page goes back to
        # the game it left, and the blank game the failed start made goes.
        kept = (session.notice, session.notice_detail, session.corrupt_key, session.corrupt_raw)
        blank = session.game_id
        session.restore(game=previous, now_ms=now_ms)
        _drop_if_untouched(session, blank, True)
        session.notice, session.notice_detail, session.corrupt_key, session.corrupt_raw = kept
        if session.corrupt_key:
            session.notice = ("That game could not be read, so this one stays open. Its data was "
                              "kept aside: you can download it.")
    else:
        _drop_if_untouched(session, previous, empty)
    return session.state(now_ms=now_ms)


def _delete(session, game_id, now_ms: int) -> dict:
    lib = library_of(session)
    game_id = _check_id(lib, game_id)
    if game_id == session.game_id:
        raise SessionError("this game is open on this page: open another game first, then "
                           "delete it")
    lib.forget(game_id, deleted=True)
    return session.state(now_ms=now_ms)


def _load(lib: Library, game_id: str):
    raw = lib.raw(game_id)
    if raw is None:
        raise SessionError(f"there is no game {game_id!r} on this device")
    try:
        doc = safe_loads(raw, max_bytes=8_000_000)
        record = doc["record"] if isinstance(doc, dict) and "record" in doc else doc
        game, clock, _meta = from_record(record)
    except (UnsafeJsonError, HiddenChessError, KeyError, TypeError) as e:
        raise SessionError(f"the game {game_id} cannot be read ({e})") from None
    return record, game, clock


class _Saved:
    """What :func:`~hiddenchess.app.pgn.export_tags` reads of a session, for a game of the
    library: its game and clock, when it was made, the tags an import kept, and who played."""

    def __init__(self, game, clock, meta: dict):
        self.game, self.clock = game, clock
        created = meta.get("created_ms")
        self.created_ms = created if type(created) is int and created > 0 else 0
        self.pgn = check_kept(meta.get("pgn"))
        self.mode = self
        self._names = None
        if meta.get("mode") == "computer":
            computer = ComputerMode.from_meta(meta, game.variant.id)
            self._names = computer.names(self) if computer is not None else None
        elif meta.get("mode") == "friend":
            friend = meta.get("friend") if isinstance(meta.get("friend"), dict) else {}
            seat = friend.get("game", {}).get("seat") if isinstance(friend.get("game"), dict) else None
            if seat in COLORS:
                foe = foe_words(friend.get("stranger") is True, "Your friend")
                self._names = {seat: "You", other(seat): foe}
            if clock is None:  # (a friend game's clock is in its invite: [initial s, increment s])
                spec = friend.get("game", {}).get("settings", {}) if isinstance(
                    friend.get("game"), dict) else {}
                spec = spec.get("c") if isinstance(spec, dict) else None
                if (isinstance(spec, list) and len(spec) == 2
                        and all(type(v) is int and 0 <= v <= 36_000 for v in spec) and spec[0]):
                    self.clock = Clock(ClockSettings(spec[0] * 1000, spec[1] * 1000))

    def record_clock(self, _session):
        return self.clock

    def names(self, _session) -> "dict | None":
        return self._names


def export_text(session, ids, fmt, site=None) -> tuple:
    """``(file name, text)``: the games ``ids`` (``None``: every finished game, oldest first) as
    PGN (one after the other, each with the tags the game's own export writes; ``site``: the
    page's address) or JSON (``{"format": "hiddenchess-games", "games": [record, ...]}``). A game
    whose variant keeps secrets is exported only once it is over."""
    if not isinstance(site, str) or len(site) > MAX_VALUE:
        site = None
    if fmt not in ("pgn", "json"):
        raise SessionError(f"the format must be 'pgn' or 'json', got {fmt!r}")
    lib = library_of(session)
    if ids is None:
        archive = lib.index("archive")
        ids = sorted(archive, key=lambda k: archive[k].get("c", 0))
        if not ids:
            raise SessionError("there is no finished game to export yet")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids) or not ids:
        raise SessionError("ids must be a list of game ids")
    pgns, records = [], []
    for game_id in ids:
        _check_id(lib, game_id)
        record, game, clock = _load(lib, game_id)
        if panel_for(game.variant).keeps_secrets and not game.status.over:
            raise SessionError(f"the {game.variant.name} game {game_id} can be exported once it "
                               "is over: until then its record would give away secrets still hidden")
        meta = record.get("meta") if isinstance(record.get("meta"), dict) else {}
        saved = _Saved(game, clock, meta)
        if fmt == "pgn":
            pgns.append(to_pgn(game, clock=saved.clock, tags=export_tags(saved, site),
                               comments=clock_comments(saved)))
        else:  # (the Export dialog's record: its players, date and clocks come back on import)
            records.append(export_record(game, saved.clock, export_tags(saved, site),
                                         (saved.pgn or {}).get("clk", [])))
    stem = f"hidden-chess-{ids[0]}" if len(ids) == 1 else f"hidden-chess-{len(ids)}-games"
    if fmt == "pgn":
        return f"{stem}.pgn", "\n".join(p if p.endswith("\n") else p + "\n" for p in pgns)
    text = json.dumps(records[0] if len(records) == 1 else
                      {"format": "hiddenchess-games", "games": records},
                      ensure_ascii=False, separators=(",", ":"))
    return f"{stem}.json", text
