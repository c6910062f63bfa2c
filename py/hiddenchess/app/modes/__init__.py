"""The play modes of a session, one module each.

* :mod:`~hiddenchess.app.modes.base` -- :class:`~hiddenchess.app.modes.base.Mode`, the hooks a
  mode may override, and ``"local"``: two players on one device (the hand-over screen guards
  the secrets of hidden variants)
* :mod:`~hiddenchess.app.modes.computer` -- ``"computer"``: against the AI worker
* :mod:`~hiddenchess.app.modes.friend` -- ``"friend"``: one seat of a peer-to-peer game

The friend mode is loaded on first use (:func:`friend_mode`), so the peer protocol is not
compiled at the page's start: only when a friend game is made, joined or restored, or the
new-game menu asks which variants a friend can play.
"""

import importlib

__all__ = ["friend_mode", "FRIEND_ACTIONS", "ROUTED_ACTIONS", "FRIEND_OPTIONS"]

#: Actions only friend games have.
FRIEND_ACTIONS = {
    "join": ("invite", "stranger"),
    "peer_open": (),
    "peer_receive": ("data",),
    "peer_closed": ("heard",),
    "peer_stored": ("data", "open"),
    "rematch": (),
    "claim_win": (),
    "abort": (),
    "chat": ("text",),
}
#: Usual actions that, in a friend game, go through the protocol (and so do the variants' own).
ROUTED_ACTIONS = ("move", "resign", "offer_draw", "accept_draw", "decline_draw", "claim_draw",
                  "tick", "takeback", "computer_move", "show_board")
#: The new-game options of a friend game.
FRIEND_OPTIONS = ("mode", "variant", "clock", "color", "autoflip", "stranger")


def friend_mode():
    """The module :mod:`hiddenchess.app.modes.friend`, imported on first use."""
    return importlib.import_module("hiddenchess.app.modes.friend")
