"""A pure chess clock: no clock at all, or Fischer (initial time + increment per move).

Nothing here reads the time. Every method that needs "now" takes ``now_ms``, an integer of epoch
milliseconds supplied by the caller (the page passes ``Date.now()``). The clock stores *when* the
running side's time started to run, not a ticking counter, so a clock saved to JSON and restored
after a page reload keeps running: time that passed while the page was closed is charged to the side
whose clock was running, exactly as if the page had stayed open.

Policy
------
* **Setup is never clock time.** Secret choices, piece placement and any other setup phase happen
  before the clock starts; the session simply does not start the clock until play begins.
* **The first move is not timed** (as on lichess). The clock is idle until the side that moves
  first completes its first move; that :meth:`Clock.press` starts the opponent's clock and adds no
  increment (no time was spent). From then on every move is timed.
* **Fischer increment.** After each completed timed move the mover's remaining time is reduced by
  the time the move took and then increased by the increment.
* **Flag fall.** :meth:`Clock.flagged` reports the side whose time has run out; remaining time never
  goes negative (it stops at 0). A move completed after the flag fell is refused
  (:class:`~hiddenchess.errors.ClockError`): the caller must check :meth:`Clock.flagged` first
  and end the game on time instead. Whether a flag loses or draws is decided by the game, not here.
* **Time never runs backwards.** If ``now_ms`` is earlier than the moment the running side's time
  started (the device clock was set back), no time is charged: the clock never *gives* time away
  because of a clock change.

Typical use by a session (``now`` from the page every time)::

    clock = Clock(settings) if settings else None     # new game; setup phases run no clock
    # a move by `mover`:
    if clock and clock.flagged(now):                  # too late: the flag fell first
        game.flag(clock.flagged(now)); clock.stop(now)
    else:
        game.play(move)
        if clock: clock.press(mover, now)             # first move: starts the opponent's time
        if clock and game.status.over: clock.stop(now)
    # on every tick: if clock.flagged(now): game.flag(...); clock.stop(now)
    # resignation, agreed or claimed draw: clock.stop(now)

>>> from hiddenchess.game.clock import Clock, ClockSettings
>>> clock = Clock(ClockSettings.parse("5+3"))
>>> clock.running is None                      # idle until the first move
True
>>> clock.press("white", now_ms=1_000)         # White's first move: untimed, Black's time starts
>>> clock.running
'black'
>>> clock.remaining_ms("black", now_ms=11_000)  # Black has thought for 10 s
290000
>>> clock.press("black", now_ms=11_000)         # ... and moves: -10 s, +3 s
>>> clock.remaining_ms("black", now_ms=99_999)
293000
>>> restored = Clock.from_json(clock.to_json())  # e.g. after a page reload
>>> restored.remaining_ms("white", now_ms=311_000)  # White's 300 s have all run out
0
>>> restored.flagged(now_ms=311_000)
'white'
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from hiddenchess.errors import ClockError

__all__ = [
    "ClockSettings",
    "Clock",
    "ClockError",
    "COLORS",
    "MIN_INITIAL_MS",
    "MAX_INITIAL_MS",
    "MAX_INCREMENT_MS",
    "PRESETS",
]

COLORS = ("white", "black")

#: The shortest initial time accepted: one second.
MIN_INITIAL_MS = 1_000
#: The longest initial time accepted: ten hours.
MAX_INITIAL_MS = 10 * 60 * 60 * 1000
#: The largest increment accepted: ten minutes per move.
MAX_INCREMENT_MS = 10 * 60 * 1000

#: Words (case-insensitive) that :meth:`ClockSettings.parse` reads as "no clock".
NO_CLOCK_WORDS = frozenset({"", "none", "no clock", "no-clock", "off", "unlimited", "-"})

#: The choices offered by the page; ``None`` is "no clock".
PRESETS = ("5+3", None)

_SPEC_RE = re.compile(
    r"^\s*(?P<initial>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*(?P<unit>s|sec|m|min)?\s*"
    r"(?:\+\s*(?P<increment>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*(?:s|sec)?\s*)?$",
    re.IGNORECASE,
)


def _color(color: object) -> str:
    if color not in COLORS:
        raise ClockError(f"colour must be 'white' or 'black', got {color!r}")
    return color  # type: ignore[return-value]


def _other(color: str) -> str:
    return "black" if color == "white" else "white"


def _now(now_ms: object) -> int:
    """Validate a timestamp: an int (or an integral-valued finite float) of milliseconds."""
    if isinstance(now_ms, bool):
        raise ClockError(f"now_ms must be an integer of milliseconds, got {now_ms!r}")
    if isinstance(now_ms, int):
        return now_ms
    if isinstance(now_ms, float) and math.isfinite(now_ms):
        return math.floor(now_ms)
    raise ClockError(f"now_ms must be an integer of milliseconds, got {now_ms!r}")


def _number(value: object, what: str) -> Fraction:
    """Read a finite, non-negative number (int, float or numeric string) exactly."""
    if isinstance(value, bool):
        raise ClockError(f"{what} must be a number, got {value!r}")
    if isinstance(value, (int, Fraction)):
        result = Fraction(value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ClockError(f"{what} must be a finite number, got {value!r}")
        result = Fraction(value)
    elif isinstance(value, str):
        try:
            dec = Decimal(value.strip())
        except InvalidOperation:
            raise ClockError(f"{what} must be a number, got {value!r}") from None
        if not dec.is_finite():
            raise ClockError(f"{what} must be a finite number, got {value!r}")
        result = Fraction(dec)
    else:
        raise ClockError(f"{what} must be a number, got {value!r}")
    if result < 0:
        raise ClockError(f"{what} cannot be negative, got {value!r}")
    return result


def _decimal_text(value: Fraction) -> str | None:
    """``Fraction(15, 2) -> "7.5"``; ``None`` when it has no short exact decimal form."""
    for places in range(4):
        scaled = value * 10**places
        if scaled.denominator == 1:
            text = str(Decimal(scaled.numerator).scaleb(-places))
            return text
    return None


@dataclass(frozen=True)
class ClockSettings:
    """The time control: initial time and Fischer increment, both in milliseconds.

    >>> ClockSettings(300_000, 3_000).label()
    '5+3'
    >>> ClockSettings.parse("7.5+2")
    ClockSettings(initial_ms=450000, increment_ms=2000)
    >>> ClockSettings.parse({"minutes": 1, "increment": 0.5}).label()
    '1+0.5'
    >>> ClockSettings.parse("none") is None
    True
    """

    initial_ms: int
    increment_ms: int

    def __post_init__(self) -> None:
        for name in ("initial_ms", "increment_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ClockError(f"{name} must be an integer of milliseconds, got {value!r}")
        if not MIN_INITIAL_MS <= self.initial_ms <= MAX_INITIAL_MS:
            raise ClockError(
                f"the initial time must be between {MIN_INITIAL_MS // 1000} second and "
                f"{MAX_INITIAL_MS // 3_600_000} hours, got {self.initial_ms / 60_000:g} minutes"
            )
        if not 0 <= self.increment_ms <= MAX_INCREMENT_MS:
            raise ClockError(
                f"the increment must be between 0 and {MAX_INCREMENT_MS // 1000} seconds per move, "
                f"got {self.increment_ms / 1000:g} seconds"
            )

    @classmethod
    def from_minutes(cls, minutes: object, increment_seconds: object = 0) -> ClockSettings:
        """Settings from minutes and seconds (numbers or numeric strings), rounded to the millisecond.

        >>> ClockSettings.from_minutes(3, 2)
        ClockSettings(initial_ms=180000, increment_ms=2000)
        """
        initial = _number(minutes, "minutes") * 60_000
        increment = _number(increment_seconds, "increment") * 1000
        if initial > MAX_INITIAL_MS or increment > MAX_INCREMENT_MS:
            # Refuse before rounding astronomically large numbers.
            return cls(int(min(initial, MAX_INITIAL_MS + 1)), int(min(increment, MAX_INCREMENT_MS + 1)))
        return cls(round(initial), round(increment))

    @classmethod
    def parse(cls, spec: object) -> ClockSettings | None:
        """Read a time control from the forms the page and saved games use.

        * ``None`` or a "no clock" word (``"none"``, ``"off"``, ``"unlimited"``, ``""``) -> ``None``
        * ``"5+3"``: minutes + increment seconds; ``"5"`` is ``"5+0"``; decimals are fine
          (``"0.5+1"``); ``"90s+2"`` gives the initial time in seconds
        * ``{"minutes": 7.5, "increment": 2}`` (increment in seconds, optional)
        * ``{"initial_ms": 300000, "increment_ms": 3000}`` (the :meth:`to_json` form)
        * a :class:`ClockSettings` (returned unchanged)

        Anything else, or a negative or absurd time, raises :class:`ClockError` saying why.

        >>> ClockSettings.parse(" 15 + 10 ")
        ClockSettings(initial_ms=900000, increment_ms=10000)
        >>> ClockSettings.parse("90s+2").label()
        '1.5+2'
        >>> ClockSettings.parse("5+-3")
        Traceback (most recent call last):
          ...
        hiddenchess.errors.ClockError: bad clock: cannot read '5+-3' as a time control; write minutes+seconds, e.g. '5+3'
        """
        if spec is None or isinstance(spec, ClockSettings):
            return spec
        if isinstance(spec, str):
            if spec.strip().lower() in NO_CLOCK_WORDS:
                return None
            match = _SPEC_RE.match(spec)
            if not match:
                raise ClockError(
                    f"cannot read {spec!r} as a time control; write minutes+seconds, e.g. '5+3'"
                )
            initial = _number(match["initial"], "initial time")
            if (match["unit"] or "m").lower().startswith("s"):
                initial /= 60
            return cls.from_minutes(initial, match["increment"] or 0)
        if isinstance(spec, dict):
            keys = set(spec)
            if keys <= {"initial_ms", "increment_ms"} and "initial_ms" in keys:
                return cls(spec["initial_ms"], spec.get("increment_ms", 0))
            if keys <= {"minutes", "increment"} and "minutes" in keys:
                return cls.from_minutes(spec["minutes"], spec.get("increment", 0))
            raise ClockError(
                "a time control object needs 'minutes' (and optionally 'increment' in seconds), "
                f"got keys {sorted(map(str, keys))}"
            )
        raise ClockError(f"cannot read {spec!r} as a time control; write minutes+seconds, e.g. '5+3'")

    def label(self) -> str:
        """Short human form, readable back by :meth:`parse`: ``"5+3"``, ``"7.5+2"``, ``"0.25+0"``.

        Minutes when the time is a whole number of quarter minutes, else seconds:

        >>> ClockSettings(61_000, 0).label()
        '61s+0'
        >>> ClockSettings(12_000, 0).label()     # not "0.2+0"
        '12s+0'
        >>> ClockSettings.parse(ClockSettings(61_000, 0).label()).initial_ms
        61000
        """
        increment = _decimal_text(Fraction(self.increment_ms, 1000))
        quarters = Fraction(self.initial_ms, 15_000)
        minutes = _decimal_text(Fraction(self.initial_ms, 60_000)) if quarters.denominator == 1 else None
        if minutes is None:
            minutes = f"{_decimal_text(Fraction(self.initial_ms, 1000))}s"
        return f"{minutes}+{increment}"

    def pgn_time_control(self) -> str:
        """The PGN ``TimeControl`` tag value, in seconds: ``"300+3"``.

        >>> ClockSettings.parse("7.5+0.5").pgn_time_control()
        '450+0.5'
        """
        initial = _decimal_text(Fraction(self.initial_ms, 1000))
        increment = _decimal_text(Fraction(self.increment_ms, 1000))
        return f"{initial}+{increment}"

    def to_json(self) -> dict:
        """``{"initial_ms": 300000, "increment_ms": 3000}``."""
        return {"initial_ms": self.initial_ms, "increment_ms": self.increment_ms}


class Clock:
    """A two-sided chess clock. See the module docstring for the policy.

    State: each side's remaining time as of the last event, which side (if any) is running and
    since when, and whether the clock has started (the first move has been made).

    >>> c = Clock(ClockSettings.parse("1+0"))
    >>> c.start("white", now_ms=0)               # e.g. resume after a pause: White's time runs
    >>> c.remaining_ms("white", now_ms=45_000)
    15000
    >>> c.flagged(now_ms=60_000)
    'white'
    >>> c.stop(now_ms=61_000)                    # game over: frozen
    >>> c.running is None, c.remaining_ms("white", now_ms=10**9)
    (True, 0)
    """

    __slots__ = ("settings", "_remaining", "_running", "_since", "_started")

    def __init__(self, settings: ClockSettings):
        if not isinstance(settings, ClockSettings):
            raise ClockError(f"a Clock needs ClockSettings, got {settings!r}")
        self.settings = settings
        self._remaining = {"white": settings.initial_ms, "black": settings.initial_ms}
        self._running: str | None = None
        self._since: int | None = None
        self._started = False

    # -- reading -------------------------------------------------------------------------------

    @property
    def running(self) -> str | None:
        """``"white"`` or ``"black"`` whose time is running, or ``None`` (idle or stopped)."""
        return self._running

    @property
    def started(self) -> bool:
        """``True`` once the clock has started running (the first move was made or :meth:`start`)."""
        return self._started

    def _elapsed(self, now: int) -> int:
        assert self._since is not None
        return max(0, now - self._since)

    def remaining_ms(self, color: str, now_ms: int) -> int:
        """Milliseconds left for ``color`` at ``now_ms``; never negative."""
        color = _color(color)
        now = _now(now_ms)
        left = self._remaining[color]
        if color == self._running:
            left -= self._elapsed(now)
        return max(0, left)

    def flagged(self, now_ms: int) -> str | None:
        """The side whose time has run out at ``now_ms`` (the running side first), or ``None``."""
        now = _now(now_ms)
        order = [self._running] if self._running else []
        order += [c for c in COLORS if c != self._running]
        for color in order:
            if self.remaining_ms(color, now) == 0:
                return color
        return None

    def view(self, now_ms: int) -> dict:
        """What a page needs to draw the clock, JSON-able.

        >>> Clock(ClockSettings.parse("5+3")).view(now_ms=0)
        {'white': 300000, 'black': 300000, 'running': None, 'flagged': None, 'label': '5+3'}
        """
        now = _now(now_ms)
        return {
            "white": self.remaining_ms("white", now),
            "black": self.remaining_ms("black", now),
            "running": self._running,
            "flagged": self.flagged(now),
            "label": self.settings.label(),
        }

    # -- changing ------------------------------------------------------------------------------

    def _settle(self, now: int) -> None:
        """Charge the running side for the time since it started; leave nothing running."""
        if self._running is not None:
            self._remaining[self._running] = max(0, self._remaining[self._running] - self._elapsed(now))
        self._running = None
        self._since = None

    def start(self, color: str, now_ms: int) -> None:
        """Run ``color``'s time from ``now_ms``.

        Used to resume after :meth:`stop`. If the other side's time was running, it is charged up
        to ``now_ms`` (without increment) first; starting the side already running changes nothing.
        """
        color = _color(color)
        now = _now(now_ms)
        if self._running == color:
            return
        self._settle(now)
        self._running = color
        self._since = now
        self._started = True

    def press(self, color: str, now_ms: int) -> None:
        """``color`` has completed a move at ``now_ms``: charge it, add the increment, run the other.

        If the clock has never run, this is the untimed first move: the opponent's time starts and
        no increment is added. Raises :class:`ClockError` (and changes nothing) if ``color``'s flag
        has already fallen, if it is the other side's time that is running, or if the clock was
        stopped.
        """
        color = _color(color)
        now = _now(now_ms)
        if not self._started:
            self.start(_other(color), now)
            return
        if self._running is None:
            raise ClockError("the clock is stopped; start it before recording a move")
        if self._running != color:
            raise ClockError(f"it is {self._running}'s time that is running, not {color}'s")
        left = self._remaining[color] - self._elapsed(now)
        if left <= 0:
            raise ClockError(f"{color}'s time ran out before the move was completed")
        self._remaining[color] = left + self.settings.increment_ms
        self._running = _other(color)
        self._since = now

    def not_before(self, now_ms: int) -> None:
        """Make ``now_ms`` the earliest time this clock counts from: a running side that started
        later (a save written before the device's clock was set back) counts from ``now_ms``
        instead. Time passes from then on; the clock never gains time and never freezes.

        >>> c = Clock(ClockSettings.parse("1+0"))
        >>> c.press("white", now_ms=10_000); c.press("black", now_ms=12_200)   # black thought 2.2 s
        >>> c.remaining_ms("black", now_ms=12_200), c.running
        (57800, 'white')
        >>> c.not_before(now_ms=5_000)   # read back after the device's clock went back an hour
        >>> c.remaining_ms("white", now_ms=5_000), c.remaining_ms("black", now_ms=5_000)
        (60000, 57800)
        >>> c.remaining_ms("white", now_ms=20_000)   # and the next 15 s cost 15 s
        45000
        """
        now = _now(now_ms)
        if self._since is not None and self._since > now:
            self._since = now

    def resume_at(self, now_ms: int) -> None:
        """The running side's time counts again from ``now_ms``: an imported game's clock, so
        that the time between its export and its import is nobody's.

        >>> c = Clock(ClockSettings.parse("1+0")); c.press("white", now_ms=0)
        >>> c.resume_at(now_ms=600_000); c.remaining_ms("black", now_ms=601_000)
        59000
        """
        if self._running is not None:
            self._since = _now(now_ms)

    def checkpoint(self, now_ms: int) -> None:
        """Charge the running side for its time up to ``now_ms`` and go on running it from there
        (no increment): what a save written now then knows, so that a later reload whose
        device clock went back cannot give that time back.

        >>> c = Clock(ClockSettings.parse("1+0")); c.press("white", now_ms=0)
        >>> c.checkpoint(now_ms=2_200); c.to_json()["black_ms"], c.to_json()["since_ms"]
        (57800, 2200)
        >>> c.remaining_ms("black", now_ms=3_200)
        56800
        """
        now = _now(now_ms)
        running = self._running
        if running is not None:
            self._settle(now)
            self._running, self._since = running, now

    def stop(self, now_ms: int) -> None:
        """Freeze both times at ``now_ms`` (game over, or a pause). :meth:`start` resumes."""
        self._settle(_now(now_ms))

    # -- JSON ----------------------------------------------------------------------------------

    def to_json(self) -> dict:
        """Everything needed to continue, JSON-able.

        >>> c = Clock(ClockSettings.parse("5+3"))
        >>> c.press("white", now_ms=1000)
        >>> c.to_json()
        {'initial_ms': 300000, 'increment_ms': 3000, 'white_ms': 300000, 'black_ms': 300000, 'running': 'black', 'since_ms': 1000, 'started': True}
        """
        return {
            "initial_ms": self.settings.initial_ms,
            "increment_ms": self.settings.increment_ms,
            "white_ms": self._remaining["white"],
            "black_ms": self._remaining["black"],
            "running": self._running,
            "since_ms": self._since,
            "started": self._started,
        }

    @classmethod
    def from_json(cls, data: object) -> Clock:
        """Rebuild a clock from :meth:`to_json` output; :class:`ClockError` on anything malformed."""
        if not isinstance(data, dict):
            raise ClockError(f"saved clock must be an object, got {type(data).__name__}")
        expected = {"initial_ms", "increment_ms", "white_ms", "black_ms", "running", "since_ms", "started"}
        missing = expected - set(data)
        if missing:
            raise ClockError(f"saved clock is missing {', '.join(sorted(missing))}")
        unknown = set(data) - expected
        if unknown:
            raise ClockError(f"saved clock has unknown fields {', '.join(sorted(map(str, unknown)))}")
        settings = ClockSettings(data["initial_ms"], data["increment_ms"])
        clock = cls(settings)
        for color in COLORS:
            value = data[f"{color}_ms"]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ClockError(f"saved {color} time must be a non-negative integer, got {value!r}")
            clock._remaining[color] = value
        running, since, started = data["running"], data["since_ms"], data["started"]
        if not isinstance(started, bool):
            raise ClockError(f"saved 'started' must be true or false, got {started!r}")
        if running is None:
            if since is not None:
                raise ClockError("saved clock has a start time but no running side")
        else:
            _color(running)
            if isinstance(since, bool) or not isinstance(since, int):
                raise ClockError(f"saved clock runs for {running} but its start time is {since!r}")
            if not started:
                raise ClockError("saved clock runs but is marked as not started")
        clock._running, clock._since, clock._started = running, since, started
        return clock

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Clock):
            return NotImplemented
        return self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        state = f"running={self._running!r}" if self._running else ("stopped" if self._started else "idle")
        return (
            f"<Clock {self.settings.label()} white={self._remaining['white']}ms "
            f"black={self._remaining['black']}ms {state}>"
        )
