"""Words for the ear: what the page's live region announces, and the answers of the move box's
reading commands (:mod:`hiddenchess.app.typed`).

Everything here is built from what one seat may know: a ply's events as that seat sees them
(:meth:`Event.for_seat <hiddenchess.game.events.Event.for_seat>`: the public part plus its own
private part) and the board the page shows it. Nothing reads the truth behind a view, so nothing
said can name a secret the seat may not see. A variant words its own events (reveals, seals,
illegal moves found) in its :class:`~hiddenchess.app.keyboard.Keyboard` plug-in.

>>> from hiddenchess.game.game import Game
>>> g = Game.new("standard")
>>> for m in ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qe5+"]:
...     _ = g.play(m)
>>> ply_words(g, 2, "all", Keyboard())
'White: pawn takes d5.'
>>> ply_words(g, 5, "white", Keyboard())
'Black: queen to e5, check.'
>>> square_words("e4", board_squares("8/8/8/8/4P3/8/8/8"), {"e4": ["e5"]})
'e4, white pawn, can move to e5'
"""

from __future__ import annotations

from hiddenchess.app.keyboard import Keyboard
from hiddenchess.app.panels import board_squares
from hiddenchess.app.text import COLORS, title

__all__ = ["ROLE_WORDS", "ply_words", "announce", "takeback_words", "clock_words", "board_squares",
           "square_words", "pieces_words", "scan_words", "piece_name"]

#: FEN letters -> piece words.
ROLE_WORDS = {"p": "pawn", "n": "knight", "b": "bishop", "r": "rook", "q": "queen", "k": "king"}
_PLURAL = {"p": "pawns", "n": "knights", "b": "bishops", "r": "rooks", "q": "queens", "k": "kings"}
#: The board's marks for a piece whose identity the seat does not know.
_UNKNOWN = {"?": "white", "*": "black"}


def _join(parts) -> str:
    text = ", ".join(p for p in parts if p)
    return text + "." if text and text[-1] not in ".!?" else text


def _unusual_step(move: dict) -> bool:
    """A pawn's step that its destination alone does not tell (sideways, diagonal or back)."""
    frm, to = move.get("from", ""), move.get("to", "")
    if len(frm) != 2 or len(to) != 2:
        return False
    back = to[1] < frm[1] if move.get("color") == "white" else to[1] > frm[1]
    return frm[0] != to[0] or back


def ply_words(game, index: int, seat: str, keyboard: Keyboard) -> str:
    """Ply ``index`` of ``game``'s history in words, as ``seat`` saw it:
    ``"Black: knight takes e4, check."``"""
    events = [e.for_seat(seat) for e in game.history[index].events]
    move = next((e for e in events if e["kind"] == "move"), {})
    capture = next((e for e in events if e["kind"] == "capture"), None)
    color = move.get("color") or game.history[index].color
    piece = move.get("piece") or ""
    if move.get("castle"):
        side = "short" if move["to"][0] > move["from"][0] else "long"
        main = f"castles {side}"
    else:
        who = piece or move.get("from", "")
        if capture is not None and not capture.get("removed"):
            main = f"{who} takes {move.get('to', capture['square'])}"
            if move.get("en_passant") or move.get("ep") == "captured":
                main += " en passant"
        elif piece == "pawn" and _unusual_step(move):
            main = f"pawn from {move['from']} to {move['to']}"
        else:
            main = f"{who} to {move.get('to', '')}"
    parts = [main]
    for e in events:
        kind = e["kind"]
        if kind == "capture":
            parts.append(keyboard.capture_words(e))
        elif kind == "promotion":
            parts.append(f"promotes to {e.get('piece', 'a piece')}")
        elif kind == "check":
            parts.append("check")
        elif kind not in ("move", "game-over"):
            parts.append(keyboard.event_words(e, seat))
    return f"{title(color)}: " + _join(parts)


