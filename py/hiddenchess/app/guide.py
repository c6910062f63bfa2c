"""What a player reads about a variant: the start screen's card and the in-app rules page.

Each variant's folder may hold a ``guide`` plug-in (``hiddenchess/variants/<package>/guide.py``)
with one object, ``GUIDE``, a :class:`Guide`: two lines on how the variant works, the picture of
its card, a first-game hint, the rules written for players, and examples. An example is a real
position and moves: :func:`guide_page` plays them with the engine, so the boards a reader steps
through are what the rules make of them (a reveal shown on a page happened), and a test fails if
a text and the engine ever disagree. No framework names a variant; a variant without a guide gets
its name and menu summary only.

>>> page = guide_page("royal-pawn")
>>> page["name"], len(page["examples"]) > 0
('Royal Pawn', True)
>>> [f["san"] for f in page["examples"][0]["frames"]][1:]
['e4', 'd5+', 'e5', 'Nc6#']
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hiddenchess.engine import notation
from hiddenchess.engine.core import SQUARE_NAMES, squares_of
from hiddenchess.engine.variant import VARIANTS, get_variant, load_plugin
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.game import Game

__all__ = ["Example", "Section", "Guide", "MORE", "guide_of", "guide_card", "guide_page", "guide_ids",
           "square_names"]

#: The documents every rules page links to at its foot, relative to the page (the repository
#: serves docs/, and ``build.py dist`` ships docs/*.md with the site; tests/test_docs.py checks
#: that each exists and ships).
MORE = (
    ("The rules as implemented, with our rulings", "docs/RULES.md"),
    ("Playing: each variant on screen, keyboard and screen reader, settings, the computer",
     "docs/PLAYING.md"),
    ("Playing a friend: how the game stays fair without a referee", "docs/PEER.md"),
)


@dataclass(frozen=True)
class Example:
    """A position (extended FEN) and the moves (UCI) played from it, with what they show."""

    title: str
    text: str
    fen: str
    moves: tuple = ()
    #: Squares outlined on every frame (the square being discussed).
    outline: tuple = ()
    #: Per frame, a caption under the board (``None``: the example's text only).
    captions: tuple = ()
    #: ``() -> dict`` of keyword arguments for :meth:`Game.new` (e.g. Reveal's scripted draws,
    #: so that the example shows the same reveal every time).
    game_options: object = field(default=None, compare=False)
    #: The side whose action the example shows (``"white"``/``"black"``): its board is turned
    #: towards that side. Default: the side to move at the start.
    side: str = ""


@dataclass(frozen=True)
class Section:
    title: str
    paragraphs: tuple


@dataclass(frozen=True)
class Guide:
    #: Two short lines: how the variant works, for its card on the start screen.
    how: tuple
    #: The card's picture: an image under ``assets/img/``.
    icon: str = "favicon.svg"
    #: A short hint shown once at the start of a first game of the variant.
    hint: str = ""
    #: The hint while the setup is being made (``""``: the hint); once it is done, the hint.
    setup_hint: str = ""
    sections: tuple = ()
    examples: tuple = ()
    #: A warning shown at the top of the rules page (e.g. Royal Pawn's exposed pawn).
    warning: str = ""
    #: ``marks(position) -> {"necktie": [...], ...}``: squares the variant marks on an example's
    #: boards (Secret Pawn: its neckties), from the full truth of the example position.
    marks: object = field(default=None, compare=False)


def square_names(mask: int) -> list:
    """The names of the squares of a bitboard, for a guide's ``marks`` (a1 first)."""
    return [SQUARE_NAMES[s] for s in squares_of(mask)]


def guide_of(variant_id: str) -> "Guide | None":
    """The :class:`Guide` of ``variant_id``'s folder, or ``None`` (UnknownVariantError)."""
    module = load_plugin(get_variant(variant_id), "guide")
    return getattr(module, "GUIDE", None) if module else None


def guide_card(variant_id: str) -> dict:
    """The start screen's card: ``{"how": [two lines], "icon", "hint", "setupHint"}``."""
    v = get_variant(variant_id)
    g = guide_of(variant_id)
    if g is None:
        return {"how": [v.summary], "icon": "favicon.svg", "hint": "", "setupHint": ""}
    return {"how": list(g.how), "icon": g.icon, "hint": g.hint,
            "setupHint": g.setup_hint or g.hint}


def _frames(variant_id: str, example: Example, marks) -> list:
    game = Game.new(variant_id, example.fen, **(example.game_options() if example.game_options else {}))
    if game.phase != "play":
        raise HiddenChessError(f"the example {example.title!r} does not start in play")

    def frame(san, uci, events):
        pos = game.position
        return {
            "board": notation.board_fen(pos),
            "turn": game.turn,
            "san": san,
            "lastMove": [uci[:2], uci[2:4]] if uci else None,
            "check": game.check_square(),
            "reveals": sorted({e.public["square"] for e in events
                               if e.kind == "reveal" and e.public.get("square")}),
            "message": game.status.message if game.status.over else None,
            "marks": marks(pos) if marks else {},
        }

    out = [frame(None, None, [])]
    for uci in example.moves:
        result = game.play(uci)
        out.append(frame(result.san, result.uci, result.events))
    return out


def guide_page(variant_id: str) -> dict:
    """The rules page of ``variant_id``: ``{"id", "name", "how", "warning", "sections":
    [{"title", "paragraphs"}], "examples": [{"title", "text", "outline", "captions",
    "orientation", "frames": [{"board", "turn", "san", "lastMove", "check", "reveals", "message",
    "marks"}]}], "more": [{"text", "href"}]}`` (``more``: :data:`MORE`); every example is played by
    the engine (an illegal example move raises its error), its board turned towards the side that
    acts (``orientation``)."""
    v = get_variant(variant_id)
    g = guide_of(variant_id)
    card = guide_card(variant_id)
    page = {"id": v.id, "name": v.name, "summary": v.summary, "how": card["how"],
            "icon": card["icon"], "warning": "", "sections": [], "examples": [],
            "more": [{"text": text, "href": href} for text, href in MORE]}
    if g is None:
        return page
    page["warning"] = g.warning
    page["sections"] = [{"title": s.title, "paragraphs": list(s.paragraphs)} for s in g.sections]
    for ex in g.examples:
        frames = _frames(v.id, ex, g.marks)
        if ex.side not in ("", "white", "black"):
            raise HiddenChessError(f"the example {ex.title!r} names side {ex.side!r}")
        page["examples"].append({
            "title": ex.title, "text": ex.text, "outline": list(ex.outline),
            "captions": list(ex.captions), "orientation": ex.side or frames[0]["turn"],
            "frames": frames,
        })
    return page


def guide_ids() -> list:
    """The variants with a rules page of their own (menu order)."""
    return [vid for vid in VARIANTS if guide_of(vid) is not None]
