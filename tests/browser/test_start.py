"""What a newcomer meets (issue 14): the start screen on a first visit and from the logo, its
one-click starts for every variant, "Continue your game", the rules pages with the examples
stepped through on real boards, and the first-game hint (dismissed once, remembered).
Desktop (1280x800) and phone (390x844)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from .conftest import (FirstVisits, discard_after, hold_engine, saved_preview, state, wait_for_app,
                       wait_for_preview)

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
VARIANTS = ["standard", "royal-pawn", "secret-pawn", "reveal", "hidden-identity"]


@pytest.fixture(scope="module")
def first_visits(browser, site):
    """One :class:`FirstVisits` pool a size, for the module."""
    pools = {}
    for size, (width, height) in SIZES.items():
        context = browser.new_context(service_workers="block", viewport={"width": width, "height": height},
                                      first_visit=True)
        pools[size] = FirstVisits(context, site.url("/"))
    try:
        yield pools
    finally:
        for pool in pools.values():
            pool.close()


@pytest.fixture(params=list(SIZES))
def fresh(first_visits, site, request):
    """A first visit at each size: empty storage, the start screen up once Python is."""
    pool = first_visits[request.param]
    page = pool.borrow()
    errors = []

    def on_error(error):
        errors.append(str(error))

    page.on("pageerror", on_error)
    try:
        page.goto(site.url("/index.html"))
        wait_for_app(page)
        yield page
        assert errors == [], errors
        assert pool.blocked == [], pool.blocked
    finally:
        page.remove_listener("pageerror", on_error)


def card(page, variant):
    return page.locator(f'.variant-card[data-variant="{variant}"]')


def test_first_visit_shows_the_variants_and_each_starts_in_one_click(fresh):
    page = fresh
    start = page.locator("#start")
    expect(start).to_be_visible()
    expect(page.locator(".variant-card")).to_have_count(len(VARIANTS))
    for variant in VARIANTS:
        c = card(page, variant)
        expect(c.locator(".variant-card-how")).not_to_be_empty()
        expect(c.get_by_role("button", name="Play on this device")).to_be_visible()
        expect(c.get_by_role("link", name="Rules")).to_be_visible()
    expect(page.locator("#start-continue")).to_be_hidden()     # nothing going yet
    expect(page.locator("#start-games")).to_have_text("Your games")  # (the untouched board is no game yet)

    # One click each: against the computer, then on this device; the logo brings the screen back.
    for variant in VARIANTS:
        card(page, variant).get_by_role("button", name="Play the computer").click()
        expect(start).to_be_hidden()
        st = state(page)
        assert st["variant"]["id"] == variant and st["computer"] is not None, variant
        page.locator(".brand").click()
        expect(start).to_be_visible()
        card(page, variant).get_by_role("button", name="Play on this device").click()
        expect(start).to_be_hidden()
        st = state(page)
        assert st["variant"]["id"] == variant and st["computer"] is None and st["peer"] is None
        page.locator(".brand").click()
        expect(start).to_be_visible()

    # A game going: "Continue your game" goes back to it, unchanged.
    card(page, "standard").get_by_role("button", name="Play on this device").click()
    page.evaluate("window.hcApp.call('move', {orig: 'e2', dest: 'e4'})")
    game = state(page)["gameId"]
    page.locator(".brand").click()
    expect(page.locator("#start-continue")).to_be_visible()
    expect(page.locator("#start-games")).to_have_text("Your games (1 in progress, 0 finished)")
    page.get_by_role("button", name="Continue your game").click()
    expect(start).to_be_hidden()
    assert state(page)["gameId"] == game and len(state(page)["moves"]) == 1

    # "More options…" is the long form.
    page.locator(".brand").click()
    page.get_by_role("button", name="More options…").click()
    expect(page.locator("#dlg-new")).to_be_visible()


def test_continue_your_game_counts_moves_as_the_games_screen_does(fresh):
    """QA (2026-12-07): "Continue your game" said "Standard · 8 moves" for four moves (it counted
    plies), and "1 moves" for one, where the Games screen said "4 moves", "1 move"."""
    page = fresh
    card(page, "standard").get_by_role("button", name="Play on this device").click()
    for orig, dest in (("e2", "e4"), ("e7", "e5"), ("g1", "f3")):
        page.evaluate(f"window.hcApp.call('move', {{orig: '{orig}', dest: '{dest}'}})")
    page.locator(".brand").click()
    expect(page.locator("#start-continue-text")).to_have_text("Standard · 2 moves")
    # Before the first move, what is going on (it said "0 moves" while the secrets were chosen).
    card(page, "secret-pawn").get_by_role("button", name="Play on this device").click()
    page.locator(".brand").click()
    expect(page.locator("#start-continue-text")).to_have_text("Secret Pawn · setting up")


def test_the_new_game_dialog_keeps_start_game_on_screen(fresh):
    """QA (2026-12-07): on a 1280x800 desktop the New game form against the computer is 1636 px
    long, and Start game stood 900 px below the dialog's foot; a phone's dialog kept it there."""
    page = fresh
    page.get_by_role("button", name="More options…").click()
    expect(page.locator("#dlg-new")).to_be_visible()
    page.locator("#form-new label:has(input[name=mode][value=computer])").click()
    expect(page.locator("#new-start")).to_be_in_viewport(ratio=1)
    # ... with the row's own padding below it, not flush with the dialog's edge (QA)
    gap = page.evaluate("document.getElementById('dlg-new').getBoundingClientRect().bottom"
                        " - document.getElementById('new-start').getBoundingClientRect().bottom")
    assert gap >= 10, gap


def test_a_reload_goes_straight_to_the_board(fresh, site):
    page = fresh
    card(page, "secret-pawn").get_by_role("button", name="Play the computer").click()
    page.reload()
    page.wait_for_function("window.hcReady === true && window.hcApp.state() !== null")
    page.wait_for_timeout(300)
    expect(page.locator("#start")).to_be_hidden()
    assert state(page)["variant"]["id"] == "secret-pawn"


def test_the_secret_pawn_rules_page_steps_through_its_six_examples(fresh):
    page = fresh
    card(page, "secret-pawn").get_by_role("link", name="Rules").click()
    rules = page.locator("#rules")
    expect(rules).to_be_visible()
    expect(page.locator("#rules-title")).to_have_text("Secret Pawn: the rules")
    examples = rules.locator(".rules-example")
    expect(examples).to_have_count(6)
    # Example 3: a rook move reveals the pawn on c4; the board shows it, the text says it.
    ex = examples.nth(2)
    ex.scroll_into_view_if_needed()
    expect(ex.locator(".cg-custom-svgs .necktie-hidden")).to_have_count(1)
    # (QA: "Start position" was said of every example, though few start from a game's start)
    expect(ex.locator(".rules-step")).to_have_text("White to move. Step through the move.")
    ex.get_by_role("button", name="Next ▶").click()
    expect(ex.locator(".rules-step")).to_have_text("After Rh4 **c4 — revealed: c4.")
    expect(ex.locator("square.reveal")).to_have_count(1)
    expect(ex.locator(".cg-custom-svgs .necktie-revealed")).to_have_count(1)
    expect(ex.get_by_role("button", name="Next ▶")).to_be_disabled()
    ex.get_by_role("button", name="◀ Back").click()
    expect(ex.locator(".rules-step")).to_have_text("White to move. Step through the move.")
    # Example 4: the shared threat keeps the pawn hidden.
    ex = examples.nth(3)
    ex.scroll_into_view_if_needed()
    ex.get_by_role("button", name="Next ▶").click()
    expect(ex.locator(".rules-step")).to_have_text("After Rh4.")
    expect(ex.locator(".cg-custom-svgs .necktie-revealed")).to_have_count(0)
    # Back closes the page and returns to the start screen.
    page.locator("#rules-back").click()
    expect(rules).to_be_hidden()
    expect(page.locator("#start")).to_be_visible()


def test_a_rules_page_ends_with_links_to_the_documents_which_open_in_a_new_tab(fresh):
    page = fresh
    card(page, "reveal").get_by_role("link", name="Rules").click()
    more = page.locator("#rules .rules-more")
    more.scroll_into_view_if_needed()
    links = more.get_by_role("link")
    expect(links).to_have_count(3)
    assert [links.nth(i).get_attribute("href") for i in range(3)] == [
        "docs/RULES.md", "docs/PLAYING.md", "docs/PEER.md"]
    with page.context.expect_page() as opened:
        more.get_by_role("link", name="The rules as implemented, with our rulings").click()
    doc = opened.value
    doc.wait_for_load_state()
    # The document is shown as text (not downloaded), and the game's tab stays where it was.
    assert doc.url.endswith("/docs/RULES.md")
    expect(doc.locator("body")).to_contain_text("## Reveal Chess")
    doc.close()
    expect(page.locator("#rules")).to_be_visible()


def test_the_royal_pawn_page_warns_and_the_first_game_hint_is_remembered(fresh):
    page = fresh
    card(page, "royal-pawn").get_by_role("link", name="Rules").click()
    expect(page.locator("#rules-warning")).to_contain_text("1.e4 d5+ 2.e5 Nc6 is checkmate")
    ex = page.locator("#rules .rules-example").first
    # The check glow on the royal pawn (QA: it sat on White's king, which is not royal here).
    for ply, square in enumerate((None, "e4", None, "e5"), start=1):
        ex.get_by_role("button", name="Next ▶").click()
        expect(ex).to_have_attribute("data-ply", str(ply))
        page.wait_for_function("([el, sq]) => [...el.querySelectorAll('square.check')].map(e => e.cgKey)"
                               ".join() === (sq || '')", arg=[ex.element_handle(), square])
    expect(ex.locator(".rules-step")).to_contain_text("Checkmate — Black wins")
    page.keyboard.press("Escape")
    expect(page.locator("#rules")).to_be_hidden()

    card(page, "royal-pawn").get_by_role("button", name="Play on this device").click()
    hint = page.locator("#hint")
    expect(hint).to_be_visible()
    expect(hint).to_contain_text("royal pawn is the crowned e-pawn")
    page.get_by_role("button", name="Got it").click()
    expect(hint).to_be_hidden()
    page.evaluate("window.hcApp.call('new_game', {variant: 'royal-pawn'})")
    page.wait_for_timeout(200)
    expect(hint).to_be_hidden()                                # dismissed once, remembered
    page.evaluate("window.hcApp.call('new_game', {variant: 'reveal'})")
    expect(hint).to_be_visible()                               # another variant's own hint
    expect(hint).to_contain_text("covered piece")


#: Installed before the page's scripts: what the page showed when it marked its preview.
PREVIEW_PROBE = """
document.addEventListener('DOMContentLoaded', () => {
  new MutationObserver(() => {
    if (document.body.dataset.preview !== 'true' || window.__preview) return;
    window.__preview = {
      ready: !!window.hcReady,
      moves: Array.from(document.querySelectorAll('#moves .san')).map(e => e.textContent),
      title: document.getElementById('game-title').textContent,
      loading: getComputedStyle(document.getElementById('loading')).display !== 'none',
      clocks: Array.from(document.querySelectorAll('.clock')).map(e => e.textContent.trim()),
    };
  }).observe(document.body, {attributes: true, attributeFilter: ['data-preview']});
});
"""


def slow_engine(page, seconds: float = 6) -> None:
    """Hold the engine back on the next loads until the page has drawn its preview (at most
    ``seconds``, or until the page has said it has no preview to draw, ``data-preview="none"``): a
    reload with a warm cache can bring Python up before the page's own modules, and then there is
    nothing to preview. Held in the page (its fetch of py.zip, which Python
    needs to start, answers late), not by a route that sleeps: Playwright's handler would hold
    every other request of the page meanwhile. A page that never draws a preview still gets its
    engine, late, and the test fails on what it saw."""
    page.add_init_script(hold_engine("document.body && ['true', 'none'].includes(document.body.dataset.preview)",
                                     int(seconds * 1000)))
    discard_after(page)


def test_a_reload_draws_the_saved_game_before_the_engine_is_ready(fresh):
    page = fresh
    page.locator("#start-close").click()
    page.evaluate("window.hcApp.call('new_game', {variant: 'royal-pawn', clock: '5+3'})")
    for uci in ("d2d3", "d7d6", "f2f3"):
        page.evaluate(f"window.hcApp.call('move', {{orig: '{uci[:2]}', dest: '{uci[2:]}'}})")
    wait_for_preview(page, "s => s.moves.length === 3")
    page.add_init_script(PREVIEW_PROBE)
    slow_engine(page)
    page.reload()
    page.wait_for_function("window.hcReady === true && window.hcApp.state() !== null")
    seen = page.evaluate("window.__preview")
    assert seen is not None, "no preview was drawn"
    assert seen["ready"] is False                       # before the engine was up
    assert seen["moves"] == ["d3", "d6", "f3"] and seen["title"] == "Royal Pawn · 5+3"
    assert seen["loading"]                              # marked as loading
    assert all(seen["clocks"])
    # Then the real game, the same one, playable; the preview mark is gone.
    expect(page.locator("body")).to_have_attribute("data-preview", "false")
    assert [m["san"] for m in state(page)["moves"]] == ["d3", "d6", "f3"]
    # A preview never outlives its save: another game saved elsewhere is not drawn from it.
    page.evaluate("""() => { const k = 'hiddenchess.game.' + window.hcApp.state().gameId;
        localStorage.setItem(k, localStorage.getItem(k).replace(/"rev":(\\d+)/, (m, n) => `"rev":${+n + 7}`)); }""")
    page.evaluate("window.__preview = undefined")
    page.reload()
    page.wait_for_function("window.hcReady === true && window.hcApp.state() !== null")
    assert page.evaluate("window.__preview") is None


def test_a_reload_never_shows_a_board_a_player_held_on_one_device(fresh):
    """Secret Pawn on one device: White looks at its board (its secret pawns), then the page is
    reloaded: the preview shows no board with White's neckties (the device is handed over again)."""
    page = fresh
    page.locator("#start-close").click()
    page.evaluate("window.hcApp.call('new_game', {variant: 'secret-pawn'})")
    for seat, squares in (("white", "['d2', 'e2']"), ("black", "['c7', 'f7']")):
        page.evaluate(f"window.hcApp.call('show_board', {{seat: '{seat}'}})")
        page.evaluate(f"window.hcApp.call('seal', {{squares: {squares}}})")
    page.evaluate("window.hcApp.call('show_board', {})")          # White holds the device
    page.evaluate("window.hcApp.call('move', {orig: 'e2', dest: 'e4'})")
    page.evaluate("window.hcApp.call('show_board', {})")          # Black holds it now
    page.wait_for_timeout(600)
    saved = saved_preview(page)
    assert saved is None or saved["state"]["viewer"] not in ("white", "black")
    assert "c7" not in json.dumps(saved["state"].get("secrets")) if saved else True
    page.add_init_script(PREVIEW_PROBE)
    discard_after(page)
    page.reload()
    page.wait_for_function("window.hcReady === true && window.hcApp.state() !== null")
    st = state(page)
    assert st["handover"] is not None                          # the device is handed over again


