"""Where did this piece start: following pieces through a game, ply by ply.

One function moves the pieces of one ply (:func:`advance`); :func:`origins` applies it to an
engine game's history (Secret Pawn Chess: which pawn flag a revealed or captured pawn is), and
:func:`hiddenchess.variants.hidden_identity.peer.piece_items` to the public move records of a
Hidden Identity game (which identity a captured piece is).

>>> board = {"e1": "e1", "h1": "h1", "d2": "d2"}
>>> advance(board, "e1", "g1", castle=("h1", "f1"))
>>> sorted(board.items())
[('d2', 'd2'), ('f1', 'h1'), ('g1', 'e1')]
>>> advance(board, "d2", "d3", removed=["d2"])   # (the mover itself removed: nothing moves)
>>> sorted(board)
['f1', 'g1']
"""

from __future__ import annotations

from hiddenchess.engine import notation
from hiddenchess.engine.core import SQUARE_NAMES

__all__ = ["advance", "origins"]


def advance(board: dict, frm: str, to: str, *, castle=None, removed=()) -> None:
    """One ply on ``board`` (``{square: start square}``, changed in place): the pieces on
    ``removed`` leave (captures; a pawn whose en passant try found no pawn), then the piece on
    ``frm`` goes to ``to`` -- unless it was removed -- and with ``castle`` (the rook's from and to
    squares) the rook goes too. A square the board does not know counts as its own start."""
    for square in removed:
        board.pop(square, None)
    if frm in removed:
        return
    piece = board.pop(frm, frm)
    if castle:
        rook_from, rook_to = castle
        board[rook_to] = board.pop(rook_from, rook_from)
    board[to] = piece


def origins(game) -> dict:
    """Where each piece now on the board started: ``{current square: start square}``, followed
    through ``game``'s history (captures, en passant, castling, promotion). Cached on the game
    ply by ply (a takeback or another move at a ply is noticed)."""
    cache = getattr(game, "peer_origins_cache", None)
    if cache is None or cache[0][0] != game.play_start_fen:
        pos = notation.position_from_fen(game.play_start_fen, game.variant)
        start = {SQUARE_NAMES[s]: SQUARE_NAMES[s] for s in range(64) if pos.piece_at(s) is not None}
        cache = [(game.play_start_fen, start)]
        game.peer_origins_cache = cache
    history = game.history
    n = 0
    while n < len(history) and n + 1 < len(cache) and cache[n + 1][0] == history[n].uci:
        n += 1
    del cache[n + 1:]
    for ply in history[n:]:
        where = dict(cache[-1][1])
        removed = [e.public["square"] for e in ply.events if e.kind == "capture"]
        move = next(e for e in ply.events if e.kind == "move").public
        frm, to = move["from"], move["to"]
        castle = None
        if move["castle"]:
            rank = frm[1]
            castle = ("h" + rank, "f" + rank) if to[0] > frm[0] else ("a" + rank, "d" + rank)
            to = ("g" if to[0] > frm[0] else "c") + rank
        advance(where, frm, to, castle=castle, removed=removed)
        cache.append((ply.uci, where))
    return dict(cache[-1][1])
