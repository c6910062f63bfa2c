"""Where a test finds the game a session saved: its own key (``hiddenchess.game.<ID>``, issue 26),
the game last opened on that storage; the single key of older versions when none was opened."""


def game_key(backend, prefix: str = "hiddenchess") -> str:
    last = backend.get_item(f"{prefix}.last")
    return f"{prefix}.game.{last}" if last else f"{prefix}.current"
