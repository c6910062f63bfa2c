"""The actions the page may call through :meth:`Session.dispatch
<hiddenchess.app.session.Session.dispatch>`, with the arguments each takes.

>>> ACTIONS["move"]
('orig', 'dest', 'promotion', 'allow_illegal')
>>> actions()["seal"]                      # a variant's own action (its panel's)
('squares',)
"""

from __future__ import annotations

from hiddenchess.app.modes import FRIEND_ACTIONS
from hiddenchess.app.options import panel_option_keys
from hiddenchess.app.panels import variant_actions

__all__ = ["ACTIONS", "QUIET_ACTIONS", "STALE_TEXT", "actions"]

#: What a stale page (another tab saved this game since) may still do: look, and load again.
QUIET_ACTIONS = frozenset({"restore", "state", "tick", "storage_changed", "export_corrupt",
                           "dismiss_notice", "flip", "replay", "replay_exit", "catalog"})
#: Why a stale page refuses everything else.
STALE_TEXT = ("this game was changed in another tab or window: reload the page to continue from "
              "the newer position.")

#: The session's actions, and those of the variants registered when it was imported (see
#: :func:`actions` for the current list).
ACTIONS = {
    "restore": (),
    "state": (),
    "new_game": ("options", "variant", "mode", "clock", "autoflip", "fen", "level", "color"),
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
    # games with a friend (hiddenchess.app.modes.friend)
    **FRIEND_ACTIONS,
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
