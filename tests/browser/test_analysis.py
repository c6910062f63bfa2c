"""Analysis after the game (issue 27): in the replay of a finished game against the computer,
"Analyse" shows the evaluation of the position shown and the best move (text and an arrow),
computed in the computer's worker, following the replay as the player steps through it; "Stop
analysis" ends it. A Secret Pawn game's analysis follows the replay's perspective.

Set ``HC_SHOTS=/some/dir`` to save screenshots (1280x800 and 390x844) for a person to look at.
"""

from __future__ import annotations

import json
import os
import re

import pytest
from playwright.sync_api import expect

from hiddenchess.game.game import Game

from .conftest import click_move, local_context, open_tab, state

pytestmark = pytest.mark.browser

#: The worker boots its own Pyodide, then each position is searched (about a second).
ANSWER_TIMEOUT_MS = 90_000
SHOTS = os.environ.get("HC_SHOTS")
EVAL = re.compile(r"^(0\.0|[+−]\d+\.\d|#−?\d+)$")


def wait_for_reply(page, plies: int) -> None:
    page.wait_for_function(
        f"window.hcApp.state().moves.length >= {plies} && !window.hcApp.state().computer.thinking",
        timeout=ANSWER_TIMEOUT_MS)


def wait_analysed(page) -> dict:
    """Until the analysis box shows an answer for the position shown; its texts."""
    page.wait_for_function(
        "(() => { const b = document.getElementById('analysis');"
        " return !b.hidden && b.dataset.state !== 'thinking'; })()", timeout=ANSWER_TIMEOUT_MS)
    box = page.locator("#analysis")
    return {
        "state": box.get_attribute("data-state"),
        "key": box.get_attribute("data-key"),
        "eval": page.locator("#analysis-eval").inner_text(),
        "best": page.locator("#analysis-best").inner_text(),
        "basis": page.locator("#analysis-basis").inner_text(),
    }


def shot(page, name: str) -> None:
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"))


def arrows(page) -> int:
    """How many arrows chessground draws over the board."""
    return page.locator("#board svg.cg-shapes line").count()


def test_analysis_of_a_game_against_the_computer(app):
    app.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 1, color: 'white'})")
    click_move(app, "e2", "e4")
    wait_for_reply(app, 2)
    # Looking back during play: no analysis (the game is not over).
    app.evaluate("window.hcApp.call('replay', {ply: 1})")
    expect(app.locator("#rp-live")).to_be_visible()
    expect(app.locator("#btn-analyse")).to_be_hidden()
    app.evaluate("window.hcApp.call('replay_exit')")
    click_move(app, "g1", "f3")
    wait_for_reply(app, 4)
    app.evaluate("window.hcApp.call('resign')")
    app.wait_for_function("window.hcApp.state().status.over")
    app.locator("#banner-close").click()              # "View board"
    button = app.locator("#btn-analyse")
    expect(button).to_be_visible()
    expect(button).to_have_text("Analyse")
    expect(app.locator("#analysis")).to_be_hidden()
    assert arrows(app) == 0

    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")
    last = wait_analysed(app)
    assert last["state"] == "done", last
    assert EVAL.match(last["eval"]), last
    assert last["best"].startswith("Best: "), last
    assert last["basis"].startswith("Searched to depth"), last
    assert last["key"].endswith("|4|all"), last
    expect(app.locator("#board svg.cg-shapes line")).to_have_count(1)
    first_ms = int(app.evaluate("document.body.dataset.analysisMs"))
    # Staying on the position: a deeper pass replaces the first answer.
    app.wait_for_function("document.getElementById('analysis').dataset.pass === '1'",
                          timeout=ANSWER_TIMEOUT_MS)
    deep_ms = int(app.evaluate("document.body.dataset.analysisMs"))
    deeper = wait_analysed(app)
    assert deeper["state"] == "done" and EVAL.match(deeper["eval"]), deeper
    assert deeper["best"].startswith("Best: ") and "48,000 positions" in deeper["basis"], deeper
    assert "Searching deeper" not in deeper["basis"]
    shot(app, "analysis-1280x800")

    # One move back: the analysis follows the position shown.
    app.locator("#rp-prev").click()
    app.wait_for_function(
        "document.getElementById('analysis').dataset.key.endsWith('|3|all')", timeout=10_000)
    before = wait_analysed(app)
    assert before["state"] == "done" and before["key"] != last["key"], before
    assert EVAL.match(before["eval"]), before
    # Black is to move there: the best move is Black's, and its arrow starts on a black piece.
    st = state(app)
    assert st["turnColor"] == "black"
    expect(app.locator("#board svg.cg-shapes line")).to_have_count(1)
    second_ms = int(app.evaluate("document.body.dataset.analysisMs"))

    # The start position: a standard opening move.
    app.locator("#rp-first").click()
    start = wait_analysed(app)
    assert start["key"].endswith("|0|all"), start
    assert re.match(r"^Best: (e4|d4|Nf3|c4|Nc3|e3|d3|g3|b3)\b", start["best"]), start

    app.set_viewport_size({"width": 390, "height": 844})
    app.locator("#analysis").scroll_into_view_if_needed()
    shot(app, "analysis-390x844")
    app.set_viewport_size({"width": 1280, "height": 800})

    # Stop: the box and the arrow go; the page stays usable.
    button.click()
    expect(button).to_have_text("Analyse")
    expect(button).to_have_attribute("aria-pressed", "false")
    expect(app.locator("#analysis")).to_be_hidden()
    expect(app.locator("#board svg.cg-shapes line")).to_have_count(0)
    app.locator("#rp-next").click()
    expect(app.locator("#rp-pos")).to_have_text("1 / 4")
    assert app.locator("#analysis").is_hidden()
    print(f"analysis in the page: {first_ms} ms (after 4 plies, 24,000 nodes), {deep_ms} ms (the "
          f"same, 48,000 nodes), {second_ms} ms (after 3 plies, 24,000 nodes)")


