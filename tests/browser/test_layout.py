"""The layout holds at any game length, on desktop (1280x800) and phone (390x844) screens:
the move list scrolls with the latest move in view and both player bars stay on screen; a
player's name is never squeezed by the captured pieces beside it; neutral notices are not alarms.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import name_is_whole, state

#: 120 plies of a legal game with no repetition, capture-light so that it runs long.
LONG_GAME = "c2c4 g7g6 d2d3 f7f5 e2e3 e7e6 d1h5 g8f6 e1d2 f6g8 b1a3 f8b4 d2c2 a7a5 e3e4 e8e7 e4e5 g8h6 a3b1 d8f8 h5d1 c7c6 g1e2 a5a4 c1d2 a8a5 d2e3 a5d5 e3c1 f8g7 f2f4 d5b5 g2g4 g7g8 e2g3 b4d6 f1e2 c6c5 b1a3 d6c7 b2b4 g6g5 c2b2 g8g6 h1e1 e7d8 g3h5 d8e7 d1c2 e7f7 e2f1 b8a6 e1e2 c7b6 e2e1 b6d8 c2e2 d8f6 c1d2 d7d5 f1h3 h6g8 e2g2 b7b6 e1d1 b5a5 h5g7 f6d8 g2f3 c8d7 d2c3 a6b8 f3g2 a5a8 c3d2 g8h6 a3b1 a8a5 g2g3 g6f6 g3f2 f6e7 b4b5 e7f8 f2f3 d8e7 d1f1 f7g6 g7h5 a5a7 b2c3 f8d8 f1d1 d8e8 d1f1 e7f6 f1d1 h6f7 d3d4 a4a3 c3b3 f7h6 d1f1 f6e7 f1d1 e8g8 h3f1 g8g7 d2c1 a7a6 f3h1 h6g8 d1d3 d7c6 d3e3 c6a8 f1d3 a6a7 d3f1 a7a5".split()

#: Hidden Identity with many exchanges (both sides set up in the standard layout).
EXCHANGES = ("e2e4 d7d5 e4d5 d8d5 b1c3 d5a5 d2d4 c7c6 g1f3 c8g4 f1e2 e7e6 c1d2 f8b4 a2a3 b4c3 "
             "d2c3 a5c7 h2h3 g4f3 e2f3 g8f6 d1e2 b8d7 e1c1 e8c8 f3c6 c7c6 e2a6 b7a6 "
             "h1e1 c6c3 b2c3 f6e4 e1e4 h7h5 e4e6 f7e6 g2g4 h5g4 h3g4 h8h4 c3c4 h4g4 c1b1 g4d4 "
             "d1d4 c8b8 d4d7 d8d7 f2f4 d7d3 c2d3 b8a8").split()

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


@pytest.fixture(params=list(SIZES))
def sized(app, request):
    width, height = SIZES[request.param]
    app.set_viewport_size({"width": width, "height": height})
    yield app
    app.set_viewport_size({"width": 1280, "height": 800})


def play(page, ucis, *, hand_over=False):
    for uci in ucis:
        if hand_over:
            page.evaluate("window.hcApp.call('show_board', {})")
        st = page.evaluate(f"window.hcApp.call('move', {{orig: '{uci[:2]}', dest: '{uci[2:4]}'}})")
        assert not st.get("error"), (uci, st.get("error"))


def in_viewport(page, selector):
    return page.evaluate("""sel => {
        const box = document.querySelector(sel).getBoundingClientRect();
        return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight + 0.5
            && box.left >= 0 && box.right <= window.innerWidth + 0.5;
    }""", selector)


def test_a_long_game_keeps_the_bars_and_the_latest_move_in_view(sized):
    page = sized
    page.evaluate("window.hcApp.call('new_game', {clock: {minutes: 10, increment: 0}})")
    play(page, LONG_GAME)
    assert len(state(page)["moves"]) == 120
    expect(page.locator("#moves .san.is-current")).to_have_text(state(page)["moves"][-1]["san"])
    page.wait_for_timeout(200)   # the list scrolls the latest move into view
    assert page.evaluate("window.scrollY") == 0
    for selector in ("#player-top", "#player-bottom", "#player-bottom .clock",
                     "#player-bottom .act-resign", "#moves .san.is-current"):
        assert in_viewport(page, selector), selector
    # The latest move is inside the scrolled list's own box too, not only in the window.
    assert page.evaluate("""() => {
        const list = document.getElementById('moves').getBoundingClientRect();
        const cur = document.querySelector('#moves .san.is-current').getBoundingClientRect();
        return cur.top >= list.top - 0.5 && cur.bottom <= list.bottom + 0.5
            && cur.left >= list.left - 0.5 && cur.right <= list.right + 0.5;
    }""")


def test_the_replays_start_shows_the_start_of_the_move_list(sized):
    """QA on a phone: the replay at 0/10 left the move list (one row there) scrolled to its end."""
    page = sized
    page.evaluate("window.hcApp.call('new_game', {})")
    play(page, LONG_GAME[:40])
    page.evaluate("window.hcApp.call('resign', {})")
    page.evaluate("window.hcApp.call('replay', {ply: 0})")
    expect(page.locator("#rp-pos")).to_have_text("0 / 40")
    page.wait_for_function("""() => { const ol = document.getElementById('moves');
        return ol.scrollLeft === 0 && ol.scrollTop === 0; }""", timeout=5000)
    page.evaluate("window.hcApp.call('replay', {ply: 40})")  # and the end again: the last move in view
    page.wait_for_function("""() => { const ol = document.getElementById('moves');
        return ol.scrollLeft > 0 || ol.scrollTop > 0; }""", timeout=5000)


def test_the_captured_pieces_do_not_squeeze_the_players_names(sized):
    page = sized
    page.evaluate("window.hcApp.call('new_game', {variant: 'hidden-identity'})")
    for seat in ("white", "black"):
        page.evaluate(f"window.hcApp.call('show_board', {{seat: '{seat}'}})")
        page.evaluate("window.hcApp.call('layout', {kind: 'standard'})")
        page.evaluate("window.hcApp.call('confirm_setup', {})")
    play(page, EXCHANGES, hand_over=True)
    page.evaluate("window.hcApp.call('show_board', {})")
    expect(page.locator("#player-top .tray .tray-item")).not_to_have_count(0)
    expect(page.locator("#player-bottom .tray .tray-item")).not_to_have_count(0)
    bottom = state(page)["orientation"]
    names = {"#player-bottom": bottom.capitalize(),
             "#player-top": "Black" if bottom == "white" else "White"}
    for bar, expected in names.items():
        name = page.locator(f"{bar} .player-name")
        expect(name).to_have_text(expected)
        assert name_is_whole(name), bar
        assert in_viewport(page, f"{bar} .act-resign"), bar


@pytest.mark.parametrize("height", [800, 650])
def test_the_set_up_and_the_players_own_clock_stay_in_view_beside_the_first_game_hint(app, height):
    """On a laptop's screen, a first Secret Pawn game with a clock: the hint, the set-up panel and
    the move box filled the side column, and the player's own bar and clock were 130 px below the
    screen. The set-up comes first in the panel, which scrolls; the bars stay beside the board."""
    app.set_viewport_size({"width": 1280, "height": height})
    try:
        app.evaluate("localStorage.removeItem('hiddenchess:hints-seen')")
        app.evaluate("window.hcApp.call('new_game', {variant: 'secret-pawn', mode: 'computer', level: 1, "
                     "color: 'white', clock: '5+3'})")
        expect(app.locator("#hint")).to_contain_text("Choose your two secret pawns")
        expect(app.locator("#seal-panel")).to_be_visible()
        for selector in ("#player-top", "#player-bottom", "#player-bottom .clock", "#seal-submit", "#seal-title"):
            assert in_viewport(app, selector), selector
        assert app.evaluate("""() => {      // (and not scrolled away inside the side panel)
            const panel = document.querySelector('.moves-panel').getBoundingClientRect();
            const seal = document.getElementById('seal-submit').getBoundingClientRect();
            return seal.top >= panel.top && seal.bottom <= panel.bottom;
        }""")
        assert app.evaluate("window.scrollY") == 0
        bottom = app.locator("#player-bottom").bounding_box()
        board = app.locator(".board-frame").bounding_box()
        assert abs(bottom["y"] + bottom["height"] - (board["y"] + board["height"])) <= 1
    finally:
        app.set_viewport_size({"width": 1280, "height": 800})


def test_a_window_zoomed_to_200_percent_does_not_scroll_sideways(app):
    """At 200% zoom (a 1280x800 window is 640x400 to the page) the game controls (Flip, Auto-flip,
    Take back, Export / import) stood in one row wider than the side column: Export / import
    reached x=658 and the page scrolled sideways. They wrap."""
    app.set_viewport_size({"width": 640, "height": 400})
    try:
        app.evaluate("window.hcApp.call('new_game', {clock: {minutes: 5, increment: 3}})")
        play(app, ["e2e4", "e7e5"])
        expect(app.locator("#btn-takeback")).to_be_visible()
        for when in ("playing", "over"):
            if when == "over":
                app.evaluate("window.hcApp.call('resign', {})")
                app.locator("#banner-replay").click()   # (the banner aside)
            app.wait_for_timeout(100)
            widths = app.evaluate("[document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]")
            assert widths == [640, 640, 640], (when, widths)
            for selector in ("#btn-flip", "#btn-exchange", "#player-bottom .act-resign", "#player-bottom"):
                assert in_viewport(app, selector), (when, selector)
    finally:
        app.set_viewport_size({"width": 1280, "height": 800})


@pytest.mark.parametrize("size", [(1366, 768), (1280, 720)])
def test_a_laptop_screen_shows_the_players_own_bar_without_scrolling(app, size):
    """Common laptop screens: the page was 792 px high on a 1366x768 one, the player's own bar
    under the screen's edge (a QA pass). Beside the board, the side panel scrolls instead of
    stretching the page (a first game's hint, the set-up, the end of a game with its summary)."""
    width, height = size
    app.set_viewport_size({"width": width, "height": height})
    try:
        app.evaluate("localStorage.removeItem('hiddenchess:hints-seen')")
        app.evaluate("window.hcApp.call('new_game', {variant: 'secret-pawn', mode: 'computer', level: 1, "
                     "color: 'white', clock: '5+3'})")
        expect(app.locator("#seal-panel")).to_be_visible()
        cases = ["set-up", "long game", "over"]
        for case in cases:
            if case == "long game":
                app.evaluate("window.hcApp.call('new_game', {clock: {minutes: 10, increment: 0}})")
                play(app, LONG_GAME[:60])
            elif case == "over":
                app.evaluate("window.hcApp.call('resign', {})")
                expect(app.locator("#result-line")).to_be_visible()
            app.wait_for_timeout(100)
            assert app.evaluate("[document.documentElement.scrollHeight, innerHeight]") == [height, height], case
            for selector in ("#player-top", "#player-bottom", "#player-bottom .clock", "#btn-exchange"):
                assert in_viewport(app, selector), (case, selector)
    finally:
        app.set_viewport_size({"width": 1280, "height": 800})


def list_shows_current(page):
    return page.evaluate("""() => {
        const list = document.getElementById('moves').getBoundingClientRect();
        const cur = document.querySelector('#moves .san.is-current').getBoundingClientRect();
        return cur.top >= list.top - 0.5 && cur.bottom <= list.bottom + 0.5;
    }""")


def test_the_last_move_stays_in_view_when_the_game_ends(app):
    """Beside the board (1280x800) the result line and the replay bar come under the move list at
    the game's end and the list shrinks (322 to 212 px): it stayed scrolled as before, the last
    move below its edge (a QA pass). And the move box's focus ring is drawn inside the side panel,
    which clips what overflows it (the ring was cut off left and right)."""
    app.evaluate("window.hcApp.call('new_game', {clock: {minutes: 10, increment: 0}})")
    play(app, LONG_GAME[:80])
    app.locator("#move-input").focus()
    ring = app.evaluate("""() => {
        const input = document.getElementById('move-input'), s = getComputedStyle(input);
        const grow = parseFloat(s.outlineWidth) + parseFloat(s.outlineOffset);
        const b = input.getBoundingClientRect(), panel = document.querySelector('.moves-panel').getBoundingClientRect();
        return {style: s.outlineStyle, inside: b.left - grow >= panel.left && b.right + grow <= panel.right};
    }""")
    assert ring == {"style": "solid", "inside": True}, ring
    expect(app.locator("#moves .san.is-current")).to_have_text(state(app)["moves"][-1]["san"])
    assert list_shows_current(app)
    app.evaluate("window.hcApp.call('resign', {})")
    expect(app.locator("#result-line")).to_be_visible()
    expect(app.locator("#replay-bar")).to_be_visible()
    app.wait_for_timeout(100)
    assert list_shows_current(app)
    expect(app.locator("#moves .san.is-current")).to_have_text(state(app)["moves"][-1]["san"])


PANEL_VIEW = """sel => {      // inside the side panel's visible part (not scrolled away in it, not cut)
    const panel = document.querySelector('.moves-panel'), r = panel.getBoundingClientRect();
    const top = r.top + panel.clientTop, bottom = top + panel.clientHeight;
    const box = document.querySelector(sel).getBoundingClientRect();
    // (1 px: clientHeight is the panel's height rounded, its scrollTop a whole number)
    return box.height > 0 && box.top >= top - 1 && box.bottom <= bottom + 1;
}"""


def wheel_over_panel(page, dy):
    box = page.locator(".moves-panel").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, dy)
    page.wait_for_timeout(300)


