"""The computer in Reveal Chess: covers and pools are public, so the view is the whole truth;
a cover's first move is a chance node over the roles left in its side's pool.
"""

from hiddenchess.engine.core import PIECE_NAMES, PIECE_SYMBOLS
from hiddenchess.errors import HiddenChessError
from hiddenchess.engine.notation import parse_uci, position_from_fen
from hiddenchess.engine.variant import get_variant
from hiddenchess.variants.reveal.rules import apply_reveal, pool_of, reveal_square
from hiddenchess.ai.determinizers import InvalidViewError, Sample, register_determinizer, view_field
from hiddenchess.ai.search import repetition_key

_SEATS = ("white", "black")


def reveal_outcomes(pos, m) -> "list | None":
    """The chance outcomes of move ``m`` in ``pos`` (not yet played): ``None`` when it reveals
    nothing, else ``[(probability, apply), ...]``, one per role left in the mover's pool, where
    ``apply(pos)`` turns the moved cover into that role after the move is pushed.

    >>> from hiddenchess.engine.notation import initial_position
    >>> pos = initial_position("reveal")
    >>> [round(p, 3) for p, _ in reveal_outcomes(pos, parse_uci(pos, "e2e4"))]
    [0.067, 0.133, 0.133, 0.133, 0.533]
    >>> pos.push(parse_uci(pos, "e2e4")); pos.push(parse_uci(pos, "e7e5"))
    >>> reveal_outcomes(pos, parse_uci(pos, "e1e2")) is None     # the king is no cover
    True
    """
    sq = reveal_square(pos, m)
    if sq < 0:
        return None
    pool = pool_of(pos, pos.turn)
    total = sum(pool.values())
    if not total:
        return None
    return [(n / total, _applier(sq, role, m)) for role, n in pool.items() if n]


def _applier(sq, role, m):
    def apply(pos):
        apply_reveal(pos, sq, role, m)
    return apply


@register_determinizer("reveal")
def reveal(view, rng) -> list:
    """Reveal Chess: the view is the whole truth (covers and pools are public); one sample whose
    root cover moves are chance nodes (:func:`reveal_outcomes`)."""
    variant = get_variant(view_field(view, "variant"))
    position = position_from_fen(view_field(view, "fen"), variant)
    turn = view.get("turn")
    if turn is not None and turn != _SEATS[position.turn]:
        raise InvalidViewError(f"the view says {turn} to move but its FEN disagrees")
    return [Sample(position, _reveal_history(view, variant, position), chance=reveal_outcomes)]


def _reveal_history(view, variant, position) -> list:
    """Repetition keys of the earlier positions, replaying the moves with the roles the events
    show (a plain replay would leave the covers unrevealed). ``[]`` when that fails."""
    events = view.get("events")
    moves = view.get("moves")
    if not moves or not isinstance(events, list) or len(events) != len(moves):
        return []
    by_name = {PIECE_NAMES[t]: PIECE_SYMBOLS[t] for t in range(1, 6)}
    try:
        pos = position_from_fen(view.get("start_fen") or variant.start_fen, variant)
        keys = []
        for entry, evs in zip(moves, events):
            keys.append(repetition_key(pos))
            m = parse_uci(pos, entry["uci"] if isinstance(entry, dict) else entry)
            sq = reveal_square(pos, m)
            pos.push(m)
            if sq >= 0:
                shown = next(e for e in evs if e.get("kind") == "reveal")
                apply_reveal(pos, sq, by_name[shown["role"]], m)
    except (HiddenChessError, KeyError, TypeError, StopIteration):
        return []
    if pos.state_key() != position.state_key():
        return []
    return keys


__all__ = ["reveal", "reveal_outcomes"]
