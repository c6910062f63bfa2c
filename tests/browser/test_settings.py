"""Settings and sounds (issue 14): board colours, light and dark (following the system by
default), coordinates, animation speed and sound are remembered across reloads; the sounds of a
move, a capture, a check, a reveal, low time and the game's end are counted on a stubbed
AudioContext (the frequencies of the notes started tell the sounds apart, see assets/js/sound.js)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import wait_for_app

#: Before the page's scripts: an AudioContext that plays nothing and records each note started.
AUDIO_STUB = """
window.__tones = [];
class FakeParam { constructor() { this.value = 0; } setValueAtTime() {} exponentialRampToValueAtTime() {} }
class FakeNode { connect() {} }
class FakeOsc extends FakeNode {
  constructor() { super(); this.frequency = new FakeParam(); this.type = 'sine'; }
  start() { window.__tones.push(this.frequency.value); } stop() {}
}
class FakeGain extends FakeNode { constructor() { super(); this.gain = new FakeParam(); } }
window.AudioContext = class { constructor() { this.currentTime = 0; this.state = 'running'; this.destination = {}; window.__audio = this; }
  createOscillator() { return new FakeOsc(); } createGain() { return new FakeGain(); }
  suspend() { this.state = 'suspended'; return Promise.resolve(); }
  resume() { this.state = 'running'; return Promise.resolve(); } };
"""

#: The first note of each sound (assets/js/sound.js NOTES).
FIRST_NOTE = {"move": 520, "capture": 300, "check": 740, "reveal": 660, "lowtime": 1040, "end": 392}


def sounds(page):
    """The sounds played so far, by their first notes."""
    by_note = {v: k for k, v in FIRST_NOTE.items()}
    tones = page.evaluate("window.__tones")
    out = [by_note[t] for t in tones if t in by_note]
    # (low time plays its note twice: one sound)
    return [s for i, s in enumerate(out) if not (s == "lowtime" and i and out[i - 1] == "lowtime")]


def play(page, *ucis):
    for uci in ucis:
        st = page.evaluate(f"window.hcApp.call('move', {{orig: '{uci[:2]}', dest: '{uci[2:4]}'}})")
        assert not st.get("error"), st.get("error")


@pytest.fixture
def app_page(page, site, recorder):
    page.add_init_script(AUDIO_STUB)
    page.goto(site.url("/index.html"))
    wait_for_app(page, recorder=recorder)
    page.wait_for_function("window.hcApp.state() !== null && window.hcApp.state().gameId")
    yield page
    assert recorder.page_errors == [], recorder.page_errors


def clear(page):
    page.evaluate("window.__tones = []")


def test_each_event_has_its_sound_and_mute_is_remembered(app_page):
    page = app_page
    page.evaluate("window.hcApp.call('new_game', {})")
    clear(page)
    play(page, "e2e4")
    assert sounds(page) == ["move"]
    # Between sounds the audio rests (a running context renders silence): suspended 3 s after the
    # last sound (sound.js IDLE_SUSPEND_MS), running again for the next.
    assert page.evaluate("window.__audio.state") == "running"
    page.wait_for_function("window.__audio.state === 'suspended'", timeout=6000)
    clear(page)
    play(page, "d7d5", "e4d5")
    assert sounds(page) == ["move", "capture"]
    assert page.evaluate("window.__audio.state") == "running"
    clear(page)
    play(page, "e7e6", "f1b5")                                  # Bb5+
    assert sounds(page) == ["move", "check"]

    page.evaluate("window.hcApp.call('new_game', {})")       # fool's mate: the end
    clear(page)
    play(page, "f2f3", "e7e5", "g2g4", "d8h4")
    assert sounds(page) == ["move", "move", "move", "end"]

    page.evaluate("window.hcApp.call('new_game', {variant: 'reveal', draws: ['n']})")
    clear(page)
    play(page, "b1c3")
    assert sounds(page) == ["reveal"]

    # Low time: a clock under 20 s, once.
    page.evaluate("window.hcApp.call('new_game', {clock: {minutes: 0.35, increment: 0}})")
    play(page, "e2e4")                                          # Black's clock runs
    clear(page)
    page.wait_for_timeout(2500)
    assert sounds(page) == ["lowtime"]

    # Mute: the speaker button; nothing more is played, and it stays so after a reload.
    mute = page.locator("#btn-mute")
    expect(mute).to_have_attribute("aria-pressed", "false")
    mute.click()
    expect(mute).to_have_attribute("aria-pressed", "true")
    page.evaluate("window.hcApp.call('new_game', {})")
    clear(page)
    play(page, "e2e4", "e7e5")
    assert sounds(page) == []
    page.reload()
    wait_for_app(page)
    page.wait_for_function("window.hcApp.state() !== null")
    expect(page.locator("#btn-mute")).to_have_attribute("aria-pressed", "true")
    clear(page)
    play(page, "g1f3")
    assert sounds(page) == []


def test_settings_change_the_page_and_are_remembered(app_page):
    page = app_page
    root = page.locator("html")
    expect(root).to_have_attribute("data-theme", "light")      # the system's (Playwright: light)
    page.locator("#btn-settings").click()
    dialog = page.locator("#dlg-settings")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Blue").check()
    dialog.get_by_label("Dark").check()
    dialog.get_by_label("Coordinates on the board").uncheck()
    dialog.get_by_label("No animation").check()
    expect(root).to_have_attribute("data-board", "blue")
    expect(root).to_have_attribute("data-theme", "dark")
    expect(page.locator("#board coords")).to_have_count(0)
    assert page.evaluate("window.hcApp.state() && document.documentElement.dataset.board") == "blue"
    background = page.locator("#board cg-board").evaluate("e => getComputedStyle(e).backgroundImage")
    assert "conic-gradient" in background
    page.locator("#settings-close").click()
    expect(dialog).to_be_hidden()

    page.reload()
    # Applied before the engine is up (index.html reads them before the first paint).
    expect(root).to_have_attribute("data-board", "blue")
    expect(root).to_have_attribute("data-theme", "dark")
    wait_for_app(page)
    expect(page.locator("#board coords")).to_have_count(0)
    page.locator("#btn-settings").click()
    expect(page.locator("#dlg-settings").get_by_label("No animation")).to_be_checked()
    page.locator("#dlg-settings").get_by_label("As the system").check()
    expect(root).to_have_attribute("data-theme", "light")


def test_damaged_settings_fall_back_to_the_defaults(app_page):
    page = app_page
    page.evaluate("localStorage.setItem('hiddenchess:settings', '{not json')")
    page.reload()
    wait_for_app(page)
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    expect(page.locator("html")).to_have_attribute("data-board", "brown")
    expect(page.locator("#board coords")).not_to_have_count(0)