@pytest.mark.parametrize("size", [(1280, 800), (1280, 720), (1366, 768)])
def test_a_finished_reveal_games_analysis_shows_in_the_side_panel(app, size):
    """Reveal at 1280x800 (a QA pass): after a resignation, the replay's Analyse put its box under
    "Stop analysis" with only 2 px of it showing: the side panel (pools, moves, result, replay)
    was 662 px high in 458, its overflow hidden, and the wheel did not scroll it. The panel
    scrolls and the analysis is brought into view; everything above it is reachable again."""
    width, height = size
    app.set_viewport_size({"width": width, "height": height})
    try:
        app.evaluate("window.hcApp.call('new_game', {variant: 'reveal', clock: '3+2'})")
        play(app, ["e2e4", "e7e5", "g1f3", "b8c6"])
        app.evaluate("window.hcApp.call('resign', {})")
        app.locator("#banner-close").click()              # "View board"
        app.locator("#btn-analyse").click()
        expect(app.locator("#analysis")).to_be_visible()
        for selector in ("#analysis", "#btn-analyse", "#rp-pos"):  # (waited for: a loaded machine)
            app.wait_for_function(PANEL_VIEW, arg=selector, timeout=10_000)
        assert app.evaluate("[document.documentElement.scrollHeight, window.scrollY]") == [height, 0]
        # The top of the panel is reachable with the wheel, and the analysis again after it.
        wheel_over_panel(app, -2000)
        app.wait_for_function("document.querySelector('.moves-panel').scrollTop === 0", timeout=10_000)
        app.wait_for_function(PANEL_VIEW, arg=".pools-title", timeout=10_000)
        wheel_over_panel(app, 2000)
        app.wait_for_function(PANEL_VIEW, arg="#analysis", timeout=10_000)
        for selector in ("#player-top", "#player-bottom", "#btn-exchange"):
            assert in_viewport(app, selector), selector
        app.locator("#btn-analyse").click()               # (stop: no search left running)
        expect(app.locator("#analysis")).to_be_hidden()
    finally:
        app.set_viewport_size({"width": 1280, "height": 800})



