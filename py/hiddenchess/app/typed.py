"""The move box: a line of typed text -> one action of the session (action ``typed``).

A move is matched against what the page offers the viewer -- the state's ``movable.dests``,
``promotions`` and board, which hold only what that seat may try and see -- and then played
through ``move`` like a click, so the rules engine decides and refuses it as it refuses a
dragged piece. Text that names no such move is refused with a clear sentence and changes
nothing. Forms understood:

* SAN (``e4``, ``Nf3``, ``exd5``, ``O-O``, ``e8=Q``; piece letters other than ``b`` may be
  typed in lower case) and UCI or long algebraic (``e2e4``, ``e2-e4``, ``g1-f3``, ``e7e8q``);
* the variant's own forms through its :class:`~hiddenchess.app.keyboard.Keyboard` plug-in
  (the marks of its notation, a setup step, a promotion chosen before the move);
* commands: ``resign`` (asked first: the state's ``ask``), ``draw`` (offer, or accept an offer), ``decline``, ``claim``,
  ``takeback`` (or ``undo``, ``take back``: as the Take back button), ``flip``,
  ``show`` (the hand-over), ``c`` (both clocks), ``l`` (the last move), ``p`` (every piece),
  ``p N`` / ``p n`` (White's / Black's knights), ``s e4`` (one square), ``scan a`` / ``scan 4``
  (a file or a rank), ``help``.

The answer of a reading command is the state's ``speech.reply``.

>>> board = board_squares("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR")
>>> dests = {"e2": ["e3", "e4"], "g1": ["f3", "h3"], "b1": ["a3", "c3"]}
>>> match_move("Nf3", board, dests, {}, "white", Keyboard())
('g1', 'f3', None)
>>> match_move("e2-e4", board, dests, {}, "white", Keyboard())
('e2', 'e4', None)
>>> match_move("Ke2", board, dests, {}, "white", Keyboard())
Traceback (most recent call last):
...
hiddenchess.app.errors.SessionError: Ke2 is not a move you can play now
"""

from __future__ import annotations

import re

from hiddenchess.app.errors import SessionError
from hiddenchess.app.keyboard import Keyboard, keyboard_for
from hiddenchess.app.speech import (board_squares, clock_words, pieces_words, ply_words,
                                    scan_words, square_words)
from hiddenchess.app.text import COLORS, title
from hiddenchess.errors import HiddenChessError

__all__ = ["run", "match_move", "MAX_TEXT", "HELP"]

#: The longest line the move box takes.
MAX_TEXT = 60

HELP = ("Type a move such as e4, Nf3, exd5, O-O, e7e8=Q or e2e4. Commands: resign, draw, decline, "
        "claim, abort, takeback, flip, show, c for the clocks, l for the last move, p for every piece, p N for "
        "White's knights (p n for Black's), s e4 for a square, scan a or scan 4 for a file or a "
        "rank.")

_LONG = re.compile(r"^(?P<piece>[KQRBNP])?(?P<orig>[a-h][1-8])\s*[-x:]?\s*(?P<dest>[a-h][1-8])"
                   r"\s*(?:=?\s*\(?(?P<promo>[QRBNqrbn])\)?)?$")
_SAN = re.compile(r"^(?P<piece>[KQRBN])?(?P<file>[a-h])?(?P<rank>[1-8])?[x:]?(?P<dest>[a-h][1-8])"
                  r"(?:=?\(?(?P<promo>[QRBNqrbn])\)?)?$")
_CASTLE = re.compile(r"^([O0o])-?\1(?P<long>-?\1)?$")
_TRAILING = re.compile(r"[+#!?]+$")
_SQUARE = re.compile(r"^[a-h][1-8]$")


def _strip(text: str) -> str:
    text = _TRAILING.sub("", "".join(text.split()))
    if len(text) >= 3 and text[0] in "nrqk" and _SAN.match(text[0].upper() + text[1:]):
        text = text[0].upper() + text[1:]  # (lower-case piece letters, except b: a pawn's file)
    return text


def _in_check(state, squares: dict) -> str:
    """Why a move may be refused, when the board shows it: ``" (your king on e1 is in check)"``,
    or ``" (your royal pawn on e4 is in check)"`` in Royal Pawn Chess; else ``""``.

    >>> _in_check({"check": "e4"}, {"e4": "P"}), _in_check({"check": None}, {})
    (' (your royal pawn on e4 is in check)', '')
    """
    square = (state or {}).get("check")
    letter = squares.get(square, "") if isinstance(square, str) else ""
    if not letter:
        return ""
    royal = "king" if letter.upper() == "K" else "royal pawn" if letter.upper() == "P" else "royal piece"
    return f" (your {royal} on {square} is in check)"


