"""Issue 25, item 10 (the page's part of the smaller points): Reveal's odds panel gives no odds
beside "0 covered"; the Secret Pawn hint's "Choose your two secret pawns" goes once the pawns
are sealed. Set ``HC_SHOTS=/some/dir`` to save screenshots."""

from __future__ import annotations

import os

from playwright.sync_api import expect

from .conftest import state, wait_for_app, wait_ready

SHOTS = os.environ.get("HC_SHOTS")


def shot(page, name):
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"details-{name}.png"))


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
