"""Piece sets and sound sets in Settings (issue 25): five piece sets (assets/pieces/, each with its
licence in LICENSES.md) change every piece of the board and survive a reload; the recorded sounds
(assets/sounds/recorded/) are the default, each event playing its own file, and the synthesised
tones stay a choice, remembered. The sounds are counted on a stubbed AudioContext (test_settings's
notes, plus the buffers decoded and started: told apart by their files' sizes)."""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import expect

from .conftest import ROOT, wait_for_app
from .test_peer_play import shot
from .test_settings import AUDIO_STUB, FIRST_NOTE, play

#: test_settings's stub, plus decoding (a buffer that knows its file's size) and buffer sources.
BUFFER_STUB = AUDIO_STUB + """
window.__played = []; window.__decoded = 0;
window.AudioContext.prototype.decodeAudioData = function (bytes, ok) {
  window.__decoded += 1;
  const buffer = { bytes: bytes.byteLength };
  if (ok) ok(buffer);
  return Promise.resolve(buffer);
};
window.AudioContext.prototype.createBufferSource = function () {
  return { buffer: null, connect() {}, start() { window.__played.push(this.buffer.bytes); } };
};
"""

SETS = ["cburnett", "merida", "celtic", "fantasy", "spatial"]
RECORDED = {name: os.path.getsize(ROOT / "assets" / "sounds" / "recorded" / f"{name}.mp3")
            for name in ("move", "capture", "check", "end")}


@pytest.fixture
def app_page(page, site, recorder):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.add_init_script(BUFFER_STUB)
    page.goto(site.url("/index.html"))
    wait_for_app(page, recorder=recorder)
    page.wait_for_function("window.hcApp.state() !== null && window.hcApp.state().gameId")
    yield page
    assert recorder.page_errors == [], recorder.page_errors
    assert recorder.http_errors == [], recorder.http_errors


def knight_image(page) -> str:
    return page.locator("#board piece.knight.white").first.evaluate(
        "e => getComputedStyle(e).backgroundImage")


def test_each_piece_set_changes_the_board_and_survives_a_reload(app_page):
    page = app_page
    root = page.locator("html")
    expect(root).to_have_attribute("data-pieces", "cburnett")
    assert knight_image(page).startswith('url("data:image/svg+xml')   # chessground's own
    page.locator("#btn-settings").click()
    dialog = page.locator("#dlg-settings")
    seen = {}
    for name in SETS:
        dialog.get_by_label(name.capitalize(), exact=True).check()
        expect(root).to_have_attribute("data-pieces", name)
        image = knight_image(page)
        if name != "cburnett":
            assert re.search(rf'/assets/pieces/{name}/wN\.(svg|png)"\)$', image), image
            # the file is there and is an image
            url = re.search(r'url\("([^"]+)"\)', image).group(1)
            response = page.request.get(url)
            assert response.ok and response.headers["content-type"].startswith("image/"), url
        seen[name] = image
        # every piece on the board is drawn from the set (one rule per role and colour)
        for role in ("pawn", "knight", "bishop", "rook", "queen", "king"):
            for color in ("white", "black"):
                drawn = page.locator(f"#board piece.{role}.{color}").first.evaluate(
                    "e => getComputedStyle(e).backgroundImage")
                if name != "cburnett":
                    assert f"/{name}/{color[0]}{role_letter(role)}." in drawn, (name, role, color, drawn)
        page.locator("#settings-close").click()
        shot(page, f"pieces-{name}")
        page.locator("#btn-settings").click()
    assert len(set(seen.values())) == len(SETS)                          # five different looks
    dialog.get_by_label("Merida", exact=True).check()
    page.locator("#settings-close").click()

    page.reload()
    expect(root).to_have_attribute("data-pieces", "merida")              # before the engine is up
    wait_for_app(page)
    page.wait_for_function("window.hcApp.state() !== null")
    page.wait_for_function("""() => Array.from(document.querySelectorAll('#board piece.knight.white'))
      .some(e => getComputedStyle(e).backgroundImage.endsWith('/assets/pieces/merida/wN.svg")'))""")
    page.locator("#btn-settings").click()
    expect(page.locator("#dlg-settings").get_by_label("Merida", exact=True)).to_be_checked()


def role_letter(role: str) -> str:
    return {"knight": "N"}.get(role, role[0].upper())


