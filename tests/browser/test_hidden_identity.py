"""Hidden Identity Chess on one device, as two people would play it: the new-game dialog, both
setups behind the hand-over screen (tray, Shuffle, Standard layout, Clear, Confirm), enemy pieces
drawn as blanks with their possible identities on hover, a capture that reveals, en passant
against a piece that was not a pawn, the king capture, the end-of-game reveal and the replay.

Like the other browser tests, the tests share one page per module (Pyodide boots once) that
blocks every request to another host. Set ``HC_SHOTS=/some/dir`` to save screenshots (desktop
and phone) of the setup, the blanks with their candidates and the king-capture ending.
"""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import expect

from .conftest import square_center, state

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("HC_SHOTS")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def click(page, square: str) -> None:
    page.mouse.click(*square_center(page, square))


def shot(page, name: str) -> None:
    """Screenshots of the page as it is, at desktop and phone sizes (only with HC_SHOTS)."""
    if not SHOTS:
        return
    os.makedirs(SHOTS, exist_ok=True)
    page.screenshot(path=os.path.join(SHOTS, f"{name}-desktop.png"))
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(300)
    page.screenshot(path=os.path.join(SHOTS, f"{name}-phone.png"), full_page=True)
    page.set_viewport_size(DESKTOP)
    page.wait_for_timeout(300)


def take_device(page, color: str, purpose: str) -> None:
    """The hand-over screen asks for ``color``; nothing secret is on it; that player confirms."""
    handover = page.locator("#handover")
    expect(handover).to_be_visible()
    expect(page.locator("#handover-title")).to_have_text(f"Pass the device to {color.title()}")
    st = state(page)
    assert st["viewer"] == "spectator" and st["movable"]["dests"] == {} and st["placing"] is None
    assert "own" not in (st["secrets"] or {})
    assert set(st["fen"]) <= set("?*/12345678")  # only blanks, whoever's they are
    expect(page.locator("#board piece:not(.unknown):not(.ghost)")).to_have_count(0)
    if purpose == "place":
        expect(page.locator("#handover-text")).to_have_text(
            f"{color.title()} places their 16 pieces in private.")
    page.locator("#handover-show").click()
    expect(handover).to_be_hidden()
    assert state(page)["viewer"] == color


def click_move(page, orig: str, dest: str) -> None:
    before = len(state(page)["moves"])
    click(page, orig)
    click(page, dest)
    page.wait_for_function(f"window.hcApp.state().moves.length > {before}")


def tray_button(page, role: str):
    return page.locator(f"#place-tray button[data-role={role}]")


def move_texts(page) -> list[str]:
    return page.locator("#moves .san").all_inner_texts()


def test_new_game_dialog_offers_hidden_identity(app):
    app.locator("#btn-new").click()
    dialog = app.locator("#dlg-new")
    choice = dialog.locator("label.choice:has-text('Hidden Identity')")
    expect(choice).to_contain_text("never what they are")
    expect(app.locator("#new-rk")).to_be_disabled()  # only an option of Hidden Identity
    choice.click()
    expect(app.locator("#new-rk")).to_be_enabled()
    computer = dialog.locator("input[name=mode][value=computer]")
    if "hidden-identity" in state(app)["computerVariants"]:
        expect(computer).to_be_enabled()
    else:
        expect(computer).to_be_disabled()
        expect(app.locator("#computer-note")).to_have_text("The computer does not play Hidden Identity yet.")
    app.locator("#new-rk").check()
    app.locator("#new-start").click()
    expect(dialog).to_be_hidden()
    expect(app.locator("#game-title")).to_contain_text("Hidden Identity (revealed kings)")
    st = state(app)
    assert st["variant"]["id"] == "hidden-identity-rk" and st["handover"] == {"to": "white", "for": "place"}
    # The dialog remembers the choice.
    app.locator("#btn-new").click()
    expect(app.locator("#new-rk")).to_be_checked()
    app.locator("#new-rk").uncheck()
    app.locator("#new-start").click()
    assert state(app)["variant"]["id"] == "hidden-identity"


