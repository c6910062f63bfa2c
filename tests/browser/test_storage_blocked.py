"""A browser that blocks the page's site data (some private modes, a "block cookies and site data"
setting): reading ``localStorage`` throws a SecurityError. The page must start all the same, say
that games cannot be kept, and play (a QA pass of stop 59 found it stuck on "Loading..." for ever:
the relay settings' form read the storage unguarded)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import click_move, local_context, state, wait_for_app

pytestmark = pytest.mark.browser

BLOCKED = """(() => {
  for (const name of ['localStorage', 'sessionStorage']) {
    Object.defineProperty(window, name, {configurable: true, get() {
      throw new DOMException("Access is denied for this document.", "SecurityError");
    }});
  }
})();"""


def test_the_page_starts_and_plays_with_site_data_blocked(browser, site):
    context = local_context(browser)
    errors = []
    try:
        context.add_init_script(BLOCKED)
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(site.url("/index.html"))
        wait_for_app(page)
        expect(page.locator("#loading")).to_be_hidden()
        warning = state(page)["warning"] or state(page)["notice"] or ""
        assert "unavailable" in warning, warning
        # (every visit is a first one: the start screen)
        card = page.locator('.variant-card[data-variant="standard"]')
        card.get_by_role("button", name="Play on this device").click()
        expect(page.locator("#start")).to_be_hidden()
        page.wait_for_function("window.hcApp.state().movable.color === 'white'")
        click_move(page, "e2", "e4")
        assert [m["san"] for m in state(page)["moves"]] == ["e4"]
        assert errors == [], errors
    finally:
        context.close()


FULL = """(() => {
  Storage.prototype.setItem = function () {
    throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
  };
})();"""


def test_a_closed_storage_full_warning_comes_back_with_the_next_unsaved_move(browser, site):
    """(QA, stop 59) Closed once, the warning never came back in that visit, while every later
    move, game and import went unsaved."""
    context = local_context(browser)
    try:
        context.add_init_script(FULL)
        page = context.new_page()
        page.goto(site.url("/index.html"))
        wait_for_app(page)
        page.wait_for_function("window.hcApp.state().movable.color === 'white'")
        click_move(page, "e2", "e4")  # (not saved: the warning)
        notice = page.locator("#notice")
        expect(notice).to_be_visible()
        assert state(page)["warning"], state(page)
        page.locator("#notice-close").click()
        expect(notice).to_be_hidden()
        click_move(page, "e7", "e5")
        expect(notice).to_be_visible()
        expect(page.locator("#notice-text")).to_have_text(state(page)["warning"])
    finally:
        context.close()
