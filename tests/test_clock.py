"""Tests of hiddenchess.game.clock: time-control parsing, the Fischer clock, JSON round trips."""

import doctest
import json

import pytest
from hypothesis import given, settings, strategies as st

import hiddenchess.game.clock
from hiddenchess.game.clock import (
    MAX_INCREMENT_MS,
    MAX_INITIAL_MS,
    MIN_INITIAL_MS,
    Clock,
    ClockSettings,
)
from hiddenchess.errors import ClockError, HiddenChessError

T0 = 1_700_000_000_000  # a realistic Date.now()


# ---------------------------------------------------------------- ClockSettings.parse / label


@pytest.mark.parametrize(
    "spec, initial_ms, increment_ms",
    [
        ("5+3", 300_000, 3_000),
        (" 15 + 10 ", 900_000, 10_000),
        ("7.5+2", 450_000, 2_000),
        ("0.5+0", 30_000, 0),
        ("3", 180_000, 0),
        ("90s+2", 90_000, 2_000),
        ("1 min + 0.5", 60_000, 500),
        ({"minutes": 7.5, "increment": 2}, 450_000, 2_000),
        ({"minutes": 10}, 600_000, 0),
        ({"minutes": "2", "increment": "1.5"}, 120_000, 1_500),
        ({"initial_ms": 61_000, "increment_ms": 250}, 61_000, 250),
    ],
)
def test_parse_accepted_forms(spec, initial_ms, increment_ms):
    s = ClockSettings.parse(spec)
    assert (s.initial_ms, s.increment_ms) == (initial_ms, increment_ms)


@pytest.mark.parametrize("spec", [None, "none", "None", " NONE ", "", "off", "unlimited", "no clock", "-"])
def test_parse_no_clock(spec):
    assert ClockSettings.parse(spec) is None


def test_parse_returns_settings_unchanged():
    s = ClockSettings(300_000, 3_000)
    assert ClockSettings.parse(s) is s


@pytest.mark.parametrize(
    "spec, words",
    [
        ("5+-3", "cannot read"),
        ("-5+3", "cannot read"),
        ("five plus three", "cannot read"),
        ("5+3+1", "cannot read"),
        ("5++3", "cannot read"),
        ("0+3", "initial time"),
        ("0+0", "initial time"),
        ("0.001+0", "initial time"),  # 60 ms: less than a second
        ("601+0", "initial time"),  # over ten hours
        ("100000000000000000000+0", "initial time"),
        ("5+601", "increment"),
        ({"minutes": -1}, "negative"),
        ({"minutes": 5, "increment": -2}, "negative"),
        ({"minutes": float("nan")}, "finite"),
        ({"minutes": float("inf")}, "finite"),
        ({"minutes": "inf"}, "finite"),
        ({"minutes": "abc"}, "number"),
        ({"minutes": True}, "number"),
        ({"minutes": None}, "number"),
        ({"minutes": [5]}, "number"),
        ({"increment": 3}, "minutes"),
        ({"minutes": 5, "bonus": 3}, "minutes"),
        ({"initial_ms": 300_000.0, "increment_ms": 0}, "integer"),
        ({"initial_ms": True, "increment_ms": 0}, "integer"),
        (5, "cannot read"),
        (5.0, "cannot read"),
        ([5, 3], "cannot read"),
        (object(), "cannot read"),
    ],
)
def test_parse_rejects_with_clear_message(spec, words):
    with pytest.raises(ClockError) as info:
        ClockSettings.parse(spec)
    message = str(info.value)
    assert message.startswith("bad clock: ")
    assert words in message


def test_clock_error_is_a_hidden_chess_error():
    with pytest.raises(HiddenChessError):
        ClockSettings.parse("garbage")


def test_settings_constructor_validates():
    with pytest.raises(ClockError):
        ClockSettings(-1, 0)
    with pytest.raises(ClockError):
        ClockSettings(300_000, -1)
    with pytest.raises(ClockError):
        ClockSettings(MAX_INITIAL_MS + 1, 0)
    with pytest.raises(ClockError):
        ClockSettings(300_000, MAX_INCREMENT_MS + 1)
    assert ClockSettings(MIN_INITIAL_MS, 0).initial_ms == MIN_INITIAL_MS
    assert ClockSettings(MAX_INITIAL_MS, MAX_INCREMENT_MS).increment_ms == MAX_INCREMENT_MS


