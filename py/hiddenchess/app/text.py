"""Words the page shows: the end-of-game line, draw-claim reasons, colour names.

The ending texts come from the one table, :data:`hiddenchess.game.events.REASON_TEXT`.
"""

import re

from hiddenchess.game.events import NO_RESULT, REASON_TEXT, SEATS

__all__ = ["message", "foe_words", "title", "sentence", "error_sentence", "other", "CLAIM_TEXT", "COLORS",
           "MAX_ERROR_CHARS"]

#: The longest error sentence shown; a longer one (quoting a long input) is cut.
MAX_ERROR_CHARS = 400

#: The two seats, ``("white", "black")``.
COLORS = SEATS

#: Draw claim reasons as the claim dialog words them.
CLAIM_TEXT = {
    "threefold": "threefold repetition",
    "threefold-repetition": "threefold repetition",
    "fifty-moves": "fifty-move rule",
}


def other(color: str) -> str:
    """The other seat."""
    return "black" if color == "white" else "white"


#: "your friend" in a text (a stranger from quick play is "your opponent": :func:`foe_words`).
_FRIEND = re.compile(r"\b([Yy])our friend\b")


def foe_words(stranger: bool, text):
    """``text`` as the player of a game with a stranger reads it (``stranger``: quick play's):
    "your opponent", not "your friend"; any other value as it is (assets/js/dom.js ``foeWords``
    is the page's side of the rule).

    >>> foe_words(True, "Your friend declined your draw offer."), foe_words(False, "your friend")
    ('Your opponent declined your draw offer.', 'your friend')
    """
    return _FRIEND.sub(r"\1our opponent", text) if stranger and isinstance(text, str) else text


def title(name: str) -> str:
    """``name`` with its first letter in upper case."""
    return name[:1].upper() + name[1:]


#: A sentence that opens with a pawn's move or a square (``e4``, ``exd5``, ``e2e4``, ``bxa3``, and
#: a secret pawn's step, ``ef4 **f4``).
_OPENS_WITH_MOVE = re.compile(r"[a-h](?:[1-8]|x[a-h]|[a-h][1-8])")


def sentence(text: str) -> str:
    """``text`` as a sentence: its first letter in upper case, unless it opens with a move or a
    square, whose case is notation (``Bxa3`` is a bishop's move, ``bxa3`` a pawn's).

    >>> sentence("the game is over."), sentence("bxa3 is not a move you can play now.")
    ('The game is over.', 'bxa3 is not a move you can play now.')
    >>> sentence("ef4 **f4 revealed something."), sentence("bad move.")
    ('ef4 **f4 revealed something.', 'Bad move.')
    """
    return text if _OPENS_WITH_MOVE.match(text) else title(text)


def error_sentence(text: str) -> str:
    """An error's text as the page shows it: a :func:`sentence`, ending with a full stop, cut
    after :data:`MAX_ERROR_CHARS` (an error that quotes a long input: its start says enough)."""
    text = text.strip()
    if len(text) > MAX_ERROR_CHARS:
        text = text[:MAX_ERROR_CHARS].rsplit(" ", 1)[0] + " …"
    if text and text[-1] not in ".!?…":
        text += "."
    return sentence(text) if text else "That is not possible."


def _verb(name: str, verb: str) -> str:
    """``"You win"``, ``"Computer wins"``: the verb agreeing with the name."""
    return f"{name} {verb}" if name == "You" else f"{name} {verb}s"


def message(status: dict, names: "dict | None" = None) -> str:
    """The one line the page shows for a finished game; ``names`` (``{"white": "You", "black":
    "Computer"}``) says who played each side where the page knows it (else the colours).

    >>> message({"over": True, "reason": "checkmate", "winner": "white", "result": "1-0"})
    'Checkmate — White wins'
    >>> message({"over": True, "reason": "resignation", "winner": "black", "result": "0-1"})
    'White resigns — Black wins'
    >>> message({"over": True, "reason": "stalemate", "winner": None, "result": "1/2-1/2"})
    'Stalemate — draw'
    >>> message({"over": True, "reason": "agreement", "winner": None, "result": "1/2-1/2"})
    'Draw by agreement'
    >>> message({"over": True, "reason": "threefold-repetition", "winner": None, "result": "1/2-1/2"})
    'Draw claimed by threefold repetition'
    >>> message({"over": True, "reason": "resignation", "winner": "black", "result": "0-1"},
    ...         {"white": "You", "black": "Computer"})
    'You resign — Computer wins'
    >>> message({"over": True, "reason": "checkmate", "winner": "white", "result": "1-0"},
    ...         {"white": "You", "black": "Computer"})
    'Checkmate — You win'
    """
    if not status.get("over"):
        return ""
    reason, winner = status.get("reason"), status.get("winner")
    names = names or {}
    named = {c: names.get(c) or title(c) for c in COLORS}
    if reason == "resignation" and winner in COLORS:
        return f"{_verb(named[other(winner)], 'resign')} — {_verb(named[winner], 'win')}"
    text = REASON_TEXT.get(reason) or title(str(reason or "game over").replace("-", " "))
    if reason in NO_RESULT:
        return text
    if winner in COLORS:
        return f"{text} — {_verb(named[winner], 'win')}"
    return text if text.lower().startswith("draw") else f"{text} — draw"
