"""Playing against the computer on the page: the dialog, the Web Worker, the thinking indicator.

The computer thinks in a PyScript worker (``py/worker.py``): the main thread stays free, so a UI
action (flipping the board) completes while the thinking indicator is up. ``shared`` (conftest)
boots the page once for the module; each test starts its own game.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from hiddenchess.ai.book import get_book
from hiddenchess.engine.notation import initial_position, parse_uci, uci

from .conftest import square_center, state, wait_ready

pytestmark = pytest.mark.browser

#: Pyodide boots a second time in the worker, then the search runs (up to 2 s at level 5).
ANSWER_TIMEOUT_MS = 90_000

#: Nodes the page's computer has searched on the player's time (computer.js ``ponder``).
PONDERED = "Number(document.body.dataset.aiPondered || 0)"


@pytest.fixture
def app(shared):
    page = shared.page
    for _ in range(3):
        page.keyboard.press("Escape")
    page.evaluate("window.hcApp.call('new_game', {})")
    expect(page.locator("dialog[open]")).to_have_count(0)
    yield page
    assert shared.blocked == [], shared.blocked
    assert shared.page_errors == [], shared.page_errors


def play_any_move(page) -> None:
    """Click a legal move of the player (the first non-promotion one the page offers)."""
    st = state(page)
    dests = st["movable"]["dests"]
    assert st["movable"]["color"] == st["computer"]["player"], st["movable"]
    orig, dest = next((o, d) for o, ds in sorted(dests.items()) for d in ds
                      if o + d not in st["promotions"])
    before = len(st["moves"])
    page.mouse.click(*square_center(page, orig))
    page.mouse.click(*square_center(page, dest))
    page.wait_for_function(f"window.hcApp.state().moves.length > {before}")


#: What the page says of its computer, for a failure's message.
COMPUTER_SEEN = """() => ({ready: document.body.dataset.aiReady, from: document.body.dataset.aiStartedFrom,
    restarts: document.body.dataset.aiRestarts, thinking: document.body.dataset.thinking,
    moves: window.hcApp.state().moves.length, toast: document.getElementById('toast').textContent})"""


def wait_for_answer(page, plies: int, timeout_ms: int = ANSWER_TIMEOUT_MS) -> None:
    """Until the computer's reply is on the board (``plies`` half-moves in all); on a timeout, the
    failure says what the page shows of its computer."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(
            f"window.hcApp.state().moves.length >= {plies} && !window.hcApp.state().computer.thinking",
            timeout=timeout_ms)
    except PlaywrightTimeout:
        raise AssertionError(f"no answer within {timeout_ms / 1000:.0f} s: {page.evaluate(COMPUTER_SEEN)}") from None


def test_dialog_offers_the_computer_only_for_variants_it_plays(app):
    app.locator("#btn-new").click()
    dialog = app.locator("#dlg-new")
    expect(dialog).to_be_visible()
    supported = state(app)["computerVariants"]
    assert "standard" in supported and "royal-pawn" in supported
    for variant in ["standard", "royal-pawn", "secret-pawn", "reveal"]:
        dialog.locator(f"input[name=variant][value='{variant}']").check(force=True)
        computer = dialog.locator("input[name=mode][value=computer]")
        if variant in supported:
            expect(computer).to_be_enabled()
        else:
            expect(computer).to_be_disabled()
            expect(app.locator("#computer-note")).to_contain_text("does not play")
    dialog.locator("input[name=variant][value=standard]").check(force=True)
    expect(app.locator("#computer-options")).to_be_hidden()
    dialog.locator("input[name=mode][value=computer]").check(force=True)
    expect(app.locator("#computer-options")).to_be_visible()
    expect(dialog.locator("input[name=level]")).to_have_count(5)
    expect(dialog.locator("input[name=color]")).to_have_count(3)
    app.locator("#new-cancel").click()