def match_move(text: str, squares: dict, dests: dict, promotions: dict, turn: str,
               keyboard: Keyboard, state: "dict | None" = None) -> tuple:
    """``(orig, dest, promotion)`` of the one move among ``dests`` (the moves the viewer may
    try) that ``text`` names, read against the viewer's board ``squares``
    (:func:`~hiddenchess.app.speech.board_squares`). SessionError when none or several match."""
    said = text
    text = _strip(keyboard.clean(text))
    own = str.isupper if turn == "white" else str.islower
    pairs = [(o, d) for o, tos in dests.items() for d in tos]
    promo = None
    castle = _CASTLE.match(text)
    long = _LONG.match(text)
    san = _SAN.match(text)
    if castle:
        short = not castle.group("long")
        found = [(o, d) for o, d in pairs if squares.get(o, "").upper() == "K" and own(squares[o])
                 and o[1] == d[1] and abs(ord(d[0]) - ord(o[0])) >= 2
                 and (d[0] > o[0]) == short]
        found = [p for p in found if abs(ord(p[1][0]) - ord(p[0][0])) == 2] or found
    elif long:
        promo = long.group("promo")
        found = [(o, d) for o, d in pairs if o == long.group("orig") and d == long.group("dest")
                 and (not long.group("piece")
                      or squares.get(o, "").upper() == long.group("piece"))]
    elif san:
        promo = san.group("promo")
        piece = san.group("piece") or "P"
        found = [(o, d) for o, d in pairs if d == san.group("dest")
                 and squares.get(o, "").upper() == piece and own(squares[o])
                 and (not san.group("file") or o[0] == san.group("file"))
                 and (not san.group("rank") or o[1] == san.group("rank"))]
    else:
        raise SessionError(f"{said!r} is not a move or a command: type help for the list")
    if not found:
        raise SessionError(f"{said} is not a move you can play now{_in_check(state, squares)}")
    if len(found) > 1:
        raise SessionError(f"{said} is ambiguous: type one of {', '.join(sorted(o + d for o, d in found))}")
    orig, dest = found[0]
    roles = promotions.get(orig + dest) or []
    promo = promo.lower() if promo else None
    if roles:
        if promo is None:
            promo = keyboard.default_promotion(state, orig, dest)
        if promo is None:
            raise SessionError(f"{said} promotes: say to which piece, e.g. {orig}{dest}=Q")
        if promo not in roles:
            raise SessionError(f"{said}: the piece may promote to {', '.join(r.upper() for r in roles)}")
    elif promo is not None:
        raise SessionError(f"{said} is not a promotion")
    return orig, dest, promo


# ---------------------------------------------------------------------- commands

def _answer(session, st: dict, text: str) -> dict:
    st["speech"]["reply"] = text
    return st


def _reading(session, line: str, st: dict) -> "dict | None":
    """The board-reading commands (lichess's blind mode): the state with ``speech.reply``."""
    squares, marks = board_squares(st["fen"]), st.get("squareMarks") or {}
    head, rest = line.lower().split()[0], line.split()[1:]
    dests = st["movable"]["dests"]
    if head in ("c", "clock", "clocks"):
        return _answer(session, st, clock_words(st["clock"]))
    if head in ("l", "last"):
        g = session.game
        if not g.history:
            return _answer(session, st, "No moves yet.")
        seat = st["viewer"] if st["viewer"] in COLORS else "spectator"
        return _answer(session, st, ply_words(g, len(g.history) - 1, seat, keyboard_for(g.variant)))
    if head == "help":
        return _answer(session, st, HELP)
    if head == "p" and len(rest) <= 1:
        which = rest[0] if rest else ""
        if which and (len(which) != 1 or which.lower() not in "kqrbnp"):
            raise SessionError("p takes a piece letter: p N for White's knights, p n for Black's")
        return _answer(session, st, pieces_words(squares, which, marks))
    if head == "s" and len(rest) == 1:
        if not _SQUARE.match(rest[0].lower()):
            raise SessionError(f"s takes a square like e4, got {rest[0]!r}")
        return _answer(session, st, square_words(rest[0].lower(), squares, dests, marks))
    if head == "scan" and len(rest) == 1:
        line = rest[0].lower()
        if len(line) != 1 or line not in "abcdefgh12345678":
            raise SessionError("scan takes a file (a to h) or a rank (1 to 8)")
        return _answer(session, st, scan_words(squares, line, marks))
    return None


