"""Play comforts on one device (issue 14): a takeback the other player agrees to on the same
screen, a one-click rematch with colours swapped, and the material balance beside the players."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import click, click_move, square_center, state, wait_ready


def play(page, *ucis):
    for uci in ucis:
        st = page.evaluate(f"window.hcApp.call('move', {{orig: '{uci[:2]}', dest: '{uci[2:4]}'}})")
        assert not st.get("error"), st.get("error")


def test_a_takeback_needs_the_other_players_yes(app):
    app.evaluate("window.hcApp.call('new_game', {})")
    button = app.locator("#btn-takeback")
    expect(button).to_be_visible()
    expect(button).to_be_disabled()                      # no move yet
    play(app, "e2e4", "e7e5")
    expect(button).to_be_enabled()
    button.click()
    dialog = app.locator("#dlg-confirm")
    expect(dialog).to_be_visible()
    expect(app.locator("#confirm-title")).to_have_text("Black asks to take back e5")
    expect(app.locator("#confirm-text")).to_contain_text("White, do you agree?")
    # A question between the players: Decline or Agree, neither red (QA: "Cancel", and Agree red).
    expect(app.locator("#confirm-no")).to_have_text("Decline")
    expect(app.locator("#confirm-yes")).to_have_text("Agree")
    expect(app.locator("#confirm-yes")).not_to_have_class(re.compile(r"btn-danger"))
    app.locator("#confirm-no").click()                    # White says no: nothing changes
    assert [m["san"] for m in state(app)["moves"]] == ["e4", "e5"]
    button.click()
    app.locator("#confirm-yes").click()
    app.wait_for_function("window.hcApp.state().moves.length === 1")
    assert state(app)["turnColor"] == "black"

    # A move that revealed something cannot be taken back (a Reveal cover's draw).
    app.evaluate("window.hcApp.call('new_game', {variant: 'reveal', draws: ['n']})")
    play(app, "b1c3")
    expect(button).to_be_disabled()
    expect(button).to_have_attribute("title", re.compile(r"^Nc3\?N revealed something: it cannot be taken back\.$"))
    assert "cannot be taken back" in app.evaluate("window.hcApp.call('takeback')")["error"]


def test_rematch_swaps_colours_against_the_computer(app):
    app.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 1, color: 'white', variant: 'royal-pawn', clock: '5+3'})")
    app.evaluate("window.hcApp.call('resign', {})")
    rematch = app.locator("#banner-rematch")
    expect(rematch).to_be_visible()
    first = state(app)["gameId"]
    rematch.click()
    st = state(app)
    assert st["gameId"] != first and not st["status"]["over"]
    assert st["computer"]["player"] == "black" and st["variant"]["id"] == "royal-pawn"
    assert st["clock"]["label"] == "5+3"


def test_material_balance_beside_the_players(app):
    app.evaluate("window.hcApp.call('new_game', {})")
    play(app, "e2e4", "d7d5", "e4d5", "g8f6")             # White is a pawn up
    top, bottom = app.locator("#player-top .tray"), app.locator("#player-bottom .tray")
    expect(bottom.locator(".tray-score")).to_have_text("+1")
    expect(bottom.locator("piece.pawn.black")).to_have_count(1)
    expect(top.locator(".tray-item")).to_have_count(0)
    play(app, "f1b5", "c7c6", "d5c6", "d8d2", "b1d2")     # pawns 7 to 6, and a queen
    expect(bottom.locator(".tray-score")).to_have_text("+10")
    expect(bottom.locator("piece.queen.black")).to_have_count(1)
    # Secret Pawn: the material is public (a secret pawn is a pawn), shown beside its own tray of
    # captured secret pawns; the same for whoever looks (the hand-over screen's spectator too).
    app.evaluate("window.hcApp.call('new_game', {variant: 'secret-pawn', fen: "
                 "'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R w KQkq - 0 1'})")
    st = state(app)
    assert st["viewer"] == "spectator"
    assert st["material"]["black"] == {"pieces": ["n"], "score": 3}
    expect(top.locator(".tray-score")).to_have_text("+3")
    expect(top.locator("piece.knight.white")).to_have_count(1)
    app.evaluate("window.hcApp.call('show_board', {})")
    assert state(app)["material"] == st["material"]


def test_a_move_made_while_the_computer_thinks_is_played_as_a_premove(page, site, recorder):
    page.goto(site.url("/index.html"))
    wait_ready(page)
    # Black without its b8 knight: no opening book knows the position, so level 5 searches (about
    # a second), and from its start no black piece can reach d3, d4 or give check in one move.
    page.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 5, color: 'white', "
                  "fen: 'r1bqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'})")
    click_move(page, "e2", "e4")
    # Level 5 thinks for a while (and its worker may still be starting): the next move is premoved.
    assert state(page)["computer"]["thinking"]
    click(page, "d2")
    click(page, "d4")
    assert page.evaluate("window.hcApp.premove()") == ["d2", "d4"]
    assert len(state(page)["moves"]) == 1                  # not played yet
    page.wait_for_function("window.hcApp.state().moves.length >= 3", timeout=60_000)
    moves = state(page)["moves"]
    assert moves[2]["uci"] == "d2d4" and moves[2]["color"] == "white", moves
    assert recorder.page_errors == []


def test_an_invite_from_a_page_on_this_computer_only_says_so(app):
    app.evaluate("localStorage.setItem('hiddenchess:relays', '[]')")     # (no relay: codes)
    app.evaluate("window.hcApp.call('new_game', {mode: 'friend', clock: 'none', color: 'white'})")
    link = app.locator("#friend-code")
    expect(link).to_have_value(re.compile(r"^http://127\.0\.0\.1:\d+/.*#join="), timeout=20_000)
    warning = app.locator("#friend-local")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("works only on this computer")
    expect(warning.get_by_role("link", name="how to publish it")).to_have_attribute("href", "docs/DEPLOY.md")
    # Secret Pawn: while this side seals, the card leaves its own pawns free to click.
    app.evaluate("window.hcApp.call('new_game', {mode: 'friend', variant: 'secret-pawn', clock: 'none', color: 'white'})")
    expect(app.locator("#friend-card")).to_have_class(re.compile(r"\bis-compact\b"))
    x, y = square_center(app, "e2")
    assert app.evaluate(f"document.elementFromPoint({x}, {y}).closest('#board') !== null")
    app.evaluate("window.hcApp.call('new_game', {})")
    app.evaluate("localStorage.removeItem('hiddenchess:relays')")


def test_browsing_earlier_moves_during_play_and_back_to_the_game(app):
    app.evaluate("window.hcApp.call('new_game', {})")
    play(app, "e2e4", "e7e5", "g1f3")
    live = app.evaluate("window.hcApp.boardFen()")
    app.locator("#moves .san").first.click()                 # 1.e4: that position
    expect(app.locator("#replay-bar")).to_be_visible()
    app.wait_for_function("window.hcApp.state().replay && window.hcApp.state().replay.ply === 1")
    assert app.evaluate("window.hcApp.boardFen()").startswith("rnbqkbnr/pppppppp/8/8/4P3/8/")
    assert state(app)["movable"]["dests"] == {}              # nothing moves while looking back
    app.keyboard.press("ArrowRight")                         # 1...e5
    app.wait_for_function("window.hcApp.state().replay && window.hcApp.state().replay.ply === 2")
    app.locator("#rp-live").click()                          # back to the game
    app.wait_for_function("window.hcApp.state().replay === null")
    assert app.evaluate("window.hcApp.boardFen()") == live and state(app)["movable"]["dests"]
    expect(app.locator("#replay-bar")).to_be_hidden()
    # Secret Pawn on one device: only what the player at the device knew, never the other's pawns.
    app.evaluate("window.hcApp.call('new_game', {variant: 'secret-pawn'})")
    for seat, squares in (("white", "['d2', 'e2']"), ("black", "['c7', 'f7']")):
        app.evaluate(f"window.hcApp.call('show_board', {{seat: '{seat}'}})")
        app.evaluate(f"window.hcApp.call('seal', {{squares: {squares}}})")
    app.evaluate("window.hcApp.call('show_board', {})")
    play(app, "e2e4")
    st = app.evaluate("window.hcApp.call('replay', {ply: 0, perspective: 'all'})")
    assert "take the device first" in st["error"]            # the hand-over screen is up
    app.evaluate("window.hcApp.call('show_board', {})")      # Black takes the device
    st = app.evaluate("window.hcApp.call('replay', {ply: 0, perspective: 'all'})")
    assert st["replay"]["perspective"] == "black" and st["secrets"]["visible"] == ["c7", "f7"]


def test_offline_the_dialog_says_why_friend_play_is_unavailable(app):
    app.context.set_offline(True)
    try:
        app.locator("#btn-new").click()
        expect(app.locator("#dlg-new")).to_be_visible()
        for choice, note in (("friend", "#friend-note"), ("quick", "#quick-note")):
            expect(app.locator(f"#dlg-new input[name=mode][value={choice}]")).to_be_disabled()
            expect(app.locator(note)).to_contain_text("this device is offline")
        expect(app.locator("#dlg-new input[name=mode][value=computer]")).to_be_enabled()
        app.context.set_offline(False)                       # back online: offered again
        expect(app.locator("#dlg-new input[name=mode][value=friend]")).to_be_enabled()
        expect(app.locator("#friend-note")).not_to_contain_text("offline")
    finally:
        app.context.set_offline(False)
        app.keyboard.press("Escape")


def test_a_board_with_no_size_draws_its_marks_when_it_has_one_again(app):
    """A phone hides the board under the friend card (display: none). The variant's marks
    (Royal Pawn's crowns) drawn meanwhile put NaN in every coordinate, and Chromium logged an error
    for each ("translate(NaN,NaN)"): they wait until the board has a size."""
    errors = []
    app.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    app.evaluate("window.hcApp.call('new_game', {variant: 'royal-pawn'})")
    crowns = app.locator("#board svg.cg-custom-svgs > g > g")
    expect(crowns).to_have_count(2)
    app.evaluate("document.getElementById('board').style.display = 'none'")
    app.evaluate("window.hcApp.call('new_game', {variant: 'royal-pawn'})")
    play(app, "e2e4")
    app.wait_for_timeout(300)                       # (a frame or two: chessground draws at one)
    assert [e for e in errors if "NaN" in e] == []
    app.evaluate("document.getElementById('board').style.display = ''")
    expect(crowns).to_have_count(2)
    assert app.locator("#board svg.cg-custom-svgs g[transform*=NaN]").count() == 0



LIT = """() => [...document.querySelectorAll('#thinking .thinking-dots i')].map(i => getComputedStyle(i).opacity)"""


def test_the_thinking_dots_light_up_in_turn_and_nothing_animates_for_ever(app):
    """The "thinking" dots (the computer thinking, a connection prepared, a friend or an opponent
    awaited, for as long as it takes) light up one after the other, a step every 400 ms set by
    dots.js. They were an infinite CSS animation, which kept the compositor drawing 60 frames a
    second: about a tenth of a core more while a page waited for an opponent (docs/PLAYING.md,
    "Battery")."""
    # No set of dots, shown or not, has an animation of its own.
    styles = app.evaluate("""() => [...document.querySelectorAll('.thinking-dots, .thinking-dots i')]
        .map(e => getComputedStyle(e)).map(c => c.animationName + ' ' + c.animationIterationCount)""")
    assert len(styles) >= 12 and set(styles) == {"none 1"}, styles
    thinking = app.locator("#thinking")
    app.evaluate("document.getElementById('thinking').hidden = false")   # (as while the computer thinks)
    try:
        expect(thinking).to_be_visible()
        app.wait_for_timeout(450)
        beats, lit = set(), set()
        for _ in range(12):
            beats.add(thinking.locator(".thinking-dots").get_attribute("data-beat"))
            lit.add(tuple(app.evaluate(LIT)))
            app.wait_for_timeout(150)
        assert beats == {"0", "1", "2"}, beats
        assert {("1", "0.3", "0.3"), ("0.3", "1", "0.3"), ("0.3", "0.3", "1")} <= lit, lit
        # Nothing on the page animates for ever (the dots' beat is no animation).
        assert app.evaluate("""() => document.getAnimations()
            .filter(a => a.effect && a.effect.getComputedTiming().iterations === Infinity).length""") == 0
        app.emulate_media(reduced_motion="reduce")
        try:
            assert app.evaluate(LIT) == ["0.8", "0.8", "0.8"]
        finally:
            app.emulate_media(reduced_motion="no-preference")
    finally:
        app.evaluate("document.getElementById('thinking').hidden = true")
