"""Hidden Identity Chess on one device, as two people would play it: the new-game dialog, both
setups behind the hand-over screen (tray clicks, drags with the mouse and with a finger, Shuffle,
Standard layout, Clear, Confirm), enemy pieces
drawn as blanks with their possible identities on hover, a capture that reveals, en passant
against a piece that was not a pawn, the king capture, the end-of-game reveal and the replay,
and a game drawn because the side to move has no move at all.

Like the other browser tests, the tests share one page per module (Pyodide boots once) that
blocks every request to another host. Set ``HC_SHOTS=/some/dir`` to save screenshots (desktop
and phone) of the setup, the blanks with their candidates and the king-capture ending, and
(desktop) of a piece in the middle of a drag and of the arrangement after the drags.
"""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import expect

from .conftest import click, click_move, square_center, state

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("HC_SHOTS")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


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
    # Its picture is this variant's (a QA pass found Secret Pawn's necktie here).
    expect(page.locator("#handover .handover-icon")).to_have_attribute("src", "assets/img/unknown-white.svg")
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


def tray_button(page, role: str):
    return page.locator(f"#place-tray button[data-role={role}]")


def move_texts(page) -> list[str]:
    return page.locator("#moves .san").all_inner_texts()


def test_new_game_dialog_offers_hidden_identity(app):
    app.locator("#btn-new").click()
    dialog = app.locator("#dlg-new")
    choice = dialog.locator("label.choice:has(input[name=variant]):has-text('Hidden Identity')")
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


# --- setup by dragging ---------------------------------------------------------------------------
def tray_center(page, role: str) -> tuple:
    box = tray_button(page, role).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def press_and_move(page, start: tuple, end: tuple, steps: int = 8) -> None:
    """A real mouse drag up to the release: press on ``start`` and move in steps to ``end``."""
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=steps)


def mouse_drag(page, start: tuple, end: tuple) -> None:
    press_and_move(page, start, end)
    page.mouse.up()


def draft(page) -> dict:
    return state(page)["placing"]["draft"]


def wait_draft(page, expected: dict) -> None:
    """Until the Session's draft is ``expected`` (the drop calls the Session synchronously, so
    this returns at once unless the drag did not land)."""
    page.wait_for_function("want => JSON.stringify(Object.entries(window.hcApp.state().placing.draft)"
                           ".sort()) === JSON.stringify(Object.entries(want).sort())", arg=expected,
                           timeout=5000)


def off_board(page) -> tuple:
    """A point left of the board, on nothing that reacts to a drop."""
    box = page.locator("#board cg-board").bounding_box()
    return max(box["x"] - 30, 2), box["y"] + box["height"] / 2


def touch_drag(page, start: tuple, end: tuple, steps: int = 8) -> None:
    """A finger drag (real touch events through the DevTools protocol: Playwright's touchscreen
    only taps)."""
    cdp = page.context.new_cdp_session(page)
    try:
        def touch(kind, x, y):
            points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        touch("touchStart", *start)
        for i in range(1, steps + 1):
            touch("touchMove", start[0] + (end[0] - start[0]) * i / steps,
                  start[1] + (end[1] - start[1]) * i / steps)
        touch("touchEnd", *end)
    finally:
        cdp.detach()


