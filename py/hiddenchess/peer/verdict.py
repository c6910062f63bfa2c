"""The end-of-game audit decides the result (issue #12).

Until both finals are in, the result a page shows is *provisional*: the audit
(:mod:`hiddenchess.peer.audit`) has not checked it. Once it has, every rule break it found
decides the game: the side that broke a rule loses by forfeit (``reason: "forfeit"``), named as
such, with the evidence in words; both pages hold the same logs and both openings, so both reach
the same verdict. When both sides broke rules, the earlier break decides (then White's, as for
endings that crossed). Problems that only follow from another one (the two pages report
different results; a result the replay does not reach) are reported but decide nothing, and so
are rule breaks in messages that were refused when they arrived (they changed nothing) -- those
proven at once already ended the game by forfeit.

>>> decisive({"problems": [{"ply": 9, "by": "black", "kind": "wrong-refusal", "message": "x"},
...                         {"ply": 4, "by": "white", "kind": "illegal-move", "message": "y"}]}, [])
{'ply': 4, 'by': 'white', 'kind': 'illegal-move', 'message': 'y'}
"""

from __future__ import annotations

from hiddenchess.peer.endings import SEATS, other

__all__ = ["decisive", "apply_verdict", "NOT_DECISIVE", "provisional", "ply_words"]

#: Problems that follow from another one: reported, never decisive by themselves.
NOT_DECISIVE = ("result-mismatch", "wrong-result")


def decisive(audit: dict, known: list) -> dict | None:
    """The rule break that decides the game among ``audit``'s problems (those in ``known``, the
    problems of refused messages and of forfeits found at once, excluded), or ``None``."""
    found = [q for q in audit.get("problems", []) if q not in known
             and q.get("kind") not in NOT_DECISIVE and q.get("by") in SEATS]
    if not found:
        return None
    return min(found, key=lambda q: (q["ply"] if isinstance(q["ply"], int) else 0,
                                     SEATS.index(q["by"])))


def apply_verdict(pg) -> None:
    """Let ``pg``'s audit decide its result: the side that broke a rule loses by forfeit (the
    result the game had is kept as ``ending["was"]``). A game already ended by a forfeit keeps
    it (it was decided by a proven rule break or a missed deadline)."""
    if pg.audit is None:
        return
    q = decisive(pg.audit, pg.problems)
    if q is None:
        return
    e = pg.ending
    if e is not None and e["reason"] == "forfeit":
        return
    was = pg.status().to_json()
    loser = q["by"]
    winner = other(loser)
    who = "your friend" if loser == pg.peer else "this page"
    where = ply_words(q["ply"])
    pg.ending = {
        "result": "1-0" if winner == "white" else "0-1", "reason": "forfeit", "winner": winner,
        "ply": pg.ply, "by": loser, "src": pg.seat, "offer": None,
        "key": [pg.ply, SEATS.index(pg.seat), len(pg.chain.sent)],
        "evidence": (f"the end-of-game check found that {who} broke a rule at {where}: "
                     f"{q['message']}; the game had ended: {was['message']}"),
        "audit": True, "was": was,
    }


def ply_words(ply) -> str:
    """``ply`` (counted from 1: ply 1 and 2 are move 1) in words.

    >>> ply_words(25), ply_words(2), ply_words(0)
    ('move 13', 'move 1', 'the start')
    """
    if not isinstance(ply, int) or ply < 1:
        return "the start"
    return f"move {(ply + 1) // 2}"


def provisional(pg) -> bool:
    """Whether the result ``pg`` shows is provisional: the game is over and the audit pending --
    unless it ended by a forfeit (a rule break proven at once, or a missed deadline), which
    the audit cannot overturn."""
    e = pg.ending or {}
    return pg.phase == "over" and pg.audit is None and e.get("reason") != "forfeit"
