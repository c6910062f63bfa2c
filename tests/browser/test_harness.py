"""The browser tests' own harness, where a player's page is not the point: a page the tests share
whose renderer crashed (Playwright's "Target crashed") is not handed to the next test, so one
crash costs one test a rerun, not the rest of the module (conftest.SharedPage, FirstVisits)."""

from __future__ import annotations

import time

import pytest

from .conftest import FirstVisits, SharedPage, state, wait_for_app

pytestmark = pytest.mark.browser


def crash(page, crashed) -> None:
    """Crash ``page``'s renderer (chrome://crash, as if typed in the address bar: Chromium's own
    way), and wait until ``crashed()`` says the harness has heard of it."""
    answer = page.context.new_cdp_session(page).send(
        "Page.navigate", {"url": "chrome://crash", "transitionType": "typed"})
    assert answer.get("errorText") == "net::ERR_ABORTED", answer
    for _ in range(50):  # (a call to the browser lets Playwright deliver the page's events)
        if crashed():
            return
        page.context.cookies()
        time.sleep(0.1)
    assert crashed()


def test_a_shared_page_that_crashed_is_opened_again(browser, site):
    box = SharedPage(browser, site)
    try:
        first = box.page
        first.evaluate("window.hcApp.call('new_game', {variant: 'reveal'})")
        crash(first, lambda: box.crashed)
        with pytest.raises(Exception, match="crash"):
            first.evaluate("1")
        again = box.page  # a new context, from a new Chromium
        assert again is not first and not box.crashed
        assert state(again)["variant"] is not None
        again.evaluate("window.hcApp.call('new_game', {})")
        assert state(again)["variant"]["id"] == "standard"
        assert box.page is again and box.page_errors == [] and box.blocked == []
    finally:
        box.close()
        browser.forget_crash(SharedPage.CRASH)


def test_a_first_visit_page_that_crashed_is_not_lent_again(browser, site):
    pool = FirstVisits(browser.new_context(service_workers="block", first_visit=True), site.url("/"))
    try:
        first = pool.borrow()
        first.goto(site.url("/index.html"))
        wait_for_app(first)
        crash(first, lambda: getattr(first, "_hc_discard", False))
        again = pool.borrow()
        assert again is not first
        again.goto(site.url("/index.html"))
        wait_for_app(again)
        assert pool.blocked == []
    finally:
        pool.close()