#: Whether an element lies whole on the screen (the page's own scroll as it is).
ON_SCREEN = """sel => {
    const b = document.querySelector(sel).getBoundingClientRect();
    return b.height > 0 && b.top >= -0.5 && b.bottom <= innerHeight + 0.5;
}"""


def test_a_phones_analysis_opens_on_screen_beside_the_board_stepped_through(app):
    """QA on a phone (390x844): Analyse in the replay opened its box under the screen's foot
    (814-908 px), unseen. The page scrolls it into view, as far as the board's top and no further:
    the board, the replay's buttons and the analysis all on screen, as the answer grows it."""
    app.set_viewport_size({"width": 390, "height": 844})
    try:
        app.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 1, color: 'white'})")
        for plies, uci in enumerate(("e2e4", "g1f3", "f1c4"), start=1):
            app.evaluate(f"window.hcApp.call('move', {{orig: '{uci[:2]}', dest: '{uci[2:]}'}})")
            wait_for_reply(app, 2 * plies)
        app.evaluate("window.hcApp.call('resign')")
        app.wait_for_function("window.hcApp.state().status.over")
        app.locator("#banner-close").click()              # "View board"
        app.evaluate("window.scrollTo(0, 0)")
        app.locator("#rp-prev").click()
        app.locator("#btn-analyse").click()
        wait_analysed(app)
        app.wait_for_timeout(100)
        shot(app, "analysis-opened-390x844")
        for selector in ("#analysis", "#board", "#rp-pos", "#btn-analyse"):
            assert app.evaluate(ON_SCREEN, selector), (selector, app.evaluate("scrollY"))
        app.locator("#btn-analyse").click()               # (stop: no search left running)
        expect(app.locator("#analysis")).to_be_hidden()
    finally:
        app.evaluate("window.scrollTo(0, 0)")
        app.set_viewport_size({"width": 1280, "height": 800})


def secret_pawn_record() -> str:
    """A finished Secret Pawn game (White resigned) where Black's sealed f-pawn takes
    sideways: 1. e4 f5?? is not playable, so Black's f7 pawn is secret and e4 is attacked by
    an extra move only a player who knows Black's secrets can see."""
    game = Game.new("secret-pawn")
    game.seal("white", ["a2", "b2"])
    game.seal("black", ["d7", "f7"])
    for move in ["e4", "a6", "Nc3", "h6"]:
        game.play(move)
    game.resign("white")
    return json.dumps(game.to_record(meta={"mode": "local"}))