def recorded_played(page) -> list:
    by_size = {size: name for name, size in RECORDED.items()}
    return [by_size.get(b, b) for b in page.evaluate("window.__played")]


def clear(page):
    page.evaluate("window.__tones = []; window.__played = []")


def test_recorded_sounds_by_default_and_the_synthesised_ones_as_a_choice(app_page):
    page = app_page
    assert len(set(RECORDED.values())) == 4                               # told apart by size
    page.evaluate("window.hcApp.call('new_game', {})")
    page.locator("#board").dispatch_event("pointerdown")                 # a gesture allows sound
    page.wait_for_function("window.__decoded === 4")
    clear(page)
    play(page, "e2e4", "d7d5", "e4d5")
    assert recorded_played(page) == ["move", "move", "capture"]
    assert page.evaluate("window.__tones") == []
    clear(page)
    play(page, "e7e6", "f1b5")                                           # Bb5+
    assert recorded_played(page) == ["move", "check"]
    page.evaluate("window.hcApp.call('new_game', {})")
    clear(page)
    play(page, "f2f3", "e7e5", "g2g4", "d8h4")                           # the end
    assert recorded_played(page) == ["move", "move", "move", "end"]
    # A reveal has no recording: its tones.
    page.evaluate("window.hcApp.call('new_game', {variant: 'reveal', draws: ['n']})")
    clear(page)
    play(page, "b1c3")
    assert page.evaluate("window.__tones")[:1] == [FIRST_NOTE["reveal"]] and recorded_played(page) == []

    # Settings: the synthesised tones, heard as they are chosen, then for every move.
    page.locator("#btn-settings").click()
    dialog = page.locator("#dlg-settings")
    expect(dialog.get_by_label("Recorded pieces")).to_be_checked()
    clear(page)
    dialog.get_by_label("Synthesised tones").check()
    page.wait_for_function("window.__tones.length > 0")
    assert page.evaluate("window.__tones") == [FIRST_NOTE["move"]] and recorded_played(page) == []
    page.locator("#settings-close").click()
    page.evaluate("window.hcApp.call('new_game', {})")
    clear(page)
    play(page, "e2e4", "d7d5", "e4d5")
    tones = page.evaluate("window.__tones")
    assert [t for t in tones if t in (FIRST_NOTE["move"], FIRST_NOTE["capture"])] == [520, 520, 300]
    assert recorded_played(page) == []

    page.reload()
    wait_for_app(page)
    page.wait_for_function("window.hcApp.state() !== null")
    page.locator("#btn-settings").click()
    expect(page.locator("#dlg-settings").get_by_label("Synthesised tones")).to_be_checked()
    # ...and back: the recording, heard as it is chosen.
    page.evaluate("window.__tones = []; window.__played = []")
    page.locator("#dlg-settings").get_by_label("Recorded pieces").check()
    page.wait_for_function("window.__played.length > 0")
    assert recorded_played(page) == ["move"]


def test_every_piece_set_is_listed_everywhere_with_its_files_and_licence():
    """settings.js (the choices), theme-early.js (before the first paint), index.html (the dialog),
    pieces.css (the images) and LICENSES.md name the same sets, and each set has its 12 files."""
    js = (ROOT / "assets/js/settings.js").read_text()
    listed = re.search(r"export const PIECES = \[([^\]]+)\]", js).group(1)
    assert re.findall(r"'(\w+)'", listed) == SETS
    early = (ROOT / "assets/js/theme-early.js").read_text()
    assert re.findall(r"'(\w+)'", re.search(r"\[('cburnett'[^\]]+)\]", early).group(1)) == SETS
    html = (ROOT / "index.html").read_text()
    assert re.findall(r'name="pieces" value="(\w+)"', html) == SETS
    css = (ROOT / "assets/pieces/pieces.css").read_text()
    licences = (ROOT / "assets/pieces/LICENSES.md").read_text()
    for name in SETS[1:]:
        urls = re.findall(rf":root\[data-pieces=\"{name}\"\] \.cg-wrap piece\.\w+\.\w+ "
                          rf"\{{ background-image: url\('({name}/[wb][PNBRQK]\.\w+)'\); \}}", css)
        assert len(set(urls)) == 12, (name, urls)
        assert all((ROOT / "assets/pieces" / u).stat().st_size > 500 for u in urls)
        assert f"| {name} |" in licences
