"""Secret Pawn Chess on one device, as two people would play it: the hand-over screen, sealing
by clicking pawns, neckties, reveals, a refused king move, the end-of-game reveal and the replay.

Like tests/browser/test_play.py, the tests share one page per module (Pyodide boots once) that
blocks every request to another host. ``window.hcApp.call('new_game', {...})`` is used only to
start a game (with a ``fen`` where a test needs a specific position; the session validates it).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import click, click_move, state, wait_ready

pytestmark = pytest.mark.browser

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"


def ties(page, kind: str):
    """Necktie overlays of ``kind`` ("hidden", "revealed", "pick") drawn on the board."""
    return page.locator(f"#board .cg-custom-svgs .necktie-{kind}")


def take_device(page, color: str) -> None:
    """The hand-over screen asks for ``color``; that player confirms."""
    handover = page.locator("#handover")
    expect(handover).to_be_visible()
    expect(page.locator("#handover-title")).to_have_text(f"Pass the device to {color.title()}")
    expect(page.locator("#handover .handover-icon")).to_have_attribute("src", "assets/img/necktie.svg")
    # Nothing secret is drawn or sent while the screen is up.
    expect(page.locator("#board .cg-custom-svgs .necktie")).to_have_count(0)
    st = state(page)
    assert st["viewer"] == "spectator" and st["movable"]["dests"] == {}
    assert st["secrets"]["own"] == [] and st["secrets"]["sealed"] == {}
    assert set(st["secrets"]["visible"]) == set(st["secrets"]["revealed"])
    button = page.locator("#handover-show")
    expect(button).to_have_text(f"I am {color.title()} — show my board")
    button.click()
    expect(handover).to_be_hidden()
    assert state(page)["viewer"] == color


def seal(page, color: str, squares: list[str]) -> None:
    take_device(page, color)
    panel = page.locator("#seal-panel")
    expect(panel).to_be_visible()
    expect(page.locator("#seal-title")).to_have_text(f"{color.title()}: choose your 2 secret pawns")
    submit = page.locator("#seal-submit")
    expect(submit).to_be_disabled()
    click(page, "e4")  # not a pawn of the player: explained, nothing picked
    expect(page.locator("#seal-error")).to_be_visible()
    expect(ties(page, "pick")).to_have_count(0)
    click(page, squares[0])
    expect(ties(page, "pick")).to_have_count(1)
    expect(submit).to_be_disabled()
    click(page, squares[1])
    expect(ties(page, "pick")).to_have_count(2)
    expect(page.locator("#seal-chosen")).to_contain_text(", ".join(sorted(squares)))
    expect(submit).to_be_enabled()
    submit.click()
    expect(panel).to_be_hidden()


def move_texts(page) -> list[str]:
    return page.locator("#moves .san").all_inner_texts()


def test_new_game_dialog_offers_secret_pawn(app):
    app.locator("#btn-new").click()
    dialog = app.locator("#dlg-new")
    expect(dialog.locator("label.choice:has(input[name=variant]):has-text('Secret Pawn')")).to_contain_text("step or capture one square")
    dialog.locator("label.choice:has(input[name=variant]):has-text('Secret Pawn')").click()
    app.locator("#new-start").click()
    expect(dialog).to_be_hidden()
    expect(app.locator("#game-title")).to_contain_text("Secret Pawn")
    expect(app.locator("#handover-text")).to_have_text("White chooses two secret pawns in private.")
    st = state(app)
    assert st["variant"]["id"] == "secret-pawn" and st["phase"] == "setup"
    assert st["handover"] == {"to": "white", "for": "seal"}


def test_against_the_computer_the_player_chooses_as_you(app):
    """QA: against the computer the panel said "White: choose your 2 secret pawns" and the status
    "White chooses secret pawns" beside "You" on the bar: one player at the device is "you"."""
    app.evaluate("window.hcApp.call('new_game', {variant: 'secret-pawn', mode: 'computer', color: 'white', level: 1})")
    expect(app.locator("#seal-title")).to_have_text("Choose your 2 secret pawns")
    expect(app.locator("#status-line")).to_have_text("You choose your secret pawns")


def test_a_whole_game_on_one_device(app):
    app.evaluate("window.hcApp.call('new_game', {variant: 'secret-pawn'})")
    seal(app, "white", ["d2", "e2"])
    # Handed over to Black, nothing of White's choice is left in the page, even hidden (a QA pass
    # found "Chosen: d2, e2" in the hidden seal panel).
    assert "d2" not in app.locator("#seal-chosen").text_content()
    seal(app, "black", ["c7", "f7"])
    assert state(app)["phase"] == "play"
    assert app.locator("#seal-chosen").text_content() == ""

    take_device(app, "white")
    expect(ties(app, "hidden")).to_have_count(2)  # White sees its own two neckties
    assert state(app)["secrets"]["visible"] == ["d2", "e2"]
    for orig, dest, mover in [("e2", "e4", "black"), ("c7", "c5", "white"), ("d2", "d4", "black"),
                              ("c5", "c4", "white")]:
        click_move(app, orig, dest)
        take_device(app, mover)
        expect(ties(app, "hidden")).to_have_count(2)
        expect(ties(app, "revealed")).to_have_count(0)
    expect(app.locator("#board")).to_have_class(re.compile(r"orientation-white"))

    # 3.dxc4: a sideways capture (reveals the white pawn) of a secret pawn (revealed by capture).
    click_move(app, "d4", "c4")
    take_device(app, "black")
    assert move_texts(app)[-1] == "dxc4 ** **c4"
    expect(app.locator("#moves .san.has-reveal")).to_have_count(1)
    expect(ties(app, "revealed")).to_have_count(1)  # the white pawn on c4, now known to Black
    expect(ties(app, "hidden")).to_have_count(1)  # Black's own f7
    expect(app.locator("cg-board square.reveal")).not_to_have_count(0)
    # The captured secret pawn (with its tie) beside White; the material as well (a pawn, +1).
    secret = ".tray-item:not(.tray-material)"
    expect(app.locator("#player-bottom .tray, #player-top .tray").locator(secret)).to_have_count(1)
    expect(app.locator(f".player[data-color=white] .tray {secret}")).to_have_count(1)
    expect(app.locator(".player[data-color=white] .tray .tray-score")).to_have_text("+1")

    click_move(app, "f7", "f6")
    take_device(app, "white")
    # 4.ef4: a quiet sideways step reveals White's other secret pawn.
    click_move(app, "e4", "f4")
    take_device(app, "black")
    assert move_texts(app)[-2:] == ["f6", "ef4 **f4"]
    expect(ties(app, "revealed")).to_have_count(2)
    expect(ties(app, "hidden")).to_have_count(1)

    # Black resigns: everything is shown.
    app.locator(".player[data-color=black] .act-resign").click()
    app.locator("#confirm-yes").click()
    expect(app.locator("#banner-title")).to_have_text("Black resigns — White wins")
    app.locator("#banner-close").click()
    summary = app.locator("#secret-summary")
    expect(summary).to_be_visible()
    expect(summary.locator("li")).to_have_count(4)
    expect(summary.locator("li[data-square=c7]")).to_contain_text("captured on c4")
    expect(summary.locator("li[data-square=f7]")).to_contain_text("never revealed")
    expect(summary.locator("li[data-square=d2]")).to_contain_text("revealed (on c4)")
    expect(ties(app, "revealed")).to_have_count(2)
    expect(ties(app, "hidden")).to_have_count(1)  # f6: never revealed, shown now

    # Replay: what White knew after 2...c4 -- its own two pawns, nothing of Black's.
    bar = app.locator("#replay-bar")
    expect(bar).to_be_visible()
    bar.locator("button[data-persp=white]").click()
    app.keyboard.press("Home")
    expect(app.locator("#rp-pos")).to_have_text("0 / 7")
    assert state(app)["fen"] == START
    for _ in range(4):
        app.keyboard.press("ArrowRight")
    expect(app.locator("#rp-pos")).to_have_text("4 / 7")
    expect(ties(app, "hidden")).to_have_count(2)
    assert state(app)["secrets"]["visible"] == ["d4", "e4"]
    # The same moment as Black knew it.
    bar.locator("button[data-persp=black]").click()
    expect(bar.locator("button[data-persp=black]")).to_have_attribute("aria-checked", "true")
    app.wait_for_function("window.hcApp.state().replay.perspective === 'black'")
    assert state(app)["secrets"]["visible"] == ["c4", "f7"]
    expect(ties(app, "hidden")).to_have_count(2)
    # One more move: the reveal is highlighted in Black's replay too.
    app.locator("#rp-next").click()
    expect(app.locator("#rp-pos")).to_have_text("5 / 7")
    expect(ties(app, "revealed")).to_have_count(1)
    expect(ties(app, "hidden")).to_have_count(1)
    expect(app.locator("#moves .san.is-current")).to_have_text("dxc4 ** **c4")
    # Everything from the start: all four neckties at move 0.
    bar.locator("button[data-persp=all]").click()
    app.locator("#rp-first").click()
    expect(ties(app, "hidden")).to_have_count(4)
    app.keyboard.press("End")
    expect(app.locator("#rp-pos")).to_have_text("7 / 7")
    expect(ties(app, "revealed")).to_have_count(2)
    expect(ties(app, "hidden")).to_have_count(1)
    # A move in the list jumps there.
    app.locator("#moves .san", has_text="c5").click()
    expect(app.locator("#rp-pos")).to_have_text("2 / 7")


def test_a_takeback_or_a_draw_offer_shows_no_board_to_the_one_who_answers(app):
    """QA: Black agreed to White's takeback at the device and was shown White's neckties; Black
    answered White's draw offer in front of them. Both now pass the device first."""
    app.evaluate("window.hcApp.call('new_game', {variant: 'secret-pawn'})")
    seal(app, "white", ["a2", "b2"])
    seal(app, "black", ["g7", "h7"])
    take_device(app, "white")
    click_move(app, "e2", "e4")
    expect(app.locator("#handover")).to_be_visible()
    app.locator("#btn-takeback").click()  # White asks; Black, now at the device, agrees
    expect(app.locator("#confirm-title")).to_have_text("White asks to take back e4")
    app.locator("#confirm-yes").click()
    take_device(app, "white")  # (checks that nothing secret shows before)
    assert move_texts(app) == []
    app.locator("#player-bottom .act-draw").click()  # White offers a draw from its own board
    expect(app.locator("#handover-text")).to_have_text("White offers a draw. Black answers it.")
    expect(app.locator("#offer-text")).to_contain_text("White offers a draw")
    # (answered once Black holds the device: not from under the hand-over screen, by White)
    expect(app.locator("#offer")).to_be_hidden()
    take_device(app, "black")
    expect(app.locator("#offer")).to_be_visible()
    expect(ties(app, "hidden")).to_have_count(2)  # Black's own g7 and h7
    app.locator("#btn-decline").click()
    take_device(app, "white")
    expect(ties(app, "hidden")).to_have_count(2)


