"""A fault in one part of the page is reported, not swallowed, and the other parts are still drawn
(tests/js/render_faults.mjs): bridge.render goes on past a renderer that throws, and the handlers
room.js gives to Trystero (which catches and only logs what they throw) report their faults as
the page's own uncaught errors, which a player's console and the browser tests see."""

from __future__ import annotations

from nodejs import run_script


def test_a_failing_renderer_leaves_the_others_drawn_and_is_reported():
    r = run_script("render_faults.mjs", timeout=60)
    assert r["drawn"] == ["board 1", "trays 1", "pill 1", "board 2", "pill 2"]
    assert r["reported"] == ["the board tray failed", "a renderer failed inside the channel handler"]


def test_a_handler_given_to_trystero_reports_instead_of_throwing_into_it():
    r = run_script("render_faults.mjs", timeout=60)
    assert r["trysteroCaught"] == 0
    assert r["fine"] == 42
