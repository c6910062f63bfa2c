"""The state dict of a session (:class:`hiddenchess.app.state.State`), drawn in three layers:
the core keys here, then the variant's panel (:meth:`~hiddenchess.app.panels.Panel.decorate`),
then the play mode (:meth:`~hiddenchess.app.modes.base.Mode.decorate`), then the replay.
"""

from __future__ import annotations

import weakref

from hiddenchess.ai import computer_variants
from hiddenchess.app.modes import friend_mode
from hiddenchess.app.keyboard import keyboard_for
from hiddenchess.app.panels import (board_colors, kept_plies, material, menu_choice, variant_menu,
                                    viewer_seat)
from hiddenchess.app.pgn import shown_names, speakers
from hiddenchess.app.speech import announce, ply_words
from hiddenchess.app.state import MODE_KEYS, PANEL_KEYS
from hiddenchess.app.text import CLAIM_TEXT, COLORS, message, other
from hiddenchess.engine import notation
from hiddenchess.engine.core import SQUARE_INDEX

__all__ = ["state", "moves", "legal_promotions", "tried_promotions"]

def state(session, now_ms: int) -> dict:
    """The full state of ``session`` for the page. A move that awaits the other page's answer
    (:meth:`~hiddenchess.app.modes.base.Mode.shown_game`) is drawn as played, and marked
    ``pending`` in the move list."""
    shown = session.mode.shown_game(session)
    if shown is None:
        return _state(session, now_ms)
    real, session.game = session.game, shown
    try:
        st = _state(session, now_ms)
    finally:
        session.game = real
    if st["moves"]:
        st["moves"][-1] = {**st["moves"][-1], "pending": True}
    return st


def _state(session, now_ms: int) -> dict:
    g = session.game
    panel = session.panel
    status = g.status.to_json()
    status["message"] = message(status, speakers(session))
    over = bool(status["over"])
    viewer = session.viewer()
    if not panel.keeps_secrets:
        dests = {} if over else g.dests()
        promotions = {} if over else legal_promotions(g)
    else:  # only what the player at the device may try; nothing while handing over
        dests = g.dests(viewer) if viewer in COLORS and g.phase == "play" else {}
        promotions = tried_promotions(g, dests)
    extra = panel.extra_dests(session, viewer, dests)
    if extra:
        dests = {k: list(v) for k, v in dests.items()}
        for orig, tos in extra.items():
            dests.setdefault(orig, []).extend(tos)
    history = list(g.history)
    last = history[-1].uci if history else None
    movable = bool(dests) and not over
    menu = variant_menu()
    options = {k: v for k, v in session.options.items() if k != "fen"}
    options["menu"] = menu_choice(g.variant.id, menu)
    st = {
        "variant": {"id": g.variant.id, "name": g.variant.name},
        "audited": panel.audited,
        "fen": panel.board(session, viewer),
        "orientation": session.orientation,
        "autoFlip": session.auto_flip,
        "turnColor": g.turn,
        "movable": {"color": g.turn if movable else None, "dests": dests if movable else {}},
        "promotions": promotions,
        "lastMove": [last[0:2], last[2:4]] if last else None,
        "check": g.check_square(),
        "royal": list(g.royal_squares()),
        "moves": moves(g, viewer, panel),
        "clock": clock_state(session, now_ms),
        "status": status,
        "drawOffer": None if over else session.draw_offer,
        "claim": claim_state(session, over or viewer == "spectator"
                             or not session.mode.may_claim(session)),
        "options": options,
        "gameId": session.game_id,
        "players": shown_names(session),
        "inProgress": session.mode.in_progress(session),
        "notice": session.notice,
        "noticeDetail": session.notice_detail if session.notice else None,
        "corrupt": ({"key": session.corrupt_key}
                    if (session.corrupt_key or session.corrupt_raw) else None),
        "warning": session.warning,
        "stale": session.stale,
        "error": None,
        "phase": g.phase,
        "viewer": viewer,
        "handover": handover(session, viewer),
        "replay": None,
        "variantMenu": menu,
        "computerVariants": computer_variants(),
        # (the peer protocol is loaded only once asked for: action "catalog", or a friend game)
        "friendVariants": friend_mode().friend_variants() if session.catalog_asked else None,
    }
    for key in PANEL_KEYS + MODE_KEYS:
        st[key] = None
    panel.decorate(session, st, viewer)
    session.mode.decorate(session, st, now_ms)
    session.replaying.apply(session, st)
    st["material"] = material(st["fen"]) if panel.shows_material else None
    st["squareMarks"] = panel.square_marks(st)  # (from the state: what the viewer may know)
    st["speech"] = announce(session, st, keyboard_for(g.variant))  # (the live region's words)
    return st