def test_refused_king_move_is_explained_on_the_board(app):
    fen = "7k/8/8/8/8/3p4/3n4/4K3 w - - 0 1 secret:d3"
    app.evaluate(f"window.hcApp.call('new_game', {{variant: 'secret-pawn', fen: '{fen}'}})")
    take_device(app, "white")
    before = state(app)
    click(app, "e1")
    click(app, "d2")
    toast = app.locator("#board-toast")
    expect(toast).to_be_visible()
    expect(toast).to_have_text("Illegal move: a secret pawn attacks that square.")
    after = state(app)
    assert after["moves"] == [] and after["fen"] == before["fen"] and after["turnColor"] == "white"
    assert after["secrets"]["revealed"] == [] and after["handover"] is None
    assert app.evaluate("window.hcApp.boardFen()") == "7k/8/8/8/8/3p4/3n4/4K3"  # snapped back
    expect(ties(app, "hidden")).to_have_count(0)
    expect(ties(app, "revealed")).to_have_count(0)
    click_move(app, "e1", "d1")  # a legal king move is still played
    assert move_texts(app) == ["Kd1"]


def test_reload_during_play_asks_for_the_device_again(app):
    app.evaluate("window.hcApp.call('new_game', {variant: 'secret-pawn'})")
    seal(app, "white", ["a2", "h2"])
    seal(app, "black", ["a7", "h7"])
    take_device(app, "white")
    click_move(app, "e2", "e4")
    take_device(app, "black")
    expect(ties(app, "hidden")).to_have_count(2)
    app.reload()
    wait_ready(app)
    take_device(app, "black")  # (checks that nothing secret shows before the confirmation)
    expect(ties(app, "hidden")).to_have_count(2)
    assert state(app)["secrets"]["own"] == ["a7", "h7"]
    assert move_texts(app) == ["e4"]


#: How many neckties the board draws.
TIES = "document.querySelectorAll('#board [class*=necktie]').length"


def test_a_new_game_in_the_other_colour_keeps_no_necktie_of_the_last(app):
    """QA (a rematch between friends, colours swapped): the last game's neckties stayed on the
    new game's board. Turning the board, chessground builds it anew, and a redraw it had already
    scheduled (here by the state asked just before) then drew on the old board, leaving the new one
    with the shapes of the moment it turned."""
    app.evaluate("window.hcApp.call('new_game', {variant: 'secret-pawn', mode: 'computer', color: 'white', level: 1})")
    app.evaluate("window.hcApp.call('seal', {squares: ['d2', 'e2']})")
    app.wait_for_function(f"{TIES} === 2")
    app.evaluate("""() => {
        window.hcApp.call('state', {});
        window.hcApp.call('new_game', {variant: 'secret-pawn', mode: 'computer', color: 'black', level: 1});
    }""")
    assert app.evaluate("window.hcApp.state().orientation") == "black"
    # (after the frame of the stale redraw and of the board built anew)
    app.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    assert app.evaluate(TIES) == 0