def announce(session, st: dict, keyboard: Keyboard) -> dict:
    """The ``speech`` key of the state ``st`` (drawn by then): ``{"key", "text", "reply"}``.
    ``text`` is what the live region says when ``key`` (or the game) changes: the last move, a
    draw offer, the end of the game, whose turn it is, the hand-over; in a replay, the move shown.
    ``reply`` answers a reading command of the move box (else ``None``)."""
    g = session.game
    viewer = st["viewer"]
    seat = viewer if viewer in COLORS else "spectator"
    status = st["status"]
    replay = st.get("replay")
    if replay:
        ply, persp = replay.get("ply", 0), replay.get("perspective", "all")
        if ply <= 0:
            text = "Replay: the start position."
        else:  # (the game is over: everything may be said, or what one side knew)
            told = persp if persp in COLORS else g.history[ply - 1].color
            text = f"Replay, move {ply} of {len(g.history)}: " + ply_words(g, ply - 1, told, keyboard)
        return {"key": f"replay|{ply}|{persp}", "text": text, "reply": None}
    parts = []
    # (a game ended by an action -- resigned, agreed, flagged -- is not told its last move again)
    ended_by_move = bool(g.history) and any(e.kind == "game-over" for e in g.history[-1].events)
    undone = session.mode.taken_back(session)
    if undone:  # (not the move now last, as if it had just been played)
        parts.append(takeback_words(undone))
    elif g.history and (not status["over"] or ended_by_move):
        parts.append(ply_words(g, len(g.history) - 1, seat, keyboard))
    offer, handover, penalty = st["drawOffer"], st["handover"], g.pending_penalty
    if status["over"]:
        parts.append(status["message"] + ".")
    else:
        if offer:
            parts.append(f"{title(offer)} offers a draw.")
        if handover:
            parts.append(f"Pass the device to {title(handover['to'])}.")
        elif penalty:
            n = penalty["count"]
            parts.append(f"{title(penalty['by'])} removes {n} enemy piece{'s' if n != 1 else ''}: "
                         "type remove and the squares.")
        elif st["phase"] == "setup" and keyboard.setup_help:
            parts.append(keyboard.setup_words(st["viewer"]))
        elif st["phase"] == "play":
            parts.append(f"{title(st['turnColor'])} to move.")
    # (with the state's gameId, the page knows when to speak; the key holds no secret)
    key = "|".join(map(str, (len(g.history), viewer, offer, status["reason"], st["phase"],
                             "taken-back" if undone else "")))
    return {"key": key, "text": " ".join(parts), "reply": None}


def takeback_words(plies) -> str:
    """The plies a takeback undid, in the order they were played, as the move list writes them.

    >>> from hiddenchess.game.game import Game
    >>> g = Game.new("standard"); _ = g.play("Nf3"); _ = g.play("Nc6")
    >>> takeback_words(g.history[1:]), takeback_words(g.history)
    ('Nc6 taken back.', 'Nf3 and Nc6 taken back.')
    """
    return " and ".join(p.san for p in plies) + " taken back."


