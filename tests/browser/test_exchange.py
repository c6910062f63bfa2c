"""Export and import on the page (issue 14): PGN and JSON record out (download, copy), a PGN
back in to replay it, a finished game's replay link opened in another tab, and a game whose
secrets are still secret refused for export."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from .conftest import state, wait_for_app, wait_ready

FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]


def play(page, ucis):
    for uci in ucis:
        st = page.evaluate(f"window.hcApp.call('move', {{orig: '{uci[:2]}', dest: '{uci[2:4]}'}})")
        assert not st.get("error"), st.get("error")


def test_export_then_import_round_trip_and_a_replay_link(page, site, recorder):
    page.goto(site.url("/index.html"))
    wait_for_app(page, recorder=recorder)
    wait_ready(page)
    page.evaluate("window.hcApp.call('new_game', {})")
    play(page, FOOLS_MATE)
    page.keyboard.press("Escape")                           # the game-over banner
    page.locator("#btn-exchange").click()
    dialog = page.locator("#dlg-exchange")
    expect(dialog).to_be_visible()
    pgn = page.locator("#export-pgn").input_value()
    assert "1. f3 e5 2. g4 Qh4#" in pgn and pgn.rstrip().endswith("0-1")
    # (it opens at its tags, not scrolled to its end: QA)
    assert page.evaluate("(() => { const b = document.getElementById('export-pgn'); "
                         "return [b.scrollTop, b.scrollHeight > b.clientHeight]; })()") == [0, True]
    expect(page.locator("#copy-link")).to_be_visible()
    expect(page.locator("#copy-fen")).to_be_visible()
    with page.expect_download() as info:
        page.locator("#save-pgn").click()
    assert info.value.suggested_filename.endswith(".pgn")
    page.locator("#exchange-close").click()

    exported = json.loads(page.evaluate("window.hc.exportGame()"))
    # Import the PGN into a new game: the same moves, shown as a replay of the finished game.
    page.evaluate("window.hcApp.call('new_game', {variant: 'royal-pawn'})")
    page.locator("#btn-exchange").click()
    page.locator("#import-text").fill("garbage that is no game")
    page.locator("#import-go").click()
    expect(page.locator("#import-error")).to_be_visible()
    assert state(page)["variant"]["id"] == "royal-pawn"       # nothing changed
    page.locator("#import-text").fill(exported["pgn"])
    page.locator("#import-go").click()
    expect(dialog).to_be_hidden()
    st = state(page)
    assert [m["san"] for m in st["moves"]] == ["f3", "e5", "g4", "Qh4#"]
    assert st["status"]["result"] == "0-1" and st["replay"] is not None

    # The replay link in a fresh tab of another browser profile: the game, ready to replay.
    other = page.context.browser.new_context(service_workers="block")
    try:
        tab = other.new_page()
        errors = []
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.goto(site.url(f"/index.html#replay={exported['link']}"))
        wait_ready(tab)
        tab.wait_for_function("window.hcApp.state().moves.length === 4")
        st = state(tab)
        assert st["replay"] is not None and st["status"]["result"] == "0-1"
        assert "#replay=" not in tab.url                       # the link is consumed
        assert errors == []
    finally:
        other.close()


def test_a_game_with_secrets_is_exported_only_once_it_is_over(page, site, recorder):
    page.goto(site.url("/index.html"))
    wait_for_app(page, recorder=recorder)
    wait_ready(page)
    page.evaluate("window.hcApp.call('new_game', {variant: 'secret-pawn'})")
    page.locator("#btn-exchange").click()
    expect(page.locator("#export-error")).to_contain_text("once it is over")
    expect(page.locator("#export-out")).to_be_hidden()


def test_a_game_imported_from_a_reveal_game_is_drawn_at_once_without_its_covers(page, site, recorder):
    """Another game is drawn at once, not slid from the last game's position: while pieces slid,
    chessground left the marks on the board as they were, and a Reveal game's "?" on each cover
    stood on an imported Standard game (QA, a screenshot taken as the import came)."""
    page.goto(site.url("/index.html"))
    wait_for_app(page, recorder=recorder)
    wait_ready(page)
    page.evaluate("window.hcApp.call('new_game', {variant: 'reveal'})")
    page.evaluate("window.hcApp.call('move', {orig: 'b1', dest: 'c3'})")
    marks = "[...document.querySelectorAll('#board svg.cg-custom-svgs g')].filter(g => g.childElementCount).length"
    page.wait_for_function(f"{marks} > 20")          # the covers' "?"
    left = page.evaluate("""async (marks) => {
      window.hcApp.call('import_game', {text: '1. e4 e5 2. Nf3 *'});
      await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
      return [window.hcApp.state().variant.id, eval(marks)];
    }""", marks)
    assert left == ["standard", 0], left