def test_level_1_from_the_dialog_answers_every_move_and_takeback(app):
    app.locator("#btn-new").click()
    dialog = app.locator("#dlg-new")
    dialog.locator("input[name=variant][value=royal-pawn]").check(force=True)
    dialog.locator("input[name=mode][value=computer]").check(force=True)
    dialog.locator("input[name=level][value='1']").check(force=True)
    dialog.locator("input[name=color][value=white]").check(force=True)
    app.locator("#new-start").click()
    expect(dialog).to_be_hidden()
    st = state(app)
    assert st["options"]["mode"] == "computer" and st["options"]["level"] == 1
    assert st["variant"]["id"] == "royal-pawn" and st["computer"]["seat"] == "black"
    expect(app.locator("#player-top .player-name")).to_have_text("Computer · level 1")
    expect(app.locator("#player-bottom .player-name")).to_have_text("You")
    for n in range(1, 5):
        if state(app)["status"]["over"]:
            break
        play_any_move(app)
        wait_for_answer(app, 2 * n)
        st = state(app)
        assert st["moves"][2 * n - 1]["color"] == "black"  # the computer's reply
    plies = len(state(app)["moves"])
    assert plies >= 4
    takeback = app.locator("#btn-takeback")
    expect(takeback).to_be_enabled()
    takeback.click()
    app.wait_for_function(f"window.hcApp.state().moves.length === {plies - 2}")
    assert state(app)["turnColor"] == "white"


def test_level_5_answers_from_its_opening_book(app):
    # After 1. e4 level 5's own search plays 1... Nf6 (every seed); its book (lichess's named
    # openings, the moves Stockfish scores near the best) has 1... a6, c5, c6, e5, e6 and g6.
    # So a book reply shows that the page's worker has the book and uses it.
    app.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 5, color: 'white'})")
    app.mouse.click(*square_center(app, "e2"))
    app.mouse.click(*square_center(app, "e4"))
    wait_for_answer(app, 2)
    pos = initial_position()
    pos.push(parse_uci(pos, "e2e4"))
    book = {uci(m) for m, _ in get_book("standard").moves(pos)}
    assert "g8f6" not in book
    assert state(app)["moves"][1]["uci"] in book


def test_level_5_thinks_in_a_worker_while_the_page_responds(app):
    app.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 5, color: 'white'})")
    pondered = app.evaluate(PONDERED)
    checks = []
    for n in range(1, 4):
        if state(app)["status"]["over"]:
            break
        play_any_move(app)
        # Right after the move the computer thinks; a UI action must complete meanwhile.
        checks.append(app.evaluate("""() => {
            const before = window.hcApp.state();
            const shown = !document.getElementById('thinking').hidden;
            document.getElementById('btn-flip').click();
            const after = window.hcApp.state();
            return {thinkingBefore: before.computer.thinking, shown,
                    flipped: before.orientation !== after.orientation,
                    thinkingAfter: after.computer.thinking,
                    movesAfter: after.moves.length, movesBefore: before.moves.length};
        }"""))
        wait_for_answer(app, 2 * n)
    for c in checks:
        assert c["thinkingBefore"] and c["shown"], c
        assert c["flipped"], c
        # the flip came back before the computer's move: the page was not blocked by the search
        assert c["thinkingAfter"] and c["movesAfter"] == c["movesBefore"], c
    expect(app.locator("#thinking")).to_be_hidden()
    assert len(state(app)["moves"]) >= 6
    # (the suite's pages do not ponder unless a test asks: conftest.PONDER_OFF)
    assert state(app)["computer"]["ponder"] and app.evaluate(PONDERED) == pondered


@pytest.fixture
def pondering(app):
    """The shared page with pondering on (the suite turns it off: conftest.PONDER_OFF)."""
    app.evaluate("window.hcPonder = true")
    yield app
    app.evaluate("window.hcPonder = false")