def test_settings_are_frozen_and_comparable():
    s = ClockSettings.parse("5+3")
    assert s == ClockSettings(300_000, 3_000)
    with pytest.raises(AttributeError):
        s.initial_ms = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    "initial_ms, increment_ms, label",
    [
        (300_000, 3_000, "5+3"),
        (450_000, 2_000, "7.5+2"),
        (15_000, 0, "0.25+0"),
        (61_000, 500, "61s+0.5"),
        (1_001, 1, "1.001s+0.001"),
        (600_000, 0, "10+0"),
    ],
)
def test_label(initial_ms, increment_ms, label):
    assert ClockSettings(initial_ms, increment_ms).label() == label


valid_settings = st.builds(
    ClockSettings,
    st.integers(MIN_INITIAL_MS, MAX_INITIAL_MS),
    st.integers(0, MAX_INCREMENT_MS),
)


@given(valid_settings)
def test_label_and_json_read_back_exactly(s):
    assert ClockSettings.parse(s.label()) == s
    assert ClockSettings.parse(s.to_json()) == s
    assert ClockSettings.parse(json.loads(json.dumps(s.to_json()))) == s


@given(st.text(max_size=30))
def test_parse_any_text_gives_settings_none_or_clock_error(text):
    try:
        result = ClockSettings.parse(text)
    except ClockError as e:
        assert str(e).startswith("bad clock: ")
    else:
        assert result is None or isinstance(result, ClockSettings)


def test_pgn_time_control():
    assert ClockSettings.parse("5+3").pgn_time_control() == "300+3"
    assert ClockSettings.parse("7.5+0.5").pgn_time_control() == "450+0.5"


# ---------------------------------------------------------------- Clock behaviour


def new_clock(spec="5+3"):
    return Clock(ClockSettings.parse(spec))


def test_new_clock_is_idle_with_full_time():
    c = new_clock()
    assert c.running is None and not c.started
    assert c.remaining_ms("white", T0) == 300_000
    assert c.remaining_ms("black", T0 + 10**9) == 300_000  # idle: no time passes
    assert c.flagged(T0 + 10**9) is None


def test_first_move_is_untimed_and_starts_black():
    c = new_clock()
    c.press("white", T0 + 50_000)  # White thought 50 s before the first move: free
    assert c.running == "black" and c.started
    assert c.remaining_ms("white", T0 + 50_000) == 300_000  # no deduction, no increment
    assert c.remaining_ms("black", T0 + 60_000) == 290_000


def test_first_move_by_black_when_black_starts():
    c = new_clock()
    c.press("black", T0)  # a game from a FEN with Black to move
    assert c.running == "white"
    assert c.remaining_ms("black", T0) == 300_000


def test_fischer_increment_after_each_timed_move():
    c = new_clock()
    c.press("white", T0)
    c.press("black", T0 + 10_000)  # Black used 10 s, gets 3 s
    assert c.remaining_ms("black", T0 + 10_000) == 293_000
    assert c.running == "white"
    c.press("white", T0 + 14_000)  # White used 4 s, gets 3 s
    assert c.remaining_ms("white", T0 + 14_000) == 299_000
    # Black's clock runs again from 293 s.
    assert c.remaining_ms("black", T0 + 24_000) == 283_000


def test_remaining_time_stops_at_zero_and_flags():
    c = new_clock("1+0")
    c.press("white", T0)
    assert c.flagged(T0 + 59_999) is None
    assert c.remaining_ms("black", T0 + 59_999) == 1
    assert c.flagged(T0 + 60_000) == "black"
    assert c.remaining_ms("black", T0 + 10**12) == 0
    assert c.remaining_ms("white", T0 + 10**12) == 60_000


def test_press_after_flag_fall_is_refused_and_changes_nothing():
    c = new_clock("1+2")
    c.press("white", T0)
    before = c.to_json()
    with pytest.raises(ClockError, match="ran out"):
        c.press("black", T0 + 60_000)
    assert c.to_json() == before


