"""The states as the page receives them: JSON, with the move list sent as a change.

A state's ``moves`` (:class:`hiddenchess.app.state.State`) grows with the game, and nearly all of
it is the same from one action to the next: sending all of it after every move made a move cost
more late in a long game (issue 17). :class:`Wire` remembers the move list it sent last and sends
only what changed: instead of ``moves`` the JSON holds ``movesDelta``::

    {"base": <seq of the state it changes>, "from": k, "items": [<moves k, k+1, ...>]
     [, "changed": [[i, <move i>], ...]]}

and every answer carries its own number, ``wireSeq``. The page (``assets/js/bridge.js``) keeps
the first ``k`` moves of the list it got with ``wireSeq == base``, puts in the ``changed`` ones
(``i < k``: e.g. a hidden promotion, shown to its own seat only) and appends ``items``. Should
it not hold that list (an answer it never read), it asks for the last state in full
(:meth:`Wire.full`, ``window.hc.full()``), which never refers to another.

>>> w = Wire()
>>> a = w.encode({"fen": "x", "moves": [{"ply": 0}]})
>>> b = w.encode({"fen": "y", "moves": [{"ply": 0}, {"ply": 1}]})
>>> decode([a, b])[-1] == {"fen": "y", "moves": [{"ply": 0}, {"ply": 1}]}
True
>>> b
'{"fen": "y", "movesDelta": {"base": 1, "from": 1, "items": [{"ply": 1}]}, "wireSeq": 2}'
"""

from __future__ import annotations

import json

__all__ = ["Wire", "decode"]


class Wire:
    """Encodes the session's states for the page, each move list as a change of the last one."""

    def __init__(self):
        self.seq = 0
        self._moves: "list | None" = None
        self._last: "dict | None" = None

    def encode(self, state: dict) -> str:
        """The JSON text of ``state`` for the page (``moves`` as ``movesDelta`` when there was
        a list before)."""
        moves = state.get("moves")
        if not isinstance(moves, list):
            return self._full(state)
        last, base = self._moves, self.seq
        self.seq += 1
        self._moves, self._last = moves, state
        out = {k: v for k, v in state.items() if k != "moves"}
        if last is None:
            out["moves"] = moves
        else:
            keep, changed = _changes(last, moves)
            out["movesDelta"] = {"base": base, "from": keep, "items": moves[keep:]}
            if changed:
                out["movesDelta"]["changed"] = changed
        out["wireSeq"] = self.seq
        return json.dumps(out)

    def full(self) -> str:
        """The last state encoded, in full (for a page that lost track of the move list)."""
        return self._full(self._last if self._last is not None else {})

    def _full(self, state: dict) -> str:
        self.seq += 1
        moves = state.get("moves")
        self._moves = moves if isinstance(moves, list) else None
        self._last = state if self._moves is not None else None
        return json.dumps({**state, "wireSeq": self.seq})


#: More changed moves than this are sent as a new tail of the list.
MAX_CHANGED = 16


def _changes(old: list, new: list) -> tuple:
    """``(keep, changed)``: ``new`` is the first ``keep`` items of ``old`` with the items
    ``changed`` (``[[index, item], ...]``) put in, then ``new[keep:]``. Identical items compare
    at C speed (the move list reuses the dicts of the plies already listed); a few moves that
    differ (a hidden promotion shown to one seat only) are sent alone."""
    n = min(len(old), len(new))
    if old[:n] == new[:n]:
        return n, []
    diffs = [i for i in range(n) if old[i] != new[i]]
    if len(diffs) > MAX_CHANGED:
        return diffs[0], []
    return n, [[i, new[i]] for i in diffs]


def decode(texts: list) -> list:
    """The states of a sequence of :meth:`Wire.encode` answers, read the way the page reads
    them (a check of the format, for the tests)."""
    out, moves, seq = [], None, None
    for text in texts:
        st = json.loads(text)
        delta = st.pop("movesDelta", None)
        if delta is not None:
            if delta["base"] != seq or moves is None or delta["from"] > len(moves):
                raise ValueError("a change of a move list this reader does not hold")
            kept = moves[:delta["from"]]
            for i, item in delta.get("changed", []):
                kept[i] = item
            st["moves"] = kept + delta["items"]
        seq = st.pop("wireSeq", None)
        moves = st.get("moves")
        out.append(st)
    return out