def test_level_5_thinks_on_the_players_time_and_answers_a_quick_move_at_once(pondering):
    # Standard, level 5: while the player thinks, the worker searches the position the computer
    # left (hiddenchess.ai.ponder) in slices, up to the level's budget, then stops.
    app = pondering
    app.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 5, color: 'white'})")
    play_any_move(app)
    wait_for_answer(app, 2)
    ponder = state(app)["computer"]["ponder"]
    assert ponder["view"]["seat"] == "black" and ponder["ply"] == 2, ponder
    budget = ponder["nodes"]
    start = app.evaluate(PONDERED)
    app.wait_for_function(f"{PONDERED} >= {start + budget}", timeout=60_000)
    app.wait_for_timeout(500)
    assert app.evaluate(PONDERED) == start + budget  # (every slice ends exactly at its budget)
    # A move made at once, while the worker still ponders the next position, is answered.
    for n in (2, 3):
        play_any_move(app)
        wait_for_answer(app, 2 * n)
        if state(app)["status"]["over"]:
            break
    assert app.evaluate(PONDERED) > start + budget
    st = state(app)
    assert not st["computer"]["thinking"] and st["computer"]["ponder"]["ply"] == len(st["moves"])


def test_reload_while_the_computer_is_to_move_resumes_thinking(app, shared):
    # level 5 thinks for a second or two: the reload comes while it thinks
    st = app.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 5, color: 'black'})")
    assert st["orientation"] == "black" and st["computer"]["thinking"]
    app.reload()
    wait_ready(app)
    st = state(app)
    assert st["options"]["mode"] == "computer" and st["options"]["color"] == "black"
    assert st["options"]["level"] == 5
    if not st["moves"]:  # (the answer may already be there)
        expect(app.locator("#thinking")).to_be_visible()
    wait_for_answer(app, 1)
    st = state(app)
    assert st["moves"][0]["color"] == "white" and st["movable"]["color"] == "black"


def test_draw_offer_and_resignation_against_the_computer(app):
    app.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 1, color: 'white', clock: '3+2'})")
    # the computer's panel has no buttons: it decides for itself
    expect(app.locator("#player-top .player-actions")).to_be_hidden()
    app.locator("#player-bottom .act-draw").click()
    expect(app.locator("#toast")).to_have_text("The computer declines your draw offer.")
    # A neutral notice, not an error: quiet colours, announced politely, clear of the board.
    expect(app.locator("#toast")).to_have_class("toast is-info")
    expect(app.locator("#toast")).to_have_attribute("role", "status")
    # (and of both clocks: QA found it over the player's own clock in the bottom corner)
    toast_box = app.locator("#toast").bounding_box()
    for what in ("#board", "#player-bottom .clock", "#player-top .clock"):
        box = app.locator(what).bounding_box()
        apart = (toast_box["y"] >= box["y"] + box["height"]
                 or toast_box["y"] + toast_box["height"] <= box["y"]
                 or toast_box["x"] >= box["x"] + box["width"]
                 or toast_box["x"] + toast_box["width"] <= box["x"])
        assert apart, (what, toast_box, box)
    assert not state(app)["status"]["over"]
    app.locator("#player-bottom .act-resign").click()
    expect(app.locator("#confirm-title")).to_have_text("Resign?")   # (it said "Resign as White?")
    expect(app.locator("#confirm-text")).to_have_text("The computer wins the game.")
    app.locator("#confirm-yes").click()
    app.wait_for_function("window.hcApp.state().status.over")
    st = state(app)
    assert st["status"]["reason"] == "resignation" and st["status"]["winner"] == "black"
    expect(app.locator("#btn-takeback")).to_be_disabled()


#: Each frame from now on: how many moves the page shows and whether a piece is sliding.
FRAMES = """() => {
    window.__frames = [];
    const look = () => {
        const st = window.hcApp.state();
        window.__frames.push([st.moves.length, window.hcApp.animating()]);
        if (window.__frames.length < 3000) requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
}"""