def test_press_by_the_wrong_side_is_refused():
    c = new_clock()
    c.press("white", T0)
    before = c.to_json()
    with pytest.raises(ClockError, match="black's time"):
        c.press("white", T0 + 1_000)
    assert c.to_json() == before


def test_stop_freezes_and_start_resumes():
    c = new_clock()
    c.press("white", T0)
    c.stop(T0 + 20_000)
    assert c.running is None and c.started
    assert c.remaining_ms("black", T0 + 10**9) == 280_000
    assert c.flagged(T0 + 10**9) is None
    with pytest.raises(ClockError, match="stopped"):
        c.press("black", T0 + 30_000)
    c.start("black", T0 + 100_000)
    assert c.remaining_ms("black", T0 + 110_000) == 270_000
    c.press("black", T0 + 110_000)
    assert c.remaining_ms("black", T0 + 110_000) == 273_000


def test_start_switches_sides_without_increment():
    c = new_clock()
    c.start("white", T0)
    c.start("white", T0 + 5_000)  # already running: no change
    assert c.remaining_ms("white", T0 + 5_000) == 295_000
    c.start("black", T0 + 10_000)
    assert c.remaining_ms("white", T0 + 99_000) == 290_000
    assert c.running == "black"


def test_stopping_after_the_flag_keeps_the_flag():
    c = new_clock("1+0")
    c.press("white", T0)
    c.stop(T0 + 70_000)
    assert c.remaining_ms("black", T0 + 70_000) == 0
    assert c.flagged(T0 + 70_000) == "black"


def test_device_clock_set_back_never_gives_time():
    c = new_clock()
    c.press("white", T0)
    assert c.remaining_ms("black", T0 - 3_600_000) == 300_000
    c.press("black", T0 - 3_600_000)  # moved "before" the clock started: charged nothing
    assert c.remaining_ms("black", T0) == 303_000


def test_reload_does_not_pause_a_running_clock():
    c = new_clock()
    c.press("white", T0)
    c.press("black", T0 + 5_000)
    saved = json.dumps(c.to_json())
    # The page is closed for 42 seconds; the restored clock charges White for them.
    restored = Clock.from_json(json.loads(saved))
    assert restored == c
    assert restored.running == "white"
    assert restored.remaining_ms("white", T0 + 47_000) == 258_000
    assert restored.remaining_ms("white", T0 + 47_000) == c.remaining_ms("white", T0 + 47_000)


def test_timestamps_are_validated():
    c = new_clock()
    for bad in ("now", None, True, float("nan"), float("inf"), [1]):
        with pytest.raises(ClockError, match="now_ms"):
            c.remaining_ms("white", bad)
    # An integral float (a JS number that was not converted to int) is accepted.
    assert c.remaining_ms("white", float(T0)) == 300_000


def test_colours_are_validated():
    c = new_clock()
    for bad in ("White", "w", 0, None):
        with pytest.raises(ClockError, match="colour"):
            c.remaining_ms(bad, T0)
        with pytest.raises(ClockError, match="colour"):
            c.press(bad, T0)
    assert c.running is None and not c.started


def test_clock_needs_settings():
    with pytest.raises(ClockError):
        Clock("5+3")  # type: ignore[arg-type]


def test_view():
    c = new_clock()
    c.press("white", T0)
    assert c.view(T0 + 1_000) == {
        "white": 300_000,
        "black": 299_000,
        "running": "black",
        "flagged": None,
        "label": "5+3",
    }


def test_repr_mentions_state():
    c = new_clock()
    assert "idle" in repr(c)
    c.press("white", T0)
    assert "running='black'" in repr(c)


# ---------------------------------------------------------------- Clock.from_json validation


def good_json():
    c = new_clock()
    c.press("white", T0)
    return c.to_json()


@pytest.mark.parametrize(
    "change",
    [
        {"white_ms": -1},
        {"black_ms": "300000"},
        {"white_ms": 1.5},
        {"white_ms": True},
        {"running": "red"},
        {"running": None},  # but since_ms is set
        {"since_ms": None},  # but running is set
        {"since_ms": "yesterday"},
        {"started": "yes"},
        {"started": False},  # running but not started
        {"initial_ms": 0},
        {"increment_ms": -5},
        {"extra": 1},
    ],
)
def test_from_json_rejects_malformed(change):
    data = {**good_json(), **change}
    with pytest.raises(ClockError):
        Clock.from_json(data)