def test_a_reveal_games_move_list_keeps_five_rows_beside_its_pools(app):
    """Reveal at 1280x800 (a QA pass): under the pools the move list was three rows high (109 px
    in play, 84 after the end). It keeps about five, the latest move inside the panel's visible
    part while playing; after the end the panel scrolls for the rest (see the analysis above)."""
    app.evaluate("window.hcApp.call('new_game', {variant: 'reveal', clock: '3+2'})")
    play(app, ["e2e4", "e7e5", "g1f3", "b8c6", "d2d4", "d7d6", "b1c3", "g8f6", "c1e3", "c8e6"])
    expect(app.locator("#pools")).to_be_visible()
    rows = lambda: app.evaluate("""() => {
        const list = document.getElementById('moves');
        return (list.clientHeight - 8) / list.querySelector('li').getBoundingClientRect().height;
    }""")
    app.wait_for_function(PANEL_VIEW, arg="#moves .san.is-current", timeout=10_000)
    assert rows() >= 4.5, rows()
    app.evaluate("window.hcApp.call('resign', {})")
    app.locator("#banner-close").click()              # "View board"
    expect(app.locator("#replay-bar")).to_be_visible()
    assert rows() >= 4.5, rows()
    assert app.evaluate("[document.documentElement.scrollHeight, window.scrollY]") == [800, 0]