def _duration(ms: int) -> str:
    seconds = max(0, int(ms) // 1000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    out = []
    if hours:
        out.append(f"{hours} hour{'s' if hours != 1 else ''}")
    if minutes:
        out.append(f"{minutes} minute{'s' if minutes != 1 else ''}")
    if seconds or not out:
        out.append(f"{seconds} second{'s' if seconds != 1 else ''}")
    return " ".join(out)


def clock_words(clock: "dict | None") -> str:
    """Both clocks in words.

    >>> clock_words({"white": 272_400, "black": 60_000, "running": "white"})
    'White 4 minutes 32 seconds, running. Black 1 minute.'
    >>> clock_words(None)
    'This game has no clock.'
    """
    if clock is None:
        return "This game has no clock."
    return " ".join(
        f"{title(c)} {_duration(clock[c])}{', running' if clock.get('running') == c else ''}."
        for c in COLORS)


def piece_name(letter: str) -> str:
    """``"white knight"`` for ``"N"``; ``"black piece, identity unknown"`` for ``"*"``."""
    if letter in _UNKNOWN:
        return f"{_UNKNOWN[letter]} piece, identity unknown"
    color = "white" if letter.isupper() else "black"
    return f"{color} {ROLE_WORDS.get(letter.lower(), 'piece')}"


def square_words(square: str, squares: dict, dests: dict, marks: "dict | None" = None) -> str:
    """One square: what stands on it, its marks (``state.squareMarks``: ``"your secret pawn"``)
    and where it can go.

    >>> square_words("d2", {"d2": "P"}, {"d2": ["d3"]}, {"d2": "your secret pawn"})
    'd2, white pawn, your secret pawn, can move to d3'
    """
    letter = squares.get(square)
    parts = [square, piece_name(letter) if letter else "empty"]
    if letter and (marks or {}).get(square):
        parts.append(marks[square])
    if dests.get(square):
        parts.append("can move to " + " ".join(sorted(dests[square])))
    return ", ".join(parts)


def _marked(square: str, marks: "dict | None") -> str:
    """``"e2 (your secret pawn)"``: a square with its mark, if any."""
    mark = (marks or {}).get(square)
    return f"{square} ({mark})" if mark else square


def pieces_words(squares: dict, which: str = "", marks: "dict | None" = None) -> str:
    """Where the pieces are: all of them (``which=""``), or one kind (``"N"``: White's knights,
    ``"n"``: Black's, as lichess's blind mode has it), each with its mark (``marks``:
    ``state.squareMarks``).

    >>> pieces_words(board_squares("4k3/8/8/8/8/8/8/RN2K1NR"), "N")
    'White knights: b1, g1.'
    >>> pieces_words(board_squares("4k3/8/8/8/8/8/8/4K3"))
    'White: king e1. Black: king e8.'
    >>> pieces_words(board_squares("4k3/4p3/8/8/8/8/3PP3/4K3"), "P", {"e2": "your secret pawn"})
    'White pawns: d2, e2 (your secret pawn).'
    """
    if which:
        color = "white" if which.isupper() else "black"
        found = [_marked(sq, marks) for sq in sorted(sq for sq, ch in squares.items() if ch == which)]
        name = f"{title(color)} {_PLURAL[which.lower()]}"
        return f"{name}: {', '.join(found)}." if found else f"No {name.lower()}."
    out = []
    for color in COLORS:
        groups = []
        for letter in "kqrbnp?":
            ch = letter.upper() if color == "white" else letter
            if letter == "?":
                ch = "?" if color == "white" else "*"
            found = sorted(sq for sq, c in squares.items() if c == ch)
            if found:
                if letter == "?":
                    word = "unknown pieces" if len(found) > 1 else "unknown piece"
                else:
                    word = (_PLURAL if len(found) > 1 else ROLE_WORDS)[letter]
                groups.append(f"{word} {' '.join(_marked(sq, marks) for sq in found)}")
        out.append(f"{title(color)}: {', '.join(groups) if groups else 'no pieces'}.")
    return " ".join(out)


def scan_words(squares: dict, line: str, marks: "dict | None" = None) -> str:
    """A file (``"a"``) from rank 1 up, or a rank (``"4"``) from the a-file on, with runs of
    empty squares said once, and each piece's mark (``marks``: ``state.squareMarks``).

    >>> scan_words(board_squares("8/8/8/8/8/8/P7/R7"), "a")
    'a1 white rook, a2 white pawn, a3 to a8 empty.'
    """
    cells = ([f"{line}{r}" for r in "12345678"] if line in "abcdefgh"
             else [f"{f}{line}" for f in "abcdefgh"])
    parts, run = [], []

    def flush():
        if run:
            parts.append(f"{run[0]} empty" if len(run) == 1 else f"{run[0]} to {run[-1]} empty")
            run.clear()

    for sq in cells:
        if sq in squares:
            flush()
            mark = (marks or {}).get(sq)
            parts.append(f"{sq} {piece_name(squares[sq])}" + (f" ({mark})" if mark else ""))
        else:
            run.append(sq)
    flush()
    return _join(parts)
