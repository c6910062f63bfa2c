"""From what a seat knows (a view) to full positions the search can work on.

This is the extension point for the hidden-information variants. The search
(:mod:`hiddenchess.ai.search`) only ever sees complete positions; a *determinizer* turns a
view -- ``Game.view(seat).to_json()``, the same dictionary the screen shows -- into one or more
:class:`Sample` objects, each a full position consistent with the view plus the repetition keys
of the positions before it, and a weight.

:data:`DETERMINIZERS` maps a variant id to its determinizer. A variant registers its own in its
folder's ``ai`` plug-in (``hiddenchess/variants/<package>/ai.py``, imported on first use by
:func:`computer_plays`); a variant whose folder has none hides nothing and gets
:func:`full_information`: the view's FEN is the whole truth, so there is exactly one sample (the
move list is replayed from the variant's start, or the view's ``start_fen`` when it carries one,
to know which positions already occurred, for the repetition rules). Variants with a setup phase
register the computer's setup choice the same way (:func:`register_setup_chooser`).

Adding a hidden variant means writing one function in its folder and registering it, without
touching the search::

    @register_determinizer("my-variant")
    def sample_worlds(view, rng):
        # Fill in what the view hides, consistently with everything it shows, and return
        # several weighted full positions.
        return [Sample(position, history, weight) for ...]

:func:`hiddenchess.ai.choose_move` searches every sample (the node budget is shared among them)
and plays the move with the best weighted mean score, i.e. an expectation over the samples at
the root. Reveal Chess's pool draws are chance events of the *mover's own* move; its
determinizer can return one sample per likely draw sequence with the draw probability as the
weight (the root expectation then is the expectimax over the first draw).

>>> import random
>>> fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
>>> view = {"variant": "standard", "fen": fen,
...         "turn": "black", "moves": [{"uci": "e2e4", "san": "e4"}], "status": {"over": False}}
>>> [s.position.turn for s in determinize(view, random.Random(1))]
[1]
"""

import inspect
from dataclasses import dataclass, field

from hiddenchess.errors import HiddenChessError, UnknownVariantError
from hiddenchess.engine.notation import parse_uci, position_from_fen
from hiddenchess.engine.variant import get_variant, load_plugin
from hiddenchess.ai.search import repetition_key


class InvalidViewError(HiddenChessError):
    """A view dictionary that is not what ``Game.view(seat).to_json()`` produces."""

    prefix = "invalid view: "


@dataclass
class Sample:
    """One full position consistent with a view: ``position`` (a
    :class:`~hiddenchess.engine.position.Position`), ``history`` (repetition keys of the positions
    before it, oldest first) and ``weight`` (its relative probability). Optional:
    ``root_moves``, a set of UCI strings the computer may choose among (moves legal in every
    world consistent with the view; ``None`` = all legal moves), and ``chance``, the search's
    root chance hook (see :class:`~hiddenchess.ai.search.Searcher`)."""

    position: object
    history: list = field(default_factory=list)
    weight: float = 1.0
    root_moves: object = None
    chance: object = None


#: variant id -> function ``(view: dict, rng: random.Random) -> list[Sample]``.
DETERMINIZERS = {}


def register_determinizer(variant_id: str):
    """Decorator: make ``fn(view, rng) -> list[Sample]`` the determinizer of ``variant_id``."""
    def deco(fn):
        DETERMINIZERS[variant_id] = fn
        return fn
    return deco


#: variant id -> function ``(view: dict, rng: random.Random) -> setup data`` (what
#: ``Game.setup(seat, data)`` takes) for variants with a setup phase.
SETUP_CHOOSERS = {}


def register_setup_chooser(variant_id: str):
    """Decorator: make ``fn(view, rng) -> data`` the computer's setup choice in ``variant_id``."""
    def deco(fn):
        SETUP_CHOOSERS[variant_id] = fn
        return fn
    return deco


def _load(variant_id):
    """Make sure the variant's ``ai`` plug-in (if any) has registered its hooks; the plug-in
    module, or ``None`` when the variant's folder has none."""
    return load_plugin(get_variant(variant_id), "ai")


