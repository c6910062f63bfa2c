"""PGN import on the page (issue 25, item 2): a lichess PGN pasted while a game is going asks
first (a confirmation in the page; "Keep" keeps the game), then comes back as the finished game
it was -- its players named, its result 1-0, shown as a replay -- also after a reload, and its
export keeps the players, tags and clocks. Set ``HC_SHOTS=/some/dir`` to save screenshots."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from playwright.sync_api import expect

from .conftest import state, wait_for_app, wait_ready

PGN = (Path(__file__).resolve().parent.parent / "data" / "pgn" / "lichess-resign.pgn").read_text()
SHOTS = os.environ.get("HC_SHOTS")


def shot(page, name):
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"pgn-{name}.png"))


def test_a_lichess_pgn_asks_before_replacing_a_game_and_comes_back_finished(page, site, recorder):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(site.url("/index.html"))
    wait_for_app(page, recorder=recorder)
    wait_ready(page)
    page.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 1, color: 'white'})")
    page.evaluate("window.hcApp.call('move', {orig: 'e2', dest: 'e4'})")
    page.wait_for_function("window.hcApp.state().moves.length === 2")   # the computer answered
    game_id = state(page)["gameId"]

    page.locator("#btn-exchange").click()
    # A text that cannot be imported is said so at once, before anything is asked (a QA pass
    # found the confirmation first, then the error).
    page.locator("#import-text").fill("1. e4 e5 2. Ke3")
    page.locator("#import-go").click()
    expect(page.locator("#import-error")).to_contain_text("Move 2. Ke3 of the PGN cannot be played")
    expect(page.locator("#dlg-confirm")).to_be_hidden()
    assert state(page)["gameId"] == game_id
    page.locator("#import-text").fill(PGN)
    page.locator("#import-go").click()
    confirm = page.locator("#dlg-confirm")
    expect(confirm).to_be_visible()
    expect(page.locator("#confirm-title")).to_have_text("Import a game?")  # (the game in progress is kept, issue 26)
    # (nothing is lost: the button is the primary one, not a red one like Delete's -- QA)
    expect(page.locator("#confirm-yes")).to_have_class(re.compile(r"\bbtn-primary\b"))
    expect(page.locator("#confirm-yes")).not_to_have_class(re.compile(r"\bbtn-danger\b"))
    shot(page, "confirm")
    page.locator("#confirm-no").click()
    expect(confirm).to_be_hidden()
    st = state(page)
    assert st["gameId"] == game_id and len(st["moves"]) == 2      # nothing replaced

    page.locator("#import-go").click()
    expect(confirm).to_be_visible()
    page.locator("#confirm-yes").click()
    expect(page.locator("#dlg-exchange")).to_be_hidden()
    st = state(page)
    assert st["status"]["over"] and st["status"]["result"] == "1-0"
    assert st["replay"] is not None and st["replay"]["ply"] == 40 and len(st["moves"]) == 40
    assert st["computer"] is None
    page.keyboard.press("Escape")                                   # the game-over banner
    expect(page.locator("#result-line")).to_have_text("1-0Petrosian_fan resigns — kingsgambit77 wins")
    names = page.locator(".player-name")
    expect(names.filter(has_text="kingsgambit77 · White")).to_have_count(1)
    expect(names.filter(has_text="Petrosian_fan · Black")).to_have_count(1)
    shot(page, "imported")

    page.reload()
    wait_ready(page)
    st = state(page)
    assert st["status"]["result"] == "1-0" and st["players"]["black"] == "Petrosian_fan"
    exported = json.loads(page.evaluate("window.hc.exportGame(location.origin)"))
    pgn = exported["pgn"]
    for tag in ('[White "kingsgambit77"]', '[Black "Petrosian_fan"]', '[Result "1-0"]',
                '[Site "https://lichess.org/Xk3b9QzR"]', '[TimeControl "180+2"]',
                '[Termination "Normal"]', '[WhiteElo "1873"]'):
        assert tag in pgn, tag
    assert "1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:03:00] }" in pgn
    assert pgn.rstrip().endswith("1-0")


def test_the_export_against_the_computer_names_you_and_the_computer(page, site, recorder):
    page.goto(site.url("/index.html"))
    wait_for_app(page, recorder=recorder)
    wait_ready(page)
    page.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 2, color: 'white'})")
    page.evaluate("window.hcApp.call('resign', {})")
    expect(page.locator("#banner-title")).to_have_text("You resign — Computer wins")
    shot(page, "resign")
    page.keyboard.press("Escape")
    page.locator("#btn-exchange").click()
    pgn = page.locator("#export-pgn").input_value()
    assert '[White "You"]' in pgn and '[Black "Computer level 2"]' in pgn
    assert '[Date "????.??.??"]' not in pgn and '[Round "-"]' in pgn
    assert f'[Site "{site.url("/index.html")}"]' in pgn


def test_the_import_asks_after_pawns_are_sealed_before_any_move(page, site, recorder):
    page.goto(site.url("/index.html"))
    wait_for_app(page, recorder=recorder)
    wait_ready(page)
    page.evaluate("window.hcApp.call('new_game', {variant: 'secret-pawn'})")
    page.evaluate("window.hcApp.call('show_board', {seat: 'white'})")
    st = page.evaluate("window.hcApp.call('seal', {squares: ['d2', 'e2']})")
    assert not st["error"] and st["moves"] == []
    page.locator("#btn-exchange").click()
    page.locator("#import-text").fill(PGN)
    page.locator("#import-go").click()
    expect(page.locator("#dlg-confirm")).to_be_visible()
    page.locator("#confirm-no").click()
    assert state(page)["variant"]["id"] == "secret-pawn"
