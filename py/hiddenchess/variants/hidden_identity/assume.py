"""What one side of a friend game may assume about the opponent's hidden identities: an
arrangement consistent with the public history (:func:`determinize`), and where each piece
started (:func:`piece_items`). Used by the protocol hooks (:mod:`.peer`).

>>> import random
>>> from hiddenchess.variants.hidden_identity.rules import home_squares
>>> start = {"white": home_squares("white"), "black": home_squares("black")}
>>> moves = [{"uci": "g1f3", "castle": None, "ep": None, "captured": None}]
>>> det = determinize(start, {}, moves, "white", random.Random(1))
>>> det["placement"]["g1"], len(det["placement"])
('n', 16)
"""

from __future__ import annotations

from hiddenchess.engine.core import BLACK, WHITE
from hiddenchess.errors import HiddenChessError
from hiddenchess.peer.tracking import advance
from hiddenchess.variants.hidden_identity.knowledge import (
    ROLE_COUNTS, current_role, feasible, original_role, public_knowledge,
)

__all__ = ["determinize", "public_records", "far_rank", "piece_items"]


def far_rank(color: str, square: str) -> bool:
    """Whether ``square`` is on ``color``'s last rank (where its pawns promote)."""
    return square[1] == ("8" if color == "white" else "1")


def public_records(moves: list) -> list:
    """The public move records that
    :func:`~hiddenchess.variants.hidden_identity.rules.candidates`' deduction reads."""
    return [{"kind": "move", "from": mv["uci"][:2], "to": mv["uci"][2:4], "castle": mv.get("castle"),
             "ep": mv.get("ep"), "captured": mv.get("captured")} for mv in moves]


def piece_items(start: dict, moves: list) -> dict:
    """Follow every piece (:func:`~hiddenchess.peer.tracking.advance`): ``{"board": {square:
    start square}, "latest": {start square: item}, "arrival": {start square: ply of its first
    arrival on its last rank}}``; ``item`` is the start square or ``"ply:<n>"`` after an arrival
    on the last rank at ply ``n`` (its new commitment)."""
    board = {sq: sq for color in ("white", "black") for sq in start.get(color, [])}
    color_of = {sq: color for color in ("white", "black") for sq in start.get(color, [])}
    latest = {sq: sq for sq in board}
    arrival: dict = {}
    for ply, mv in enumerate(moves):
        frm, to = mv["uci"][:2], mv["uci"][2:4]
        origin = board.get(frm)
        if origin is None:
            raise HiddenChessError(f"no piece on {frm} at ply {ply + 1}")
        ep = mv.get("ep")
        if mv.get("castle"):
            advance(board, frm, to, castle=mv["castle"])
            continue
        if ep == "not-a-pawn":
            advance(board, frm, to, removed=[frm])  # the capturing pawn is removed, the piece stays
            continue
        advance(board, frm, to, removed=[to[0] + frm[1]] if ep == "captured" else [to])
        if far_rank(color_of[origin], to):
            latest[origin] = f"ply:{ply}"
            arrival.setdefault(origin, ply)
    return {"board": board, "latest": latest, "arrival": arrival}


def determinize(start: dict, kings: dict, moves: list, color: str, rng) -> dict | None:
    """An arrangement of ``color``'s identities consistent with the public history: ``{"placement":
    {start square: original role}, "promotions": {ply: role}}`` (a promoted pawn's new role at
    the ply it reached the last rank), or ``None`` when no arrangement fits (the history breaks
    the rules for every one of them). ``start``: both sides' occupied squares when play began;
    ``kings``: revealed kings (``{color: square}``); ``moves``: the moves with their public facts
    (``uci``, ``castle``, ``ep``, ``captured``)."""
    try:
        know = public_knowledge(start, kings, public_records(moves))
    except (HiddenChessError, KeyError):
        return None
    c = WHITE if color == "white" else BLACK
    first = 0 if c == WHITE else len(start.get("white", []))
    squares = list(start.get(color, []))
    group = [set(know["pieces"][first + i][1]) for i in range(len(squares))]
    if any(not states for states in group):
        return None
    chosen: list = [None] * len(group)
    order = list(range(len(group)))
    rng.shuffle(order)
    order.sort(key=lambda i: len(group[i]))
    for k in order:
        options = sorted(group[k])
        rng.shuffle(options)
        for s in options:
            trial = list(group)
            trial[k] = {s}
            if feasible(trial, k, original_role(s)):
                group[k] = {s}
                chosen[k] = s
                break
        else:
            return None
    counts = {r: 0 for r in ROLE_COUNTS}
    for s in chosen:
        counts[original_role(s)] += 1
    if counts != ROLE_COUNTS:
        return None
    placement = {sq: original_role(s) for sq, s in zip(squares, chosen)}
    arrival = piece_items(start, moves)["arrival"]
    promotions = {}
    for sq, s in zip(squares, chosen):
        if s.endswith("*") and sq in arrival:
            promotions[arrival[sq]] = current_role(s)
    return {"placement": placement, "promotions": promotions}