@pytest.mark.parametrize("level", [1, 2, 4])
def test_the_computers_reply_waits_until_the_players_move_has_landed(app, level):
    app.evaluate(f"window.hcApp.call('new_game', {{mode: 'computer', level: {level}, color: 'white'}})")
    app.wait_for_function("document.body.dataset.aiReady === 'true'", timeout=ANSWER_TIMEOUT_MS)
    for n in (1, 2):
        app.evaluate(FRAMES)
        play_any_move(app)
        wait_for_answer(app, 2 * n)
        players = 2 * n - 1
        # (the reply is on the board: wait for the recorder's next frame to have seen it too)
        app.wait_for_function(f"window.__frames.some(([moves]) => moves > {players})")
        frames = app.evaluate("window.__frames")
        # The player's move, then a frame where it has landed (nothing sliding), and only then
        # the computer's reply.
        first_reply = next(i for i, (moves, _) in enumerate(frames) if moves > players)
        landed = [i for i, (moves, sliding) in enumerate(frames[:first_reply]) if moves == players and not sliding]
        assert landed, (level, n, frames[:first_reply + 2])
    # The lowest levels pause as a person would; the higher ones do not wait beyond the slide.
    pause = int(app.evaluate("document.body.dataset.aiPause"))
    assert (pause >= 300) if level <= 2 else (pause == 0), (level, pause)


#: Before the page's scripts: every Worker the page makes is listed in ``window.__workers``, so a
#: test can stop one as a crash would: the native ``terminate``, under PyScript's own, so that
#: nothing tells the page (its thread is gone; what was asked of it is never answered).
LIST_WORKERS = """(() => {
  const Base = window.Worker;
  window.__workers = [];
  window.__kill = () => window.__workers.splice(0).forEach(w => Base.prototype.terminate.call(w));
  window.Worker = class extends Base { constructor(...args) { super(...args); window.__workers.push(this); } };
})();"""


def test_a_worker_that_dies_is_replaced_and_the_computer_still_answers(browser, site):
    """The computer's worker gone (a crash, its Python failed for good): the move asked of it is
    asked again of a new worker once the old one has been silent for well over the level's time
    cap (computer.js moveStuckMs: 15 s at the lower levels)."""
    context = browser.new_context(service_workers="block", viewport={"width": 1280, "height": 800})
    errors = []
    try:
        context.add_init_script(LIST_WORKERS)
        context.clock.install()  # (time runs as usual; the test jumps the page's clock over the wait)
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(site.url("/index.html"))
        wait_ready(page)
        page.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 2, color: 'white'})")
        page.wait_for_function("document.body.dataset.aiReady === 'true'", timeout=ANSWER_TIMEOUT_MS)
        play_any_move(page)
        wait_for_answer(page, 2)
        assert page.evaluate("window.__kill()") is None
        play_any_move(page)
        expect(page.locator("#thinking")).to_be_visible()
        page.wait_for_timeout(1_000)
        assert state(page)["computer"]["thinking"] and len(state(page)["moves"]) == 3
        # Level 2's search stops by its cap (the request's timeMs, 1.24 s): the worker counts as
        # stuck 15 s after it was asked (computer.js moveStuckMs), not before.
        assert state(page)["computer"]["request"]["timeMs"] == 1_240
        page.clock.fast_forward(12_000)
        page.wait_for_timeout(1_000)
        assert page.evaluate("document.body.dataset.aiRestarts") is None
        assert state(page)["computer"]["thinking"] and len(state(page)["moves"]) == 3
        page.clock.fast_forward(3_000)
        wait_for_answer(page, 4)
        assert page.evaluate("document.body.dataset.aiRestarts") == "1"
        assert page.evaluate("document.body.dataset.aiReady") == "true"
        # ...and the new worker goes on answering
        play_any_move(page)
        wait_for_answer(page, 6)
        assert page.evaluate("document.body.dataset.aiRestarts") == "1"
        assert errors == [], errors
    finally:
        context.close()
