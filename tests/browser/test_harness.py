"""The browser tests' own harness, where a player's page is not the point: a module's shared page
whose renderer crashed (Playwright's "Target crashed") is opened again for the next test, so one
crash costs one test a rerun, not the rest of the module (conftest.SharedPage)."""

from __future__ import annotations

import time

import pytest

from .conftest import SharedPage, state

pytestmark = pytest.mark.browser


def test_a_shared_page_that_crashed_is_opened_again(browser, site):
    box = SharedPage(browser, site)
    try:
        first = box.page
        first.evaluate("window.hcApp.call('new_game', {variant: 'reveal'})")
        # (chrome://crash, as if typed in the address bar: Chromium's own way to crash a renderer)
        answer = first.context.new_cdp_session(first).send(
            "Page.navigate", {"url": "chrome://crash", "transitionType": "typed"})
        assert answer.get("errorText") == "net::ERR_ABORTED", answer
        for _ in range(50):  # (a call to the browser lets Playwright deliver the page's events)
            if box.crashed:
                break
            first.context.cookies()
            time.sleep(0.1)
        assert box.crashed
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