def test_the_start_screen_offers_level_colour_and_clock_and_remembers_them(fresh):
    page = fresh
    row = page.locator("#start-choices")
    expect(row).to_be_visible()
    # One row: the three choices side by side, above the cards.
    tops = [page.locator(sel).bounding_box()["y"] for sel in ("#start-level", "#start-color", "#start-clock")]
    assert max(tops) - min(tops) < 2, tops
    # Each choice shows whole (QA: beside a longer note, "2 · Casual ≈13" and "No clo" on a desktop).
    cut = page.evaluate("""() => ['start-level', 'start-color', 'start-clock'].filter(id => {
      const el = document.getElementById(id), cs = getComputedStyle(el);
      const ctx = document.createElement('canvas').getContext('2d');
      ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      const text = ctx.measureText(el.options[el.selectedIndex].text).width;
      return el.clientWidth < text + parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight) + 16;
    })""")
    assert cut == [], cut
    # The one-click default: level 2, White, no clock.
    expect(page.locator("#start-level")).to_have_value("2")
    expect(page.locator("#start-color")).to_have_value("white")
    expect(page.locator("#start-clock")).to_have_value("none")
    card(page, "standard").get_by_role("button", name="Play the computer").click()
    st = state(page)
    assert st["computer"]["level"] == 2 and st["computer"]["seat"] == "black" and st["clock"] is None

    page.locator(".brand").click()
    page.locator("#start-level").select_option("4")
    page.locator("#start-color").select_option("black")
    page.locator("#start-clock").select_option("5+3")
    card(page, "royal-pawn").get_by_role("button", name="Play the computer").click()
    st = state(page)
    assert st["variant"]["id"] == "royal-pawn"
    assert st["computer"]["level"] == 4 and st["computer"]["seat"] == "white"
    assert st["clock"]["label"] == "5+3"

    # Remembered across a reload, in the row and as the New game dialog's defaults.
    page.reload()
    page.wait_for_function("window.hcReady === true && window.hcApp.state() !== null")
    page.evaluate("window.hcApp.call('new_game', {})")  # a game on this device: the dialog's defaults are the choice's
    page.locator(".brand").click()
    expect(page.locator("#start-level")).to_have_value("4")
    expect(page.locator("#start-color")).to_have_value("black")
    expect(page.locator("#start-clock")).to_have_value("5+3")
    page.get_by_role("button", name="More options…").click()
    dialog = page.locator("#dlg-new")
    expect(dialog).to_be_visible()
    dialog.locator("label.choice:has(input[name=mode][value=computer])").click()
    expect(dialog.locator("input[name=level][value='4']")).to_be_checked()
    expect(dialog.locator("input[name=color][value=black]")).to_be_checked()
    expect(dialog.locator("input[name=clock][value='5+3']")).to_be_checked()
    # A choice made in the dialog is remembered for the start screen too.
    dialog.locator("label.choice:has(input[name=level][value='1'])").click()
    dialog.locator("label.choice:has(input[name=clock][value=none])").click()
    page.locator("#new-start").click()
    expect(dialog).to_be_hidden()
    st = state(page)
    assert st["computer"]["level"] == 1 and st["clock"] is None
    page.locator(".brand").click()
    expect(page.locator("#start-level")).to_have_value("1")
    expect(page.locator("#start-clock")).to_have_value("none")
    expect(page.locator("#start-color")).to_have_value("black")
    # "Invite a friend" takes the colour and the clock too (QA: it always made a 5+3 game as White).
    page.locator("#start-clock").select_option("3+2")
    card(page, "standard").get_by_role("button", name="Invite a friend").click()
    expect(page.locator("#start")).to_be_hidden()
    invite = state(page)["peer"]["invite"]
    assert invite["c"] == [180, 2] and invite["h"] == "black" and invite["v"] == "standard"