def test_setup_by_dragging_with_the_mouse(app):
    app.evaluate("window.hcApp.call('new_game', {variant: 'hidden-identity'})")
    take_device(app, "white", "place")
    error = app.locator("#place-error")

    # Tray -> home square, for every kind of piece; mid-drag the piece follows the pointer.
    press_and_move(app, tray_center(app, "k"), square_center(app, "e1"))
    dragging = app.locator("#board piece.dragging")
    expect(dragging).to_have_count(1)
    expect(dragging).to_have_class(re.compile(r"\bking\b.*\bwhite\b|\bwhite\b.*\bking\b"))
    assert draft(app) == {}  # nothing is placed before the drop
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        app.screenshot(path=os.path.join(SHOTS, "drag-mid.png"))
    app.mouse.up()
    wait_draft(app, {"e1": "k"})
    expect(app.locator("#place-count")).to_have_text("1 of 16 placed")
    expect(tray_button(app, "k")).to_be_disabled()
    expect(app.locator("#board piece.king.white:not(.ghost)")).to_have_count(1)
    expect(app.locator("#board piece.dragging")).to_have_count(0)
    mouse_drag(app, tray_center(app, "q"), square_center(app, "d1"))
    wait_draft(app, {"e1": "k", "d1": "q"})

    # A placed piece onto an occupied home square: the two swap.
    mouse_drag(app, square_center(app, "e1"), square_center(app, "d1"))
    wait_draft(app, {"d1": "k", "e1": "q"})
    expect(app.locator("#board piece.king.white:not(.ghost)")).to_have_count(1)
    expect(app.locator("#board piece.queen.white:not(.ghost)")).to_have_count(1)
    # ... onto a free home square: it moves.
    mouse_drag(app, square_center(app, "d1"), square_center(app, "a2"))
    wait_draft(app, {"a2": "k", "e1": "q"})
    # ... off the home rows: refused with a message, the piece stays where it was.
    mouse_drag(app, square_center(app, "a2"), square_center(app, "a4"))
    expect(error).to_contain_text("two home rows (rows 1 and 2)")
    assert draft(app) == {"a2": "k", "e1": "q"}
    expect(app.locator("#board piece.king.white:not(.ghost)")).to_have_count(1)
    # A tray piece dropped off the home rows is refused too.
    mouse_drag(app, tray_center(app, "r"), square_center(app, "h5"))
    expect(error).to_contain_text("two home rows")
    assert draft(app) == {"a2": "k", "e1": "q"}
    expect(app.locator("#board piece.rook:not(.ghost)")).to_have_count(0)
    # A tray piece onto an occupied square: the piece there goes back to the tray.
    mouse_drag(app, tray_center(app, "r"), square_center(app, "e1"))
    wait_draft(app, {"a2": "k", "e1": "r"})
    expect(error).to_be_hidden()
    expect(tray_button(app, "q")).to_have_attribute("aria-label", "Queen: 1 left")
    expect(tray_button(app, "r")).to_have_attribute("aria-label", "Rook: 1 left")

    # Off the board (or back onto the tray): back to the tray.
    mouse_drag(app, square_center(app, "a2"), off_board(app))
    wait_draft(app, {"e1": "r"})
    expect(tray_button(app, "k")).to_be_enabled()
    mouse_drag(app, square_center(app, "e1"), tray_center(app, "p"))
    wait_draft(app, {})
    expect(app.locator("#board piece.white:not(.ghost)")).to_have_count(0)

    # Clicks still work beside the drags: a tray click picks, a square click places; a click
    # on a placed piece takes it back and picks it up.
    tray_button(app, "n").click()
    expect(tray_button(app, "n")).to_have_attribute("aria-pressed", "true")
    click(app, "g1")
    wait_draft(app, {"g1": "n"})
    tray_button(app, "n").click()  # unpick
    click(app, "g1")
    wait_draft(app, {})
    expect(tray_button(app, "n")).to_have_attribute("aria-pressed", "true")
    click(app, "b1")
    wait_draft(app, {"b1": "n"})

    # The rest by layout (which clears an earlier refusal), a drag on top, then confirm: the
    # game gets the dragged arrangement.
    mouse_drag(app, square_center(app, "b1"), square_center(app, "b3"))
    expect(error).to_be_visible()
    app.locator("#place-standard").click()
    expect(error).to_be_hidden()
    mouse_drag(app, square_center(app, "e1"), square_center(app, "h2"))
    wait_draft(app, {**{f"{f}2": "p" for f in "abcdefg"}, "h2": "k", "e1": "p",
                     "a1": "r", "b1": "n", "c1": "b", "d1": "q", "f1": "b", "g1": "n", "h1": "r"})
    if SHOTS:
        app.screenshot(path=os.path.join(SHOTS, "drag-after.png"))
    app.locator("#place-confirm").click()
    expect(app.locator("#place-panel")).to_be_hidden()
    assert state(app)["handover"] == {"to": "black", "for": "place"}
    take_device(app, "black", "place")
    app.locator("#place-standard").click()
    app.locator("#place-confirm").click()
    take_device(app, "white", "move")
    assert state(app)["fen"].split("/")[-2:] == ["PPPPPPPK", "RNBQPBNR"]


