// Hidden Chess -- when a friend link gives up on the relays and shows the codes (issue #24),
// checked in Node on RoomLink.noRelay() with a fake Trystero whose sockets the script sets (run
// by tests/test_relay_retry.py): at once when every relay has refused or dropped a connection
// (offline, or all down), after 5 s when some relay is still trying, never while one is open.
// And RoomLink.cutOff(): this device's network gone, not the relays refusing.
// Prints one JSON line: {case: noRelay() or cutOff()}.

const root = new URL('../../', import.meta.url);
const { RoomLink } = await import(new URL('assets/js/signal/room.js', root).href);

let sockets = {};
function link(startedMsAgo) {
  const l = Object.create(RoomLink.prototype);
  Object.assign(l, {
    relays: ['wss://a.example', 'wss://b.example'],
    trystero: { getRelaySockets: () => sockets },
    started: Date.now() - startedMsAgo,
    failedRelays: new Set(),
    silent: new Set(),
    reachedAt: 0,
  });
  return l;
}
const ws = (a, b) => ({ 'wss://a.example': { readyState: a }, 'wss://b.example': { readyState: b } });
const out = {};
let l = link(100);
sockets = ws(0, 0); out.bothConnecting = l.noRelay();
sockets = ws(3, 0); out.oneRefusedOneConnecting = l.noRelay();
// a's retry is connecting again, b refuses: each relay has refused once, none is open.
sockets = ws(0, 3); out.eachRefusedOnce = l.noRelay();
sockets = ws(1, 3); out.oneOpen = l.noRelay();
l = link(6000);
sockets = ws(0, 0); out.stillConnectingAfter6s = l.noRelay();
sockets = ws(1, 0); out.openAfter6s = l.noRelay();
out.state = l.relayState();
// cutOff(): a relay was reached, none is now, and each went silent (not refused).
l = link(60000);
l.reachedAt = Date.now() - 30000;
sockets = ws(3, 3); out.refusedIsNotCut = l.cutOff();
l.silent = new Set(l.relays);
sockets = ws(0, 0); out.silentIsCut = l.cutOff();
sockets = ws(1, 0); out.openIsNotCut = l.cutOff();
sockets = ws(0, 0); out.openSinceIsNotCut = l.cutOff(); // (a was open since: it is not silent any more)
l.reachedAt = 0;
out.neverReachedIsNotCut = l.cutOff();
console.log(JSON.stringify(out));
