"""The page under damaged storage and two tabs (issue #17): a deeply nested save does not brick
the page, and a tab never overwrites another tab's newer moves."""

from __future__ import annotations

import pytest

from .conftest import click_move, local_context, open_tab, state, wait_ready

pytestmark = pytest.mark.browser

CURRENT = "hiddenchess.current"


@pytest.fixture
def context(browser):
    ctx = local_context(browser, viewport={"width": 1280, "height": 800})
    try:
        yield ctx
    finally:
        ctx.close()


def test_a_deeply_nested_save_is_kept_aside_and_the_page_plays(context, site, tmp_path):
    errors = []
    tab = open_tab(context, site, errors)
    deep = "[" * 10_000 + "]" * 10_000
    tab.evaluate("([key, text]) => localStorage.setItem(key, text)", [CURRENT, deep])
    tab.reload()
    wait_ready(tab)
    st = state(tab)
    assert st["notice"] and st["corrupt"] and st["variant"]["id"] == "standard"
    assert tab.locator("#notice").is_visible() and tab.locator("#notice-download").is_visible()
    kept = tab.evaluate("Object.keys(localStorage).filter(k => k.startsWith('hiddenchess.corrupt.'))")
    assert len(kept) == 1 and tab.evaluate("k => localStorage.getItem(k)", kept[0]) == deep
    click_move(tab, "e2", "e4")  # the page plays on
    tab.wait_for_timeout(400)  # (the move's animation)
    tab.screenshot(path=str(tmp_path / "deep-save.png"))
    # and a reload now restores the new game, not the damaged one
    tab.reload()
    wait_ready(tab)
    assert [m["san"] for m in state(tab)["moves"]] == ["e4"]
    assert errors == []


def test_two_tabs_never_lose_a_move(context, site, tmp_path):
    errors = []
    first = open_tab(context, site, errors)
    second = open_tab(context, site, errors)
    click_move(first, "e2", "e4")
    # the storage event tells the second tab at once: it says so and offers to load the game
    second.wait_for_function("window.hcApp.state().stale === true")
    assert second.locator("#notice-reload").is_visible()
    assert "another tab" in second.locator("#notice-text").inner_text()
    second.screenshot(path=str(tmp_path / "stale-tab.png"))
    # a move tried there anyway changes nothing, in the tab or in storage
    st = second.evaluate("window.hcApp.call('move', {orig: 'd2', dest: 'd4'})")
    assert st["error"] and st["moves"] == []
    key = f"hiddenchess.game.{state(first)['gameId']}"  # (each game has its own key, issue 26)
    saved = first.evaluate("k => JSON.parse(localStorage.getItem(k)).record.moves", key)
    assert [m["uci"] for m in saved] == ["e2e4"]
    # "Load it" reloads the tab onto the newer game, which then plays on
    second.locator("#notice-reload").click()
    wait_ready(second)
    assert [m["san"] for m in state(second)["moves"]] == ["e4"] and not state(second)["stale"]
    click_move(second, "e7", "e5")
    first.wait_for_function("window.hcApp.state().stale === true")
    assert errors == []