def test_setup_by_dragging_with_a_finger_and_the_setup_marker(app):
    app.evaluate("window.hcApp.call('new_game', {variant: 'hidden-identity'})")
    white, black = (app.locator(f".player[data-color={c}] .to-move") for c in ("white", "black"))
    expect(white).to_have_text("placing pieces")  # (the hand-over screen is up: White is next)
    expect(black).to_have_text("")
    take_device(app, "white", "place")
    app.locator("#place-standard").click()
    app.locator("#place-confirm").click()
    expect(black).to_have_text("placing pieces")
    expect(white).to_have_text("")
    take_device(app, "black", "place")
    assert state(app)["orientation"] == "black"
    expect(black).to_have_text("placing pieces")
    expect(white).to_have_text("")
    expect(app.locator(".player.is-turn")).to_have_attribute("data-color", "black")

    # Touch: tray -> square, square -> square (swap), square -> off the board.
    touch_drag(app, tray_center(app, "k"), square_center(app, "e8"))
    wait_draft(app, {"e8": "k"})
    touch_drag(app, tray_center(app, "p"), square_center(app, "d8"))
    wait_draft(app, {"e8": "k", "d8": "p"})
    touch_drag(app, square_center(app, "e8"), square_center(app, "d8"))
    wait_draft(app, {"d8": "k", "e8": "p"})
    touch_drag(app, square_center(app, "e8"), off_board(app))
    wait_draft(app, {"d8": "k"})
    # A tap on a tray piece still picks it, a tap on a square places it.
    cdp_tap(app, tray_center(app, "q"))
    expect(tray_button(app, "q")).to_have_attribute("aria-pressed", "true")
    cdp_tap(app, square_center(app, "a7"))
    wait_draft(app, {"d8": "k", "a7": "q"})

    app.locator("#place-standard").click()
    app.locator("#place-confirm").click()
    expect(app.locator("#status-line")).to_have_text("Pass the device to White")
    expect(white).to_have_text("to move")
    expect(black).to_have_text("")


def cdp_tap(page, at: tuple) -> None:
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": at[0], "y": at[1]}]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()


def test_no_legal_move_at_all_is_a_draw_on_the_page(app):
    # White: king a1 boxed in by its own bishop a2 and pawns b1 b2, pawn b3 that Black's b5 pawn
    # is about to block. Black plays b5-b4: White has no move at all.
    app.evaluate("window.hcApp.call('new_game', {variant: 'hidden-identity', "
                 "fen: '7k/8/8/1p6/8/1P6/BP6/KP6 b - - 0 1 unmoved:-'})")
    take_device(app, "black", "move")
    click_move(app, "b5", "b4")
    expect(app.locator("#banner-title")).to_have_text("Stalemate — draw")
    st = state(app)
    assert st["status"]["reason"] == "stalemate" and st["status"]["result"] == "1/2-1/2"
    expect(app.locator("#result-line")).to_contain_text("1/2-1/2")



def test_a_new_game_clears_the_previous_games_notice(app):
    app.evaluate("window.hcApp.call('new_game', {variant: 'standard'})")
    app.evaluate("window.hcApp.call('move', {orig: 'e2', dest: 'e5'})")  # refused: a notice
    expect(app.locator("#toast")).to_be_visible()
    app.locator("#btn-new").click()
    app.locator("#new-start").click()
    expect(app.locator("#dlg-new")).to_be_hidden()
    expect(app.locator("#toast")).to_be_hidden(timeout=1000)  # at once, not seconds later