def test_the_new_game_dialog_defaults_to_the_one_click_choice(fresh):
    page = fresh
    page.get_by_role("button", name="More options…").click()
    dialog = page.locator("#dlg-new")
    dialog.locator("label.choice:has(input[name=mode][value=computer])").click()
    expect(dialog.locator("input[name=level][value='2']")).to_be_checked()
    expect(dialog.locator("input[name=color][value=white]")).to_be_checked()
    expect(dialog.locator("input[name=clock][value=none]")).to_be_checked()



def test_each_level_shows_its_approximate_rating_on_the_start_screen_and_in_the_dialog(fresh):
    """Issue 27: the approximate rating beside each level, as lichess shows it, the same numbers
    in the start screen's menu and the dialog's badges, rising with the level."""
    page = fresh
    options = page.locator("#start-level option").all_text_contents()
    assert [o.split(" · ")[0] for o in options] == ["1", "2", "3", "4", "5"], options
    menu = []
    for text in options:
        name, sep, rating = text.rpartition(" ≈")
        assert sep and rating.isdigit() and name.count(" · ") == 1, text
        menu.append(int(rating))
    assert all(a < b for a, b in zip(menu, menu[1:])), menu
    assert 600 <= menu[0] and menu[-1] <= 2500, menu
    # Whichever level is chosen, its name and rating fit the closed menu (a phone's narrow row):
    # the text's width plus the padding and the arrow (about 28 px) within the menu's.
    room, widths = page.evaluate("""(() => {
      const s = document.getElementById('start-level');
      const c = document.createElement('canvas').getContext('2d');
      c.font = getComputedStyle(s).font;
      return [s.clientWidth, [...s.options].map(o => c.measureText(o.textContent).width)];
    })()""")
    assert max(widths) + 28 <= room, (room, widths)
    page.get_by_role("button", name="More options…").click()
    dialog = page.locator("#dlg-new")
    dialog.locator("label.choice:has(input[name=mode][value=computer])").click()
    badges = []
    for level in range(1, 6):
        choice = dialog.locator(f"label.choice:has(input[name=level][value='{level}'])")
        badge = choice.locator(".level-rating")
        expect(badge).to_be_visible()
        badges.append(int(badge.text_content().lstrip("≈")))
        # Beside the name, inside the choice's box (not cut off on a phone).
        outer, inner = choice.bounding_box(), badge.bounding_box()
        assert outer["x"] <= inner["x"] and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        assert "Stockfish" in badge.get_attribute("title")
    assert badges == menu