def handover(session, viewer: str) -> dict | None:
    """The ``handover`` key: hide the board and ask for the device to be passed."""
    if viewer != "spectator":
        return None
    g = session.game
    if g.phase != "setup":
        due = session.device_due()
        # (an open offer is what the device goes for, even to the side to move: "White offers a
        # draw. Black answers it.", not the last move's words)
        offered = session.draw_offer is not None and due == other(session.draw_offer)
        why = "penalty" if g.pending_penalty else "draw" if offered else "move"
        return {"to": due, "for": why}
    return {"to": session.next_viewer(), "for": session.panel.setup_action}


def legal_promotions(g) -> dict:
    """Promotion choices of the side to move: ``{"e7e8": ["q", "r", "b", "n"]}``."""
    promotions: dict = {}
    for uci in g.legal_moves():
        if len(uci) == 5:
            promotions.setdefault(uci[:4], []).append(uci[4])
    for roles in promotions.values():
        roles.sort(key=lambda r: "qrbnk".find(r) % 10)
    return promotions


def tried_promotions(g, dests: dict) -> dict:
    """Promotion choices among ``dests`` (the moves the viewer may try): pawns to a last rank."""
    out = {}
    if not dests:
        return out
    colors = board_colors(g.fen().split(" ")[0])
    pos = g.position
    for orig, tos in dests.items():
        if not pos.pawns >> SQUARE_INDEX[orig] & 1:
            continue
        last_rank = "8" if colors.get(orig) == "white" else "1"
        for dest in tos:
            if dest[1] == last_rank:
                roles = g.promotion_roles(orig, dest)
                if roles:
                    out[orig + dest] = roles
    return out


#: game -> ``{key: (plies, items)}``: the move lists last built for that game, one per seat
#: (the seat changes with every hand-over), so that a move costs the same late in a long game
#: as early (issue 17). Weak: they go with their game.
_MOVE_LISTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
#: Move lists kept per game (the seats, "spectator", and a few more).
_KEPT_LISTS = 6


def moves(g, viewer: str, panel) -> list:
    """The ``moves`` key: the move list as ``viewer`` may see it (``reveal`` and ``illegal``:
    the ply has an event of the panel's :attr:`~hiddenchess.app.panels.Panel.reveal_kinds` /
    :attr:`~hiddenchess.app.panels.Panel.illegal_kinds`).

    Built incrementally: the items of the plies already listed for the same seat, status and
    panel are reused (the same dicts: a state is read, never modified), and only the last
    listed ply (whose events a penalty may extend) and the new ones are built again.
    """
    start = getattr(g, "start_fen", None) or g.variant.start_fen
    seat = viewer_seat(viewer)
    history = g.history
    key = (seat, g.status, getattr(g, "truth_known", True), start, panel.reveal_kinds,
           panel.illegal_kinds)
    lists = _MOVE_LISTS.get(g)
    if lists is None:
        lists = _MOVE_LISTS[g] = {}
    cached = lists.get(key)
    keep = kept_plies(cached and cached[0], history)
    items = cached[1][:keep] if keep else []
    if keep:
        number, color = items[-1]["number"], items[-1]["color"]
        if color == "black":
            number += 1
        color = other(color)
    else:
        number, color = _first_number(start)
    keyboard = keyboard_for(g.variant)
    for i in range(keep, len(history)):
        ply = history[i]
        kinds = {e.kind for e in ply.events}
        items.append({"ply": i, "number": number, "color": color, "san": ply.san,
                      "uci": g.rules.view_move(g, i, seat)["uci"],  # (a hidden promotion is not told)
                      "reveal": not panel.reveal_kinds.isdisjoint(kinds),
                      "illegal": not panel.illegal_kinds.isdisjoint(kinds),
                      "say": ply_words(g, i, seat, keyboard)})  # (words for a screen reader)
        if color == "black":
            number += 1
        color = other(color)
    lists.pop(key, None)
    while len(lists) >= _KEPT_LISTS:
        del lists[next(iter(lists))]  # (the oldest)
    lists[key] = (list(history), items)
    return list(items)


def _first_number(start_fen: str) -> tuple:
    """``(move number, colour)`` of the first ply after ``start_fen``."""
    fields = start_fen.split()
    color = "black" if len(fields) > 1 and fields[1] == "b" else "white"
    try:
        number = int(fields[5]) if len(fields) > 5 else 1
    except ValueError:
        number = 1
    return number, color


def clock_state(session, now_ms: int) -> dict | None:
    if session.clock is None:
        return None
    view = session.clock.view(now_ms)
    view["at"] = now_ms
    return view


def claim_state(session, closed: bool) -> dict:
    """The ``claim`` key: draws the side to move may claim now, or by declaring a move."""
    if closed:
        return {"now": None, "nowText": None, "moves": []}
    g = session.game
    now = g.claimable_draw()
    public = g.rules.known_position(g, "spectator") if session.panel.keeps_secrets else None
    out = []
    for uci, reason in sorted(g.claim_moves().items()):
        san = notation.san(g.position, g.parse_move(uci), public=public)
        out.append({"uci": uci, "san": san, "reason": reason,
                    "reasonText": CLAIM_TEXT.get(reason, reason)})
    return {"now": now, "nowText": CLAIM_TEXT.get(now, now) if now else None, "moves": out}
