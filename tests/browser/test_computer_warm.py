"""The computer's worker starts early: it is ready before the player's first move.

``assets/js/computer.js`` starts the worker (``py/worker.py``, its own Pyodide) as soon as a game
against the computer is on its way -- "Against the computer" chosen in the New game dialog, an
unfinished computer game restored -- and never on a page that plays no computer game. Its state is
``body[data-ai-ready]``: absent (never started), ``"false"`` (starting), ``"true"`` (ready).
Each test has a fresh page (``page`` fixture), so "never started" means this page load. The
last test checks the worker itself (``tests/browser/fixtures/worker.html``): Pyodide's search
is CPython's.
"""

from __future__ import annotations

import json
import random

import pytest
from playwright.sync_api import expect

from hiddenchess.ai import WARM_UP_NODES, choose_move, choose_setup, warm_up
from hiddenchess.game.game import Game

from .conftest import local_context, square_center, state, wait_for_preview

pytestmark = pytest.mark.browser

#: The worker boots a second Pyodide: seconds here, more on a loaded CI machine.
WORKER_TIMEOUT_MS = 90_000

#: Before the page's scripts: when the worker started (data-ai-ready first set) and when the page
#: became playable (data-ready), in performance.now() ms.
PROBE = """
window.__warm = { aiStart: null, playable: null };
new MutationObserver(() => {
  const b = document.body;
  if (!b) return;
  if (b.dataset.aiReady !== undefined && window.__warm.aiStart === null) window.__warm.aiStart = performance.now();
  if (b.dataset.ready === 'true' && window.__warm.playable === null) window.__warm.playable = performance.now();
}).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-ai-ready', 'data-ready'] });
"""


def worker_requests(recorder) -> list:
    return [url for url in recorder.urls if url.split("?")[0].endswith("/py/worker.py")]


def open_dialog(page, variant="standard"):
    page.locator("#btn-new").click()
    dialog = page.locator("#dlg-new")
    expect(dialog).to_be_visible()
    dialog.locator(f"input[name=variant][value='{variant}']").check(force=True)
    return dialog


def first_move(page) -> None:
    """Click the player's first legal non-promotion move."""
    st = state(page)
    orig, dest = next((o, d) for o, ds in sorted(st["movable"]["dests"].items()) for d in ds
                      if o + d not in st["promotions"])
    page.mouse.click(*square_center(page, orig))
    page.mouse.click(*square_center(page, dest))


def test_a_page_without_a_computer_game_never_starts_the_worker(page, site, wait_for_app,
                                                                recorder):
    page.goto(site.url("/index.html"))
    wait_for_app(page)
    assert state(page)["computer"] is None
    first_move(page)  # a game on this device
    page.wait_for_function("window.hcApp.state().moves.length === 1")
    # The New game dialog, with the other modes looked at but not the computer
    dialog = open_dialog(page, "royal-pawn")
    dialog.locator("input[name=mode][value=local]").check(force=True)
    page.wait_for_timeout(1500)
    page.locator("#new-cancel").click()
    page.wait_for_timeout(500)
    assert page.evaluate("document.body.dataset.aiReady") is None
    assert worker_requests(recorder) == []
    assert recorder.page_errors == [], recorder.problems()


def test_choosing_the_computer_in_the_dialog_has_it_ready_for_the_first_move(page, site,
                                                                            wait_for_app,
                                                                            recorder):
    page.goto(site.url("/index.html"))
    wait_for_app(page)
    dialog = open_dialog(page)
    assert page.evaluate("document.body.dataset.aiReady") is None
    dialog.locator("input[name=mode][value=computer]").check(force=True)
    # Starting while the player still picks the level and colour: no game against it yet.
    page.wait_for_function("document.body.dataset.aiReady !== undefined", timeout=5_000)
    dialog.locator("input[name=level][value='5']").check(force=True)
    dialog.locator("input[name=color][value=white]").check(force=True)
    page.wait_for_function("document.body.dataset.aiReady === 'true'", timeout=WORKER_TIMEOUT_MS)
    assert state(page)["computer"] is None
    page.locator("#new-start").click()
    expect(dialog).to_be_hidden()
    assert state(page)["computer"]["level"] == 5
    first_move(page)
    page.wait_for_function("window.hcApp.state().moves.length === 1")
    # The first reply does not wait for the worker: it thinks at once.
    expect(page.locator("#thinking-text")).to_have_text("The computer (level 5) is thinking…")
    page.wait_for_function("window.hcApp.state().moves.length === 2 "
                           "&& !window.hcApp.state().computer.thinking", timeout=WORKER_TIMEOUT_MS)
    assert len(worker_requests(recorder)) == 1  # one worker, started once
    assert recorder.page_errors == [], recorder.problems()


