"""Reveal Chess on one device: the new-game choice, covers with their "?" badge, a reveal that
updates the pools and odds beside the board, and a cover's conditional promotion chosen before
the move.

Like tests/browser/test_secret_pawn.py, the tests share one page per module (Pyodide boots once)
that blocks every request to another host. ``window.hcApp.call('new_game', {...})`` starts a game
where a test needs determinism: ``draws`` scripts the roles the next reveals draw (validated by
the session) and ``fen`` a start position.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import click, click_move, state

pytestmark = pytest.mark.browser

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
# A white rook cover on a1 facing a black rook cover on a8 (both kings visible).
ROOK_RACE = ("rn2k3/1p6/8/8/8/8/1PP5/R3K3 w - - 0 1 covered:a1,b2,c2,a8,b8,b7 "
             "pools:q1r2b2n2p8/q1r2b2n2p8")


def new_game(page, **options) -> dict:
    st = page.evaluate("o => window.hcApp.call('new_game', o)", options)
    assert st["error"] is None, st["error"]
    return st


def badges(page):
    return page.locator("#board .cg-custom-svgs .cover-badge")


def pool_cell(page, color: str, role: str):
    return page.locator(f"#pools-table tbody tr[data-color={color}] td[data-role={role}]")


def move_texts(page) -> list:
    return page.locator("#moves .san").all_inner_texts()


def test_new_game_dialog_offers_reveal_without_a_handover(app):
    app.locator("#btn-new").click()
    dialog = app.locator("#dlg-new")
    choice = dialog.locator("label.choice:has(input[value=reveal])")
    expect(choice).to_contain_text("drawn at random from its side's pool")
    choice.click()
    app.locator("#new-start").click()
    expect(dialog).to_be_hidden()
    expect(app.locator("#game-title")).to_contain_text("Reveal")
    expect(app.locator("#handover")).to_be_hidden()  # nobody knows a cover's role: no secrets
    expect(badges(app)).to_have_count(30)
    expect(app.locator("#pools")).to_be_visible()
    expect(pool_cell(app, "white", "q")).to_contain_text("1")
    expect(pool_cell(app, "white", "q")).to_contain_text("7%")
    expect(pool_cell(app, "black", "p")).to_contain_text("53%")
    st = state(app)
    assert st["variant"]["id"] == "reveal" and st["fen"] == START
    assert st["movable"]["color"] == "white"
    # The other variants have no pools panel, and Secret Pawn still hands the device over.
    new_game(app, variant="secret-pawn")
    expect(app.locator("#pools")).to_be_hidden()
    expect(app.locator("#handover")).to_be_visible()
    expect(badges(app)).to_have_count(0)


def test_a_cover_reveals_and_the_pools_update(app):
    new_game(app, variant="reveal", draws=["n", "b"])
    expect(pool_cell(app, "white", "n").locator(".pool-count")).to_have_text("2")
    click_move(app, "a2", "a3")  # a pawn cover ...
    assert move_texts(app) == ["a3?N"]  # ... that revealed a knight
    assert app.evaluate("window.hcApp.boardFen()").split("/")[5] == "N7"
    expect(badges(app)).to_have_count(29)
    expect(app.locator("cg-board square.reveal")).to_have_count(1)
    expect(app.locator("#board .cg-custom-svgs .drawn-tag")).to_have_count(1)
    expect(app.locator("#board .cg-custom-svgs .drawn-tag")).to_contain_text("N")
    cell = pool_cell(app, "white", "n")
    expect(cell.locator(".pool-count")).to_have_text("1")
    expect(cell.locator(".pool-odds")).to_have_text("7%")  # 1 of 14
    assert "just-drawn" in cell.get_attribute("class")
    expect(pool_cell(app, "white", "p").locator(".pool-odds")).to_have_text("57%")  # 8 of 14
    expect(app.locator("#pools-table tr[data-color=white] th small")).to_have_text("14 covered")
    # Black's reveal: Black's pool changes, White's does not.
    click_move(app, "c7", "c6")
    assert move_texts(app) == ["a3?N", "c6?B"]
    expect(pool_cell(app, "black", "b").locator(".pool-count")).to_have_text("1")
    assert "just-drawn" in pool_cell(app, "black", "b").get_attribute("class")
    assert "just-drawn" not in (pool_cell(app, "white", "n").get_attribute("class") or "")
    # The revealed knight now moves as a knight; a move that reveals nothing leaves the pools.
    click_move(app, "a3", "b5")
    assert move_texts(app)[-1] == "Nb5"
    expect(app.locator("#board .cg-custom-svgs .drawn-tag")).to_have_count(0)
    expect(pool_cell(app, "white", "n").locator(".pool-count")).to_have_text("1")
    # The state saved in the page reproduces the same roles after a reload.
    app.reload()
    app.wait_for_function("window.hcReady === true && window.hcApp.state() !== null", timeout=60_000)
    st = state(app)
    assert [m["san"] for m in st["moves"]] == ["a3?N", "c6?B", "Nb5"]
    assert st["reveal"]["pools"]["white"]["n"] == 1 and st["reveal"]["pools"]["black"]["b"] == 1
    expect(badges(app)).to_have_count(28)


def test_conditional_promotion_is_chosen_before_the_move(app):
    new_game(app, variant="reveal", fen=ROOK_RACE, draws=["p"])
    click(app, "a1")
    click(app, "a8")
    picker = app.locator("#promo-picker")
    expect(picker).to_be_visible()
    expect(picker.locator("button")).to_have_count(4)
    note = app.locator("#promo-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text("applies only if the covered piece reveals a Pawn")
    assert state(app)["moves"] == []  # nothing is played (or drawn) before the choice
    picker.get_by_role("button", name="Promote to knight if it reveals a Pawn").click()
    app.wait_for_function("window.hcApp.state().moves.length === 1")
    assert move_texts(app) == ["Rxa8?P=N"]
    # The gold tag on the knight says what happened: a Pawn drawn, promoted to a knight.
    expect(app.locator("#board .cg-custom-svgs .drawn-tag")).to_have_text("P=N")
    assert app.evaluate("window.hcApp.boardFen()").startswith("Nn2k3/")
    expect(app.locator("#promo")).to_be_hidden()
    expect(pool_cell(app, "white", "p").locator(".pool-count")).to_have_text("7")


def test_a_revealed_pawn_promotes_without_the_note(app):
    new_game(app, variant="reveal", fen=ROOK_RACE, draws=["p"])
    click_move(app, "a1", "a6")
    assert move_texts(app) == ["Ra6?P"]
    click_move(app, "e8", "f8")
    click_move(app, "a6", "a7")
    click_move(app, "f8", "g8")
    click(app, "a7")
    click(app, "b8")
    expect(app.locator("#promo-picker")).to_be_visible()
    expect(app.locator("#promo-note")).to_be_hidden()
    app.locator("#promo-picker").get_by_role("button", name="Promote to queen").click()
    app.wait_for_function("window.hcApp.state().moves.length === 5")
    assert move_texts(app)[-1].startswith("axb8=Q")
