"""An accessibility audit of every screen with axe-core (issue 15): zero serious or critical
violations (WCAG 2 A/AA rules, colour contrast included) on a fresh game, the dialogs, each
variant in the middle of a game, the hand-over screen, sealing and placing, the promotion picker,
the end of a game and its replay, the invitation of a friend, the start screen, a rules page and
the settings -- each in the light and the dark theme.

axe-core is the npm package pinned in package.json (devDependencies); Playwright injects its
``axe.min.js`` from ``node_modules/`` into the page (nothing is fetched from the network).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import ROOT, state

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
#: What fails the audit.
SEVERE = ("serious", "critical")


@pytest.fixture(autouse=True, params=["light", "dark"])
def theme(request, app):
    """Every screen in both colour themes (index.html picks one from the system's preference and
    the settings, as ``<html data-theme>``)."""
    before = app.evaluate("document.documentElement.dataset.theme || ''")
    app.evaluate("t => { document.documentElement.dataset.theme = t; }", request.param)
    yield request.param
    app.evaluate("t => { document.documentElement.dataset.theme = t; }", before)


def audit(page) -> list:
    """The serious and critical violations of the page as it is now, readably."""
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: run `npm ci` (axe-core is a devDependency)", pytrace=False)
    if not page.evaluate("!!window.axe"):
        page.add_script_tag(path=str(AXE))
    # (what is audited is the page at rest: one-off flashes and fades finished, 3 s at most)
    page.evaluate("""() => Promise.race([
        Promise.all(document.getAnimations().map(a => a.finished.catch(() => null))),
        new Promise(r => setTimeout(r, 3000))])""")
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [f"{v['id']} ({v['impact']}): {n['target']} {n['failureSummary']}"
            for v in result["violations"] if v["impact"] in SEVERE for n in v["nodes"]]


def call(page, action, **args):
    st = page.evaluate("([a, o]) => window.hcApp.call(a, o)", [action, args])
    assert st["error"] is None, (action, args, st["error"])
    return st


def play(page, *texts):
    for t in texts:
        call(page, "typed", text=t)


def test_axe_is_the_pinned_version():
    assert AXE.is_file()
    assert AXE.read_text()[:40].startswith("/*! axe v4.14.1")


def test_an_audit_finds_a_planted_violation(app):
    """The audit can fail: an unlabelled button with white text on white is caught."""
    app.evaluate("""() => { const b = document.createElement('button'); b.id = 'planted';
        b.style.cssText = 'color:#fff;background:#fff'; b.innerHTML = '<svg width="10" height="10"></svg>';
        document.body.appendChild(b); }""")
    try:
        found = audit(app)
        assert any("button-name" in v and "planted" in v for v in found), found
    finally:
        app.evaluate("document.getElementById('planted').remove()")


def test_start_screen_new_game_dialog_and_confirm(app):
    call(app, "new_game")
    assert audit(app) == []
    app.locator("#btn-new").focus()
    app.keyboard.press("Enter")
    expect(app.locator("#dlg-new")).to_be_visible()
    assert audit(app) == []
    for mode in ("computer", "friend"):
        app.locator(f"input[name=mode][value={mode}]").check()
        assert audit(app) == [], mode
    app.locator("input[name=mode][value=local]").check()
    app.keyboard.press("Escape")
    expect(app.locator("#dlg-new")).to_be_hidden()
    app.locator("#player-bottom .act-resign").focus()
    app.keyboard.press("Enter")
    expect(app.locator("#dlg-confirm")).to_be_visible()
    assert audit(app) == []
    app.keyboard.press("Escape")


@pytest.mark.parametrize("variant, moves", [
    ("standard", ["e4", "e5", "Nf3", "Nc6", "Bc4"]),
    ("royal-pawn", ["d4", "d5", "Nf3"]),
    ("reveal", ["Nc3", "e5", "d4"]),
])
def test_each_variant_without_a_hand_over_mid_game(app, variant, moves):
    call(app, "new_game", variant=variant)
    play(app, *moves)
    app.locator("#board").focus()  # (the keyboard cursor is drawn too)
    app.keyboard.press("ArrowUp")
    assert audit(app) == []


def test_secret_pawn_sealing_hand_over_and_mid_game(app):
    call(app, "new_game", variant="secret-pawn")
    assert audit(app) == []  # the hand-over screen
    play(app, "show")
    assert audit(app) == []  # sealing
    play(app, "seal d2 e2", "show", "seal c7 h7", "show", "e4", "show", "a6", "show", "ed4 **d4")
    play(app, "show")
    assert state(app)["viewer"] == "black"
    assert audit(app) == []  # mid-game: neckties, a reveal


def test_hidden_identity_placement_and_mid_game(app):
    call(app, "new_game", variant="hidden-identity-rk-tt")
    play(app, "show", "Ke1", "Qd1")
    assert audit(app) == []  # placing
    play(app, "standard", "confirm", "show", "shuffle", "confirm", "show", "e4", "show")
    assert audit(app) == []  # mid-game: unknown pieces, tabletop panel


def test_promotion_picker(app):
    call(app, "new_game", fen="8/4P3/8/8/8/8/k7/4K3 w - - 0 1")
    app.locator("#board").focus()
    for key in ["Home"] + ["ArrowUp"] * 5 + ["Enter", "ArrowUp", "Enter"]:  # e2 -> e7, pick, e8
        app.keyboard.press(key)
    expect(app.locator("#promo")).to_be_visible()
    assert app.evaluate("document.activeElement.closest('#promo-picker') !== null")
    assert audit(app) == []
    app.keyboard.press("Escape")
    expect(app.locator("#promo")).to_be_hidden()
    assert app.evaluate("document.activeElement.id") == "board"  # the focus came back


def test_game_over_banner_and_replay(app):
    call(app, "new_game")
    play(app, "f3", "e5", "g4", "Qh4#")
    expect(app.locator("#banner")).to_be_visible()
    assert audit(app) == []
    app.locator("#banner-replay").click()
    call(app, "replay", ply=2)
    assert audit(app) == []
    call(app, "new_game", variant="secret-pawn")
    play(app, "show", "seal d2 e2", "show", "seal c7 h7", "show")
    call(app, "resign")  # (the move box's resign asks first: test_keyboard.py)
    call(app, "replay", ply=0, perspective="white")
    assert audit(app) == []  # the replay of what White knew


def test_claim_dialog(app):
    call(app, "new_game")
    play(app, "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1")
    expect(app.locator("#btn-claim")).to_be_visible()
    app.locator("#btn-claim").focus()
    app.keyboard.press("Enter")
    expect(app.locator("#dlg-claim")).to_be_visible()
    assert audit(app) == []
    app.keyboard.press("Escape")
    expect(app.locator("#dlg-claim")).to_be_hidden()
    assert app.evaluate("document.activeElement.id") == "btn-claim"


def test_invite_a_friend(app):
    app.evaluate("window.hcApp.call('new_game', {mode: 'friend', variant: 'standard', color: 'white'})")
    expect(app.locator("#friend-card")).to_be_visible(timeout=20_000)
    assert audit(app) == []


def test_start_screen_and_rules(app):
    """The start screen (variants as cards) and a rules page, opened as the page opens them."""
    app.evaluate("import('./assets/js/start.js').then(m => m.openStart())")
    expect(app.locator("#start")).to_be_visible()
    assert audit(app) == []
    app.evaluate("import('./assets/js/start.js').then(m => m.closeStart())")
    expect(app.locator("#start")).to_be_hidden()
    app.evaluate("import('./assets/js/start.js').then(m => m.openRules('secret-pawn'))")
    expect(app.locator("#rules")).to_be_visible()
    assert audit(app) == []
    app.keyboard.press("Escape")
    expect(app.locator("#rules")).to_be_hidden()


ANIMATION = "import('./assets/js/state.js').then(m => m.app.cg.state.animation.enabled)"


def test_reduced_motion_turns_animations_off(app):
    app.emulate_media(reduced_motion="reduce")
    try:
        call(app, "new_game", variant="reveal", draws=["n"])
        assert call(app, "typed", text="Nc3")["moves"][0]["san"] == "Nc3?N"
        # the pieces jump (the board's animation is off) and the reveal does not flash
        assert app.evaluate(ANIMATION) is False
        app.wait_for_selector("cg-board square.reveal", state="attached")
        duration = app.evaluate("getComputedStyle(document.querySelector('cg-board square.reveal')).animationDuration")
        assert float(duration.rstrip("ms")) < 0.01, duration
    finally:
        app.emulate_media(reduced_motion="no-preference")
    call(app, "new_game", variant="reveal", draws=["n"])
    call(app, "typed", text="Nc3")
    assert app.evaluate(ANIMATION) is True  # (the usual slide)
    app.wait_for_selector("cg-board square.reveal", state="attached")
    duration = app.evaluate("getComputedStyle(document.querySelector('cg-board square.reveal')).animationDuration")
    assert duration == "1.1s", duration


def test_settings_dialog(app):
    app.locator("#btn-settings").focus()
    app.keyboard.press("Enter")
    expect(app.locator("#dlg-settings")).to_be_visible()
    assert audit(app) == []
    app.keyboard.press("Escape")
    expect(app.locator("#dlg-settings")).to_be_hidden()
    assert app.evaluate("document.activeElement.id") == "btn-settings"