def test_a_whole_game_on_one_device(app):
    app.evaluate("window.hcApp.call('new_game', {variant: 'hidden-identity'})")

    # White: a tray piece then a square, a refused square, Shuffle, Clear, Standard layout.
    take_device(app, "white", "place")
    panel = app.locator("#place-panel")
    expect(panel).to_be_visible()
    expect(app.locator("#place-title")).to_have_text("White: place your 16 pieces")
    confirm = app.locator("#place-confirm")
    expect(confirm).to_be_disabled()
    tray_button(app, "k").click()
    expect(tray_button(app, "k")).to_have_attribute("aria-pressed", "true")
    click(app, "e4")
    expect(app.locator("#place-error")).to_contain_text("two home rows")
    click(app, "e1")
    expect(app.locator("#place-count")).to_have_text("1 of 16 placed")
    expect(tray_button(app, "k")).to_be_disabled()
    assert state(app)["placing"]["draft"] == {"e1": "k"}  # (the count above waited for it)
    expect(app.locator("#board piece.king.white:not(.ghost)")).to_have_count(1)
    app.locator("#place-shuffle").click()
    expect(app.locator("#place-count")).to_have_text("16 of 16 placed")
    expect(confirm).to_be_enabled()
    app.locator("#place-clear").click()
    expect(app.locator("#place-count")).to_have_text("0 of 16 placed")
    expect(confirm).to_be_disabled()
    app.locator("#place-standard").click()
    expect(confirm).to_be_enabled()
    confirm.click()
    expect(panel).to_be_hidden()

    # Black: the standard layout, then the queen and the d-pawn swap places by clicking.
    take_device(app, "black", "place")
    expect(app.locator("#place-title")).to_have_text("Black: place your 16 pieces")
    expect(app.locator("#place-count")).to_have_text("0 of 16 placed")  # White's choice is not shown
    app.locator("#place-standard").click()
    click(app, "d7")  # takes the pawn back (and picks it up)
    expect(app.locator("#place-count")).to_have_text("15 of 16 placed")
    click(app, "d8")  # takes the queen back (and picks it up)
    expect(tray_button(app, "q")).to_have_attribute("aria-pressed", "true")
    click(app, "d7")
    tray_button(app, "p").click()
    click(app, "d8")
    app.wait_for_function("(d => d.d7 === 'q' && d.d8 === 'p')(window.hcApp.state().placing.draft)")
    shot(app, "setup")
    app.locator("#place-confirm").click()
    expect(app.locator("#place-panel")).to_be_hidden()
    assert state(app)["phase"] == "play"

    # White sees its own pieces and sixteen black blanks.
    take_device(app, "white", "move")
    expect(app.locator("#board piece.unknown.black:not(.ghost)")).to_have_count(16)
    expect(app.locator("#board piece.unknown.white:not(.ghost)")).to_have_count(0)
    for orig, dest, mover in [("e2", "e4", "black"), ("a7", "a6", "white"), ("e4", "e5", "black"),
                              ("d7", "d5", "white")]:
        click_move(app, orig, dest)
        take_device(app, mover, "move")
    expect(app.locator("#board piece.unknown.white:not(.ghost)")).to_have_count(0)

    # 3.exd6 "en passant" against the queen: White's pawn is removed, the piece stays hidden.
    click_move(app, "e5", "d6")
    assert move_texts(app)[-1] == "e5xd6 ep-not-a-pawn"
    expect(app.locator("#toast")).to_contain_text("the piece on d5 was not a pawn")
    expect(app.locator("#moves .san.has-note")).to_have_attribute(
        "title", re.compile("White's pawn on e5 is removed"))
    take_device(app, "black", "move")
    expect(app.locator(".player[data-color=black] .tray .tray-item")).to_have_count(1)  # e5 pawn
    click_move(app, "a6", "a5")
    take_device(app, "white", "move")
    # Hover over the blank on d5: what it may be.
    app.mouse.move(*square_center(app, "d5"))
    tip = app.locator("#cand-tip")
    expect(tip).to_be_visible()
    expect(tip).to_have_text("Q or R")
    shot(app, "candidates")
    app.mouse.move(*square_center(app, "b7"))  # (h8 may be under the toast)
    expect(tip).to_have_text("K or Q or R or B or N or P")
    app.mouse.move(*square_center(app, "e4"))
    expect(tip).to_be_hidden()

    # A capture reveals the captured piece (beside the board, with its identity).
    click_move(app, "h2", "h3")
    take_device(app, "black", "move")
    click_move(app, "d5", "d2")
    assert move_texts(app)[-1] == "d5xd2=P"
    take_device(app, "white", "move")
    expect(app.locator(".player[data-color=black] .tray .tray-item[data-piece=p]")).to_have_count(2)
    # White does not recapture: 6.a3 ... and Black takes the king.
    click_move(app, "a2", "a3")
    take_device(app, "black", "move")
    click_move(app, "d2", "e1")
    assert move_texts(app)[-1] == "d2xe1=K"
    expect(app.locator("#banner-title")).to_have_text("King captured — Black wins")
    expect(app.locator("#handover")).to_be_hidden()
    # Everything is shown: no blank is left, Black's queen stands on e1.
    expect(app.locator("#board piece.unknown:not(.ghost)")).to_have_count(0)
    expect(app.locator("#board piece.queen.black:not(.ghost)")).to_have_count(1)
    expect(app.locator(".player[data-color=black] .tray .tray-item[data-piece=k]")).to_have_count(1)
    shot(app, "king-captured")

    # Replay: what White knew after the en passant.
    app.locator("#banner-replay").click()
    bar = app.locator("#replay-bar")
    expect(bar).to_be_visible()
    expect(app.locator("#rp-pos")).to_have_text("0 / 10")
    bar.locator("button[data-persp=white]").click()
    app.evaluate("window.hcApp.call('replay', {ply: 5})")
    expect(app.locator("#rp-pos")).to_have_text("5 / 10")
    assert state(app)["fen"].split("/")[3] == "3*4"
    expect(app.locator("#board piece.unknown.black:not(.ghost)")).to_have_count(16)
    bar.locator("button[data-persp=all]").click()
    expect(app.locator("#board piece.unknown:not(.ghost)")).to_have_count(0)
