"""A private network namespace for the WebRTC browser tests (peer play, issue #7).

Two browser contexts that talk over real WebRTC need network interfaces that are not
loopback (Chromium never gathers ICE candidates on ``lo``).  This module builds a sealed
network of its own, so nothing the test does can leave the machine:

* a holder process ``unshare -n sleep ...`` owns a new, empty network namespace;
* inside it ``lo`` is brought up and a veth pair ``hc0``/``hc1`` is created with BOTH ends
  in the namespace (``10.23.0.1/24`` and ``10.23.0.2/24``), so ICE finds two real host
  candidates that route to each other and to nothing else;
* the site's HTTP server runs inside the namespace (``nsenter -t PID -n python3 ...``) on
  ``127.0.0.1`` (a secure context, so ``crypto.subtle`` and the clipboard work);
* Chromium runs inside the namespace through a tiny wrapper executable
  (``exec nsenter -t PID -n /usr/bin/chromium "$@"``) that Playwright launches like any
  browser; it gets ``--disable-features=WebRtcHideLocalIpsWithMdns`` so its host candidates
  carry the veth addresses instead of mDNS names (there is no mDNS responder in here).

Creating a namespace needs root (or CAP_SYS_ADMIN + CAP_NET_ADMIN); without it every
fixture here skips with the reason (e.g. "netns: `unshare -n` failed: Operation not permitted").

Fixtures (conftest.py imports them, so one namespace serves the whole test process; a test
module that imported them again would get a namespace and a Chromium of its own)::

    netns       (session) a :class:`NetNs`: ``.pid``, ``.addresses``, ``.run([...])``,
                ``.popen([...])`` (a process inside the namespace, killed at teardown),
                ``.wrapper(path)`` (a wrapper executable that runs ``path`` inside)
    ns_site     (session) the repository served inside the namespace, like ``site``
                (``ns_site.url("/index.html")``; fixture pages as ``/_<name>``)
    ns_browser  (session) Playwright Chromium running inside the namespace
    nostr_relay (function) a real Nostr relay inside the namespace (nostr_relay.cjs, npm
                ``@nostr-relay/*``): ``.url`` (ws://127.0.0.1:7447), ``.stop()``, ``.start()``
                (again on the same port), ``.stats()``; the pages set it with
                ``hiddenchess:relays`` (see :func:`relay_init_script`)

Plain use, outside pytest (e.g. to start another server inside, such as a Nostr relay)::

    ns = NetNs.create()            # raises NetNsUnavailable with the reason
    try:
        proc = ns.popen(["node", "server.js", "--port", "9000"])
        ...
    finally:
        ns.close()                 # kills every process started with popen(), then the holder

``python3 tests/browser/netns.py serve`` (run inside the namespace by :func:`NetNs.serve_site`)
serves the repository like the ``site`` fixture and prints ``port N`` on its first line.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator, List, Optional, Sequence

ROOT = Path(__file__).resolve().parents[2]

#: The two veth ends, both inside the namespace.
VETH = (("hc0", "10.23.0.1/24"), ("hc1", "10.23.0.2/24"))

#: Extra Chromium flag inside the namespace: real host candidates instead of mDNS names.
NS_CHROMIUM_ARGS = ["--disable-features=WebRtcHideLocalIpsWithMdns"]


class NetNsUnavailable(RuntimeError):
    """The namespace could not be created (not root, no ``unshare``/``ip``, ...)."""


class NetNs:
    """A network namespace held open by a sleeping ``unshare -n`` process.

    Build it with :meth:`create`; end it with :meth:`close` (idempotent), which kills every
    process started with :meth:`popen` and then the holder: the namespace disappears with
    its last process, veth pair included.
    """

    def __init__(self, holder: subprocess.Popen, tmpdir: str):
        self.holder = holder
        self.pid = holder.pid
        self.tmpdir = tmpdir
        self.addresses = tuple(addr.split("/")[0] for _, addr in VETH)
        self._procs: List[subprocess.Popen] = []

    # -- creation ------------------------------------------------------------------------
    @classmethod
    def create(cls) -> "NetNs":
        """Create and configure the namespace, or raise :class:`NetNsUnavailable`."""
        for tool in ("unshare", "nsenter", "ip"):
            if shutil.which(tool) is None:
                raise NetNsUnavailable(f"netns: `{tool}` is not installed (util-linux / iproute2)")
        if hasattr(os, "geteuid") and os.geteuid() != 0:
            raise NetNsUnavailable("netns: creating a network namespace needs root")
        holder = subprocess.Popen(["unshare", "-n", "sleep", "1000000"],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, start_new_session=True)
        ns = cls(holder, tempfile.mkdtemp(prefix="hc-netns-"))
        try:
            ns._wait_for_holder()
            # No IPv6 in here: a veth's link-local address finishes its duplicate-address check a
            # second or two after the link is up, and Chromium, seeing the address change, fails
            # what a page is loading with net::ERR_NETWORK_CHANGED (a first page that never starts).
            ns.run(["sh", "-c", "for f in /proc/sys/net/ipv6/conf/all/disable_ipv6 "
                    "/proc/sys/net/ipv6/conf/default/disable_ipv6; do [ -w $f ] && echo 1 > $f; done; true"])
            ns.run(["ip", "link", "set", "lo", "up"])
            (a, addr_a), (b, addr_b) = VETH
            ns.run(["ip", "link", "add", a, "type", "veth", "peer", "name", b])
            ns.run(["ip", "addr", "add", addr_a, "dev", a])
            ns.run(["ip", "addr", "add", addr_b, "dev", b])
            ns.run(["ip", "link", "set", a, "up"])
            ns.run(["ip", "link", "set", b, "up"])
            # A default route, so programs that look for "the" outgoing interface find one.
            ns.run(["ip", "route", "add", "default", "dev", a])
            ns._settle(a, b)
        except Exception as error:
            ns.close()
            if isinstance(error, NetNsUnavailable):
                raise
            raise NetNsUnavailable(f"netns: setup failed: {error}") from None
        return ns

    def _settle(self, *links: str, timeout_s: float = 10) -> None:
        """Until ``links`` are up and no address is still tentative: the namespace's network
        changes no more once a browser starts in it (see above)."""
        deadline = time.monotonic() + timeout_s
        while True:
            shown = self.run(["ip", "-o", "link", "show"]).stdout
            up = all(f"{link}@" in shown and "state UP" in shown.split(f"{link}@", 1)[1].split("\n", 1)[0]
                     for link in links)
            if up and "tentative" not in self.run(["ip", "-o", "addr", "show"]).stdout:
                return
            if time.monotonic() > deadline:
                raise NetNsUnavailable(f"netns: the links did not settle within {timeout_s:.0f} s: {shown}")
            time.sleep(0.05)

    def _wait_for_holder(self) -> None:
        """Until the holder runs in its own namespace (unshare has exec'd sleep)."""
        mine = os.readlink("/proc/self/ns/net")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.holder.poll() is not None:
                err = self.holder.stderr.read().decode(errors="replace").strip()
                raise NetNsUnavailable(f"netns: `unshare -n` failed: {err or 'exit %s' % self.holder.returncode}")
            try:
                if (os.readlink(f"/proc/{self.pid}/ns/net") != mine
                        and os.readlink(f"/proc/{self.pid}/exe").endswith("sleep")):
                    return
            except OSError:
                pass
            time.sleep(0.02)
        raise NetNsUnavailable("netns: the `unshare -n` holder did not start within 10 s")

    # -- running things inside ----------------------------------------------------------
    def command(self, argv: Sequence[str]) -> List[str]:
        """``argv`` prefixed so that it runs inside the namespace."""
        return ["nsenter", "-t", str(self.pid), "-n", *argv]

    def run(self, argv: Sequence[str], **kwargs) -> subprocess.CompletedProcess:
        """Run ``argv`` inside the namespace and wait; raise with its stderr if it fails."""
        proc = subprocess.run(self.command(argv), capture_output=True, text=True, timeout=30,
                              **kwargs)
        if proc.returncode != 0:
            raise NetNsUnavailable(f"netns: `{' '.join(argv)}` failed: {proc.stderr.strip()}")
        return proc

    def popen(self, argv: Sequence[str], **kwargs) -> subprocess.Popen:
        """Start ``argv`` inside the namespace (in its own process group); killed by close()."""
        kwargs.setdefault("stdin", subprocess.DEVNULL)
        proc = subprocess.Popen(self.command(argv), start_new_session=True, **kwargs)
        self._procs.append(proc)
        return proc

    def wrapper(self, program: str, name: str = "chromium") -> str:
        """Path of an executable script that runs ``program`` (with its arguments) inside."""
        path = Path(self.tmpdir) / name
        path.write_text(f'#!/bin/sh\nexec nsenter -t {self.pid} -n {program} "$@"\n')
        path.chmod(0o755)
        return str(path)

    def serve_site(self, timeout_s: float = 30) -> "tuple[subprocess.Popen, str]":
        """Serve the repository inside the namespace; (process, base url like http://127.0.0.1:N)."""
        proc = self.popen([sys.executable, str(Path(__file__).resolve()), "serve"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(ROOT))
        line = _read_line(proc, timeout_s)
        if not line.startswith("port "):
            err = proc.stderr.read().decode(errors="replace") if proc.poll() is not None else ""
            raise NetNsUnavailable(f"netns: the site server did not start: {line!r} {err}")
        return proc, f"http://127.0.0.1:{int(line.split()[1])}"

    # -- teardown ----------------------------------------------------------------------
    def close(self) -> None:
        """Kill what runs inside (each process group we started), then the holder."""
        for proc in reversed(self._procs):
            _kill_group(proc)
        self._procs.clear()
        if self.holder is not None:
            _kill_group(self.holder)
            if self.holder.stderr:
                self.holder.stderr.close()
            self.holder = None
        shutil.rmtree(self.tmpdir, ignore_errors=True)


def _kill_group(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=5)
    for stream in (proc.stdout, proc.stderr):
        if stream:
            stream.close()


def _read_line(proc: subprocess.Popen, timeout_s: float) -> str:
    """The first stdout line of ``proc`` (empty if it exits or times out first)."""
    import selectors

    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    try:
        if sel.select(timeout_s):
            return proc.stdout.readline().decode(errors="replace").strip()
        return ""
    finally:
        sel.close()


# --------------------------------------------------------------------------------------------
# pytest fixtures (conftest.py imports them: one of each per test process)

try:
    import pytest
except ImportError:  # `python3 netns.py serve` does not need pytest
    pytest = None

if pytest is not None:
    @pytest.fixture(scope="session")
    def netns() -> Iterator[NetNs]:
        """A private network namespace with a veth pair (see the module docstring)."""
        try:
            ns = NetNs.create()
        except NetNsUnavailable as error:
            pytest.skip(str(error))
        try:
            yield ns
        finally:
            ns.close()

    @pytest.fixture(scope="session")
    def ns_site(netns):
        """The repository served inside the namespace (same handler as ``site``)."""
        from .conftest import Site, build

        try:
            if build.needs_build(ROOT):
                build.build(ROOT, quiet=True)
        except build.BuildError as error:
            pytest.fail(f"cannot build assets/vendor/: {error}", pytrace=False)
        _, base = netns.serve_site()
        return Site(base)

    @pytest.fixture(scope="session")
    def ns_browser(netns, chromium_path, browser):
        """Playwright Chromium started inside the namespace through a wrapper executable.

        It is launched through the ``browser`` fixture's Playwright instance (one thread
        cannot run two sync Playwright instances), so that browser runs too.
        """
        from .conftest import CHROMIUM_ARGS, logged, quiet_snapshots

        # (warm starts, as for the other browser tests: conftest.SNAPSHOT_SEED; the site server
        # in the namespace serves the snapshots of this test process, HC_TEST_SNAPSHOTS)
        options = logged(netns.wrapper(chromium_path), "netns")
        chromium = quiet_snapshots(browser.browser_type.launch(
            executable_path=options["executable_path"], headless=True,
            args=CHROMIUM_ARGS + NS_CHROMIUM_ARGS + options["args"]))
        try:
            yield chromium
        finally:
            chromium.close()

    @pytest.fixture
    def nostr_relay(netns):
        """A real Nostr relay inside the namespace, stopped after the test."""
        relay = Relay(netns)
        try:
            relay.start()
        except NetNsUnavailable as error:
            pytest.fail(str(error), pytrace=False)
        try:
            yield relay
        finally:
            relay.stop()


#: The local relay's port inside the namespace (the namespace is private: nothing else uses it).
RELAY_PORT = 7447
RELAY_SCRIPT = Path(__file__).resolve().parent / "nostr_relay.cjs"


class Relay:
    """A Nostr relay (``node nostr_relay.cjs``) run inside the namespace, stoppable mid-test."""

    def __init__(self, ns: NetNs, port: int = RELAY_PORT, args: Sequence[str] = ()):
        self.ns = ns
        self.port = port
        self.args = list(args)  # more of nostr_relay.cjs's options (e.g. ["--delay", "2000"])
        self.url = f"ws://127.0.0.1:{port}"
        self.proc: Optional[subprocess.Popen] = None

    def start(self, timeout_s: float = 20) -> "Relay":
        if self.proc is not None and self.proc.poll() is None:
            return self
        node = shutil.which("node")
        if node is None:
            raise NetNsUnavailable("netns: `node` is not installed (the local relay needs Node.js)")
        deadline = time.monotonic() + timeout_s
        while True:  # the port may still be held for a moment after a stop
            self.proc = self.ns.popen([node, str(RELAY_SCRIPT), "--host", "127.0.0.1", "--port", str(self.port), *self.args],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(ROOT))
            line = _read_line(self.proc, max(1.0, deadline - time.monotonic()))
            if line.startswith("listening "):
                return self
            err = self.proc.stderr.read().decode(errors="replace")[-400:] if self.proc.poll() is not None else ""
            _kill_group(self.proc)
            if time.monotonic() > deadline:
                raise NetNsUnavailable(f"netns: the Nostr relay did not start: {line!r} {err}")
            time.sleep(0.3)

    def stop(self) -> None:
        if self.proc is not None:
            _kill_group(self.proc)
            self.proc = None

    def stats(self) -> dict:
        """The relay's counters (connections, messages received/sent, EVENTs, REQs)."""
        import json

        os.kill(self.proc.pid, signal.SIGUSR2)
        line = _read_line(self.proc, 5)
        return json.loads(line.split(" ", 1)[1]) if line.startswith("stats ") else {}


def relay_init_script(urls) -> str:
    """A context init script that points the page at ``urls`` (the relay setting)."""
    import json

    return f"localStorage.setItem('hiddenchess:relays', {json.dumps(json.dumps(list(urls)))})"


# --------------------------------------------------------------------------------------------
# `python3 tests/browser/netns.py serve`: the site server, run inside the namespace

def _serve() -> int:
    # conftest is imported as ``browser.conftest``, as pytest imports it (tests/ on the path):
    # it imports its package's siblings relatively, which a module loaded from its file alone
    # cannot do.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from browser import conftest

    FixtureHandler, build = conftest.FixtureHandler, conftest.build

    server = build.make_server(0, directory=ROOT, handler=FixtureHandler)
    print(f"port {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["serve"]:
        sys.exit(_serve())
    print(__doc__)
    sys.exit(2)
