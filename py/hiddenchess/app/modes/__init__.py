"""The play modes of a session, one module each.

* :mod:`~hiddenchess.app.modes.base` -- :class:`~hiddenchess.app.modes.base.Mode`, the hooks a
  mode may override, and ``"local"``: two players on one device (the hand-over screen guards
  the secrets of hidden variants)
* :mod:`~hiddenchess.app.modes.computer` -- ``"computer"``: against the AI worker
* :mod:`~hiddenchess.app.modes.friend` -- ``"friend"``: one seat of a peer-to-peer game
"""