def test_a_restored_computer_game_starts_the_worker_by_the_time_it_is_playable(page, site,
                                                                             wait_for_app,
                                                                             recorder):
    page.context.add_init_script(PROBE)
    page.goto(site.url("/index.html"))
    wait_for_app(page)
    page.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 1, color: 'white'})")
    first_move(page)
    page.wait_for_function("window.hcApp.state().moves.length === 2", timeout=WORKER_TIMEOUT_MS)
    wait_for_preview(page, "s => s.moves.length === 2")
    page.reload()
    wait_for_app(page)
    page.wait_for_function("window.__warm.playable !== null")
    warm = page.evaluate("window.__warm")
    assert warm["aiStart"] is not None and warm["aiStart"] <= warm["playable"], warm
    page.wait_for_function("document.body.dataset.aiReady === 'true'", timeout=WORKER_TIMEOUT_MS)
    # A finished computer game, restored: nothing for the computer to do, no worker.
    page.evaluate("window.hcApp.call('resign', {color: 'white'})")
    assert state(page)["status"]["over"]
    wait_for_preview(page, "s => !!(s.status && s.status.over)")
    page.reload()
    wait_for_app(page)
    page.wait_for_timeout(1500)
    assert state(page)["status"]["over"] and state(page)["computer"] is not None
    assert page.evaluate("window.__warm.aiStart") is None
    assert page.evaluate("document.body.dataset.aiReady") is None
    assert recorder.page_errors == [], recorder.problems()


def test_the_start_screen_starts_the_worker_when_the_mouse_comes_to_play_the_computer(browser,
                                                                                       site):
    context = local_context(browser, first_visit=True, viewport={"width": 1280, "height": 800})
    errors = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(site.url("/index.html"))
        expect(page.locator("#start")).to_be_visible(timeout=WORKER_TIMEOUT_MS)
        # The first card's first button has the focus: that alone starts nothing.
        page.wait_for_timeout(500)
        assert page.evaluate("document.body.dataset.aiReady") is None
        play = page.locator("#start .variant-card[data-variant=standard] .play-computer")
        expect(play).to_have_text("Play the computer")
        play.hover()
        page.wait_for_function("document.body.dataset.aiReady !== undefined", timeout=5_000)
        assert state(page)["computer"] is None  # no game against it yet
        play.click()
        expect(page.locator("#start")).to_be_hidden()
        assert state(page)["computer"]["seat"] == "black"
        page.wait_for_function("document.body.dataset.aiReady === 'true'",
                               timeout=WORKER_TIMEOUT_MS)
        assert errors == []
    finally:
        context.close()


def test_the_worker_searches_as_cpython_does(page, site, recorder):
    """The page's worker (Pyodide) answers a seeded search with CPython's move, score and node
    count, its warm-up as CPython does, and a view or level it cannot play with an error."""
    game = Game.new("standard")
    for san in ["e4", "c5", "Nf3", "d6", "d4", "cxd4", "Nxd4", "Nf6", "Nc3", "a6"]:
        game.play(san)
    hidden = Game.new("hidden-identity")
    for seat in ("white", "black"):
        hidden.setup(seat, choose_setup(hidden.view(seat).to_json(), random.Random(seat)))
    views = [game.view("white").to_json(), hidden.view("white").to_json()]
    page.goto(site.url("/_worker.html"))
    page.wait_for_function("window.worker && (window.worker.ready || window.worker.error)",
                           timeout=WORKER_TIMEOUT_MS)
    assert page.evaluate("window.worker.error") is None
    for seed, view in enumerate(views, start=3):
        here = choose_move(view, 5, seed=seed)
        there = page.evaluate("([v, s]) => window.choose(v, 5, s)", [json.dumps(view), seed])
        assert not there["capped"], there  # (a 7.4 s safety cap; 32 000 nodes take about 0.7 s)
        assert {k: there[k] for k in ("uci", "score", "nodes", "depth", "pv")} == \
            {k: here[k] for k in ("uci", "score", "nodes", "depth", "pv")}
    warm = page.evaluate("window.warm()")  # (what computer.js asks for twice as it starts)
    assert warm == warm_up() and warm["nodes"] == WARM_UP_NODES
    assert page.evaluate("window.choose('{}', 5)")["error"].startswith("InvalidViewError")
    assert page.evaluate("([v]) => window.choose(v, 9)", [json.dumps(views[0])])["error"] \
        .startswith("InvalidLevelError")
    assert recorder.page_errors == [], recorder.problems()