def test_analysis_follows_the_replays_perspective_in_secret_pawn(app):
    imported = app.evaluate("text => window.hcApp.call('import_game', {text})", secret_pawn_record())
    assert not imported.get("error"), imported.get("error")
    if app.locator("#banner-close").is_visible():
        app.locator("#banner-close").click()
    app.evaluate("window.hcApp.call('replay', {ply: 4, perspective: 'white'})")
    expect(app.locator("#btn-analyse")).to_be_visible()
    app.locator("#btn-analyse").click()
    white = wait_analysed(app)
    assert white["state"] == "done" and white["key"].endswith("|4|white"), white
    assert white["basis"].startswith("What White knew: only that side's view"), white
    assert "as the computer would search it" in white["basis"], white
    shot(app, "analysis-secret-pawn-white-1280x800")
    white_ms = int(app.evaluate("document.body.dataset.analysisMs"))
    app.evaluate("window.hcApp.call('replay', {perspective: 'all'})")
    app.wait_for_function(
        "document.getElementById('analysis').dataset.key.endsWith('|4|all')", timeout=10_000)
    truth = wait_analysed(app)
    assert truth["state"] == "done", truth
    assert truth["basis"].startswith("Everything: the whole truth of that moment"), truth
    shot(app, "analysis-secret-pawn-1280x800")
    truth_ms = int(app.evaluate("document.body.dataset.analysisMs"))
    print(f"Secret Pawn in the page: {white_ms} ms (what White knew, 24,000 nodes), "
          f"{truth_ms} ms (everything, 24,000 nodes)")
    app.locator("#btn-analyse").click()
    expect(app.locator("#analysis")).to_be_hidden()


def test_a_worker_that_cannot_start_gives_a_clear_error_and_nothing_is_lost(browser, site):
    """The worker's script is refused (PyScript then waits for it for ever): after 30 s the
    analysis box says the computer has not started, and the replay and the game are as they
    were. (The page's clock is Playwright's: time runs as usual, and the 30 s are jumped over.)"""
    context = local_context(browser, viewport={"width": 1280, "height": 800})
    try:
        context.clock.install()
        context.route("**/py/worker.py", lambda route: route.abort("failed"))
        errors = []
        tab = open_tab(context, site, errors)
        imported = tab.evaluate("text => window.hcApp.call('import_game', {text})",
                                secret_pawn_record())
        assert not imported.get("error"), imported.get("error")
        if tab.locator("#banner-close").is_visible():
            tab.locator("#banner-close").click()
        tab.evaluate("window.hcApp.call('replay', {ply: 2, perspective: 'black'})")
        tab.locator("#btn-analyse").click()
        expect(tab.locator("#analysis")).to_have_attribute("data-state", "thinking")
        tab.clock.fast_forward(31_000)
        answer = wait_analysed(tab)
        assert answer["state"] == "error", answer
        assert answer["best"].startswith("The computer has not started after 30 seconds"), answer
        shot(tab, "analysis-worker-failed-1280x800")
        tab.locator("#rp-next").click()                  # the replay goes on
        expect(tab.locator("#rp-pos")).to_have_text("3 / 4")
        st = state(tab)
        assert st["status"]["over"] and len(st["moves"]) == 4
    finally:
        context.close()


def test_the_mistakes_are_marked_in_the_move_list(app):
    """With the analysis on, the other positions are analysed in the background and the moves
    marked: 3...Nf6?? allows 4. Qxf7#."""
    game = Game.new("standard")
    for san in ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]:
        game.play(san)
    imported = app.evaluate("text => window.hcApp.call('import_game', {text})",
                            json.dumps(game.to_record(meta={"mode": "local"})))
    assert not imported.get("error"), imported.get("error")
    if app.locator("#banner-close").is_visible():
        app.locator("#banner-close").click()
    app.locator("#btn-analyse").click()
    final = wait_analysed(app)
    assert final["state"] == "over" and "Checkmate" in final["best"], final
    nf6 = app.locator('#moves .san[data-ply="5"]')
    expect(nf6).to_have_attribute("data-judgment", "??", timeout=ANSWER_TIMEOUT_MS)
    expect(nf6).to_have_attribute("aria-description", "Blunder")
    # every position analysed: the mate itself is no mistake
    app.wait_for_function("document.body.dataset.analysisBackground === 'done'", timeout=ANSWER_TIMEOUT_MS)
    assert app.locator('#moves .san[data-ply="6"]').get_attribute("data-judgment") is None
    shot(app, "analysis-marks-1280x800")
    app.locator("#btn-analyse").click()                 # off: the marks go too
    expect(app.locator("#moves .san[data-judgment]")).to_have_count(0)