#: Every frame until the engine is up: the title, the board, and (once the preview is drawn) its
#: neckties and whether the "loading" pill covers the board's first rank.
FRAME_PROBE = """(() => {
  window.__frames = [];
  const look = () => {
    const title = document.getElementById('game-title');
    const board = document.querySelector('#board cg-board');
    const pill = document.getElementById('loading-text');
    let coversRank1 = null;
    if (board && pill && document.body && document.body.dataset.preview === 'true') {
      const b = board.getBoundingClientRect(), p = pill.getBoundingClientRect();
      const rank1 = {top: b.bottom - b.height / 8, bottom: b.bottom, left: b.left, right: b.right};
      coversRank1 = p.width > 0 && p.bottom > rank1.top && p.top < rank1.bottom && p.right > rank1.left && p.left < rank1.right;
    }
    window.__frames.push({
      title: title ? title.textContent : null,
      fen: window.hcApp ? window.hcApp.boardFen() : null,
      preview: document.body ? document.body.dataset.preview || null : null,
      ties: document.querySelectorAll('#board .cg-custom-svgs g[cgHash]').length,
      coversRank1,
    });
    if (!window.hcReady) requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})();"""


def test_a_reload_shows_the_saved_game_at_once_with_its_marks(fresh, request):
    """Never the start position titled "Standard" first; the preview has the saved game's marks
    (the player's own neckties), and on a phone its "loading" pill leaves rank 1 free."""
    page = fresh
    page.locator("#start-close").click()
    page.evaluate("window.hcApp.call('new_game', {variant: 'secret-pawn', mode: 'computer', level: 1, color: 'white'})")
    page.evaluate("window.hcApp.call('seal', {squares: ['d2', 'e2']})")
    page.evaluate("window.hcApp.call('move', {orig: 'e2', dest: 'e4'})")
    page.wait_for_function("window.hcApp.state().moves.length === 2", timeout=90_000)  # the computer's reply
    wait_for_preview(page, "s => s.moves.length === 2")
    saved = saved_preview(page)["state"]
    assert saved["secrets"]["own"] == ["d2", "e4"]
    page.add_init_script(FRAME_PROBE)
    slow_engine(page, 20)   # (released as soon as the preview is drawn; a loaded machine needs long)
    page.reload()
    page.wait_for_function("window.hcReady === true && window.hcApp.state() !== null")
    frames = page.evaluate("window.__frames")
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    assert not [f for f in frames if f["title"] == "Standard" or f["fen"] == start], frames[:5]
    shown = [f for f in frames if f["preview"] == "true"]
    assert shown, "no preview was drawn"
    assert all(f["title"] == "Secret Pawn · no clock" for f in shown)
    assert max(f["ties"] for f in shown) >= 2, [f["ties"] for f in shown]   # (its neckties on d2, e4)
    if "phone" in request.node.name:
        assert not any(f["coversRank1"] for f in shown), shown


def test_escape_closes_the_start_screen_and_leaves_the_focus_on_the_board(fresh):
    """Shown when the page opens, the start screen gave the focus back to the page's body on
    Escape: the next Tab started from the top of the page (a QA pass). The board takes it."""
    page = fresh
    expect(page.locator("#start")).to_be_visible()
    assert page.evaluate("document.activeElement.closest('#start') !== null")
    page.keyboard.press("Escape")
    expect(page.locator("#start")).to_be_hidden()
    assert page.evaluate("document.activeElement.id") == "board"
