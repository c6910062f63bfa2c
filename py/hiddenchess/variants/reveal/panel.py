"""Reveal Chess on the page: the pools and odds panel, scripted or seeded draws, conditional
promotions.

Adds the state key ``reveal`` (:class:`hiddenchess.app.state.RevealView`) and the ``new_game``
options ``seed`` (an integer: reproducible reveals) and ``draws`` (role letters used by the
next reveals in order, see :class:`ScriptedDraw`), which are not saved. Nobody knows a cover's
role, its owner included, so both seats see the same and no hand-over is needed.

>>> from hiddenchess.app.session import Session
>>> from hiddenchess.app.storage import MemoryBackend
>>> s = Session(MemoryBackend())
>>> st = s.new_game({"variant": "reveal", "draws": ["n"]}, now_ms=0)
>>> st["reveal"]["pools"]["white"], len(st["reveal"]["covered"])
({'q': 1, 'r': 2, 'b': 2, 'n': 2, 'p': 8}, 30)
>>> st = s.move("b1", "c3", now_ms=1)
>>> st["moves"][-1]["san"], st["reveal"]["last"][0]["role"], st["reveal"]["pools"]["white"]["n"]
('Nc3?N', 'knight', 1)
>>> st["moves"][-1]["reveal"]
True
"""

from __future__ import annotations

from hiddenchess.app.errors import SessionError
from hiddenchess.app.panels import Panel, register_panel, squares_of
from hiddenchess.engine import notation
from hiddenchess.engine.core import BLACK, WHITE
from hiddenchess.variants.reveal.rules import DrawError, SeededDraw, SystemRandomDraw, odds, pool_of

__all__ = ["RevealPanel", "ScriptedDraw", "MAX_DRAWS", "reveal_state"]

#: Most roles a ``draws`` option may script (each side has 15 covers).
MAX_DRAWS = 30


class ScriptedDraw:
    """A Reveal Chess draw source for tests and demonstrations: the roles of ``roles`` in order
    (one per reveal, whichever side reveals), then ``fallback`` (a draw source, or ``None`` for
    the game's default, cryptographically random draw).

    A scripted role the revealing side's pool no longer holds raises
    :class:`~hiddenchess.variants.reveal.rules.DrawError` (the move is refused, nothing is used up).

    >>> d = ScriptedDraw(["p", "q"], SeededDraw(1))
    >>> pool = {"q": 1, "r": 2, "b": 2, "n": 2, "p": 8}
    >>> d(pool, "white"), d(pool, "black"), d.left
    ('p', 'q', 0)
    >>> d({"q": 0, "r": 0, "b": 0, "n": 0, "p": 1}, "white")   # the script is used up
    'p'
    >>> ScriptedDraw(["q"])({"q": 0, "r": 0, "b": 0, "n": 0, "p": 3}, "white")
    Traceback (most recent call last):
    ...
    hiddenchess.variants.reveal.rules.DrawError: the scripted reveal 'q' is not in white's pool any more
    """

    def __init__(self, roles, fallback=None):
        self.roles = list(roles)
        self.fallback = fallback

    @property
    def left(self) -> int:
        """How many scripted roles are still unused."""
        return len(self.roles)

    def __call__(self, pool: dict, color: str) -> str:
        if self.roles:
            role = self.roles[0]
            if pool.get(role, 0) <= 0:
                raise DrawError(f"the scripted reveal {role!r} is not in {color}'s pool any more")
            return self.roles.pop(0)
        if self.fallback is None:
            self.fallback = SystemRandomDraw()
        return self.fallback(pool, color)


def draw_source(seed, draws):
    """The draw source named by the ``seed`` / ``draws`` options (validated), or ``None``."""
    if seed is None and draws is None:
        return None
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)
                             or not 0 <= seed < 2 ** 63):
        raise SessionError(f"seed must be a whole number from 0 to 2**63 - 1, got {seed!r}")
    fallback = SeededDraw(seed) if seed is not None else None
    if draws is None:
        return fallback
    if (not isinstance(draws, list) or len(draws) > MAX_DRAWS
            or not all(isinstance(r, str) and r in ("q", "r", "b", "n", "p") for r in draws)):
        raise SessionError(f"draws must be a list of role letters q, r, b, n, p (got {draws!r})"
                           if not isinstance(draws, list) or len(draws) <= MAX_DRAWS else
                           f"draws may script at most {MAX_DRAWS} reveals")
    return ScriptedDraw(draws, fallback)


def reveal_state(pos, last_events, promotions: dict) -> dict:
    """The ``reveal`` key for position ``pos`` after a ply with ``last_events``
    (:class:`~hiddenchess.game.events.Event` objects or event dicts); ``promotions``: the
    promotion choices offered now."""
    pools = {name: pool_of(pos, c) for c, name in ((WHITE, "white"), (BLACK, "black"))}
    covered = squares_of(pos.covered)
    # A side's pool also keeps the roles of covers captured unrevealed, which never return: with
    # no cover of its own left on the board it reveals nothing more, so it has no odds.
    covers = {"white": bin(pos.covered & pos.white).count("1"),
              "black": bin(pos.covered & pos.black).count("1")}
    last = []
    for e in last_events:
        data = e if isinstance(e, dict) else {"kind": e.kind, **e.public}
        if data.get("kind") == "reveal":
            last.append({k: data.get(k) for k in ("square", "color", "cover", "role", "promoted")})
    return {
        "pools": pools,
        "odds": {name: odds(pool) if covers[name] else {} for name, pool in pools.items()},
        "covers": covers,
        "covered": covered,
        "last": last,
        "conditional": sorted(uci for uci in promotions if uci[:2] in covered),
    }


@register_panel("reveal")
class RevealPanel(Panel):
    game_options = ("seed", "draws")
    shows_material = False  # a captured cover's role was never decided
    audited = "every move and every draw"
    reveal_kinds = frozenset(("reveal",))
    game_options_text = "seed and draws are options of Reveal Chess"

    def game_kwargs(self, options: dict) -> dict:
        source = draw_source(options.get("seed"), options.get("draws"))
        return {} if source is None else {"draw_source": source}

    def decorate(self, session, st: dict, viewer: str) -> None:
        g = session.game
        st["reveal"] = reveal_state(g.position, g.history[-1].events if g.history else [],
                                    st["promotions"])

    def friend_state(self, session, st: dict, pg) -> None:
        # This page's cover's move waits for the friend's half of the draw (by correspondence,
        # for days): the cover is drawn where it went, still covered, its role to come (QA: it
        # snapped back to its square). A move that reveals nothing is shown played already.
        uci = pg.unshown_move()
        if uci is None:
            return
        local = pg.local
        pos = local.position.copy()
        pos.push(local.parse_move(uci))
        st["fen"] = notation.board_fen(pos)
        if st.get("reveal"):
            st["reveal"] = {**st["reveal"], "covered": squares_of(pos.covered)}

    def square_marks(self, st: dict) -> dict:
        """Each covered piece (its role not drawn yet): ``{"b1": "covered", ...}``."""
        out = super().square_marks(st)
        for sq in (st.get("reveal") or {}).get("covered") or []:
            out[sq] = "covered"
        return out

    def replay(self, session, st: dict, frames: list, ply: int, perspective: str) -> None:
        frame = frames[ply]
        pos = notation.position_from_fen(frame["fen"], session.game.variant)
        st["reveal"] = reveal_state(pos, frame["events"], {})

