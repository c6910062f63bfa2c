"""The browser tests' own harness, where a player's page is not the point: a page the tests share
whose renderer crashed (Playwright's "Target crashed") is not handed to the next test, so one
crash costs one test a rerun, not the rest of the module (conftest.SharedPage, FirstVisits), and
leaves a core that the crash's warning describes (cores.py); each Chromium is launched through a
wrapper that merges its --disable-features (conftest.logged), and opens no address-bar renderer
with each context (conftest.CHROMIUM_ARGS); the namespace's site server starts (netns.py)."""

from __future__ import annotations

import doctest
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from . import cores, netns
from .conftest import CHROMIUM_LOGS, FirstVisits, SharedPage, chromium_log_tail, logged, state, wait_for_app

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


def left_its_core(since: float) -> None:
    """The crashed renderer left its core beside the Chromium logs, and the warnings' log tail
    describes it (on a machine that writes cores to the process's folder; gdb to describe it);
    the core is then removed, since the crash was made on purpose."""
    if not cores.cores_written():
        return
    core = cores.newest_core(CHROMIUM_LOGS)
    assert core is not None and core.stat().st_mtime >= since - 1, core
    try:
        if shutil.which("gdb"):
            tail = chromium_log_tail()
            assert "The newest core: " in tail and "renderer process, SIGSEGV at 0x" in tail, tail
            assert " in chromium+0x" in tail, tail  # (chrome://crash: a null write in Chromium's code)
    finally:
        core.unlink()


def test_what_a_core_says_is_summed_up():
    assert doctest.testmod(cores).failed == 0


def test_a_shared_page_that_crashed_is_opened_again(browser, site):
    started = time.time()
    box = SharedPage(browser, site)
    try:
        first = box.page
        first.evaluate("window.hcApp.call('new_game', {variant: 'reveal'})")
        crash(first, lambda: box.crashed)
        with pytest.raises(Exception, match="crash"):
            first.evaluate("1")
        left_its_core(since=started)
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
    started = time.time()
    pool = FirstVisits(browser.new_context(service_workers="block", first_visit=True), site.url("/"))
    try:
        first = pool.borrow()
        first.goto(site.url("/index.html"))
        wait_for_app(first)
        crash(first, lambda: getattr(first, "_hc_discard", False))
        left_its_core(since=started)
        again = pool.borrow()
        assert again is not first
        again.goto(site.url("/index.html"))
        wait_for_app(again)
        assert pool.blocked == []
    finally:
        pool.close()


def test_a_device_page_that_crashed_while_starting_opens_again_with_its_own_scripts(browser, site):
    # A peer test's device reopens a page whose renderer crashed while starting in a new tab of
    # its context (test_peer_play.Device.open). That tab needs the init scripts the crashed page
    # had of its own (test_peer_store.py holds Python back with one): without them the test went
    # on with a page that did not do what it checks (2026-12-04).
    from . import conftest
    from .test_peer_play import Device

    started = time.time()
    device = Device(browser, site, "harness")
    pages = []

    def crash_first(page, timeout_ms):
        pages.append(page)
        if len(pages) == 1:
            crashed = []
            page.on("crash", lambda _: crashed.append(True))
            crash(page, lambda: bool(crashed))
            page.evaluate("1")  # (Target crashed)
        wait_for_app(page)

    try:
        device.page = device.new_page(["window.hcOwnScript = 'ran'"])
        with pytest.warns(UserWarning, match="crashed while starting"):
            device.open(ready=crash_first)
        assert len(pages) == 2 and pages[1] is device.page and pages[0].is_closed()
        assert device.page.evaluate("window.hcOwnScript") == "ran"
        assert device.page_scripts == ["window.hcOwnScript = 'ran'"]
        left_its_core(since=started)
    finally:
        conftest._recovered.remove("harness's page")  # (made on purpose: no logs kept for it)
        device.context.close()


def test_a_device_page_that_stalled_while_starting_opens_its_address_again(browser, site):
    # A start that stalls is opened again at the address the test gave, as a new document. A
    # reload would keep the address the page is at, and the page drops an invite link's
    # "#join=..." once it has read it: the guest of test_hidden_identity_with_a_friend then
    # offered a link of its own instead of answering the invite, and the host waited in vain
    # (CI, 2026-12-04).
    from .test_peer_play import Device

    device = Device(browser, site, "harness")
    url = site.url("/index.html#harness=1")
    pages = []

    def stall_first(page, timeout_ms):
        pages.append(page)
        wait_for_app(page)
        if len(pages) == 1:
            # (as the app does with a link it has read: the address loses its hash)
            page.evaluate("window.hcStalled = true; history.replaceState(null, '', location.pathname)")
            raise PlaywrightTimeout("the start stalled (made on purpose)")

    try:
        with pytest.warns(UserWarning, match="opening a stalled start again"):
            device.open(url, ready=stall_first)
        assert len(pages) == 2 and pages[1] is device.page
        assert device.page.evaluate("window.hcStalled") is None  # a new document
        assert device.page.evaluate("performance.getEntriesByType('navigation')[0].name") == url
    finally:
        device.context.close()


def test_the_wrapper_merges_every_disable_features_into_one(tmp_path):
    # Chromium honours only the last --disable-features: Playwright passes its own list, the
    # suite another, the network namespace a third.
    echo = tmp_path / "echo-args"
    echo.write_text('#!/bin/sh\nfor arg in "$@"; do echo "$arg"; done\n')
    echo.chmod(0o755)
    options = logged(str(echo), "wrapper-test")
    out = subprocess.run([options["executable_path"], "--a", "--disable-features=P1,P2", "two words",
                          "--disable-features=Ours", "--b=c d", "--disable-features=Ns"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert out == ["--disable-features=P1,P2,Ours,Ns", "--a", "two words", "--b=c d"]
    out = subprocess.run([options["executable_path"], "--a"], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["--a"]


def test_a_new_context_opens_only_its_page(browser, site):
    chromium = browser._all[-1]
    cdp = chromium.new_browser_cdp_session()
    context = browser.new_context(service_workers="block")
    try:
        page = context.new_page()
        page.goto(site.url("/index.html"))
        targets = cdp.send("Target.getTargets")["targetInfos"]
        assert not [t["url"] for t in targets if "omnibox" in t["url"]], targets
        # (the browser's command line: one --disable-features, Playwright's and the suite's)
        pid = next(p["id"] for p in cdp.send("SystemInfo.getProcessInfo")["processInfo"]
                   if p["type"] == "browser")
        args = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
        disabled = [a for a in args if a.startswith("--disable-features=")]
        assert len(disabled) == 1, disabled
        assert {"WebUIOmniboxPopup", "PaintHolding"} <= set(disabled[0].split("=", 1)[1].split(","))
    finally:
        context.close()
        cdp.detach()


def test_the_namespace_site_server_starts_as_a_script():
    # netns.py runs itself as a script inside the namespace to serve the site (netns.ns_site); it
    # imports conftest as a package module, so the sibling modules conftest imports resolve. Run
    # here, outside any namespace, its failure is one test's, not every peer test's set-up error.
    proc = subprocess.Popen([sys.executable, netns.__file__, "serve"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=str(netns.ROOT))
    try:
        line = netns._read_line(proc, 30)
        err = proc.stderr.read().decode(errors="replace") if proc.poll() is not None else ""
        assert line.startswith("port "), (line, err)
        port = int(line.split()[1])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html", timeout=10) as answer:
            assert answer.status == 200 and b"Hidden Chess" in answer.read()
    finally:
        proc.kill()
        proc.wait()