def test_the_next_reveal_table_is_reachable_beside_the_first_game_hint(app):
    """A first Reveal game at 1280x800: the hint pushed the bottom of the "Next reveal" table
    (Black's chances) out of the side panel, which neither scrolled nor let the wheel scroll it."""
    app.evaluate("localStorage.removeItem('hiddenchess:hints-seen')")
    app.evaluate("window.hcApp.call('new_game', {variant: 'reveal', mode: 'computer', level: 1, "
                 "color: 'white', clock: '3+2'})")
    expect(app.locator("#hint")).to_be_visible()
    expect(app.locator("#pools")).to_be_visible()
    wheel_over_panel(app, 2000)
    app.wait_for_function(PANEL_VIEW, arg="#pools-table tbody tr:last-child", timeout=10_000)
    app.wait_for_function(PANEL_VIEW, arg="#moves", timeout=10_000)
    wheel_over_panel(app, -2000)
    app.wait_for_function(PANEL_VIEW, arg="#hint-close", timeout=10_000)
    app.locator("#hint-close").click()


#: A lichess PGN's players: the points ahead (+1) beside "Petrosian_fan · Black" were cut to "+]".
PLAYERS_PGN = """[Event "Casual"]
[White "{white}"]
[Black "{black}"]
[Result "*"]

1. e4 e5 2. f4 exf4 3. Nf3 g5 4. Bc4 *
"""

