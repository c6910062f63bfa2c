"""The actions the page may call through :meth:`Session.dispatch
<hiddenchess.app.session.Session.dispatch>`, with the arguments each takes.

>>> ACTIONS["move"]
('orig', 'dest', 'promotion', 'allow_illegal')
>>> actions()["seal"]                      # a variant's own action (its panel's)
('squares',)
"""

from __future__ import annotations

import re

from hiddenchess.app.errors import SessionError
from hiddenchess.app.games import GAMES_ACTIONS
from hiddenchess.app.modes import FRIEND_ACTIONS
from hiddenchess.app.options import panel_option_keys
from hiddenchess.app.panels import variant_actions
from hiddenchess.app.text import message

__all__ = ["ACTIONS", "DELETED_TEXT", "QUIET_ACTIONS", "STALE_TEXT", "actions", "move_uci"]

_SQUARE = re.compile(r"^[a-h][1-8]$")

#: What a stale page (another tab saved this game since) may still do: look, and load again.
QUIET_ACTIONS = frozenset({"restore", "state", "tick", "storage_changed", "export_corrupt",
                           "dismiss_notice", "flip", "replay", "replay_exit", "catalog",
                           # (the move box: a move or command it types is dispatched, and checked, again)
                           "typed",
                           # (other games than this one: open, export, delete)
                           "open_game", "export_games", "delete_game", "check_import"})
#: Why a stale page refuses everything else.
STALE_TEXT = ("this game was changed in another tab or window: reload the page to continue from "
              "the newer position.")
DELETED_TEXT = ("this game was deleted in another tab or window: reload the page to go on with "
                "your other games.")

#: The session's actions, and those of the variants registered when it was imported (see
#: :func:`actions` for the current list).
ACTIONS = {
    "restore": ("game",),
    "state": (),
    "new_game": ("options", "variant", "mode", "clock", "autoflip", "fen", "level", "color", "stranger"),
    "move": ("orig", "dest", "promotion", "allow_illegal"),
    "computer_move": ("uci", "ply", "game", "score"),
    "takeback": (),
    "tick": (),
    "resign": ("color",),
    "offer_draw": ("color",),
    "accept_draw": ("color",),
    "decline_draw": ("color",),
    "claim_draw": ("move",),
    "flip": (),
    "set_auto_flip": ("on",),
    "export_corrupt": ("key",),
    "dismiss_notice": (),
    "storage_changed": (),
    "suspend": (),
    "catalog": (),
    "show_board": ("seat",),
    "replay": ("ply", "perspective"),
    "replay_exit": (),
    # a game from a PGN, a JSON record or a replay link (hiddenchess.app.exchange)
    "import_game": ("text", "link"),
    # the move box (hiddenchess.app.typed): a move in SAN/UCI, a variant's own form, a command
    "typed": ("text",),
    # games with a friend (hiddenchess.app.modes.friend)
    **FRIEND_ACTIONS,
    # the games kept on this device (hiddenchess.app.games)
    **GAMES_ACTIONS,
}


def actions() -> dict:
    """Every action :meth:`Session.dispatch` takes: :data:`ACTIONS`, the variants' own actions,
    and the variants' ``new_game`` options."""
    out = dict(ACTIONS)
    out.update(variant_actions())
    extra = tuple(k for k in panel_option_keys() if k not in out["new_game"])
    out["new_game"] = out["new_game"] + extra
    return out


ACTIONS.update(variant_actions())
ACTIONS["new_game"] = ACTIONS["new_game"] + tuple(panel_option_keys())


def move_uci(game, orig, dest, promotion) -> str:
    """The UCI text of a move the page sent, checked for form (SessionError).

    >>> from hiddenchess.game.game import Game
    >>> move_uci(Game.new("standard"), "e2", "e4", None)
    'e2e4'
    >>> move_uci(Game.new("standard"), "e2", "e9", None)
    Traceback (most recent call last):
    ...
    hiddenchess.app.errors.SessionError: the to square must be like 'e2', got 'e9'
    """
    if game.status.over:
        raise SessionError(f"the game is over ({message(game.status.to_json())}); start a new game.")
    for name, sq in (("from", orig), ("to", dest)):
        if not isinstance(sq, str) or not _SQUARE.match(sq):
            raise SessionError(f"the {name} square must be like 'e2', got {sq!r}")
    if promotion is not None and promotion not in ("q", "r", "b", "n"):
        raise SessionError(f"promotion must be one of q, r, b, n, got {promotion!r}")
    uci = orig + dest + (promotion or "")
    if promotion is None and game.promotion_roles(orig, dest):
        raise SessionError(f"{orig}{dest} is a promotion: choose the piece (q, r, b or n)")
    return uci  # Game.play decides (castling may come as king-takes-rook, e.g. e1h1)
