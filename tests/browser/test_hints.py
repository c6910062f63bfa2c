"""Issue 25, item 10 (the page's part of the smaller points): Reveal's odds panel gives no odds
beside "0 covered"; the Secret Pawn hint's "Choose your two secret pawns" goes once the pawns
are sealed. Set ``HC_SHOTS=/some/dir`` to save screenshots."""

from __future__ import annotations

import os
import re

from playwright.sync_api import expect

from .conftest import state, wait_for_app, wait_ready

SHOTS = os.environ.get("HC_SHOTS")


def shot(page, name):
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"hints-{name}.png"))


def test_no_odds_beside_no_covers_and_the_sealing_hint_goes(page, site, recorder):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(site.url("/index.html"))
    wait_for_app(page, recorder=recorder)
    wait_ready(page)
    fen = "4k3/p7/8/8/8/8/8/R3K3 w - - 0 1 covered:a7,a1 pools:q1r0b0n0p1/q1r2b2n2p8"
    st = page.evaluate(f"window.hcApp.call('new_game', {{variant: 'reveal', fen: '{fen}', draws: ['q']}})")
    assert not st["error"], st["error"]
    row = page.locator("#pools-table tr[data-color=white]")
    expect(row.locator("th small")).to_have_text("1 covered")
    expect(row.locator("td[data-role=q] .pool-odds")).to_have_text("50%")
    st = page.evaluate("window.hcApp.call('move', {orig: 'a1', dest: 'a7'})")
    assert not st["error"], st["error"]
    for color in ("white", "black"):
        row = page.locator(f"#pools-table tr[data-color={color}]")
        expect(row.locator("th small")).to_have_text("0 covered")
        assert set(row.locator(".pool-odds").all_text_contents()) == {"–"}
    expect(page.locator("#pools-table tr[data-color=white] td[data-role=p] .pool-count")).to_have_text("1")
    shot(page, "reveal-no-covers")

    page.evaluate("window.hcApp.call('new_game', {variant: 'secret-pawn', mode: 'computer', level: 1})")
    hint = page.locator("#hint")
    expect(hint).to_be_visible()
    expect(hint).to_contain_text("Choose your two secret pawns")
    st = page.evaluate("window.hcApp.call('seal', {squares: ['d2', 'e2']})")
    assert not st["error"] and state(page)["phase"] == "play"
    expect(hint).to_be_visible()                       # (still a first game: the rest stays)
    expect(hint).not_to_contain_text("Choose your two secret pawns")
    expect(hint).to_contain_text("Your secret pawns wear neckties")
    shot(page, "sealed-hint")


def open_rules(page, variant):
    if page.locator("#rules").is_visible():
        page.locator("#rules-back").click()
        expect(page.locator("#rules")).to_be_hidden()
    if not page.locator("#start").is_visible():
        page.locator(".brand").click()
    page.locator(f'.variant-card[data-variant="{variant}"]').get_by_role("link", name="Rules").click()
    expect(page.locator("#rules")).to_be_visible()


def test_rules_examples_hidden_identity_on_boards_turned_to_the_side_that_acts(page, site, recorder):
    """Item 7: Hidden Identity's examples (free setup, a king taken, en passant against a
    non-pawn, each castling case), Royal Pawn's mate shown from Black's side, Reveal's ?N."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(site.url("/index.html"))
    wait_for_app(page, recorder=recorder)
    wait_ready(page)
    open_rules(page, "hidden-identity")
    examples = page.locator("#rules .rules-example")
    expect(examples).to_have_count(7)
    titles = examples.locator("h3").all_text_contents()
    assert titles[:3] == ["1. A free setup", "2. A king left attacked is taken",
                          "3. En passant against a piece that is not a pawn"]
    assert sum("Castling" in t for t in titles) == 4

    king = examples.nth(1)
    king.scroll_into_view_if_needed()
    expect(king.locator(".rules-board")).to_have_class(re.compile(r"\borientation-black\b"))
    for _ in range(2):
        king.get_by_role("button", name="Next ▶").click()
    expect(king.locator(".rules-step")).to_contain_text("King captured — Black wins")
    expect(king.locator(".rules-caption")).to_have_text("The queen takes the king: the game is over.")
    expect(king.locator("piece.king.white")).to_have_count(0)
    shot(page, "rules-king-taken")

    ep = examples.nth(2)
    ep.scroll_into_view_if_needed()
    expect(ep.locator("piece.pawn.black")).to_have_count(1)
    ep.get_by_role("button", name="Next ▶").click()
    ep.get_by_role("button", name="Next ▶").click()
    expect(ep.locator("piece.pawn.black")).to_have_count(0)      # the capturing pawn removed
    expect(ep.locator("piece.rook.white")).to_have_count(1)      # the rook stays
    expect(ep.locator(".rules-caption")).to_contain_text("Not a pawn")
    shot(page, "rules-en-passant")

    adjacent = examples.filter(has_text="Castling with an adjacent rook")
    adjacent.scroll_into_view_if_needed()
    adjacent.get_by_role("button", name="Next ▶").click()
    expect(adjacent.locator(".rules-step")).to_contain_text("castle f1e1")
    shot(page, "rules-castling")

    open_rules(page, "royal-pawn")
    mate = page.locator("#rules .rules-example").first
    expect(mate.locator("h3")).to_have_text("1. Black mates in two")
    expect(mate.locator(".rules-board")).to_have_class(re.compile(r"\borientation-black\b"))
    mate.scroll_into_view_if_needed()
    shot(page, "rules-royal-pawn")

    open_rules(page, "reveal")
    expect(page.locator("#rules-body section").filter(has_text="Notation")).to_contain_text("Ra3?N means")
    shot(page, "rules-reveal")


def test_a_rules_link_opens_the_rules_while_the_page_is_open_and_is_spent_once_closed(page, site, recorder):
    """A QA pass found a rules page closed with Back leaving #rules=... in the address, so that a
    reload opened the rules again, and a #rules= link followed in the open page doing nothing."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(site.url("/index.html#rules=secret-pawn"))
    wait_for_app(page, recorder=recorder)
    wait_ready(page)
    expect(page.locator("#rules-title")).to_have_text("Secret Pawn: the rules")
    page.locator("#rules-back").click()
    expect(page.locator("#rules")).to_be_hidden()
    expect(page).not_to_have_url(re.compile("#rules="))
    page.evaluate("window.location.hash = 'rules=reveal'")
    expect(page.locator("#rules-title")).to_have_text("Reveal: the rules")
    page.keyboard.press("Escape")
    expect(page.locator("#rules")).to_be_hidden()
    expect(page).not_to_have_url(re.compile("#rules="))
    page.reload()
    wait_ready(page)
    expect(page.locator("#rules")).to_be_hidden()