LONG_NAMES = [("kingsgambit77", "Petrosian_fan"),
              ("kingsgambit77_who_plays_only_gambits", "Petrosian_fan_of_the_hedgehog_defence")]


@pytest.mark.parametrize("size", [(1280, 800), (390, 844), (360, 640)])
def test_the_points_ahead_show_whole_beside_a_long_name(app, size):
    """The score is never cut: the name gives way (ellipsised, whole in its title), then the
    captured pieces but the first; the score's text fits its box, inside the tray and the bar."""
    width, height = size
    app.set_viewport_size({"width": width, "height": height})
    try:
        for white, black in LONG_NAMES:
            text = PLAYERS_PGN.format(white=white, black=black)
            imported = app.evaluate("text => window.hcApp.call('import_game', {text})", text)
            assert not imported.get("error"), imported.get("error")
            score = app.locator(".player .tray-score")
            expect(score).to_have_count(1)
            expect(score).to_have_text("+1")                    # Black is a pawn up
            bar = app.locator(".player:has(.tray-score)")
            fit = score.evaluate("""e => {
                const s = e.getBoundingClientRect(), tray = e.closest('.tray'), t = tray.getBoundingClientRect();
                const bar = e.closest('.player').getBoundingClientRect();
                const name = e.closest('.player').querySelector('.player-name').getBoundingClientRect();
                const pieces = tray.querySelector('.tray-pieces'), first = pieces.querySelector('.tray-item');
                return {
                    text: e.scrollWidth <= e.clientWidth && s.width > 10,
                    tray: tray.scrollWidth <= tray.clientWidth + 0.5 && s.left >= t.left - 0.5 && s.right <= t.right + 0.5,
                    bar: s.left >= bar.left && s.right <= bar.right,
                    name: name.right <= t.left + 0.5,
                    piece: first.getBoundingClientRect().right <= pieces.getBoundingClientRect().right + 0.5,
                };
            }""")
            assert fit == {k: True for k in fit}, (black, fit)
            expect(bar.locator(".player-name")).to_have_attribute("title", f"{black} · Black")
            assert app.evaluate("document.documentElement.scrollWidth") == width
    finally:
        app.set_viewport_size({"width": 1280, "height": 800})