@pytest.mark.parametrize("data", [None, [], "clock", 5, {}, {"initial_ms": 300_000}])
def test_from_json_rejects_non_clocks(data):
    with pytest.raises(ClockError):
        Clock.from_json(data)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=10,
)


@given(st.fixed_dictionaries({}, optional={k: json_values for k in good_json()}) | json_values)
def test_from_json_on_garbage_raises_only_clock_error(data):
    try:
        clock = Clock.from_json(data)
    except ClockError:
        return
    assert Clock.from_json(clock.to_json()) == clock


# ---------------------------------------------------------------- properties (model-based)

think_times = st.lists(st.integers(0, 400_000), min_size=1, max_size=40)


@settings(max_examples=200)
@given(valid_settings, think_times, st.integers(0, 400_000), st.sampled_from(["white", "black"]))
def test_clock_matches_a_simple_fischer_model(s, thinks, first_delay, first):
    """Play a game with the given thinking times; compare with an independent model."""
    c = Clock(s)
    now = T0 + first_delay
    c.press(first, now)  # the untimed first move
    model = {"white": s.initial_ms, "black": s.initial_ms}
    mover = "black" if first == "white" else "white"
    for think in thinks:
        other = "black" if mover == "white" else "white"
        # During the think, time decreases linearly and never below zero.
        for part in (0, think // 2, think):
            assert c.remaining_ms(mover, now + part) == max(0, model[mover] - part)
            assert c.remaining_ms(other, now + part) == model[other]
        now += think
        if think >= model[mover]:
            assert c.flagged(now) == mover
            with pytest.raises(ClockError):
                c.press(mover, now)
            assert c.remaining_ms(mover, now) == 0
            return
        assert c.flagged(now) is None
        c.press(mover, now)
        # The press added exactly the increment to what was left.
        model[mover] += s.increment_ms - think
        assert c.remaining_ms(mover, now) == model[mover]
        assert c.running == other
        mover = other


operations = st.lists(
    st.tuples(
        st.sampled_from(["press", "start", "stop", "read", "reload"]),
        st.sampled_from(["white", "black"]),
        st.integers(-10_000, 1_000_000),
    ),
    max_size=40,
)


@settings(max_examples=200)
@given(valid_settings, operations)
def test_any_sequence_of_operations_keeps_invariants(s, ops):
    """Whatever the caller does: times never go negative, errors change nothing, JSON round-trips."""
    c = Clock(s)
    now = T0
    for op, color, step in ops:
        now += step
        before = c.to_json()
        try:
            if op == "press":
                running = c.running
                left = c.remaining_ms(color, now)
                c.press(color, now)
                if running == color:
                    assert c.remaining_ms(color, now) == left + s.increment_ms
            elif op == "start":
                c.start(color, now)
                assert c.running == color
            elif op == "stop":
                c.stop(now)
                assert c.running is None
            elif op == "reload":
                restored = Clock.from_json(json.loads(json.dumps(c.to_json())))
                assert restored == c
                c = restored
        except ClockError:
            assert c.to_json() == before
        for who in ("white", "black"):
            for later in (now, now + 1, now + 10**9):
                assert c.remaining_ms(who, later) >= 0
        flag = c.flagged(now)
        assert flag is None or c.remaining_ms(flag, now) == 0


@given(valid_settings, st.integers(0, 10**7), st.integers(0, 10**7))
def test_remaining_is_monotonic_in_time_while_running(s, a, b):
    c = Clock(s)
    c.press("white", T0)
    early, late = sorted((a, b))
    assert c.remaining_ms("black", T0 + early) >= c.remaining_ms("black", T0 + late) >= 0
    assert c.remaining_ms("black", T0 + early) == max(0, s.initial_ms - early)


def test_docstring_examples():
    assert doctest.testmod(hiddenchess.game.clock).failed == 0
