"""Hidden Identity by the tabletop rules on one device: the new-game checkbox, a bluff confirmed
through the dialog, found on the board, the penalty chosen by clicking an enemy piece, and the
illegal move listed in the move list and at the end.

Shares the module page of the other browser tests (Pyodide boots once, other hosts blocked).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import click, state

pytestmark = pytest.mark.browser


def take_device(page, color: str) -> None:
    expect(page.locator("#handover")).to_be_visible()
    expect(page.locator("#handover-title")).to_have_text(f"Pass the device to {color.title()}")
    page.locator("#handover-show").click()
    expect(page.locator("#handover")).to_be_hidden()


def test_bluff_confirmed_found_and_penalty_chosen(app):
    app.locator("#btn-new").click()
    dialog = app.locator("#dlg-new")
    expect(app.locator("#new-tt")).to_be_disabled()  # only an option of Hidden Identity
    dialog.locator("label.choice:has(input[name=variant]):has-text('Hidden Identity')").click()
    app.locator("#new-rk").uncheck()
    app.locator("#new-tt").check()
    app.locator("#new-start").click()
    expect(dialog).to_be_hidden()
    expect(app.locator("#game-title")).to_contain_text("Hidden Identity (tabletop rules)")
    assert state(app)["variant"]["id"] == "hidden-identity-tt"

    for color in ("white", "black"):
        take_device(app, color)
        app.locator("#place-standard").click()
        app.locator("#place-confirm").click()
        expect(app.locator("#place-panel")).to_be_hidden()
    take_device(app, "white")
    st = state(app)
    assert "a4" in st["tabletop"]["bluffs"]["a1"] and "a4" in st["movable"]["dests"]["a1"]

    # The rook jumps over its pawn: the page asks first; "no" plays nothing.
    click(app, "a1")
    click(app, "a4")
    confirm = app.locator("#dlg-confirm")
    expect(confirm).to_be_visible()
    expect(app.locator("#confirm-text")).to_have_text("This piece cannot move there: play it anyway?")
    app.locator("#confirm-no").click()
    expect(confirm).to_be_hidden()
    assert state(app)["moves"] == []
    click(app, "a1")
    click(app, "a4")
    app.locator("#confirm-yes").click()
    app.wait_for_function("window.hcApp.state().moves.length === 1")

    # Found at once: the rook is gone, the toast and the move list say so, Black chooses.
    st = state(app)
    assert st["tabletop"]["penalty"] == {"by": "black", "count": 1, "mine": False}
    expect(app.locator("#toast")).to_contain_text("illegal move")
    expect(app.locator("#moves .san.has-illegal")).to_have_count(1)
    expect(app.locator("#handover-text")).to_contain_text("Black chooses 1 enemy piece to remove")
    take_device(app, "black")
    panel = app.locator("#penalty-panel")
    expect(panel).to_be_visible()
    expect(app.locator("#penalty-title")).to_have_text("Black: choose 1 enemy piece to remove")
    # Black acts now, not White (the side to move): the status line and the player bars say so.
    expect(app.locator("#status-line")).to_have_text("Black chooses 1 enemy piece to remove")
    expect(app.locator(".player[data-color=black] .to-move")).to_have_text("choosing")
    expect(app.locator(".player[data-color=white] .to-move")).to_have_text("")
    submit = app.locator("#penalty-submit")
    expect(submit).to_be_disabled()
    click(app, "d7")                                   # its own piece: refused
    expect(app.locator("#penalty-chosen")).to_have_text("Chosen: none")
    click(app, "d1")
    expect(app.locator("#penalty-chosen")).to_have_text("Chosen: d1")
    expect(app.locator("#board square.penalty-chosen")).to_have_count(1)
    # The keyboard cursor says so too (Home: the last move's square, a4; Black's view is turned).
    app.locator("#board").focus()
    app.keyboard.press("Home")
    expect(app.locator("#sr-live")).to_have_text("a4, empty")
    for key in ["ArrowUp", "ArrowUp", "ArrowUp", "ArrowLeft", "ArrowLeft", "ArrowLeft"]:
        app.keyboard.press(key)
    expect(app.locator("#sr-live")).to_have_text("d1, white piece, identity unknown, chosen for removal")
    submit.click()
    expect(panel).to_be_hidden()
    st = state(app)
    assert st["tabletop"]["penalty"] is None and st["turnColor"] == "black"
    assert "removes White's piece on d1" in st["identity"]["notes"]["0"]
    # The move has a note now and is still marked illegal: the cross shows, not only the note.
    mark = app.locator("#moves .san.has-illegal").evaluate("e => getComputedStyle(e, '::after').content")
    assert "\u2717" in mark
    assert st["movable"]["dests"]                      # Black moves on, no hand-over needed

    # The game ends (resignation): the illegal move is listed.
    app.evaluate("window.hcApp.call('resign', {color: 'white'})")
    summary = app.locator("#tabletop-summary")
    expect(summary).to_be_visible()
    expect(summary.locator("li")).to_have_count(1)
    expect(summary).to_contain_text("White, move 1: a1a4 (found on the board)")
