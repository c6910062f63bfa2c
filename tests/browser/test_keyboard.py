"""Playing with the keyboard only, as a blind player would (issue 15): the move box, the board's
cursor, the live regions, the move list, the dialogs and the hand-over screen. No mouse event is
sent: keys only (``hcApp.call`` sets up a position through ``new_game``, as the menu would).

What the screen reader hears is read from the two live regions: ``#sr-live`` (polite: moves,
reveals, offers, the end, answers) and ``#sr-alert`` (assertive: refusals).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import state

pytestmark = pytest.mark.browser


def heard(page) -> str:
    return page.locator("#sr-live").inner_text().strip()


def alerted(page) -> str:
    return page.locator("#sr-alert").inner_text().strip()


def new_game(page, **options) -> None:
    page.evaluate("o => window.hcApp.call('new_game', o)", options)
    assert state(page)["error"] is None


def type_move(page, text: str) -> None:
    """Type ``text`` in the move box and press Enter (the box keeps the focus)."""
    box = page.locator("#move-input")
    if page.evaluate("document.activeElement && document.activeElement.id") != "move-input":
        box.focus()
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def resign(page, confirm: bool = True) -> None:
    """Type ``resign``: the page asks first, as the resign buttons do. Tab from Cancel (which has
    the focus) to Resign and press Enter, or press Escape; the focus is back in the move box."""
    type_move(page, "resign")
    dialog = page.locator("#dlg-confirm")
    expect(dialog).to_be_visible()
    assert page.evaluate("document.activeElement.id") == "confirm-no"
    if confirm:
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "confirm-yes"
        page.keyboard.press("Enter")
    else:
        page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    page.wait_for_function("document.activeElement && document.activeElement.id === 'move-input'")


def play(page, *texts) -> None:
    """Type each of ``texts``; none may be refused (the page answers each Enter at once)."""
    for t in texts:
        type_move(page, t)
        err = state(page)["error"]
        assert err is None, (t, err)


@pytest.fixture
def kb(app):
    new_game(app)
    expect(app.locator("#move-input")).to_be_enabled()
    return app


def test_the_move_box_is_reached_with_tab_and_plays_a_whole_game(kb):
    page = kb
    page.evaluate("document.activeElement && document.activeElement.blur()")
    for _ in range(40):  # Tab from the top of the page to the move box
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "move-input":
            break
    else:
        pytest.fail("the move box is not in the tab order")
    play(page, "f3")
    expect(page.locator("#sr-live")).to_have_text("White: pawn to f3. Black to move.")
    play(page, "e5", "g4")
    type_move(page, "Qh4#")
    expect(page.locator("#sr-live")).to_have_text("Black: queen to h4, check. Checkmate — Black wins.")
    assert state(page)["status"]["over"]


def test_a_refused_text_is_said_and_changes_nothing(kb):
    page = kb
    play(page, "e4")
    type_move(page, "Ke2")
    expect(page.locator("#sr-alert")).to_contain_text("Ke2 is not a move you can play now.")
    expect(page.locator("#move-box-msg")).to_have_text("Ke2 is not a move you can play now.")
    assert len(state(page)["moves"]) == 1 and state(page)["turnColor"] == "black"
    assert page.locator("#move-input").input_value() == "Ke2"  # (kept, selected: type again)
    # Cleared, or only spaces, Enter brings the hint back rather than leaving the old error.
    page.locator("#move-input").fill("   ")
    page.keyboard.press("Enter")
    expect(page.locator("#move-box-msg")).to_have_text("Press Enter to play. Type help for the commands.")
    assert len(state(page)["moves"]) == 1


def test_takeback_typed_asks_the_other_player_as_the_button_does(kb):
    """QA: "takeback" typed was read as a move. Now a command: on one device the other player is
    asked (Decline keeps the move). The dialog answered with the mouse, the box takes typed keys
    at once (they reached no text before, though the box had the focus)."""
    page = kb
    play(page, "e4")
    type_move(page, "takeback")
    expect(page.locator("#confirm-title")).to_have_text("White asks to take back e4")
    page.locator("#confirm-no").click()
    expect(page.locator("#move-box-msg")).to_have_text("Not taken back.")
    assert len(state(page)["moves"]) == 1
    type_move(page, "take back")
    page.locator("#confirm-yes").click()
    page.wait_for_function("window.hcApp.state().moves.length === 0")
    expect(page.locator("#move-box-msg")).to_have_text("Press Enter to play. Type help for the commands.")


def test_reading_commands(kb):
    page = kb
    play(page, "e4", "e5", "Nf3")
    type_move(page, "p N")
    expect(page.locator("#sr-live")).to_have_text("White knights: b1, f3.")
    type_move(page, "s g8")
    expect(page.locator("#sr-live")).to_have_text("g8, black knight, can move to e7 f6 h6")
    type_move(page, "c")
    expect(page.locator("#sr-live")).to_have_text("This game has no clock.")
    type_move(page, "flip")
    expect(page.locator("#layout")).to_have_attribute("data-orientation", "black")


def test_the_board_cursor_selects_and_drops_and_says_each_square(kb):
    page = kb
    page.locator("#move-input").focus()
    page.keyboard.press("Shift+Tab")
    for _ in range(20):  # back up the tab order to the board
        if page.evaluate("document.activeElement.id") == "board":
            break
        page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.id") == "board"
    expect(page.locator("#sr-live")).to_have_text("e2, white pawn, can move to e3 e4")
    expect(page.locator("cg-board square.kbd-cursor")).to_have_count(1)
    page.keyboard.press("Enter")
    expect(page.locator("#sr-live")).to_contain_text("Selected e2")
    page.keyboard.press("ArrowUp")
    expect(page.locator("#sr-live")).to_have_text("e3, empty, Enter moves e2 here")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Space")
    page.wait_for_function("window.hcApp.state().moves.length === 1")
    expect(page.locator("#sr-live")).to_have_text("White: pawn to e4. Black to move.")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#sr-live")).to_have_text("f4, empty")
    page.keyboard.press("Escape")  # (nothing selected: nothing happens)
    assert state(page)["moves"][0]["uci"] == "e2e4"


def test_the_move_list_is_navigable_during_and_after_play(kb):
    page = kb
    play(page, "e4", "e5", "Nf3", "Nc6")
    current = page.locator("#moves .san[tabindex='0']")
    expect(current).to_have_count(1)
    expect(current).to_have_attribute("aria-label", "2… Black: knight to c6. Nc6")
    current.focus()
    page.keyboard.press("Home")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "1. White: pawn to e4. e4"
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "1… Black: pawn to e5. e5"
    page.keyboard.press("Enter")
    expect(page.locator("#sr-live")).to_have_text("1… Black: pawn to e5. e5")
    page.keyboard.press("End")
    assert page.evaluate("document.activeElement.dataset.ply") == "3"
    resign(page)
    expect(page.locator("#sr-live")).to_have_text("White resigns — Black wins.")
    page.locator("#moves .san[tabindex='0']").focus()
    page.keyboard.press("Home")
    page.wait_for_function("window.hcApp.state().replay && window.hcApp.state().replay.ply === 1")
    expect(page.locator("#sr-live")).to_have_text("Replay, move 1 of 4: White: pawn to e4.")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("window.hcApp.state().replay.ply === 2")


def test_dialogs_close_on_escape_and_give_the_focus_back(kb):
    page = kb
    page.locator("#btn-new").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#dlg-new")).to_be_visible()
    assert page.evaluate("document.activeElement.closest('dialog') && document.activeElement.closest('dialog').id") == "dlg-new"
    for _ in range(30):  # the focus stays in the dialog
        page.keyboard.press("Tab")
        inside = page.evaluate("!!(document.activeElement && document.activeElement.closest('#dlg-new'))")
        assert inside or page.evaluate("document.activeElement === document.body")
    page.keyboard.press("Escape")
    expect(page.locator("#dlg-new")).to_be_hidden()
    assert page.evaluate("document.activeElement.id") == "btn-new"


def test_secret_pawn_by_keyboard_with_the_hand_over_screen(kb):
    page = kb
    new_game(page, variant="secret-pawn")
    type_move(page, "show")
    expect(page.locator("#sr-live")).to_contain_text("Choose your two secret pawns")
    play(page, "seal d2 e2", "show", "seal c7 h7", "show", "e4")
    expect(page.locator("#sr-live")).to_have_text("White: pawn to e4. Pass the device to Black.")
    # the hand-over screen's button is in the tab order: Enter shows the board
    for _ in range(15):
        page.keyboard.press("Shift+Tab")
        if page.evaluate("document.activeElement.id") == "handover-show":
            break
    page.keyboard.press("Enter")
    expect(page.locator("#handover")).to_be_hidden()
    play(page, "a6", "show")
    type_move(page, "ed4 **d4")
    page.wait_for_function("window.hcApp.state().moves.length === 3")
    expect(page.locator("#sr-live")).to_have_text(
        "White: pawn from e4 to d4, White's secret pawn on d4 revealed. Pass the device to Black.")
    type_move(page, "show")
    # nothing of White's hidden choice is said to Black: the other sealed pawn (d2) stays unnamed
    assert "d2" not in heard(page)
    resign(page)
    expect(page.locator("#sr-live")).to_have_text("Black resigns — White wins.")


def test_secret_pawn_refused_king_move_is_said(kb):
    page = kb
    new_game(page, variant="secret-pawn", fen="4k3/8/8/8/8/3p4/8/4K3 w - - 0 1 secret:d3")
    type_move(page, "show")
    type_move(page, "Kd2")
    expect(page.locator("#sr-alert")).to_have_text("Illegal move: a secret pawn attacks that square.")
    assert state(page)["moves"] == []
    play(page, "Kf2")  # (the hidden pawn's extra attack on e2, next to the king, reveals it)
    expect(page.locator("#sr-live")).to_have_text(
        "White: king to f2, Black's secret pawn on d3 revealed. Pass the device to Black.")


def test_reveal_by_keyboard(kb):
    page = kb
    new_game(page, variant="reveal", draws=["n", "p", "b"])
    play(page, "Nc3")
    expect(page.locator("#sr-live")).to_have_text(
        "White: knight to c3, the covered knight on c3 is a knight. Black to move.")
    play(page, "e5", "Nd5")
    # resign asks first: the dialog's words, and Escape leaves the game going
    type_move(page, "resign")
    expect(page.locator("#confirm-title")).to_have_text("Resign as Black?")
    expect(page.locator("#confirm-text")).to_have_text("Black loses the game.")
    page.keyboard.press("Escape")
    expect(page.locator("#move-box-msg")).to_have_text("Not resigned.")
    assert not state(page)["status"]["over"]
    play(page, "d6")
    resign(page, confirm=False)
    assert not state(page)["status"]["over"]
    resign(page)
    expect(page.locator("#sr-live")).to_have_text("White resigns — Black wins.")


def test_hidden_identity_placement_and_play_by_keyboard(kb):
    page = kb
    new_game(page, variant="hidden-identity")
    play(page, "show", "Ke1")
    expect(page.locator("#place-count")).to_have_text("1 of 16 placed")
    type_move(page, "Ke4")
    expect(page.locator("#sr-alert")).to_have_text("e4 is not on your two home rows (rows 1 and 2).")
    play(page, "standard", "confirm", "show", "shuffle", "confirm", "show", "e4")
    expect(page.locator("#sr-live")).to_have_text("White: e2 to e4. Pass the device to Black.")
    type_move(page, "show")
    type_move(page, "s e4")  # (what Black may deduce: a piece that stepped two squares)
    expect(page.locator("#sr-live")).to_have_text(
        "e4, white piece, identity unknown, could be queen or rook or pawn")
    resign(page)
    expect(page.locator("#sr-live")).to_have_text("Black resigns — White wins.")


def test_secret_pawns_sealed_with_the_board_cursor(kb):
    page = kb
    new_game(page, variant="secret-pawn")
    type_move(page, "show")
    page.locator("#board").focus()
    for key in ["Home", "ArrowLeft", "Enter", "ArrowRight", "Enter"]:  # e2 -> d2 (pick), e2 (pick)
        page.keyboard.press(key)
    expect(page.locator("#seal-chosen")).to_contain_text("d2")
    expect(page.locator("#seal-chosen")).to_contain_text("e2")
    page.locator("#seal-submit").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#handover")).to_be_visible()
    assert state(page)["handover"] == {"to": "black", "for": "seal"}
    # the hand-over screen takes the focus; Enter shows Black's board, and the focus goes on
    assert page.evaluate("document.activeElement.id") == "handover-show"
    page.keyboard.press("Enter")
    expect(page.locator("#handover")).to_be_hidden()
    assert page.evaluate("document.activeElement.id") == "board"
    for key in ["Home", "Enter", "ArrowRight", "Enter"]:  # e7 (pick), d7 (pick): Black's view is turned
        page.keyboard.press(key)
    expect(page.locator("#seal-chosen")).to_contain_text("d7")
    expect(page.locator("#seal-chosen")).to_contain_text("e7")


def test_royal_pawn_won_by_keyboard(kb):
    page = kb
    new_game(page, variant="royal-pawn", fen="7k/8/4P3/8/8/p7/8/4K3 w - - 0 1 royal:a3,e6")
    play(page, "e7", "Kg8")
    type_move(page, "s e7")
    expect(page.locator("#sr-live")).to_have_text("e7, white pawn, royal, can move to e8")
    type_move(page, "e8")  # (a royal pawn does not promote: no piece to name)
    expect(page.locator("#sr-live")).to_have_text("White: pawn to e8. Royal pawn promoted — White wins.")


def test_the_board_cursor_says_each_variants_marks(kb):
    page = kb
    new_game(page, variant="secret-pawn")
    type_move(page, "show")
    page.locator("#board").focus()
    for key in ["Home", "ArrowLeft", "Enter"]:  # d2: picked while sealing
        page.keyboard.press(key)
    expect(page.locator("#seal-chosen")).to_contain_text("d2")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#sr-live")).to_have_text("e2, white pawn")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#sr-live")).to_have_text("d2, white pawn, chosen as a secret pawn")
    play(page, "seal d2 e2", "show", "seal c7 h7", "show")
    page.locator("#board").focus()
    page.keyboard.press("Home")
    expect(page.locator("#sr-live")).to_have_text("e2, white pawn, your secret pawn, can move to d3 e3 e4 f3")
    type_move(page, "p P")
    expect(page.locator("#sr-live")).to_have_text(
        "White pawns: a2, b2, c2, d2 (your secret pawn), e2 (your secret pawn), f2, g2, h2.")
    new_game(page, variant="reveal")
    page.locator("#board").focus()
    page.keyboard.press("Home")
    expect(page.locator("#sr-live")).to_have_text("e2, white pawn, covered, can move to e3 e4")
    page.keyboard.press("ArrowDown")
    expect(page.locator("#sr-live")).to_have_text("e1, white king")


def test_the_board_cursor_starts_again_for_the_next_player_and_says_why_enter_did_nothing(kb):
    page = kb
    page.set_viewport_size({"width": 1280, "height": 800})
    new_game(page, variant="secret-pawn")
    type_move(page, "show")
    page.locator("#board").focus()
    for key in ["Home", "ArrowLeft", "Enter", "ArrowRight", "Enter"]:  # White picks d2 and e2
        page.keyboard.press(key)
    expect(page.locator("#seal-chosen")).to_contain_text("d2, e2")
    page.locator("#seal-submit").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#handover")).to_be_visible()
    page.keyboard.press("Enter")  # "I am Black — show my board"
    expect(page.locator("#handover")).to_be_hidden()
    assert page.evaluate("document.activeElement.id") == "board"
    # the cursor starts again on Black's side, not on White's last square
    expect(page.locator("#board")).to_have_attribute("aria-label", "Chess board, e7")
    expect(page.locator("#sr-live")).to_have_text("e7, black pawn")
    for _ in range(5):  # (Black's view is turned: up goes down the ranks) e7 -> e2
        page.keyboard.press("ArrowUp")
    expect(page.locator("#sr-live")).to_have_text("e2, white pawn")
    page.keyboard.press("Enter")
    expect(page.locator("#sr-alert")).to_have_text(
        "e2 is not one of your pawns: pick one of your own pawns on its starting square.")
    assert state(page)["sealing"]["seat"] == "black"


def test_enter_that_places_nothing_says_why(kb):
    page = kb
    new_game(page, variant="hidden-identity")
    type_move(page, "show")
    page.locator("#board").focus()
    page.keyboard.press("Home")
    page.keyboard.press("Enter")  # (no piece picked in the tray)
    expect(page.locator("#sr-alert")).to_have_text("e2: pick a piece in the tray first.")
    for key in ["ArrowUp", "ArrowUp", "Enter"]:
        page.keyboard.press(key)
    expect(page.locator("#sr-alert")).to_have_text("e4 is not on your two home rows (rows 1 and 2).")
    assert state(page)["placing"]["draft"] == {}


@pytest.mark.parametrize("size", [(1280, 800), (360, 640)])
def test_the_result_banners_buttons_leave_the_focus_in_the_game(kb, size):
    """Replay and View board on the result banner hide it, and the focus fell to the page's body:
    the arrows still stepped through the moves, but the next Tab started from the top of the page
    (a QA pass). After Replay the focus is on the replay bar's Next; after View board, the board."""
    page = kb
    page.set_viewport_size({"width": size[0], "height": size[1]})
    try:
        play(page, "e4", "e5", "Nf3")
        resign(page)
        expect(page.locator("#banner")).to_be_visible()
        page.locator("#banner-replay").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#banner")).to_be_hidden()
        page.wait_for_function("window.hcApp.state().replay && window.hcApp.state().replay.ply === 0")
        assert page.evaluate("document.activeElement.id") == "rp-next"
        page.keyboard.press("ArrowRight")
        page.wait_for_function("window.hcApp.state().replay.ply === 1")
        page.keyboard.press("Tab")   # on from the replay bar, not from the top of the page
        assert page.evaluate("document.activeElement.closest('#replay-bar') !== null")

        new_game(page)
        play(page, "e4")
        resign(page)
        expect(page.locator("#banner")).to_be_visible()
        page.locator("#banner-close").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#banner")).to_be_hidden()
        assert page.evaluate("document.activeElement.id") == "board"
    finally:
        page.set_viewport_size({"width": 1280, "height": 800})