def _command(session, words: list, st: dict) -> "tuple | None":
    """The action of a game command: ``(action, args)``, or ``None``."""
    viewer = st["viewer"]
    me = {"color": viewer} if viewer in COLORS else {}
    head = words[0]
    if words in (["takeback"], ["undo"], ["take", "back"]):
        return "takeback", {}  # (as the Take back button: refused in a game with a friend)
    if len(words) != 1:
        return None
    if head == "resign":
        return "resign", me
    if head == "draw":
        offer = st["drawOffer"]
        if offer and offer != viewer and viewer in COLORS:
            return "accept_draw", me
        return "offer_draw", me
    if head == "decline":
        return "decline_draw", me
    if head == "abort":
        return "abort", {}
    if head == "claim":
        return "claim_draw", {}
    if head == "flip":
        return "flip", {}
    if head == "show":
        return "show_board", {}
    return None


def run(session, text, now_ms: int) -> dict:
    """The ``typed`` action: play or do what ``text`` says (the state), or refuse it."""
    try:
        if not isinstance(text, str):
            raise SessionError(f"the typed text must be a string, got {type(text).__name__}")
        line = " ".join(text.split())
        if not line:
            raise SessionError("type a move such as e4 or Nf3, or help for the commands")
        if len(line) > MAX_TEXT:
            raise SessionError(f"that is too long for a move or a command ({len(line)} characters)")
        st = session.state(now_ms=now_ms)
        words = line.lower().split()
        answer = _reading(session, line, st)
        if answer is not None:
            return answer
        command = _command(session, words, st)
        if command is None:
            command = _move_action(session, line, st)
        if command[0] == "resign":
            return _ask_resign(session, command[1], st, now_ms)
        if command[0] == "takeback" and st.get("takeback"):
            # (on one device the other player agrees first: the page asks, as the button does)
            st["ask"] = {"action": "takeback", "args": {}}
            return _answer(session, st, "Take back?")
    except HiddenChessError as e:
        return session.error(e, now_ms)
    return session.dispatch(command[0], command[1], now_ms=now_ms)


def _ask_resign(session, args: dict, st: dict, now_ms: int) -> dict:
    """``resign`` is not done at once: the state asks the page to put the question the resign
    buttons put (``state["ask"]``), and the page sends the ``resign`` action once the player
    confirms. Whether the player may resign now is checked first, so a refusal is said at once."""
    color = session.mode.player(session, args.get("color"))
    session.require_play(now_ms)
    st["ask"] = {"action": "resign", "args": {"color": color}}
    return _answer(session, st, "Resign?")


def _move_action(session, line: str, st: dict) -> tuple:
    g = session.game
    keyboard = keyboard_for(g.variant)
    if st["status"]["over"]:
        raise SessionError(f"the game is over ({st['status']['message']})")
    handover = st["handover"]
    if handover:
        raise SessionError(f"pass the device to {title(handover['to'])} first, who then types show")
    if g.phase == "setup":
        action = keyboard.setup(session, line, st["viewer"])
        if action is None:
            raise SessionError(keyboard.setup_words(st["viewer"]) or "the game has not started yet")
        return action
    action = keyboard.play_action(session, line, st["viewer"])
    if action is not None:
        return action
    # (only moves the rules may allow: a tabletop bluff among the board's destinations is made
    # with the pieces, never by a typo)
    tryable = g.dests(st["viewer"]) if st["viewer"] in COLORS else g.dests()
    dests = {o: [d for d in tos if d in tryable.get(o, ())]
             for o, tos in st["movable"]["dests"].items()}
    dests = {o: tos for o, tos in dests.items() if tos}
    if not dests:
        raise SessionError(f"it is not your move: {title(g.turn)} is to move")
    orig, dest, promo = match_move(line, board_squares(st["fen"]), dests, st["promotions"],
                                   st["turnColor"], keyboard, st)
    args = {"orig": orig, "dest": dest}
    if promo:
        args["promotion"] = promo
    return "move", args
