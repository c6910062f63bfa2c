"""The options of a new game (the ``new_game`` action), checked, and the game they make.

``variant`` (an id of :data:`hiddenchess.engine.variant.VARIANTS`), ``mode`` (``"local"``,
``"computer"`` with ``level`` and ``color``, or ``"friend"``), ``clock`` (``None``/``"none"``,
``"5+3"``, ``{"minutes": m, "increment": s}``), ``autoflip`` (bool) and, for tests and set-ups,
``fen`` (a start position) and the variant's own options
(:attr:`Panel.game_options <hiddenchess.app.panels.Panel.game_options>`). Set-up options are
not saved.

>>> opts, settings, game = new_game({"variant": "royal-pawn", "clock": "5+3"})
>>> opts, settings.label(), game.variant.id
({'variant': 'royal-pawn', 'mode': 'local', 'clock': '5+3', 'autoflip': False}, '5+3', 'royal-pawn')
>>> new_game({"variant": "standard", "colour": "white"})
Traceback (most recent call last):
...
hiddenchess.app.errors.SessionError: unknown game option 'colour'
"""

from __future__ import annotations

from hiddenchess.app.errors import SessionError
from hiddenchess.app.modes.base import MODES
from hiddenchess.app.modes.computer import OPTION_KEYS as COMPUTER_KEYS, ComputerMode
from hiddenchess.app.panels import all_panel_classes, base_variant, game_option_owner, panel_for
from hiddenchess.engine.variant import VARIANTS
from hiddenchess.game.clock import ClockSettings
from hiddenchess.game.game import Game

__all__ = ["default_options", "SETUP_KEYS", "new_game", "parse_options", "panel_option_keys"]
#: Options for tests and set-ups, kept out of the saved game: ``fen`` (a start position). The
#: variants' panels add their own.
SETUP_KEYS = ("fen",)


def default_options() -> dict:
    """The options of the page's default game: the base variant, on this device, no clock."""
    return {"variant": base_variant(), "mode": "local", "clock": None, "autoflip": False}


def panel_option_keys() -> list:
    """The ``new_game`` options the variants' panels read."""
    keys = []
    for cls in all_panel_classes():
        for k in cls.game_options:
            if k not in keys:
                keys.append(k)
    return keys


def new_game(options) -> tuple:
    """``(opts, clock settings or None, Game)`` for the ``new_game`` options (SessionError,
    or the engine's error for a bad ``fen``). ``opts`` keeps ``fen`` when one was given."""
    opts, settings = parse_options(options)
    fen = opts.pop("fen", None)
    panel = panel_for(opts["variant"])
    extra = {k: opts.pop(k) for k in list(opts) if game_option_owner(k) is not None}
    given = [k for k in extra if k not in panel.game_options]
    if given:
        owner = game_option_owner(given[0])
        raise SessionError(f"{owner.game_options_text}, not of {opts['variant']!r}")
    game = Game.new(opts["variant"], fen=fen, **panel.game_kwargs(extra))
    if fen is not None:
        opts["fen"] = fen
    return opts, settings, game


def parse_options(options) -> tuple:
    """``(opts, clock settings or None)``: ``options`` checked and completed (SessionError)."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise SessionError(f"game options must be an object, got {type(options).__name__}")
    defaults = default_options()
    known = set(defaults) | set(SETUP_KEYS) | set(COMPUTER_KEYS)
    unknown = sorted(k for k in options if k not in known and game_option_owner(k) is None)
    if unknown:
        raise SessionError(f"unknown game option {', '.join(map(repr, unknown))}")
    opts = defaults
    opts.update(options)
    if opts["variant"] not in VARIANTS:
        names = ", ".join(repr(v) for v in VARIANTS)
        raise SessionError(f"the page does not offer the variant {opts['variant']!r} (choose {names})")
    if opts["mode"] not in MODES:
        raise SessionError(f"unknown mode {opts['mode']!r}")
    if opts["mode"] == "computer":
        ComputerMode.parse_options(opts, VARIANTS[opts["variant"]].name)
    else:
        given = [k for k in COMPUTER_KEYS if k in opts]
        if given:
            raise SessionError(f"{' and '.join(given)} are options of games against the computer")
    if not isinstance(opts["autoflip"], bool):
        raise SessionError(f"autoflip must be true or false, got {opts['autoflip']!r}")
    if "fen" in opts and not isinstance(opts["fen"], str):
        raise SessionError(f"fen must be text, got {opts['fen']!r}")
    settings = ClockSettings.parse(opts["clock"])
    opts["clock"] = settings.label() if settings else None
    return opts, settings