def choose_setup(view: dict, rng=None):
    """The computer's setup choice for the seat of ``view`` (its view during the setup phase),
    as ``Game.setup(seat, data)`` takes it. Raises UnknownVariantError when the variant has no
    setup the computer can make, InvalidViewError for a malformed view."""
    variant_id = view_field(view, "variant")
    _load(variant_id)
    fn = SETUP_CHOOSERS.get(variant_id)
    if fn is None:
        raise UnknownVariantError(f"the computer makes no setup choice in {variant_id!r}")
    return fn(view, rng)


def view_field(view, name):
    """``view[name]`` or InvalidViewError naming the missing field."""
    try:
        return view[name]
    except (KeyError, TypeError):
        raise InvalidViewError(f"the view has no {name!r} field") from None


def view_seat(view) -> str:
    """The view's seat, ``"white"`` or ``"black"``, or InvalidViewError (the computer plays from
    a player's view, never a spectator's)."""
    seat = view_field(view, "seat")
    if seat not in ("white", "black"):
        raise InvalidViewError(f"the computer needs a player's view (white or black), got {seat!r}")
    return seat


def determinize(view: dict, rng, *, prior=True) -> list:
    """The samples to search for ``view``. ``prior`` False asks a determinizer that models the
    opponent's habits (Hidden Identity: where a sensible player puts the king) to sample without
    that model (the weaker levels); determinizers without such a model ignore it. Raises
    UnknownVariantError for a variant without a determinizer, InvalidViewError /
    InvalidFenError for a malformed view."""
    if not isinstance(view, dict):
        raise InvalidViewError(
            f"expected a dict (Game.view(seat).to_json()), got {type(view).__name__}")
    variant_id = view_field(view, "variant")
    fn = computer_plays(variant_id)
    if fn is None:
        raise UnknownVariantError(f"{variant_id!r} has no computer opponent yet")
    if not prior and "prior" in inspect.signature(fn).parameters:
        samples = fn(view, rng, prior=False)
    else:
        samples = fn(view, rng)
    if not samples:
        raise InvalidViewError("no position is consistent with this view")
    return samples


def replay_history(view, variant, position) -> list:
    """Repetition keys of the positions before ``position``, rebuilt by replaying the view's
    move list from ``view["start_fen"]`` (when present) or the variant's start. Returns ``[]``
    when the moves do not lead to ``position`` (a game set up from another FEN): the search
    then simply knows no earlier positions."""
    moves = view_field(view, "moves")
    if not moves:
        return []
    start = view.get("start_fen") or variant.start_fen
    try:
        pos = position_from_fen(start, variant)
        keys = []
        for entry in moves:
            text = entry["uci"] if isinstance(entry, dict) else entry
            keys.append(repetition_key(pos))
            pos.push(parse_uci(pos, text))
    except (HiddenChessError, KeyError, TypeError):
        return []
    if pos.state_key() != position.state_key():
        return []
    return keys


def computer_plays(variant_id):
    """The determinizer for ``variant_id``, or ``None`` when the computer does not play it. A
    variant whose folder has no ``ai`` plug-in hides nothing: :func:`full_information`. Raises
    UnknownVariantError for an unknown id."""
    fn = DETERMINIZERS.get(variant_id)
    if fn is None and _load(variant_id) is None:
        return full_information
    return fn or DETERMINIZERS.get(variant_id)


def full_information(view, rng) -> list:
    """Standard and Royal Pawn Chess: the view's FEN is the full truth (one sample)."""
    variant = get_variant(view_field(view, "variant"))
    position = position_from_fen(view_field(view, "fen"), variant)
    turn = view.get("turn")
    if turn is not None and turn != ("white", "black")[position.turn]:
        raise InvalidViewError(f"the view says {turn} to move but its FEN disagrees")
    return [Sample(position, replay_history(view, variant, position))]


__all__ = ["DETERMINIZERS", "InvalidViewError", "Sample", "determinize", "full_information",
           "register_determinizer", "replay_history"]
